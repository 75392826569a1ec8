"""Shared pytest setup: hypothesis profiles and one summary line per conformance suite.

A test opts into a summary with `pytest.mark.conformance("label")`; at the end of the
session each label gets one line: `label: P passed, F expected failures of N`. A suite that
wants its own wording passes `line=`: a function of the label's outcome counts (`passed`,
`xfailed`, `failed`, `skipped`) and its number of tests, returning the text after `label: `.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import settings

# `ci` is what `make test` runs: reproducible, and large enough to find rare shapes.
settings.register_profile("ci", derandomize=True, max_examples=300, deadline=None)
settings.register_profile("dev", max_examples=150, deadline=None)
# `make fuzz`: long runs of the property tests, new examples each time.
settings.register_profile("fuzz", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

_labels: dict[str, str] = {}  # node id -> conformance label
_outcomes: dict[str, Counter] = {}
_lines: dict[str, Callable[[Counter, int], str]] = {}  # label -> its own summary wording
_failed: set[str] = set()  # node ids counted as failed (once, whatever the phase)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "conformance(label, line=None): count this test in the summary line of `label`",
    )
    config.addinivalue_line(
        "markers",
        "dbt_core: renders dbt projects with dbt itself, asked for by name (`--dbt-renderer dbt`, "
        "`DbtOptions(renderer='dbt')`): dbt compiles a project for tens of seconds",
    )


    # dbt's renderings are cached for the session, away from the user's cache.
    os.environ["SORTLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="sortlint-test-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.pop("SORTLINT_CACHE_DIR", ""), ignore_errors=True)


@pytest.fixture(autouse=True)
def _dbt_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test renders dbt models with the built-in renderer, the default, unless it asks
    for dbt by name: a developer's own $SORTLINT_DBT_RENDERER does not reach it."""
    monkeypatch.delenv("SORTLINT_DBT_RENDERER", raising=False)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("conformance")
        if marker is not None:
            _labels[item.nodeid] = marker.args[0]
            _outcomes.setdefault(marker.args[0], Counter())
            if marker.kwargs.get("line") is not None:
                _lines[marker.args[0]] = marker.kwargs["line"]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    label = _labels.get(report.nodeid)
    if label is None:
        return
    if report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        _outcomes[label]["passed"] += 1
    elif report.skipped and hasattr(report, "wasxfail"):
        _outcomes[label]["xfailed"] += 1
    elif report.skipped:
        _outcomes[label]["skipped"] += 1
    elif report.failed and report.nodeid not in _failed:
        _failed.add(report.nodeid)
        _outcomes[label]["failed"] += 1


def pytest_terminal_summary(terminalreporter) -> None:
    for label, outcomes in _outcomes.items():
        total = sum(1 for node_label in _labels.values() if node_label == label)
        if label in _lines:
            terminalreporter.write_line(f"{label}: {_lines[label](outcomes, total)}")
            continue
        terminalreporter.write_line(
            f"{label}: {outcomes['passed']} passed, "
            f"{outcomes['xfailed']} expected failures of {total}"
        )
