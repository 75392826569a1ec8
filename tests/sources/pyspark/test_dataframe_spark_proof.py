"""Real Spark proves that every fixed PySpark pipeline keeps its columns.

Each job is fixed with `sortlint check --fix --unsafe-fixes`, then run twice - as written and
as fixed - with real PySpark over empty tables created from the catalog's column types. Every
DataFrame the job writes, makes a view of, collects, shows, counts or returns is recorded
with its schema (`df.schema`: names and types, in order) instead of being written or
executed; the two runs must record the same schemas in the same order. Building the
DataFrames is enough for Spark's analyzer to resolve every name and type: an `.select` of a
name the fix got wrong, an `any_value` of the wrong type, a window spec Spark rejects all
fail here.

The corpus: the example jobs (examples/jobs, with examples/sortlint.yml) and one job per
fix shape of tests/sources/test_pyspark_fixes.py.
"""

from __future__ import annotations

import shutil
import textwrap
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import pytest


import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.cli import main
from sortlint.config import load_config

pytestmark = spark_support.NEEDS_SPARK

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

CATALOG = """\
target: spark
spark: {legacy_bucketed_scan_ordering: true}
sources:
  proof.events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
    unique: [[event_id]]
  proof.lines:
    columns: {order_id: bigint not null, line_no: int not null, sku: string, quantity: int}
    bucketing: {by: [order_id], buckets: 4, sorted_by: [order_id, line_no]}
    unique: [[order_id, line_no]]
  proof.counts:
    columns: {level: string, host: string not null, count: bigint not null}
    orderings: [[host, level]]
  proof.orders:
    columns: {order_id: bigint not null, customer_id: bigint not null, amount: "decimal(12,2)"}
    unique: [[order_id]]
"""

HEADER = "from pyspark.sql import Window\nfrom pyspark.sql import functions as F\n\n"

SHAPES = {
    "sl001_chain": '''
        out = (
            spark.table("proof.events")
            .filter(F.col("host") == "a")  # one host
            .orderBy("host")  # by host
            .select("host", "time")
        )
        out.write.saveAsTable("x")
    ''',
    "sl002_backslashes_join_count_repartition": '''
        a = spark.table("proof.events") \\
            .orderBy("time") \\
            .select("host")
        a.join(spark.table("proof.events"), "host").collect()
        n = spark.table("proof.orders").orderBy("amount").count()
        spark.table("proof.orders").orderBy("amount").repartition(8, "customer_id").write.saveAsTable("y")
    ''',
    "sl003_keys": '''
        a = spark.table("proof.events").filter(F.col("level") == "ERROR").orderBy("level", "latency_ms", ascending=False)
        a.show()
        b = spark.table("proof.events").orderBy("latency_ms", "latency_ms", F.col("event_id").desc(), "time")
        b.show()
    ''',
    "sl101_select": '''
        per_line = (
            spark.table("proof.lines")
            .groupBy("line_no", "order_id")  # keys
            .agg(F.sum("quantity").alias("quantity"), F.count("*"), F.avg(F.col("quantity") * 1.5))
        )
        per_line.write.saveAsTable("x")
    ''',
    "sl301_sorted_write": '''
        spark.table("proof.events").groupBy("level", "host").count().write.saveAsTable("proof.counts")
    ''',
    "sl103_any_value": '''
        a = spark.table("proof.events").filter(F.col("host") == "a").groupBy("host", "level").agg(F.count("*").alias("n"))
        a.write.saveAsTable("a")
        b = spark.table("proof.orders").groupBy("order_id", "customer_id").count()
        b.write.saveAsTable("b")
        c = spark.table("proof.events").filter(F.col("host") == "a").groupBy(
            F.date_trunc("hour", "time"), "host"
        ).agg(F.max("latency_ms"))
        c.collect()
    ''',
    "sl201_windows": '''
        w = Window.partitionBy("host").orderBy("host", "time")
        a = spark.table("proof.events").withColumn("seq", F.row_number().over(w))
        a.write.saveAsTable("a")
        b = spark.table("proof.events").filter("level = 'x'").select(
            "host",
            F.max("latency_ms").over(Window.partitionBy("level")),
        )
        b.write.saveAsTable("b")
    ''',
    "spark_sql": '''
        top = spark.sql(
            """
            SELECT customer_id, count(*) AS n
            FROM (
              SELECT customer_id FROM proof.orders ORDER BY amount
            ) o
            GROUP BY customer_id
            """
        )
        top.write.saveAsTable("x")
        one = spark.sql('SELECT host FROM proof.events WHERE host = \\'a\\' '
                        'ORDER BY host')
        one.groupBy("host").count().collect()
    ''',
}


