"""DataFrame pipelines -> the IR: what each call becomes, and expression keys equal to SQL's."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.ordering import Expr
from sortlint.plan.nodes import Aggregate, Sort, Window, walk
from sortlint.plan.render import render
from sortlint.sources.frontend import Reading
from sortlint.sources.pyspark.units import pyspark_units
from sortlint.sources.registry import build as build_unit
from sortlint.workspace.tables import FileTables, RepositoryTables

CATALOG = """\
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
  orders:
    columns: {order_id: bigint not null, customer_id: bigint not null, amount: "decimal(12,2)"}
  customers:
    columns: {customer_id: bigint not null, name: string}
"""


@pytest.fixture
def build(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    config = load_config(start_paths=[tmp_path])

    def run(source: str):
        raw = "from pyspark.sql import functions as F, Window\n" + textwrap.dedent(source).lstrip("\n")
        units = [u for u in pyspark_units(Path("job.py"), raw, Reading(config)) if u.kind == "pyspark"]
        tables = FileTables(RepositoryTables(config))
        statements = []
        for unit in units:
            statement = build_unit(unit, tables, config)
            tables.register(statement)
            statements.append(statement)
        return statements

    return run


def plan(build, source: str) -> str:
    *_, last = build(source)
    return render(last.root)


def tree(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def test_filter_sort_select(build):
    assert plan(build, '''
        out = (spark.table("events")
               .filter((F.col("host") == "x") & (F.col("latency_ms") > 10))
               .orderBy(F.col("time").desc())
               .select("host", (F.col("latency_ms") + 1).alias("l1"), F.date_trunc("hour", "time")))
        out.collect()
    ''') == tree("""
        Project [events.host AS host, events.latency_ms + 1 AS l1, DATE_TRUNC('HOUR', events.time) AS date_trunc(hour, time)]
          Sort orderBy [events.time DESC NULLS LAST]
            Filter WHERE [events.host = 'x', events.latency_ms > 10]
              Scan events (event_id, host, time, level, latency_ms)
    """)


def test_group_by_and_aggregations(build):
    assert plan(build, '''
        spark.table("events").groupBy("host", F.col("level").alias("lvl")).agg(
            F.count("*").alias("n"), F.max("latency_ms")).write.saveAsTable("x")
    ''') == tree("""
        Write table x
          Project [events.host AS host, events.level AS lvl, COUNT(*) AS n, MAX(events.latency_ms) AS max(latency_ms)]
            Aggregate keys=[events.host, events.level] aggregates=[COUNT(*), MAX(events.latency_ms)]
              Scan events (event_id, host, time, level, latency_ms)
    """)
    assert plan(build, 'spark.table("events").groupBy("host").count().collect()') == tree("""
        Project [events.host AS host, COUNT(*) AS count]
          Aggregate keys=[events.host] aggregates=[COUNT(*)]
            Scan events (event_id, host, time, level, latency_ms)
    """)


def test_joins(build):
    assert plan(build, '''
        o = spark.table("orders")
        c = spark.table("customers").select("customer_id", "name")
        o.join(c, "customer_id", "left").collect()
    ''') == tree("""
        Join left [orders.customer_id = customer_id]
          Scan orders (order_id, customer_id, amount)
          Project [customers.customer_id AS customer_id, customers.name AS name]
            Scan customers (customer_id, name)
    """)
    statement = build('''
        o = spark.table("orders").alias("o")
        c = spark.table("customers").select("customer_id", "name").alias("c")
        o.join(c, F.col("o.customer_id") == F.col("c.customer_id")).select("o.order_id", c.name).collect()
    ''')[-1]
    joins = [n for n in walk(statement.root) if type(n).__name__ == "Join"]
    assert [str(e) for pair in joins[0].equalities for e in pair] == ["orders.customer_id", "customer_id"]
    assert statement.outputs == ("order_id", "name")


def test_self_join_sides_are_told_apart(build):
    statement = build('''
        a = spark.table("events").select("host", "time")
        b = spark.table("events").select("host", "level")
        a.join(b, a.host == b.host).select(a.time, b.level).collect()
    ''')[-1]
    assert render(statement.root).splitlines()[:2] == [
        "Project [l.time AS time, r.level AS level]",
        "  Join inner [l.host = r.host]",
    ]


def test_windows(build):
    statement = build('''
        w = Window.partitionBy("host").orderBy(F.col("time").desc())
        spark.table("events").withColumn("rn", F.row_number().over(w)).collect()
    ''')[-1]
    window = next(n for n in walk(statement.root) if isinstance(n, Window))
    (function,) = window.functions
    assert [k.text for k in function.partition_by] == ['"host"']
    assert [(str(k.expr), k.options.descending, k.text) for k in function.order_by] == [
        ("events.time", True, 'F.col("time").desc()')]
    assert function.ranking
    assert statement.outputs == ("event_id", "host", "time", "level", "latency_ms", "rn")


def test_expression_keys_are_the_same_as_sql(build):
    statement = build('''
        spark.table("events").groupBy(
            F.col("latency_ms") + 1, F.date_trunc("hour", F.col("time")), F.to_date("time")
        ).agg(F.count("*"), F.sum("latency_ms")).collect()
    ''')[-1]
    aggregate = next(n for n in walk(statement.root) if isinstance(n, Aggregate))
    sql = ["latency_ms + 1", "date_trunc('hour', time)", "to_date(time)"]
    qualified = [Expr.parse(s.replace("latency_ms", "events.latency_ms").replace("time", "events.time")) for s in sql]
    assert [k.expr for k in aggregate.keys] == qualified
    assert [a.expr for a in aggregate.aggregates] == [Expr.parse("count(*)"), Expr.parse("sum(events.latency_ms)")]


def test_operations_that_forget_or_keep_order(build):
    assert plan(build, '''
        (spark.table("events").repartition(4, "host").sortWithinPartitions("time")
         .dropDuplicates(["host"]).coalesce(1).distinct().limit(3).collect())
    ''') == tree("""
        Limit 3
          Distinct
            Opaque '.coalesce(...) merges partitions: their order across is not known' (event_id, host, time, level, latency_ms)
              Opaque '.dropDuplicates on a subset of columns keeps the first row it meets' (event_id, host, time, level, latency_ms)
                Sort sortWithinPartitions [events.time ASC NULLS FIRST] (partition)
                  Repartition repartition [events.host]
                    Scan events (event_id, host, time, level, latency_ms)
    """)


def test_set_operations_project_their_inputs(build):
    assert plan(build, '''
        a = spark.table("orders").select("customer_id")
        b = spark.table("customers").select("name", "customer_id")
        a.unionByName(b.select("customer_id")).collect()
    ''') == tree("""
        SetOp union all (customer_id)
          Project [orders.customer_id AS customer_id]
            Scan orders (order_id, customer_id, amount)
          Project [customer_id]
            Project [customers.name AS name, customers.customer_id AS customer_id]
              Scan customers (customer_id, name)
    """)


def test_spark_sql_is_the_sql_statements_plan(build):
    statement = build('''
        df = spark.sql("SELECT host, count(*) AS n FROM events GROUP BY host")
        df.filter(F.col("n") > 1).collect()
    ''')[-1]
    assert render(statement.root).splitlines()[:3] == [
        "Filter WHERE [n > 1]",
        "  Alias - (host, n) (view)",
        "    Project [events.host AS host, COUNT(*) AS n]",
    ]


def test_what_is_not_understood_is_opaque(build):
    statement = build('''
        df = spark.table("events").mapInPandas(lambda it: it, "host string").orderBy("host")
        df.collect()
    ''')[-1]
    assert render(statement.root) == tree("""
        Sort orderBy [host ASC NULLS FIRST]
          Opaque '.mapInPandas(...)'
            Scan events (event_id, host, time, level, latency_ms)
    """)
    statement = build('''
        spark.table("events").withColumn("id", F.monotonically_increasing_id()).collect()
    ''')[-1]
    assert render(statement.root).startswith("Opaque 'F.monotonically_increasing_id depends on the order of the rows'")


def test_sorts_carry_their_call_and_key_spans(build):
    statement = build('''
        spark.table("events").orderBy("host", F.col("time").desc_nulls_first(), ascending=False).show()
    ''')[-1]
    sort = next(n for n in walk(statement.root) if isinstance(n, Sort))
    unit = statement.unit
    assert unit.text[sort.span.start : sort.span.end] == (
        '.orderBy("host", F.col("time").desc_nulls_first(), ascending=False)')
    assert [(k.text, k.options.descending, k.options.nulls_first) for k in sort.keys] == [
        ('"host"', True, False), ('F.col("time").desc_nulls_first()', True, True)]
