"""The cases of issue 10, each with its table data, its query and the result a correct fix keeps.

Every case runs sortlint's command line (`check --fix`) on a one-file repository whose catalog
gives the issue's column types (and, for DataFusion, the tables' `WITH ORDER`), then the real
engine:

* Spark (cases 1-5): the original query must return the issue's rows and types (the data is
  what the issue says), and the fixed text — or the original, when sortlint rightly fixes
  nothing — must return exactly those: same names and types, same rows, same order where the
  query orders. A fix Spark cannot analyse fails.
* DataFusion (cases 6-9): tables are Parquet files registered `WITH ORDER`; for every SL001
  sortlint reports, the query without that ORDER BY is executed and must still return the
  rows in that order (it runs a few times: partitions race).

Every case passes: sortlint fixes what it can prove and leaves the rest as it is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from fuzz import datafusion_engine, spark_engine
from fuzz.catalogs import Catalog, Column, OrderItem, Table
from fuzz.cli import apply_edits, run_batch
from fuzz.queries import Case
from fuzz.results import multiset, out_of_order

D = dt.date(2024, 1, 2)
TS = dt.datetime(2024, 1, 2)

# t(id int, k int, s string, d date, n bigint, sn string), u(k int, x double): the data,
# plus v(k, ts, m) for the timestamp and decimal forms of case 1.
T = Table("t", [Column("id", "int", True, "id"), Column("k", "int", True, "small"),
                Column("s", "string", True, "text"), Column("d", "date", True, "date"),
                Column("n", "bigint", True, "small"), Column("sn", "string", True, "numtext")],
          files=[[(1, 1, "a", D, 1, "1"), (2, 1, "a", D, 1, "01"), (3, 2, "b", D, 1, "1")],
                 [(4, 2, "a", None, 2, " 1"), (5, 1, "a", D, 1, "1")]])
U = Table("u", [Column("k", "int", True, "small"), Column("x", "double", True, "double")],
          files=[[(1, 1.0), (2, 2.0)]])
V = Table("v", [Column("k", "int", True, "small"), Column("ts", "timestamp", True, "timestamp"),
                Column("m", "decimal(12,2)", True, "decimal")],
          files=[[(1, TS, Decimal("2.50")), (2, TS, Decimal("2.50")), (1, TS, Decimal("2.50"))]])
SPARK_CATALOG = Catalog("spark", [T, U, V])


@dataclass
class SparkCase:
    query: str
    schema: list[tuple[str, str]]
    rows: list[tuple]
    ordered: bool = False


SPARK_CASES = {
    "1-constant-keeps-date-type": SparkCase(
        "SELECT k, d, count(*) AS c FROM t WHERE d = '2024-01-02' GROUP BY k, d",
        [("k", "int"), ("d", "date"), ("c", "bigint")], [(1, D, 3), (2, D, 1)]),
    "1-constant-keeps-timestamp-type": SparkCase(
        "SELECT k, ts, count(*) AS c FROM v WHERE ts = '2024-01-02 00:00:00' GROUP BY k, ts",
        [("k", "int"), ("ts", "timestamp"), ("c", "bigint")], [(1, TS, 2), (2, TS, 1)]),
    "1-constant-keeps-decimal-type": SparkCase(
        "SELECT k, m, count(*) AS c FROM v WHERE m = '2.5' GROUP BY k, m",
        [("k", "int"), ("m", "decimal(12,2)"), ("c", "bigint")],
        [(1, Decimal("2.50"), 2), (2, Decimal("2.50"), 1)]),
    "2-ordinal-group-by-constant": SparkCase(
        "SELECT k, n, count(*) AS c FROM t WHERE n = 1 GROUP BY 1, 2",
        [("k", "int"), ("n", "bigint"), ("c", "bigint")], [(1, 1, 3), (2, 1, 1)]),
    "2-ordinal-group-by-join-key": SparkCase(
        "SELECT t.k, u.k AS uk, count(*) AS c FROM t JOIN u ON t.k = u.k GROUP BY 1, 2",
        [("k", "int"), ("uk", "int"), ("c", "bigint")], [(1, 1, 3), (2, 2, 2)]),
    "3-equal-key-of-another-type": SparkCase(
        "SELECT t.k, u.x, count(*) AS c FROM t JOIN u ON t.k = u.x GROUP BY t.k, u.x",
        [("k", "int"), ("x", "double"), ("c", "bigint")], [(1, 1.0, 3), (2, 2.0, 2)]),
    "4-dropped-key-still-ordered-by": SparkCase(
        "SELECT t.k, u.k AS uk, count(*) AS c FROM t JOIN u ON t.k = u.k GROUP BY t.k, u.k ORDER BY u.k",
        [("k", "int"), ("uk", "int"), ("c", "bigint")], [(1, 1, 3), (2, 2, 2)], ordered=True),
    "5-implicit-cast-is-no-constant-group-key": SparkCase(
        "SELECT k, sn, count(*) AS c FROM t WHERE sn = 1 GROUP BY k, sn",
        [("k", "int"), ("sn", "string"), ("c", "bigint")],
        [(1, "1", 2), (1, "01", 1), (2, "1", 1), (2, " 1", 1)]),
    "5-implicit-cast-is-no-constant-sort-key": SparkCase(
        "SELECT id, sn FROM t WHERE sn = 1 ORDER BY sn, id",
        [("id", "int"), ("sn", "string")],
        [(4, " 1"), (2, "01"), (1, "1"), (3, "1"), (5, "1")], ordered=True),
    "5-implicit-cast-is-no-join-equality": SparkCase(
        "SELECT t.sn, u.k, count(*) AS c FROM t JOIN u ON t.sn = u.k GROUP BY t.sn, u.k",
        [("sn", "string"), ("k", "int"), ("c", "bigint")],
        [("1", 1, 3), ("01", 1, 1), (" 1", 1, 1)]),
}


def _fixed_text(tmp_path: Path, catalog_yaml: str, name: str, text: str) -> str:
    outcome = run_batch(tmp_path / "repo", catalog_yaml, {name: text}, modes=("safe",)).files[name]
    return outcome.safe_text or text


@pytest.fixture
def fuzz_spark(spark):  # noqa: F811
    previous = spark_engine.configure(spark)
    yield spark
    spark_engine.restore(spark, previous)


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=name, marks=spark_support.NEEDS_SPARK) for name, c in SPARK_CASES.items()])
def test_spark_fix_keeps_result(fuzz_spark, tmp_path, case: SparkCase):
    spark_engine.load(fuzz_spark, SPARK_CATALOG)
    query = Case("q", "sql", case.query)
    original = spark_engine.run(fuzz_spark, query, case.query)
    assert (original.error, original.schema) == (None, case.schema)
    assert multiset(original.rows) == multiset(case.rows), "the issue's data gives these rows"

    fixed_text = _fixed_text(tmp_path, SPARK_CATALOG.yaml(), "q.sql", case.query)
    fixed = spark_engine.run(fuzz_spark, query, fixed_text)
    assert fixed.error is None, f"{fixed_text!r}: {fixed.error}"
    assert fixed.schema == case.schema, fixed_text
    assert multiset(fixed.rows) == multiset(case.rows), fixed_text
    if case.ordered:
        assert fixed.rows == case.rows, fixed_text


def _with_marks(*marks):
    def apply(function):
        for mark in marks:
            function = mark(function)
        return function

    return apply


@_with_marks(*spark_support.NEEDS_SPARK)
def test_spark_fix_applies_when_a_new_finding_appears(fuzz_spark, tmp_path):
    """Dropping the constant partition key makes the final ORDER BY redundant (a new SL001):
    that is no reason to drop the SL201 fix, which keeps the result."""
    query = "SELECT id, rank() OVER (PARTITION BY s ORDER BY id) AS r FROM t WHERE s = 'a' ORDER BY id"
    repo = run_batch(tmp_path / "repo", SPARK_CATALOG.yaml(), {"q.sql": query}, modes=("safe",))
    outcome = repo.files["q.sql"]
    spark_engine.load(fuzz_spark, SPARK_CATALOG)
    assert outcome.dropped_safe == []
    assert outcome.safe_text is not None and "PARTITION BY" not in outcome.safe_text
    case = Case("q", "sql", query)
    original = spark_engine.run(fuzz_spark, case, query)
    fixed = spark_engine.run(fuzz_spark, case, outcome.safe_text)
    assert original.rows == [(1, 1), (2, 2), (4, 3), (5, 4)]
    assert (fixed.schema, fixed.rows) == (original.schema, original.rows)


# ---------------------------------------------------------------------------------------------
# DataFusion


@dataclass
class DataFusionCase:
    tables: list[Table]
    query: str
    rows: list[tuple]  # what the query returns, in its order
    order: list[tuple[int, bool, bool]]  # its ORDER BY: (output position, descending, nulls_first)
    expect_sl001: bool = False  # a correct SL001 that must be reported
    settings: dict = field(default_factory=lambda: {"target_partitions": 4})


def _ints(name: str, columns: list[str], files: list[list[tuple]], ordering=(), types=None) -> Table:
    types = types or {}
    return Table(name, [Column(c, types.get(c, "int"), False, "small") for c in columns],
                 ordering=[OrderItem(c, False, False) for c in ordering], files=files)


_BIG = [(i % 3, i) for i in range(300)]
DATAFUSION_CASES = {
    "6-unused-window-is-pruned": DataFusionCase(
        [_ints("t", ["c"], [[(3,), (1,), (5,)], [(2,), (4,)]])],
        "SELECT s.c FROM (SELECT t.c, count(*) OVER (ORDER BY t.c ASC NULLS LAST) AS w FROM t) AS s "
        "ORDER BY c ASC NULLS LAST",
        [(1,), (2,), (3,), (4,), (5,)], [(0, False, False)]),
    "7-join-build-side-chosen-by-statistics": DataFusionCase(
        [Table("big", [Column("k", "int", False, "small"), Column("v", "int", False, "small")],
               ordering=[OrderItem("v", False, False)], files=[_BIG]),
         Table("small", [Column("k", "int", False, "small"), Column("w", "int", False, "small")],
               ordering=[OrderItem("w", True, False)], files=[[(2, 30), (1, 20), (0, 10)]])],
        "SELECT big.v, small.w FROM big JOIN small ON big.k = small.k ORDER BY small.w DESC NULLS LAST",
        sorted([(v, {0: 10, 1: 20, 2: 30}[k]) for k, v in _BIG], key=lambda r: -r[1]), [(1, True, False)]),
    "8-union-all-keeps-no-order": DataFusionCase(
        [_ints("t", ["a"], [[(1,), (2,), (3,)]], ordering=["a"])],
        "SELECT a FROM t UNION ALL SELECT a FROM t ORDER BY a",
        [(1,), (1,), (2,), (2,), (3,), (3,)], [(0, False, False)]),
    # The inner ORDER BY ... LIMIT gives one partition in the order of c (a scan's order holds
    # only inside each partition): whether c + 1 keeps it is the question.
    "9-bigint-addition-wraps": DataFusionCase(
        [_ints("t", ["c"], [[(0,), (9223372036854775807,)]], ordering=["c"], types={"c": "bigint"})],
        "SELECT s.x FROM (SELECT c + 1 AS x FROM t ORDER BY c LIMIT 10) AS s ORDER BY x",
        [(-9223372036854775808,), (1,)], [(0, False, False)]),
    "9-int-addition-widens-and-stays-ordered": DataFusionCase(
        [_ints("t", ["c"], [[(0,), (2147483647,)]], ordering=["c"])],
        "SELECT s.x FROM (SELECT c + 1 AS x FROM t ORDER BY c LIMIT 10) AS s ORDER BY x",
        [(1,), (2147483648,)], [(0, False, False)], expect_sl001=True),
}


def _datafusion_catalog(case: DataFusionCase) -> Catalog:
    return Catalog("datafusion", case.tables)


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=name) for name, c in DATAFUSION_CASES.items()])
def test_datafusion_sl001_holds(tmp_path, case: DataFusionCase):
    pytest.importorskip("datafusion")
    catalog = _datafusion_catalog(case)
    ctx = datafusion_engine.session(catalog, tmp_path / "tables", case.settings["target_partitions"])
    original = datafusion_engine.run(ctx, case.query)
    assert original.error is None, original.error
    assert multiset(original.rows) == multiset(case.rows), "the data gives these rows"
    assert out_of_order(original.rows, case.order) is None

    repo = run_batch(tmp_path / "repo", catalog.yaml(), {"q.sql": case.query}, modes=())
    sl001 = [f for f in repo.files["q.sql"].findings if f["code"] == "SL001"]
    if case.expect_sl001:
        assert sl001, "a sort DataFusion itself removes is reported"
    for finding in sl001:
        without = apply_edits(case.query, finding["fix"]["edits"])
        for _ in range(datafusion_engine.RUNS):
            result = datafusion_engine.run(ctx, without)
            assert result.error is None, result.error
            assert multiset(result.rows) == multiset(case.rows), without
            assert out_of_order(result.rows, case.order) is None, f"{without!r} returned {result.rows[:8]}"