class Recorder:
    """Patches PySpark's sinks to record schemas instead of running anything."""

    def __init__(self) -> None:
        self.records: list[tuple[str, list[tuple[str, str]]]] = []

    def record(self, label: str, df) -> None:
        self.records.append((label, [(f.name, f.dataType.simpleString()) for f in df.schema.fields]))

    def patches(self):
        from pyspark.sql.classic.dataframe import DataFrame  # what spark.table returns
        from pyspark.sql.readwriter import DataFrameWriter

        recorder = self

        def writer(name):
            def write(self, *args, **kwargs):
                recorder.record(f"{name} {args[0] if args else ''}", self._df)
            return write

        def action(name, result):
            def run(self, *args, **kwargs):
                recorder.record(name, self)
                return result
            return run

        original_view = DataFrame.createOrReplaceTempView

        def view(self, name):
            recorder.record(f"view {name}", self)
            return original_view(self, name)

        patches = [mock.patch.object(DataFrameWriter, m, writer(m))
                   for m in ("saveAsTable", "insertInto", "save", "parquet", "csv", "json", "orc", "text")]
        patches += [mock.patch.object(DataFrame, m, action(m, r)) for m, r in
                    (("show", None), ("collect", []), ("toPandas", None), ("count", 0),
                     ("first", None), ("head", None), ("take", []))]
        patches.append(mock.patch.object(DataFrame, "createOrReplaceTempView", view))
        return patches


def run_job(spark, source: str, entry: str | None, args: tuple) -> list:
    from pyspark.sql import DataFrame

    recorder = Recorder()
    with ExitStack() as stack:
        for patch in recorder.patches():
            stack.enter_context(patch)
        namespace = {"__name__": "sortlint_proof", "spark": spark}
        exec(compile(source, "job.py", "exec"), namespace)
        if entry is not None:
            result = namespace[entry](spark, *args)
            if isinstance(result, DataFrame):
                recorder.record("return", result)
    return recorder.records


def fix(path: Path) -> tuple[str, str]:
    before = path.read_text()
    main(["check", "--fix", "--unsafe-fixes", str(path)])
    return before, path.read_text()


@pytest.fixture(scope="module")
def proof_tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("proof-catalog")
    (root / "sortlint.yml").write_text(CATALOG)
    spark_support.create_tables(spark, load_config(start_paths=[root]).sources)
    spark_support.create_tables(spark, load_config(start_paths=[EXAMPLES]).sources)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fixed_shapes_keep_their_columns(shape, spark, proof_tables, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    path = tmp_path / "job.py"
    path.write_text(HEADER + textwrap.dedent(SHAPES[shape]).lstrip("\n"))
    before, after = fix(path)
    assert before != after, "the fix changed nothing: this proves nothing"
    original = run_job(spark, before, None, ())
    assert original, "the job recorded no DataFrame"
    assert run_job(spark, after, None, ()) == original


EXAMPLE_JOBS = {
    "orders_rollup.py": ("main", ()),
    "sessionize_events.py": ("main", ("2024-03-01",)),
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_JOBS))
def test_fixed_example_jobs_keep_their_columns(name, spark, proof_tables, tmp_path):
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / "jobs" / name
    before, after = fix(path)
    assert before != after
    entry, args = EXAMPLE_JOBS[name]
    original = run_job(spark, before, entry, args)
    assert len(original) >= 3
    assert run_job(spark, after, entry, args) == original
