"""PySpark jobs followed through functions (issue 15): a DataFrame passed to or returned from
a function of the same file or of a module of the repository, `transform(f)`, a lambda; SQL
built with `.format` / `%`; `withColumn` over columns not all known.

Each function is read once, its parameters unknown: its own pipelines are linted there, and
what it returns and writes of its parameters is its summary, applied at every call to the
caller's DataFrames. A sort in a function is judged where the function is; a sort of the
caller is judged with what the function does to it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.report.coverage import coverage
from sortlint.workspace.check import check

# One instant's events: `time` is constant, everything else is what the jobs make of it.
CATALOG = """\
sources:
  telemetry.events:
    columns: {host: string not null, time: timestamp not null, latency_ms: int, level: string}
    constants: {time: '2024-01-01 00:00:00'}
"""


@pytest.fixture
def repo(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    return tmp_path


def lint(repo: Path, files: dict[str, str], checked: str = "jobs/job.py"):
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    result = check([repo / checked], load_config(repo / "sortlint.yml"), plans=True)
    assert not result.all_errors, result.all_errors
    return [(f.line, f.code) for f in result.findings], result


def opaque_reasons(result) -> list[str]:
    return sorted(coverage(result.files, [], []).opaque)


JOB_HEAD = """\
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
"""


def job(body: str) -> str:
    """A job file: the head above (lines 1-3), then `body` from line 4."""
    return JOB_HEAD + textwrap.dedent(body).lstrip("\n")


def test_a_dataframe_returned_from_a_function_of_the_file(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def load(session, host):
            return session.table("telemetry.events").filter(F.col("host") == "a")

        events = load(spark, "a")
        events.orderBy("host").write.saveAsTable("out")
    """)})
    assert found == [(8, "SL001")]


def test_a_caller_sort_the_function_throws_away(repo):
    found, result = lint(repo, {"jobs/job.py": job("""
        def per_host(df):
            return df.groupBy("host").agg(F.count("*").alias("n"))

        per_host(spark.table("telemetry.events").orderBy("latency_ms")).write.saveAsTable("out")
    """)})
    assert found == [(7, "SL002")]
    [message] = [f.message for f in result.findings]
    assert message == (
        "orderBy has no effect: its rows feed an aggregate whose functions do not depend on row order. "
        "Spark removes this sort itself; the clause only misleads readers"
    )


def test_a_function_that_writes_its_parameter(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def save(df, name):
            df.write.mode("overwrite").saveAsTable(name)

        save(spark.table("telemetry.events").orderBy("latency_ms").distinct(), "out")
    """)})
    assert found == [(7, "SL002")]


def test_a_sort_inside_a_function_is_judged_where_the_function_is(repo):
    # At this call the sort is redundant, but the function may be called with other rows:
    # its parameter is rows nothing is known of where it is linted, so nothing is said of it.
    found, result = lint(repo, {"jobs/job.py": job("""
        def latest(df):
            return df.orderBy("host", "time")

        latest(spark.table("telemetry.events")).write.saveAsTable("out")
    """)})
    assert found == []
    assert opaque_reasons(result) == []


def test_functions_of_an_imported_module_of_the_repository(repo):
    found, result = lint(repo, {
        "lib/__init__.py": "",
        "lib/frames.py": """
            from pyspark.sql import functions as F

            def errors_only(df):
                return df.filter(F.col("level") == "ERROR")

            def per_host(df):
                return df.groupBy("host").agg(F.count("*").alias("n"))
        """,
        "jobs/job.py": job("""
            from lib.frames import errors_only
            import lib.frames as frames

            errors_only(spark.table("telemetry.events")).orderBy("level").write.saveAsTable("a")
            frames.per_host(spark.table("telemetry.events").orderBy("latency_ms")).write.saveAsTable("b")
        """),
    })
    assert found == [(7, "SL001"), (8, "SL002")]
    assert opaque_reasons(result) == []


def test_transform_with_a_function_and_a_lambda(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def only_a(df):
            return df.filter(F.col("host") == "a")

        events = spark.table("telemetry.events")
        events.transform(only_a).orderBy("host").write.saveAsTable("a")
        events.transform(lambda d: d.withColumn("ms", F.col("latency_ms") * 1000)).orderBy("time") \\
            .write.saveAsTable("b")
    """)})
    assert found == [(8, "SL001"), (9, "SL001")]


