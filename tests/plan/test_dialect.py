"""sortlint's Spark dialect reads Spark's keywords as names where Spark's parser does, and
changes nothing else: what sqlglot's own Spark dialect parses, it parses alike (except where
sqlglot misreads a name as a keyword). `test_spark_parser_oracle.py` holds it to Spark."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from plan_support import expected, plan
from sqlglot import exp

from sortlint.plan.dialect import sql_dialect

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
SPARK = sql_dialect("spark")
STOCK = sqlglot.Dialect.get_or_raise("spark")


def parse(sql: str) -> exp.Expression:
    return SPARK.parse(sql)[0]


def test_columns_named_like_keywords():
    tree = parse("SELECT values, from, to FROM t WHERE values > 1 AND from < to ORDER BY to")
    assert [e.sql() for e in tree.expressions] == ["values", "from", "to"]
    assert tree.args["from_"].this.name == "t"
    assert tree.args["where"].this.sql() == "values > 1 AND from < to"
    assert [o.this.name for o in tree.args["order"].expressions] == ["to"]


def test_a_column_named_from_is_not_read_as_an_empty_select():
    # sqlglot's Spark reads this as `SELECT FROM (SELECT * FROM t)`: a silent misreading.
    assert parse("SELECT from FROM t").sql("spark") == "SELECT from FROM t"
    assert parse("SELECT a, from FROM t").sql("spark") == "SELECT a, from FROM t"


def test_keywords_as_window_keys_aliases_and_qualifiers():
    tree = parse("SELECT max(x) OVER (PARTITION BY values ORDER BY to DESC) AS from, v.to FROM t AS v")
    window = tree.expressions[0].this
    assert [k.name for k in window.args["partition_by"]] == ["values"]
    assert tree.expressions[0].alias == "from"
    assert tree.expressions[1].table == "v"


def test_a_cte_named_join():
    tree = parse("WITH join AS (SELECT 1 AS a) SELECT a FROM join")
    assert tree.args["with_"].expressions[0].alias == "join"
    assert tree.args["from_"].this.name == "join"


def test_a_table_read_under_the_name_as():
    # Spark: `FROM t AS WHERE a = 1` reads t under the alias `AS`.
    tree = parse("SELECT * FROM t AS WHERE a = 1")
    assert tree.args["from_"].this.alias == "AS"
    assert tree.args["where"].this.sql() == "a = 1"
    join = parse("SELECT * FROM t t1 JOIN u AS ON t1.a = u.a").args["joins"][0]
    assert join.this.alias == "AS" and join.args["on"].sql() == "t1.a = u.a"


def test_keywords_as_aliases_without_as():
    assert parse("SELECT a from FROM t").expressions[0].alias == "from"
    assert parse("SELECT a FROM t window WHERE a = 1").args["from_"].this.alias == "window"
    assert parse("SELECT a FROM t WHERE window > 1").args["where"].this.sql() == "window > 1"


@pytest.mark.parametrize("sql", [
    "SELECT TRIM(BOTH FROM x) FROM t",
    "SELECT a IS DISTINCT FROM b, c FROM t",
    "SELECT sum(a) OVER (ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
    "SELECT sum(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
    "SELECT CAST(a AS DATE), b FROM t",
    "SELECT CASE WHEN a THEN 1 ELSE 0 END, b FROM t",
    "SELECT a FROM t WHERE b IS NOT NULL AND c = 1",
    "SELECT a FROM t LEFT SEMI JOIN u ON t.a = u.a",
    "SELECT a FROM t CROSS JOIN u",
    "SELECT a FROM t LIMIT 10",
    "SELECT * FROM VALUES (1, 2) AS v(a, b)",
    "INSERT INTO t VALUES (1, 2)",
    "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *",
    "SELECT a, count(*) FROM t GROUP BY ALL ORDER BY ALL",
    "SELECT NULL, TRUE, current_date FROM t",
    "SELECT 'OR', 'FROM' FROM t WHERE s IN ('OR', 'NM')",
])
def test_what_sqlglot_reads_is_read_alike(sql):
    assert SPARK.parse(sql) == STOCK.parse(sql)


@pytest.mark.parametrize("corpus", ["tpcds", "tpch"])
def test_the_benchmark_corpora_parse_as_sqlglot_parses_them(corpus):
    folder = CORPORA / corpus
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    files = sorted(folder.glob("*.sql"))
    assert files
    for path in files:
        text = path.read_text()
        assert SPARK.parse(text) == STOCK.parse(text), path.name


def test_only_the_spark_dialect_is_changed():
    assert sql_dialect("spark") is SPARK
    assert type(sql_dialect("duckdb")) is type(sqlglot.Dialect.get_or_raise("duckdb"))


def test_plans_over_keyword_columns():
    assert plan("SELECT values, `from` FROM (SELECT 1 AS values, 2 AS from) s ORDER BY values") == expected("""
        Sort ORDER BY [values ASC NULLS FIRST]
          Project [s.values AS values, s.from AS from]
            Alias s (values, from)
              Project [1 AS values, 2 AS from]
                Values 1 row
    """)


def test_group_by_all_groups_by_the_items_without_aggregates():
    assert plan("SELECT host, upper(level) AS l, count(*) AS n FROM events GROUP BY ALL") == expected("""
        Project [events.host AS host, UPPER(events.level) AS l, COUNT(*) AS n]
          Aggregate keys=[events.host, UPPER(events.level)] (GROUP BY ALL) aggregates=[COUNT(*)]
            Scan events (event_id, host, time, level, amount, price)
    """)


def test_the_star_of_a_subquery_alias():
    assert plan("SELECT s.* FROM (SELECT host, time FROM events) s") == expected("""
        Project [s.host AS host, s.time AS time]
          Alias s (host, time)
            Project [events.host AS host, events.time AS time]
              Scan events (event_id, host, time, level, amount, price)
    """)
