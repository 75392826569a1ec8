"""PySpark jobs end to end: exact findings (line, code) and exact rewritten text, over
awkward shapes - chains in parentheses, chains broken over lines with comments and
backslashes, `spark.sql` strings spanning lines, CRLF files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check

CATALOG = """\
target: spark
spark: {legacy_bucketed_scan_ordering: true}
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
    unique: [[event_id]]
  lines:
    columns: {order_id: bigint not null, line_no: int not null, sku: string, quantity: int}
    bucketing: {by: [order_id], buckets: 4, sorted_by: [order_id, line_no]}
    unique: [[order_id, line_no]]
  orders:
    columns: {order_id: bigint not null, customer_id: bigint not null, amount: "decimal(12,2)"}
    unique: [[order_id]]
"""

HEADER = "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n\n"


@pytest.fixture
def job(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)

    def write(source: str, newline: str = "\n") -> Path:
        path = tmp_path / "job.py"
        text = HEADER + textwrap.dedent(source).lstrip("\n")
        path.write_bytes(text.replace("\n", newline).encode())
        return path

    return write


def findings(path: Path) -> list[tuple[int, str]]:
    result = check([path], load_config(start_paths=[path]))
    assert not result.all_errors, result.all_errors
    return [(f.line - 3, f.code) for f in result.findings]  # lines counted after HEADER


def fixed(path: Path, *flags: str) -> str:
    main(["check", "--fix", *flags, str(path)])
    text = path.read_bytes().decode()
    header = HEADER.replace("\n", "\r\n") if "\r\n" in text else HEADER
    assert text.startswith(header)
    return text[len(header):]


def test_sort_alone_on_its_line_in_parentheses_goes_with_its_comment(job):
    path = job('''
        out = (
            spark.table("events")
            .filter(F.col("host") == "a")  # one host
            .orderBy("host")  # by host
            .select("host", "time")
        )
        out.write.saveAsTable("x")
    ''')
    assert findings(path) == [(4, "SL001")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        out = (
            spark.table("events")
            .filter(F.col("host") == "a")  # one host
            .select("host", "time")
        )
        out.write.saveAsTable("x")
    ''')


def test_a_comment_line_above_the_sort_stays(job):
    path = job('''
        out = (spark.table("events").filter(F.col("host") == "a")
               # one host: sorting by it does nothing
               .orderBy("host"))
        out.collect()
    ''')
    assert findings(path) == [(3, "SL001")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        out = (spark.table("events").filter(F.col("host") == "a")
               # one host: sorting by it does nothing
               )
        out.collect()
    ''')


def test_last_call_of_a_chain_in_parentheses(job):
    path = job('''
        out = (spark.table("events")
               .filter(F.col("host") == "a")
               .orderBy("host"))
        out.collect()
    ''')
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        out = (spark.table("events")
               .filter(F.col("host") == "a"))
        out.collect()
    ''')


def test_backslash_continuations(job):
    path = job('''
        a = spark.table("events") \\
            .orderBy("time") \\
            .select("host")
        a.join(spark.table("events"), "host").collect()
        b = spark.table("events") \\
            .filter("host = 'a'") \\
            .orderBy("host")
        b.collect()
    ''')
    assert findings(path) == [(2, "SL002"), (7, "SL001")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        a = spark.table("events") \\
            .select("host")
        a.join(spark.table("events"), "host").collect()
        b = spark.table("events") \\
            .filter("host = 'a'")
        b.collect()
    ''')


def test_inline_chain_and_a_sort_before_a_join(job):
    path = job('''
        orders = spark.table("orders").orderBy("amount").select("order_id", "amount")
        orders.join(spark.table("lines"), "order_id").write.saveAsTable("x")
    ''')
    assert findings(path) == [(1, "SL002")]
    assert fixed(path) == textwrap.dedent('''\
        orders = spark.table("orders").select("order_id", "amount")
        orders.join(spark.table("lines"), "order_id").write.saveAsTable("x")
    ''')


def test_sorts_that_matter_are_left_alone(job):
    path = job('''
        a = spark.table("orders").orderBy("amount")
        a.write.saveAsTable("x")
        b = spark.table("orders").orderBy("amount").coalesce(1)
        b.write.csv("/tmp/b")
        c = spark.table("orders").orderBy("amount").dropDuplicates(["customer_id"])
        c.collect()
        d = spark.table("orders").orderBy("amount").withColumn("rank", F.monotonically_increasing_id())
        d.join(spark.table("lines"), "order_id").collect()
        e = spark.table("orders").orderBy("amount").groupBy("customer_id").agg(F.first("amount"))
        e.collect()
        spark.table("orders").orderBy("amount").show(5)
        f = spark.table("orders").orderBy("amount")
        f.count()  # counting does not need the order, but the write below keeps it
        f.write.saveAsTable("f")
    ''')
    assert findings(path) == []


def test_a_sort_before_count_and_repartition_has_no_effect(job):
    path = job('''
        n = spark.table("orders").orderBy("amount").count()
        spark.table("orders").orderBy("amount").repartition(8, "customer_id").write.saveAsTable("x")
    ''')
    assert findings(path) == [(1, "SL002"), (2, "SL002")]
    assert fixed(path) == textwrap.dedent('''\
        n = spark.table("orders").count()
        spark.table("orders").repartition(8, "customer_id").write.saveAsTable("x")
    ''')


def test_sl003_drops_keys_and_keeps_ascending(job):
    path = job('''
        a = spark.table("events").filter(F.col("level") == "ERROR").orderBy("level", "latency_ms", ascending=False)
        a.show()
        b = spark.table("events").orderBy("latency_ms", "latency_ms", F.col("event_id").desc(), "time")
        b.show()
    ''')
    assert findings(path) == [(1, "SL003"), (3, "SL003"), (3, "SL003")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        a = spark.table("events").filter(F.col("level") == "ERROR").orderBy("latency_ms", ascending=False)
        a.show()
        b = spark.table("events").orderBy("latency_ms", F.col("event_id").desc())
        b.show()
    ''')


def test_sl003_with_a_list_of_directions_is_not_fixed(job):
    path = job('''
        spark.table("events").filter("level = 'x'").orderBy("level", "time", ascending=[True, False]).show()
    ''')
    assert findings(path) == [(1, "SL003")]
    result = check([path], load_config(start_paths=[path]))
    assert result.findings[0].fix is None


def test_sl101_reorders_group_keys_and_keeps_the_column_order(job):
    path = job('''
        per_line = (
            spark.table("lines")
            .groupBy("line_no", "order_id")  # keys
            .agg(F.sum("quantity").alias("quantity"), F.count("*"))
        )
        per_line.write.saveAsTable("x")
    ''')
    assert findings(path) == [(3, "SL101")]
    assert fixed(path) == textwrap.dedent('''\
        per_line = (
            spark.table("lines")
            .groupBy("order_id", "line_no")  # keys
            .agg(F.sum("quantity").alias("quantity"), F.count("*")).select("line_no", "order_id", "quantity", "`count(1)`")
        )
        per_line.write.saveAsTable("x")
    ''')


def test_sl102_puts_the_ordered_key_first(job):
    path = job('''
        spark.table("events").groupBy("level", "host").count().write.saveAsTable("x")
    ''')
    assert findings(path) == []  # Spark's sort aggregate needs every key ordered
    (path.parent / "sortlint.yml").write_text(CATALOG.replace("target: spark", "target: datafusion"))
    assert findings(path) == [(1, "SL102")]
    assert fixed(path) == textwrap.dedent('''\
        spark.table("events").groupBy("host", "level").count().select("level", "host", "count").write.saveAsTable("x")
    ''')


def test_sl101_fix_is_unsafe_when_a_name_is_not_certain(job):
    path = job('''
        spark.table("lines").groupBy("line_no", "order_id").agg(F.sha1("sku")).write.saveAsTable("x")
    ''')
    result = check([path], load_config(start_paths=[path]))
    assert [(f.code, f.fix) for f in result.findings] == [("SL101", None)]  # the name is not known
    path = job('''
        spark.table("lines").groupBy("line_no", "order_id").agg(F.sum(F.col("quantity") * 1e9)).write.saveAsTable("x")
    ''')
    result = check([path], load_config(start_paths=[path]))
    assert [(f.code, f.fix.applicability) for f in result.findings] == [("SL101", "unsafe")]


def test_sl103_keeps_the_column_with_any_value(job):
    path = job('''
        a = spark.table("events").filter(F.col("host") == "a").groupBy("host", "level").agg(F.count("*").alias("n"))
        a.write.saveAsTable("a")
        b = spark.table("orders").groupBy("order_id", "customer_id").count()
        b.write.saveAsTable("b")
    ''')
    assert findings(path) == [(1, "SL103"), (3, "SL103")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        a = spark.table("events").filter(F.col("host") == "a").groupBy("level").agg(F.expr("'a'").alias("host"), F.count("*").alias("n")).select("host", "level", "n")
        a.write.saveAsTable("a")
        b = spark.table("orders").groupBy("order_id").agg(F.any_value("customer_id").alias("customer_id"), F.count(F.lit(1)).alias("count"))
        b.write.saveAsTable("b")
    ''')


def test_sl201_drops_window_keys(job):
    path = job('''
        w = Window.partitionBy("host").orderBy("host", "time")
        a = spark.table("events").withColumn("seq", F.row_number().over(w))
        a.write.saveAsTable("a")
        b = spark.table("events").filter("level = 'x'").select(
            "host",
            F.max("latency_ms").over(Window.partitionBy("level")),
        )
        b.write.saveAsTable("b")
    ''')
    assert findings(path) == [(1, "SL201"), (6, "SL201")]
    assert fixed(path) == textwrap.dedent('''\
        w = Window.partitionBy("host").orderBy("time")
        a = spark.table("events").withColumn("seq", F.row_number().over(w))
        a.write.saveAsTable("a")
        b = spark.table("events").filter("level = 'x'").select(
            "host",
            F.max("latency_ms").over(Window.partitionBy()).alias("max(latency_ms) OVER (PARTITION BY level ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
        )
        b.write.saveAsTable("b")
    ''')


def test_spark_sql_fixes_are_written_inside_the_literal(job):
    path = job('''
        top = spark.sql(
            """
            SELECT customer_id, count(*) AS n
            FROM (
              SELECT customer_id FROM orders ORDER BY amount
            ) o
            GROUP BY customer_id
            """
        )
        top.write.saveAsTable("x")
        one = spark.sql('SELECT host FROM events WHERE host = \\'a\\' '
                        'ORDER BY host')
        one.collect()
    ''')
    assert findings(path) == [(5, "SL002"), (12, "SL001")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        top = spark.sql(
            """
            SELECT customer_id, count(*) AS n
            FROM (
              SELECT customer_id FROM orders
            ) o
            GROUP BY customer_id
            """
        )
        top.write.saveAsTable("x")
        one = spark.sql('SELECT host FROM events WHERE host = \\'a\\'')
        one.collect()
    ''')


def test_noqa_on_a_python_line(job):
    path = job('''
        out = (spark.table("orders")
               .orderBy("amount")  # noqa: SL002
               .join(spark.table("lines"), "order_id"))
        out.collect()
    ''')
    assert findings(path) == []


def test_crlf_file_is_fixed_in_place(job):
    path = job('''
        out = (spark.table("events")
               .filter(F.col("host") == "a")
               .orderBy("host")
               .select("time"))
        out.collect()
    ''', newline="\r\n")
    assert fixed(path, "--unsafe-fixes") == (
        'out = (spark.table("events")\r\n'
        '       .filter(F.col("host") == "a")\r\n'
        '       .select("time"))\r\n'
        "out.collect()\r\n"
    )


def test_fixing_twice_changes_nothing_the_second_time(job):
    path = job('''
        w = Window.partitionBy("host").orderBy("host", "time")
        a = (spark.table("events").filter(F.col("host") == "a")
             .withColumn("seq", F.row_number().over(w))
             .orderBy("time"))
        a.join(spark.table("events"), "event_id").collect()
    ''')
    first = fixed(path, "--unsafe-fixes")
    assert fixed(path, "--unsafe-fixes") == first
    assert findings(path) == []


def test_sl301_sorts_the_rows_before_the_write(job):
    (job("").parent / "sortlint.yml").write_text(
        CATALOG + "  by_host:\n    columns: {host: string not null, n: bigint not null}\n    orderings: [[host]]\n"
    )
    path = job('''
        counts = spark.table("events").groupBy("host").count().withColumnRenamed("count", "n")
        counts.write.mode("overwrite").saveAsTable("by_host")
        counts.orderBy("n").write.mode("append").saveAsTable("by_host")
        counts.orderBy(F.col("host").desc()).write.mode("append").saveAsTable("by_host")
        counts.writeTo("by_host").append()
    ''')
    assert findings(path) == [(2, "SL301"), (3, "SL301"), (4, "SL301"), (5, "SL301")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        counts = spark.table("events").groupBy("host").count().withColumnRenamed("count", "n")
        counts.orderBy("host").write.mode("overwrite").saveAsTable("by_host")
        counts.orderBy("host").write.mode("append").saveAsTable("by_host")
        counts.orderBy("host").write.mode("append").saveAsTable("by_host")
        counts.orderBy("host").writeTo("by_host").append()
    ''')


def test_spark_sql_built_at_run_time_is_fixed_in_its_literal_or_left_with_the_reason(job):
    # The SQL is built by a function: the finding lands on the literal's line, the fix edits
    # it (the implicitly joined literals around the sort become one, as for a plain literal);
    # a sort split over two literals joined by `+` is assembled text, left alone with the reason.
    path = job('''
        def rollup_sql(table, day):
            return (
                "SELECT customer_id, count(*) AS n FROM ("
                "SELECT customer_id FROM " + table + " WHERE day = '{day}' ORDER BY amount"
                ") o GROUP BY customer_id"
            ).format(day=day)


        def spread_sql(table):
            return "SELECT host FROM " + table + " WHERE host = 'a' ORDER BY " + "host"


        def run(day):
            spark.sql(rollup_sql("orders", day)).write.saveAsTable("x")
            spark.sql(spread_sql("events")).collect()
    ''')
    assert findings(path) == [(4, "SL002"), (10, "SL001")]
    withheld = [(f.fix.applicability, f.fix.message) for f in check([path], load_config(start_paths=[path])).findings
                if f.code == "SL001"]
    assert withheld == [("unavailable", "remove the ORDER BY: the edit would run across strings joined at run time")]
    assert fixed(path, "--unsafe-fixes") == textwrap.dedent('''\
        def rollup_sql(table, day):
            return (
                "SELECT customer_id, count(*) AS n FROM ("
                "SELECT customer_id FROM " + table + " WHERE day = '{day}') o GROUP BY customer_id"
            ).format(day=day)


        def spread_sql(table):
            return "SELECT host FROM " + table + " WHERE host = 'a' ORDER BY " + "host"


        def run(day):
            spark.sql(rollup_sql("orders", day)).write.saveAsTable("x")
            spark.sql(spread_sql("events")).collect()
    ''')
