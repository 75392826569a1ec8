"""A small fixed-seed slice of the fuzzers (`make fuzz` runs them long): 40 Spark queries, and
40 DataFusion queries with target_partitions 1 and again with 4 (the counts DataFusion's own
tests run with), each batch checked by one sortlint run per mode; and a few pairs of the Spark
multi-file mode (an upstream CTAS and a reader of the table it writes, `fuzz/multifile.py`);
and a few cases of each mode of Python code building what runs (`fuzz/built.py`): Airflow DAGs
assembling their SQL at run time, PySpark DataFrames passed through another module's functions.

Each test asserts that one class of failure that must never happen does not occur in the
slice. A class today's sortlint still produces at these seeds is a strict expected failure
naming its issue: the fix that removes the class removes the mark.
"""

from __future__ import annotations

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from fuzz import built, multifile, spark_engine
from fuzz.failures import NEVER
from fuzz.run import DataFusionEngine, SparkEngine, fuzz

SPARK_SEED = 4
DATAFUSION_SEED = 3
COUNT = 40
MULTIFILE_SEED = 6
MULTIFILE_PAIRS = 6
BUILT_SEED = 7
BUILT_CASES = 6


@pytest.fixture(scope="module")
def spark_report(spark, tmp_path_factory):  # noqa: F811
    previous = spark_engine.configure(spark)
    try:
        return fuzz(SparkEngine(spark), SPARK_SEED, COUNT, tmp_path_factory.mktemp("fuzz-spark"),
                    out=None, batch_size=COUNT, log=lambda _: None)
    finally:
        spark_engine.restore(spark, previous)


@pytest.fixture(scope="module")
def multifile_report(spark, tmp_path_factory):  # noqa: F811 (the fixture skips without Spark)
    previous = spark_engine.configure(spark)
    try:
        return multifile.fuzz(spark, MULTIFILE_SEED, MULTIFILE_PAIRS, tmp_path_factory.mktemp("fuzz-multifile"),
                              out=None, batch_size=MULTIFILE_PAIRS, log=lambda _: None)
    finally:
        spark_engine.restore(spark, previous)


@pytest.fixture(scope="module", params=built.MODES)
def built_report(request, spark, tmp_path_factory):  # noqa: F811 (the fixture skips without Spark)
    previous = spark_engine.configure(spark)
    try:
        return built.fuzz(spark, request.param, BUILT_SEED, BUILT_CASES, tmp_path_factory.mktemp("fuzz-built"),
                          out=None, batch_size=BUILT_CASES, log=lambda _: None)
    finally:
        spark_engine.restore(spark, previous)


@pytest.fixture(scope="module", params=[1, 4], ids=lambda n: f"target_partitions={n}")
def datafusion_report(request, tmp_path_factory):
    pytest.importorskip("datafusion")
    return fuzz(DataFusionEngine(request.param), DATAFUSION_SEED, COUNT, tmp_path_factory.mktemp("fuzz-datafusion"),
                out=None, batch_size=COUNT, log=lambda _: None)


def _failures(report, cls: str) -> list[str]:
    return [f"{f.case.filename}: {f.detail}\n  {f.case.text}\n  fixed: {f.fixed_text}"
            for f in report.failures if f.cls == cls]


# The classes that fail at these seeds today, with the issue that removes them.
EXPECTED_FAILURES: dict[str, str] = {}
SPARK_CLASSES = {kind: EXPECTED_FAILURES.get(f"spark/{kind}") for kind in NEVER if kind != "sl001-disproved"}
DATAFUSION_CLASSES = {kind: EXPECTED_FAILURES.get(f"datafusion/{kind}")
                      for kind in ("sl001-disproved", "safe-unanalysable", "safe-error")}


@pytest.mark.parametrize("kind", [
    pytest.param(kind, marks=[*spark_support.NEEDS_SPARK,
                              *([pytest.mark.xfail(strict=True, reason=reason)] if reason else [])])
    for kind, reason in SPARK_CLASSES.items()
])
def test_spark_slice_has_no(spark_report, kind):
    assert spark_report.queries["sql"] + spark_report.queries["pyspark"] == COUNT
    assert spark_report.fixes["files changed by --fix"] > 0, "the slice proves something"
    assert _failures(spark_report, f"spark/{kind}") == []


@pytest.mark.parametrize("kind", [
    pytest.param(kind, marks=[pytest.mark.spark,
                              *([pytest.mark.xfail(strict=True, reason=reason)] if reason else [])])
    for kind, reason in DATAFUSION_CLASSES.items()
])
def test_datafusion_slice_has_no(datafusion_report, kind):
    assert datafusion_report.queries["sql"] == COUNT
    assert sum(datafusion_report.agreement.values()) > 0, "the slice compares sort decisions"
    assert _failures(datafusion_report, f"datafusion/{kind}") == []


@pytest.mark.spark
def test_multifile_slice_uses_upstream_facts_and_has_no_failure(multifile_report):
    report = multifile_report
    assert report.queries["readers"] == report.queries["upstream CTAS"] == MULTIFILE_PAIRS
    # The mode exists to exercise facts read from another file: the slice must produce findings
    # resting on them (basis `upstream`), or it no longer tests what it is for.
    upstream = sum(n for (_, basis), n in report.bases.items() if basis == "upstream")
    assert upstream > 0, report.summary()
    assert report.engine_stats["upstream tables written in several files"] > 0, report.summary()
    assert [f"{f.cls}: {f.detail}\n  {f.upstream.text if f.upstream else ''}\n  {f.case.text}\n  "
            f"fixed: {f.fixed_text}" for f in report.failures] == []


@pytest.mark.spark
def test_built_slice_fixes_code_and_has_no_failure(built_report):
    report = built_report
    assert report.queries["airflow"] + report.queries["pyspark"] == BUILT_CASES
    # Fixes of code that builds what runs are what the mode checks: the slice must have some.
    assert report.engine_stats["safe fixed files checked"] > 0, report.summary()
    assert [f"{f.cls}: {f.detail}\n  {f.case.text}\n  fixed: {f.fixed_text}" for f in report.failures] == []
