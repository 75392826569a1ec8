"""Failures the fuzzers found, kept as regression tests with their data.

Each directory of `fuzz_cases/` is a shrunk reproducer written by `make fuzz` (its README
tells the story: catalog, data, query, sortlint's finding and fix, what the engine returned).
The test replays it from scratch — sortlint's command line over a one-file repository (two
files for the multi-file mode's: the reader and the CTAS that writes its table), then
the engine over freshly written tables — and asserts that it no longer fails. Each is a strict
expected failure naming the issue whose fix removes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from fuzz import multifile, reproducers, spark_engine
from fuzz.run import DataFusionEngine, SparkEngine

CASES = Path(__file__).parent / "fuzz_cases"

# Fixed: each now passes.
FIXED = [
    "spark-constant-from-string-literal",  # issue 10 case 1: `id = '5'` rewritten as the string '5'
    "spark-ordinal-group-key-read-as-value",  # issue 10 case 2: `GROUP BY 1, 2` as any_value(1)
    "spark-implicit-cast-is-no-constant-partition-key",  # issue 10 case 5: `sn = 1` on a string
    "spark-group-key-names-a-select-alias",  # issue 10: a dropped GROUP BY alias as any_value(alias)
    "spark-pyspark-window-left-without-keys",  # dropping every window key left `Window` itself
    # DataFusion orders rows inside each partition; only a merge or one partition is global:
    "datafusion-multi-file-scan-under-limit",  # file groups read in parallel
    "datafusion-window-output-is-partitioned",  # a PARTITION BY window's hash partitions
    "datafusion-right-join-order",  # a join keeps only an order both sides give
    "datafusion-subquery-sort-is-removed",  # a sort nothing above requires is removed
    "datafusion-aggregate-output-is-partitioned",  # GROUP BY's hash repartition
    "datafusion-limit-picks-files-by-statistics",  # one partition: a LIMIT pushed into the scan
    # issue 9: a declared ordering is a layout, not the order Spark reads a table in
    "spark-declared-ordering-is-not-scan-order",  # a multi-file table
    "spark-bucketed-engine-known-ordering",  # a bucketed SORTED BY table, sorted per bucket only
    # issue 32: removing the last sort uncovers an earlier one Spark had dropped (seed 5101)
    "spark-pyspark-removed-sort-uncovers-an-earlier-one",
    # issue 32: a floating-point group key kept a sort aggregate's partial half (seed 5102)
    "spark-dropped-group-key-of-a-bucketed-table-changes-its-aggregate",
    # issue 32: a sorted branch under a filter Spark folds to false never runs (seed 25146)
    "spark-contradictory-filter-prunes-a-sorted-branch",
]
# Still failing: the issue whose fix removes each.
REASONS: dict[str, str] = {}


def _load(name: str):
    data = json.loads((CASES / name / "case.json").read_text())
    return (data, reproducers.catalog_from_json(data["catalog"]), reproducers.case_from_json(data["case"]))


def test_every_case_is_fixed_or_has_a_reason():
    assert sorted([*FIXED, *REASONS]) == sorted(p.name for p in CASES.iterdir() if p.is_dir())


def _marks(name: str):
    return [pytest.mark.xfail(strict=True, reason=REASONS[name])] if name in REASONS else []


@pytest.fixture
def fuzz_spark(spark):  # noqa: F811
    previous = spark_engine.configure(spark)
    yield spark
    spark_engine.restore(spark, previous)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[*spark_support.NEEDS_SPARK, *_marks(name)])
    for name in sorted([*FIXED, *REASONS]) if name.startswith("spark-")
])
def test_spark_reproducer_passes(fuzz_spark, tmp_path, name):
    data, catalog, case = _load(name)
    if "upstream" in data:  # the multi-file mode: a reader and the CTAS that writes its table
        upstream = reproducers.case_from_json(data["upstream"])
        failure = multifile.check_one(fuzz_spark, catalog, upstream, case, tmp_path)
    elif data["kind"].startswith("upstream-"):  # the multi-file mode: a CTAS's own fix
        failure = multifile.check_one(fuzz_spark, catalog, case, None, tmp_path)
    else:
        failure = SparkEngine(fuzz_spark).check_one(catalog, case, tmp_path)
    assert failure is None, f"{failure.cls}: {failure.detail}\n{failure.fixed_text}"


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=_marks(name))
    for name in sorted([*FIXED, *REASONS]) if name.startswith("datafusion-")
])
def test_datafusion_reproducer_passes(tmp_path, name):
    pytest.importorskip("datafusion")
    data, catalog, case = _load(name)
    engine = DataFusionEngine(data["settings"]["target_partitions"])
    failure = engine.check_one(catalog, case, tmp_path)
    assert failure is None, f"{failure.cls}: {failure.detail}\n{failure.fixed_text}"
