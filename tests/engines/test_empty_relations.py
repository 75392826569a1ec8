"""Which parts of a plan Spark replaces with an empty relation (`sortlint.engines.empty_relations`),
held to the local Spark's optimized plans: where sortlint says a query is empty, Spark plans
`LocalRelation <empty>`; where it says it is not, Spark keeps the rows' operators. Where it
says "not known" (None) either may happen; the cases listed so include ones where Spark folds
(`i = 0.5` on an int) and ones where it does not (`NOT (i = 1 AND i > 3)`, nullable `i`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config import load_config
from sortlint.engines import analyse
from sortlint.engines.empty_relations import empty, pruned
from sortlint.plan import nodes as n
from sortlint.plan.statement import build_statement
from sortlint.plan.tables import Tables
from sortlint.units import Unit

DB = "empty_relations"
COLUMNS = {"k": "double", "i": "int", "b": "bigint", "s": "string", "d": "date", "x": "double",
           "dc": "decimal(10,2)", "ts": "timestamp", "f": "float"}
CATALOG = f"target: spark\nsources:\n  {DB}.t:\n    columns: {{{', '.join(f'{c}: {t!r}' for c, t in COLUMNS.items())}}}\n"

# condition of `SELECT * FROM t WHERE {condition} ORDER BY x`: is Spark's plan empty?
CONDITIONS = [
    # a constant put in place of its column, in every comparison of the conjunction
    ("k = CAST(0.0 AS DOUBLE) AND k > CAST(3.0 AS DOUBLE)", True),  # fuzz seed 25146
    ("k = 0.0 AND k > 3.0", True),
    ("k = 0 AND k > 3", True),
    ("i = 0 AND i > 3", True),
    ("i = 0 AND i = 3", True),
    ("i = 2 AND i BETWEEN 2 AND 3", False),
    ("i = 1 AND i BETWEEN 2 AND 3", True),
    ("s = 'a' AND s = 'b'", True),
    ("s = 'a' AND s > 'b'", True),
    ("s = 'b' AND s > 'a'", False),
    ("d = DATE '2024-01-01' AND d > DATE '2024-02-01'", True),
    ("d = '2024-01-01' AND d > '2024-02-01'", True),
    ("d = DATE '2024-03-01' AND d > '2024-02-01'", False),
    ("dc = 1.5 AND dc > 2", True),
    ("dc = 2.5 AND dc > 2", False),
    ("i = 1 AND (i = 2 OR i = 3)", True),
    ("i = 1 AND (i = 2 OR x > 1)", False),
    ("i = 1 AND NOT (i = 1)", True),
    ("i = 1 AND i <> 1", True),
    ("i <=> 1 AND i > 3", True),
    ("b = 1 AND x > 2 AND x < 1", False),  # no range reasoning in Spark
    ("i > 3 AND i < 2", False),
    ("x = 1 AND i = 1 AND x = i", False),
    ("(i = 1 AND i > 3) OR x > 1", False),
    ("(i = 1 AND i > 3) OR (s = 'a' AND s = 'b')", True),
    # literals, NULL
    ("1 = 0", True),
    ("false", True),
    ("i = NULL", True),
    ("i = 1 AND NULL", True),
    ("'a' = 'a'", False),
    # no constant received: IS NULL, IN, a string compared as a number
    ("i = 1 AND i IS NULL", False),
    ("i = 1 AND i IS NOT NULL", False),
    ("i = 1 AND i IN (2, 3)", False),
    ("s = 1 AND s > 3", False),
    # not known: a cast Spark may take off a column, a function of a constant, NOT, a float
    ("i = 0.5", None),  # Spark: empty
    ("i = 1.0 AND i > 3", True),  # the cast taken off: i = 1
    ("dc = 1.555 AND dc > 0", None),  # Spark: empty
    ("i = 1 AND abs(i) > 3", None),  # Spark: empty
    ("s = 'a' AND upper(s) = 'B'", None),  # Spark: empty
    ("i = 1 AND coalesce(i > 3, false)", None),  # Spark: empty
    ("NOT (i = 1 AND i > 3)", None),  # Spark: kept (i is nullable)
    ("f = 0.5 AND f > 1", None),
    ("i > 0.5", False),  # a range unwrapped: i > 0
    # literals of another type that are values of the column's: Spark takes the cast off
    ("i = '3' AND i <= 2", True),
    ("i = '3' AND i <= 3", False),
    ("i = CAST(4.0 AS DOUBLE) AND i >= 1", False),
    ("i = CAST(4.0 AS DOUBLE) AND i < 1", True),
    ("i = CAST('0.00' AS DECIMAL(2, 2)) AND i > 0", True),
    ("b = 7 AND b = CAST(7.0 AS DOUBLE)", False),
    ("s = 'x' AND s = s", False),
    ("upper('a') = 'B'", None),  # Spark: empty
    ("array_contains(array(1), 2)", None),  # Spark: empty
    ("x > 1 OR array_contains(array(1), 2)", None),  # Spark: kept (x > 1 OR false)
]

# the whole query: is Spark's plan of it empty (None: sortlint does not say; Spark reshapes the
# operator above the empty part, keeping rows), and which of its sorts does sortlint say
# Spark removes with the empty part (True), keeps (False), or may (None)?
QUERIES = [
    (f"SELECT * FROM {DB}.t LIMIT 0", True, []),
    (f"SELECT i, row_number() OVER (PARTITION BY i ORDER BY x) AS r FROM {DB}.t WHERE 1 = 0", True, []),
    (f"SELECT DISTINCT i FROM {DB}.t WHERE false", True, []),
    (f"SELECT i, count(*) FROM {DB}.t WHERE false GROUP BY i HAVING count(*) > 1", True, []),
    (f"SELECT count(*) FROM {DB}.t WHERE false", False, []),
    (f"SELECT * FROM (SELECT * FROM {DB}.t WHERE false) AS a JOIN {DB}.t AS b ON a.i = b.i", True, []),
    (f"SELECT * FROM {DB}.t AS a JOIN {DB}.t AS b ON a.i = b.i AND a.k = 0 AND a.k > 3", True, []),
    (f"SELECT * FROM {DB}.t AS a LEFT JOIN (SELECT * FROM {DB}.t WHERE false ORDER BY x) AS b ON a.i = b.i",
     None, [True]),  # Spark: the join becomes a projection of nulls

    (f"(SELECT x FROM {DB}.t WHERE s = 'a' AND s = 'b' ORDER BY x) UNION ALL (SELECT x FROM {DB}.t ORDER BY x)",
     None, [True, None]),  # Spark: the union becomes its other input

    (f"SELECT x FROM (SELECT x FROM {DB}.t WHERE i = 1 AND i > 3 ORDER BY x) ORDER BY x", True, [True, True]),
    (f"SELECT x FROM (SELECT x FROM {DB}.t WHERE i = 1 ORDER BY x) ORDER BY x", False, [False, False]),
]


def _analysed(tmp_path: Path, sql: str):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    config = load_config(tmp_path / "sortlint.yml")
    unit = Unit(path=tmp_path / "q.sql", text=sql, start=0, raw=sql)
    tables = Tables({source.name: tuple(c.name for c in source.columns) for source in config.sources})
    root = build_statement(unit, tables, "spark", "spark").root
    return root, analyse(root, config)


def _query(condition: str) -> str:
    return f"SELECT * FROM {DB}.t WHERE {condition} ORDER BY x"


@pytest.mark.parametrize(("condition", "expected"), CONDITIONS, ids=[c for c, _ in CONDITIONS])
def test_what_a_filter_folds_to(tmp_path, condition, expected):
    root, analysis = _analysed(tmp_path, _query(condition))
    assert empty(root, analysis) is expected


@pytest.mark.parametrize(("sql", "expected", "sorts"), QUERIES, ids=[q for q, _, _ in QUERIES])
def test_what_an_empty_part_empties(tmp_path, sql, expected, sorts):
    root, analysis = _analysed(tmp_path, sql)
    assert empty(root, analysis) is expected
    assert [pruned(node, analysis) for node in n.walk(root) if isinstance(node, n.Sort)] == sorts


@pytest.fixture(scope="module")
def table(spark):  # noqa: F811
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
    spark.sql(f"DROP TABLE IF EXISTS {DB}.t")
    spark.sql(f"CREATE TABLE {DB}.t ({', '.join(f'{c} {t}' for c, t in COLUMNS.items())}) USING parquet")
    yield f"{DB}.t"


def _spark_empty(spark, sql: str) -> bool:  # noqa: F811
    plan = spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()
    return plan.startswith("LocalRelation <empty>")


@spark_support.needs_spark
def test_spark_folds_the_filters_as_said(spark, table):  # noqa: F811
    found = {condition: _spark_empty(spark, _query(condition)) for condition, _ in CONDITIONS}
    assert {c: found[c] for c, expected in CONDITIONS if expected is not None} == {
        c: expected for c, expected in CONDITIONS if expected is not None}
    # the conditions sortlint does not decide: Spark folds some and keeps others
    assert {c: found[c] for c, expected in CONDITIONS if expected is None} == {
        "i = 0.5": True, "dc = 1.555 AND dc > 0": True, "i = 1 AND abs(i) > 3": True,
        "s = 'a' AND upper(s) = 'B'": True, "i = 1 AND coalesce(i > 3, false)": True,
        "NOT (i = 1 AND i > 3)": False, "f = 0.5 AND f > 1": True, "upper('a') = 'B'": True,
        "array_contains(array(1), 2)": True, "x > 1 OR array_contains(array(1), 2)": False,
    }


@spark_support.needs_spark
def test_spark_empties_the_queries_as_said(spark, table):  # noqa: F811
    assert [_spark_empty(spark, sql) for sql, _, _ in QUERIES] == [bool(expected) for _, expected, _ in QUERIES]
