"""DataFrames of unknown shape - a function's parameter, what a function sortlint cannot
follow returns, `spark.createDataFrame`, what `.sample` gives - are rows of columns not known:
the operations on them are analysed, the columns the code names become known as it names
them, and nothing is known of the rows but what those operations establish.

The package below is written for these tests in the shape of a typical ETL repository:
`transform(df)` functions in modules, a `main` that reads tables and passes them on, helpers
of one module returning DataFrames to another, a `.drop` and an `.agg` of columns computed at
run time. `sortlint coverage` measures what is analysed of it.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import random
import textwrap
from pathlib import Path

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check

CATALOG = """\
target: spark
include: ["etl/*.py", "jobs/*.py"]
sources:
  raw.events:
    columns: {event_id: bigint not null, user_id: bigint not null, kind: string, ts: timestamp not null, amount: double}
  raw.users:
    columns: {user_id: bigint not null, country: string, signup: date}
    unique: [[user_id]]
  mart.daily:
    columns: {day: date, country: string, events: bigint}
    orderings: [[day]]
"""

PACKAGE = {
    "etl/__init__.py": "",
    "etl/sources.py": '''
        """Where the pipeline's inputs come from."""
        from pyspark.sql import DataFrame, SparkSession


        def read_events(spark: SparkSession) -> DataFrame:
            return spark.table("raw.events")


        def read_users(spark: SparkSession) -> DataFrame:
            return spark.read.table("raw.users")


        def read_rates(spark: SparkSession, path: str) -> DataFrame:
            return spark.read.parquet(path)
    ''',
    "etl/clean.py": '''
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F


        def transform(df: DataFrame) -> DataFrame:
            return (
                df.filter(F.col("kind").isNotNull())
                .withColumn("day", F.to_date("ts"))
                .drop("raw_payload")
            )


        def only_purchases(df: DataFrame) -> DataFrame:
            return df.where(F.col("kind") == "purchase").select("user_id", "day", "amount")


        def renamed(df: DataFrame) -> DataFrame:
            return df.withColumnRenamed("ts", "event_time").filter(df.amount > 0)
    ''',
    "etl/enrich.py": '''
        from pyspark.sql import DataFrame


        def with_country(events: DataFrame, users: DataFrame) -> DataFrame:
            return events.join(users.select("user_id", "country"), "user_id", "left")


        def sorted_join(events: DataFrame, users: DataFrame) -> DataFrame:
            return events.orderBy("ts").join(users, "user_id")
    ''',
    "etl/metrics.py": '''
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F


        def per_kind(df: DataFrame) -> DataFrame:
            return df.orderBy("ts").groupBy("kind").count()


        def per_user(df: DataFrame) -> DataFrame:
            # A sum of doubles adds in the order rows come: this sort is not without effect.
            return df.orderBy("ts").groupBy("user_id").agg(F.sum("amount").alias("total"))


        def per_day(df: DataFrame) -> DataFrame:
            return df.groupBy("day", "country").agg(F.count("*").alias("events"))


        def purchases(df: DataFrame) -> DataFrame:
            return df.filter(F.col("kind") == "purchase").groupBy("kind", "user_id").count()
    ''',
    "etl/sessions.py": '''
        from pyspark.sql import DataFrame, Window
        from pyspark.sql import functions as F


        def ranked(df: DataFrame) -> DataFrame:
            w = Window.partitionBy("user_id").orderBy("ts")
            return df.withColumn("n", F.row_number().over(w))


        def last_touch(df: DataFrame) -> DataFrame:
            w = Window.partitionBy("user_id").orderBy(F.col("ts").desc())
            return df.sortWithinPartitions("user_id").withColumn("rank", F.rank().over(w)).filter("rank = 1")
    ''',
    "etl/dedupe.py": '''
        from pyspark.sql import DataFrame


        def unique_events(df: DataFrame) -> DataFrame:
            return df.dropDuplicates().drop("ingested_at")


        def latest(df: DataFrame) -> DataFrame:
            return df.orderBy("ts").dropDuplicates(["event_id"])
    ''',
    "etl/dynamic.py": '''
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F

        METRICS = ["amount", "quantity"]


        def drop_internal(df: DataFrame, prefix: str = "_") -> DataFrame:
            return df.drop(*[c for c in df.columns if c.startswith(prefix)])


        def totals(df: DataFrame, keys: list) -> DataFrame:
            return df.groupBy(*keys).agg(*[F.sum(m).alias(m) for m in METRICS])
    ''',
    "etl/fixtures.py": '''
        from pyspark.sql import DataFrame, SparkSession


        def calendar(spark: SparkSession, days: list) -> DataFrame:
            return spark.createDataFrame([(d,) for d in days], ["day"]).orderBy("day").distinct()


        def sample_events(df: DataFrame, fraction: float) -> DataFrame:
            return df.sample(fraction=fraction, seed=7)
    ''',
    "etl/writers.py": '''
        from pyspark.sql import DataFrame


        def save(df: DataFrame, table: str) -> None:
            df.write.mode("overwrite").saveAsTable(table)


        def save_daily(df: DataFrame) -> None:
            df.orderBy("day").write.mode("overwrite").saveAsTable("mart.daily")
    ''',
    "jobs/daily.py": '''
        from pyspark.sql import SparkSession

        from etl.clean import only_purchases, transform
        from etl.enrich import with_country
        from etl.metrics import per_day, per_kind, per_user
        from etl.sources import read_events, read_users
        from etl.writers import save, save_daily


        def main():
            spark = SparkSession.builder.getOrCreate()
            events = transform(read_events(spark))
            users = read_users(spark)
            save_daily(per_day(with_country(events, users)))
            save(per_user(only_purchases(events)), "mart.user_totals")
            per_kind(events.orderBy("user_id")).show()


        if __name__ == "__main__":
            main()
    ''',
    "jobs/report.py": '''
        from pyspark.sql import SparkSession

        from etl import metrics, sources
        from etl.fixtures import calendar


        def weekly(spark):
            frame = sources.read_events(spark).withColumn("week", sources.week_of("ts"))
            return metrics.per_kind(frame)


        def main():
            spark = SparkSession.builder.getOrCreate()
            weekly(spark).write.mode("overwrite").saveAsTable("mart.weekly")
            calendar(spark, ["2026-01-01"]).show()


        main()
    ''',
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
def package(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    write(tmp_path, PACKAGE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_coverage_of_the_package(package, capsys):
    assert main(["coverage", "--output-format", "json", "."]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {key: report[key] for key in ("statements", "parsed", "analysed_without_opaque", "nodes", "opaque_nodes")} == {
        "statements": 30, "parsed": 30, "analysed_without_opaque": 26, "nodes": 93, "opaque_nodes": 4,
    }
    # What is left opaque is so on purpose: a `.drop` and an `.agg` of columns computed at run
    # time, a `dropDuplicates` on a subset (a sort before it decides which row stays), and a
    # function writing a table where it is called. (Before DataFrames of unknown shape were
    # analysed: 8 of 28 statements, 19 opaque nodes for a parameter of a function and 2 for
    # spark.createDataFrame.)
    assert report["opaque_by_reason"] == {
        ".dropDuplicates on a subset of columns keeps the first row it meets": 1,
        ".drop of columns known at run time": 1,
        ".agg of columns known at run time": 1,
        "mart.daily's rows change here: a Delta table's update or merge, or a call of a function that writes it": 1,
    }
    assert report["analysed_without_opaque"] / report["statements"] >= 0.75
    from_elsewhere = sum(count for reason, count in report["opaque_by_reason"].items()
                         if "from elsewhere" in reason or "parameter" in reason or "createDataFrame" in reason)
    assert from_elsewhere == 0


def test_findings_of_the_package(package, capsys):
    assert main(["check", "--output-format", "json", "."]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in findings] == [
        ("etl/enrich.py", 9, 18, "SL002"),  # the join discards the sort of its parameter
        ("etl/fixtures.py", 5, 64, "SL002"),  # DISTINCT over spark.createDataFrame
        ("etl/metrics.py", 6, 14, "SL002"),  # the sort before the aggregate, whatever the columns
        ("etl/metrics.py", 19, 59, "SL103"),  # a group key the filter made constant
        ("etl/sessions.py", 12, 14, "SL002"),  # the window sorts again
        ("jobs/daily.py", 16, 20, "SL002"),  # the caller's sort, which per_kind sorts again
    ]
    by_place = {(f["path"], f["line"]): f for f in findings}
    assert by_place["etl/metrics.py", 6]["message"] == (
        "orderBy has no effect: its rows feed an aggregate whose functions do not depend on row order. "
        "Spark removes this sort itself; the clause only misleads readers"
    )
    assert by_place["etl/metrics.py", 19]["message"] == (
        "group key \"kind\" is constant: WHERE df.kind = 'purchase' (line 19), "
        "if df.kind is a plain string: no other type equals 'purchase'"
    )


def lint(root: Path, files: dict[str, str], checked: str = "jobs/job.py"):
    write(root, files)
    result = check([root / checked], load_config(root / "sortlint.yml"), plans=True)
    assert not result.all_errors, result.all_errors
    return [(f.line, f.code) for f in result.findings], result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    return tmp_path


def job(body: str) -> str:
    """A job file: two lines of imports, a blank line, then `body` from line 4."""
    return "from pyspark.sql import functions as F\nfrom pyspark.sql import DataFrame\n\n" + textwrap.dedent(body).lstrip("\n")


def test_a_sort_before_an_aggregate_of_a_parameter(repo):
    found, result = lint(repo, {"jobs/job.py": job("""
        def f(df):
            return df.orderBy("a").groupBy("b").count()
    """)})
    assert found == [(5, "SL002")]
    [statement] = [s for f in result.files for s in f.statements]
    assert statement.outputs == ("b", "count")


def test_a_column_replaced_keeps_nothing_of_its_old_value(repo):
    # `a` is constant after the filter; `withColumn("a", ...)` replaces it, over columns not
    # all known: the new `a` is b, nothing is known of it.
    found, _ = lint(repo, {"jobs/job.py": job("""
        def replaced(df):
            return df.filter(F.col("a") == "x").withColumn("a", F.col("b")).groupBy("a", "c").count()

        def kept(df):
            return df.filter(F.col("a") == "x").withColumn("z", F.col("b")).groupBy("a", "c").count()
    """)})
    assert found == [(8, "SL103")]


def test_a_dropped_or_renamed_column_is_not_the_column_a_join_brings(repo):
    # After `drop("a")` (or a rename of a), an `a` is the other side's: what the filter made
    # constant is not it. The renamed column keeps what was known of it.
    found, _ = lint(repo, {"jobs/job.py": job("""
        def dropped(df, other):
            return df.filter(F.col("a") == "x").drop("a").join(other, "k").groupBy("a", "b").count()

        def renamed_away(df, other):
            return df.filter(F.col("a") == "x").withColumnRenamed("a", "r").join(other, "k").groupBy("a", "c").count()

        def renamed(df):
            return df.filter(F.col("a") == "x").withColumnRenamed("a", "r").groupBy("r", "c").count()
    """)})
    assert found == [(11, "SL103")]


def test_a_column_named_on_the_parameter(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def f(df):
            return df.filter(df.kind == "x").groupBy(df["kind"], "user_id").count()
    """)})
    assert found == [(5, "SL103")]


def test_fields_of_two_structs_are_not_one_column(repo):
    # `s.x` and `t.x` (fields of structs, or columns of relations not found) were both the
    # bare `x`: what the filter made constant was said of the other.
    found, _ = lint(repo, {"jobs/job.py": job("""
        raw = spark.read.parquet("s3://bucket/events")
        raw.filter(F.col("s.x") == "v").groupBy(F.col("t.x"), "b").count().show()
        raw.filter(F.col("s.x") == "v").groupBy(F.col("s.x"), "b").count().show()
    """)})
    assert found == [(6, "SL103")]


def test_what_is_sampled_depends_on_the_order_it_comes_in(repo):
    # A sort before `.sample` decides which rows are drawn (checked on Spark below): it is not
    # without effect. What the sample gives is rows nothing is known of, analysed as such.
    found, result = lint(repo, {"jobs/job.py": job("""
        def before(df):
            return df.orderBy("a").sample(0.5, seed=3).groupBy("b").count()

        def after(df):
            return df.sample(0.5).orderBy("a").groupBy("b").count()
    """)})
    assert found == [(8, "SL002")]
    assert all(not any(type(node).__name__ == "Opaque" for node in _walk(s.root))
               for f in result.files for s in f.statements)


def test_a_dataframe_another_module_returns_is_linted_there(repo):
    # `calendar` builds its DataFrame from no parameter: what is found in it is found in its
    # module, never at the caller's offsets, and fixing the caller leaves it as it is.
    files = {
        "lib/__init__.py": "",
        "lib/days.py": """
            def calendar(spark, days):
                return spark.createDataFrame([(d,) for d in days], ["day"]).orderBy("day").distinct()
        """,
        "jobs/job.py": job("""
            from lib.days import calendar

            calendar(spark, ["2026-01-01", "2026-01-02"]).show()
        """),
    }
    found, _ = lint(repo, files)
    assert found == []
    found, _ = lint(repo, files, "lib/days.py")
    assert found == [(2, "SL002")]
    before = (repo / "jobs/job.py").read_text()
    config = str(repo / "sortlint.yml")
    assert main(["check", "--fix", "--config", config, str(repo / "jobs/job.py"), str(repo / "lib/days.py")]) == 0
    assert (repo / "jobs/job.py").read_text() == before
    assert "orderBy" not in (repo / "lib/days.py").read_text()


def test_a_module_imported_by_its_dotted_name(repo):
    # `import lib.frames` then `lib.frames.per_kind(...)`, in a package without __init__.py:
    # the function is followed, and the caller's sort is one it sorts again.
    found, _ = lint(repo, {
        "lib/frames.py": """
            def per_kind(df):
                return df.orderBy("ts").groupBy("kind").count()
        """,
        "jobs/job.py": job("""
            import lib.frames
            from lib import frames as named

            lib.frames.per_kind(spark.table("raw.events").orderBy("kind")).show()
            named.per_kind(spark.table("raw.events").orderBy("user_id")).show()
        """),
    })
    assert found == [(7, "SL002"), (8, "SL002")]


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


# --- on Spark ----------------------------------------------------------------------------------


def _module(root: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"open_schema_{name.replace('/', '_')}", root / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sorts(frame) -> int:
    plan = frame._jdf.queryExecution().optimizedPlan().toString()
    return sum(line.lstrip(" :+-").startswith("Sort ") for line in plan.splitlines())


@pytest.mark.parametrize("shape", [
    "kind string, ts timestamp",
    "event_id bigint, ts timestamp, kind string, payload string, amount double",
])
@pytest.mark.spark
@pytest.mark.skipif(spark_support.spark_unavailable() is not None, reason="real Spark needed")
def test_spark_discards_the_sort_of_per_kind_whatever_the_columns(package, spark, shape):  # noqa: F811
    """The finding on `per_kind` (etl/metrics.py:6) holds for rows of any shape: Spark's
    optimizer removes the sort, and the counts are those of the rows unsorted."""
    per_kind = _module(package, "etl/metrics.py").per_kind
    names = [part.split()[0] for part in shape.split(",")]
    generate = {"kind": lambda i: "abc"[i % 3], "ts": lambda i: dt.datetime(2026, 1, 1 + i % 28),
                "event_id": lambda i: i, "payload": lambda i: f"p{i}", "amount": lambda i: i / 7}
    rows = [tuple(generate[n](i) for n in names) for i in range(60)]
    random.Random(5).shuffle(rows)
    frame = spark.createDataFrame(rows, shape).repartition(3)
    assert _sorts(frame.orderBy("ts")) == 1
    assert _sorts(per_kind(frame)) == 0
    assert sorted(per_kind(frame).collect()) == sorted(frame.groupBy("kind").count().collect())


@pytest.mark.spark
@pytest.mark.skipif(spark_support.spark_unavailable() is not None, reason="real Spark needed")
def test_spark_draws_another_sample_of_sorted_rows(spark):  # noqa: F811
    """Why a sort before `.sample` is no finding: Spark keeps it, and it changes which rows
    are drawn."""
    rows = [(k,) for k in range(200)]
    random.Random(11).shuffle(rows)
    frame = spark.createDataFrame(rows, "k int").coalesce(1)
    sorted_sample = frame.orderBy("k").sample(0.5, seed=3)
    assert _sorts(sorted_sample) == 1
    assert {r.k for r in sorted_sample.collect()} != {r.k for r in frame.sample(0.5, seed=3).collect()}
