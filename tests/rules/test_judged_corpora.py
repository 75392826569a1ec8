"""What sortlint says about code, judged by hand finding by finding: `judged_findings.csv`
holds each finding sortlint makes on the corpora below with what its fix changes on Spark and
a verdict - `act` (a reviewer acts on it) or `leave` (true, but a reviewer leaves the code as
it is) - and why. A new finding, or one whose effect changes, fails here until someone has
judged it; the figures of docs/rules/index.md#precision are counted from that file.

The corpora: `../shared/corpora` (TPC-DS and TPC-H in Spark SQL, and two real dbt projects:
jaffle_shop, dbt_project_evaluator with dbt_utils), checked under `target: spark` with no
declaration at all - as a new user would first run it - and the example repository.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.diagnostics.effects import Effect

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "corpora"
JUDGED = Path(__file__).with_name("judged_findings.csv")
VERDICTS = ("act", "leave")
NO_EFFECT = Effect().words()

# The rows of the docs' table, by corpus of the judged file.
DOC_ROWS = {
    "TPC-DS (Spark SQL)": ("tpcds",),
    "TPC-H": ("tpch",),
    "dbt: jaffle_shop": ("jaffle_shop",),
    "dbt: dbt_project_evaluator (with dbt_utils)": ("dbt_project_evaluator",),
    "the example repository (`examples/`)": ("examples",),
    "all": ("tpcds", "tpch", "jaffle_shop", "dbt_project_evaluator", "examples"),
}


def judged(*corpora: str) -> list[tuple]:
    with JUDGED.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert all(row["verdict"] in VERDICTS and row["why"] for row in rows)
    return [(r["path"], int(r["line"]), int(r["column"]), r["rule"], r["effect on Spark"])
            for r in rows if r["corpus"] in corpora]


def findings(root: Path, *paths: str) -> list[tuple]:
    previous = Path.cwd()
    os.chdir(root)
    try:
        main(["check", "--no-cache", "--dbt-renderer", "builtin", "--output-format", "json",
              "--output-file", "report.json", *paths])
    finally:
        os.chdir(previous)
    return [(f["path"], f["line"], f["column"], f["code"], _effect(f["effect"]))
            for f in json.loads((root / "report.json").read_text())]


def _effect(effect: dict | None) -> str:
    if effect is None:
        return "unknown"
    return Effect(tuple(effect["removes"]), tuple(effect["adds"]), tuple(effect["lightens"])).words()


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not there")
def test_tpc_ds_and_tpc_h_findings_are_those_judged(tmp_path):
    for name in ("tpcds", "tpch"):
        shutil.copytree(CORPORA / name, tmp_path / name)
    (tmp_path / "sortlint.yml").write_text("target: spark\n")
    assert findings(tmp_path, "tpcds", "tpch") == judged("tpcds", "tpch")


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora is not there")
def test_the_dbt_corpora_findings_are_those_judged(tmp_path):
    """jaffle_shop sorts nothing; dbt_project_evaluator orders two CTEs for listagg, and
    collect_list reads that order (its one earlier finding, SL002 on
    fct_model_naming_conventions.sql:26, was wrong - see tests/linter/test_lint.py)."""
    shutil.copytree(CORPORA / "dbt" / "jaffle_shop", tmp_path / "jaffle_shop")
    shutil.copytree(CORPORA / "dbt" / "dbt_project_evaluator", tmp_path / "dbt_project_evaluator")
    shutil.copytree(CORPORA / "dbt" / "packages" / "dbt_utils",
                    tmp_path / "dbt_project_evaluator" / "dbt_packages" / "dbt_utils")
    (tmp_path / "sortlint.yml").write_text("target: spark\n")
    assert findings(tmp_path, "jaffle_shop", "dbt_project_evaluator") == judged(
        "jaffle_shop", "dbt_project_evaluator")


def test_the_examples_findings_are_those_judged(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(".sortlint_cache"))
    assert findings(tmp_path / "examples", ".") == judged("examples")


def test_the_precision_figures_of_the_docs_are_counted_from_the_judgments():
    with JUDGED.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    section = (ROOT / "docs" / "rules" / "index.md").read_text().split("## Precision", 1)[1]
    shown = {}
    for cells in re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| (\S+) \|", section, re.M):
        shown[cells[0]] = tuple(cells[1:])
    counted = {}
    for name, corpora in DOC_ROWS.items():
        mine = [r for r in rows if r["corpus"] in corpora]
        verdicts = Counter(r["verdict"] for r in mine)
        noop = sum(r["effect on Spark"] == NO_EFFECT for r in mine)
        share = f"{verdicts['act'] / len(mine):.0%}" if mine else "-"
        counted[name] = (str(len(mine)), str(verdicts["act"]), str(noop), share)
    assert shown == counted
