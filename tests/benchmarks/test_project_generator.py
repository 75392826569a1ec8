"""The large dbt project `benchmarks/dbt_project.py` generates for `project_scale.py`: the
same seed gives the same bytes, the full-size graph has the shape the benchmark promises
(ref chains eight models deep, ~2% disabled, none of them read), and sortlint's built-in
renderer renders and checks a small one without an error.

(Not `test_dbt_project.py`: `tests/sources/dbt/` has a module of that name, and test
modules here are imported by their file names.)
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from sortlint.cli import main

GENERATOR = Path(__file__).resolve().parents[2] / "benchmarks" / "dbt_project.py"


@cache
def generator():
    """benchmarks/dbt_project.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("dbt_project_generator", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@cache
def full_size():
    """The default project's sources and models, planned in memory (no files written)."""
    return generator().plan(1200, 0)


def depths(models) -> dict[str, int]:
    """Each model's depth computed from its refs alone: 1 for a model reading only sources."""
    found: dict[str, int] = {}
    for name, model in models.items():  # planned in dependency order
        found[name] = 1 + max((found[ref] for ref in model.refs), default=0)
    return found


def test_the_same_seed_writes_the_same_bytes(tmp_path):
    module = generator()
    first, second = module.generate(tmp_path / "a", 60, 7), module.generate(tmp_path / "b", 60, 7)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    assert module.files(60, 8) != module.files(60, 7)


def test_full_size_ref_chains_reach_depth_eight():
    _, models = full_size()
    computed = depths(models)
    assert all(computed[name] == model.depth for name, model in models.items())
    assert max(computed.values()) == 8
    # every depth from 1 to 8 is populated, so the chains are gradual, not a few long ones
    assert set(computed.values()) == set(range(1, 9))


def test_full_size_layers_disabled_models_and_yaml():
    sources, models = full_size()
    layers = [model.folder.split("/")[0] for model in models.values()]
    assert len(models) == 1200
    assert layers.count("staging") == 480 and len(sources) == 480
    assert 400 <= layers.count("intermediate") <= 430
    disabled = {name for name, model in models.items() if not model.enabled}
    assert len(disabled) == 24
    assert not any(set(m.refs) & disabled for m in models.values() if m.enabled)
    files = generator().files(1200, 0)
    yaml_lines = sum(t.count("\n") for p, t in files.items() if p.startswith("models/") and p.endswith(".yml"))
    assert 38_000 <= yaml_lines <= 50_000


def test_builtin_renderer_checks_a_small_project_without_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SORTLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SORTLINT_DBT_RENDERER", raising=False)
    root = generator().generate(tmp_path / "project", 60, 0)
    code = main(["check", "--dbt-renderer", "builtin", "--jobs", "1", str(root)])
    out, err = capsys.readouterr()
    errors = [line for line in (out + err).splitlines() if line.startswith("error")]
    assert code in (0, 1), out + err
    assert not errors
    assert "Found" in out or "All checks passed" in out


@pytest.mark.parametrize("seed", [0, 1])
def test_small_projects_keep_their_shape(seed):
    _, models = generator().plan(60, seed)
    assert max(depths(models).values()) == 8
    assert sum(not m.enabled for m in models.values()) >= 1


def test_real_profile_models_hold_10_to_30_ctes_calling_dispatched_package_macros():
    _, plain = generator().plan(200, 0)
    _, real = generator().plan(200, 0, "real")
    assert list(real) == list(plain)  # the same graph: the profile only lengthens models
    ctes = [len(re.findall(r"^(?:with )?\w+ as \($", m.sql, re.M)) for m in real.values()]
    assert min(ctes) >= 10 and max(ctes) <= 30
    assert all("bench_date." in m.sql or "bench_utils." in m.sql for m in real.values())
    files = generator().files(60, 0, "real")
    for package in ("bench_date", "bench_utils"):
        assert f"  - local: packages/{package}\n" in files["packages.yml"]
        macros = {p: t for p, t in files.items() if p.startswith(f"dbt_packages/{package}/macros/")}
        assert any(f"adapter.dispatch(" in text for text in macros.values())
        assert {p.replace("dbt_packages/", "packages/", 1): t for p, t in macros.items()} == {
            p: t for p, t in files.items() if p.startswith(f"packages/{package}/macros/")}


def test_builtin_renderer_checks_a_small_real_profile_project_without_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SORTLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SORTLINT_DBT_RENDERER", raising=False)
    root = generator().generate(tmp_path / "project", 60, 0, "real")
    code = main(["check", "--dbt-renderer", "builtin", "--jobs", "1", str(root)])
    out, err = capsys.readouterr()
    # Issue 31: agg_campaigns_by_channel was rendered from inside the nested builds of its
    # readers' CTE chains, and Jinja's parser ran out of Python's recursion limit there.
    assert code == 1, out + err
    assert not [line for line in (out + err).splitlines() if line.startswith("error")]
    assert [line.split(" ", 2)[:2] for line in out.splitlines()] == [
        [f"{root}/models/intermediate/marketing/int_campaign__incremental.sql:13:5:", "SL002"],
        [f"{root}/models/intermediate/support/int_agent__agents_by_team.sql:21:5:", "SL002"],
        ["Found", "2"],
    ]