def test_a_function_returning_a_tuple_and_one_calling_another(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def only_a(df):
            return df.filter(F.col("host") == "a")

        def split(df):
            return only_a(df), df.filter(F.col("host") == "b")

        a, b = split(spark.table("telemetry.events"))
        a.orderBy("host").write.saveAsTable("a")
        b.orderBy("host").write.saveAsTable("b")
    """)})
    assert found == [(11, "SL001"), (12, "SL001")]


def test_recursion_is_not_followed(repo):
    found, _ = lint(repo, {"jobs/job.py": job("""
        def again(df, n):
            return df if n == 0 else again(df.filter(F.col("latency_ms") > n), n - 1)

        again(spark.table("telemetry.events"), 3).orderBy("host").write.saveAsTable("a")
    """)})
    assert found == []


def test_sql_formatted_from_module_constants(repo):
    found, result = lint(repo, {"jobs/job.py": job("""
        EVENTS = "telemetry.events"
        QUERY = "SELECT host, time FROM {table} WHERE host = '{host}' ORDER BY host"

        spark.sql(QUERY.format(table=EVENTS, host="a")).write.saveAsTable("a")
        spark.sql("SELECT host, time FROM %s ORDER BY time" % EVENTS).write.saveAsTable("b")
        spark.sql("SELECT host, time FROM %(t)s WHERE level = '%(l)s' ORDER BY level" % {"t": EVENTS, "l": "x"}).collect()
    """)})
    assert found == [(5, "SL001"), (8, "SL001"), (9, "SL001")]
    texts = sorted(s.unit.text for f in result.files for s in f.statements if s.unit.kind == "sql")
    assert texts == [
        "SELECT host, time FROM telemetry.events ORDER BY time",
        "SELECT host, time FROM telemetry.events WHERE host = 'a' ORDER BY host",
        "SELECT host, time FROM telemetry.events WHERE level = 'x' ORDER BY level",
    ]


def test_with_column_over_columns_not_all_known(repo):
    found, result = lint(repo, {"jobs/job.py": job("""
        raw = spark.read.parquet("s3://bucket/events")
        raw.withColumn("day", F.to_date("time")).withColumn("one", F.lit(1)).orderBy("one", "day") \\
            .write.saveAsTable("a")
    """)})
    assert found == [(5, "SL003")]
    assert opaque_reasons(result) == []


def test_union_by_name_allowing_missing_columns(repo):
    found, result = lint(repo, {"jobs/job.py": job("""
        a = spark.table("telemetry.events").select("host", "time")
        b = spark.table("telemetry.events").select("time", "level").filter(F.col("level") == "x")
        a.unionByName(b, allowMissingColumns=True).orderBy("level").write.saveAsTable("u")
    """)})
    # level is NULL on one side and 'x' on the other: not a constant of the union.
    assert found == []
    (statement,) = [s for f in result.files for s in f.statements]
    assert statement.outputs == ("host", "time", "level")
    assert opaque_reasons(result) == []


def test_sql_whose_run_time_fields_break_its_syntax_is_not_an_error(repo):
    # `{extra}` is "AND day <= '...'" or "" at run time: as a placeholder name it does not
    # parse, which is no error of the user's; the statement is not analysed.
    found, result = lint(repo, {"jobs/job.py": job("""
        def load(day, extra):
            q = "SELECT host FROM telemetry.events WHERE day >= '{day}' {extra} ORDER BY host"
            return spark.sql(q.format(day=day, extra=extra))
    """)})
    assert found == []
    assert opaque_reasons(result) == ["the SQL is formatted at run time: not analysable"]
    (sql,) = [s for f in result.files for s in f.statements if s.unit.kind == "sql"]
    assert sql.root.reason == "the SQL is formatted at run time ({day}, {extra}): not analysable"
