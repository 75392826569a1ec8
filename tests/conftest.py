"""Shared pytest setup: hypothesis profiles and one summary line per conformance suite.

A test opts into a summary with `pytest.mark.conformance("label")`; at the end of the
session each label gets one line: `label: P passed, F expected failures of N`.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import settings

# `ci` is what `make test` runs: reproducible, and large enough to find rare shapes.
settings.register_profile("ci", derandomize=True, max_examples=600, deadline=None)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

_labels: dict[str, str] = {}  # node id -> conformance label
_outcomes: dict[str, Counter] = {}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "conformance(label): count this test in the summary line of `label`"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("conformance")
        if marker is not None:
            _labels[item.nodeid] = marker.args[0]
            _outcomes.setdefault(marker.args[0], Counter())


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    label = _labels.get(report.nodeid)
    if label is None:
        return
    if report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        _outcomes[label]["passed"] += 1
    elif report.skipped and hasattr(report, "wasxfail"):
        _outcomes[label]["xfailed"] += 1


def pytest_terminal_summary(terminalreporter) -> None:
    for label, outcomes in _outcomes.items():
        total = sum(1 for node_label in _labels.values() if node_label == label)
        terminalreporter.write_line(
            f"{label}: {outcomes['passed']} passed, "
            f"{outcomes['xfailed']} expected failures of {total}"
        )
