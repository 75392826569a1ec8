"""The PySpark front end: which units a job file holds, their texts and where they map."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.errors import UserError
from sortlint.plan.nodes import Alias, Opaque, Scan, walk
from sortlint.sources.frontend import Reading
from sortlint.sources.pyspark.units import pyspark_units
from sortlint.sources.registry import build
from sortlint.workspace.tables import FileTables, RepositoryTables

CATALOG = """\
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string}
    orderings: [[host, time]]
"""


@pytest.fixture
def config(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    return load_config(start_paths=[tmp_path])


def units_of(source: str, config, newline: str = "\n"):
    raw = textwrap.dedent(source).lstrip("\n").replace("\n", newline)
    return raw, pyspark_units(Path("job.py"), raw, Reading(config))


def statement(unit, config):
    return build(unit, FileTables(RepositoryTables(config)), config)


def test_a_python_file_without_spark_is_not_read(config):
    assert pyspark_units(Path("util.py"), "def add(a, b):\n    return a + b\n", Reading(config)) is None


def test_checking_plain_sql_does_not_import_libcst(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text("SELECT host FROM events ORDER BY host;\n")
    code = (
        "import sys\n"
        "from sortlint.cli import main\n"
        f"main(['check', {str(tmp_path / 'q.sql')!r}])\n"
        "print('libcst' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_one_unit_per_consumed_dataframe_with_its_lines(config):
    raw, units = units_of('''
        from pyspark.sql import functions as F

        def job(spark):
            events = spark.table("events")
            errors = events.filter(F.col("level") == "ERROR")
            errors.write.saveAsTable("errors")

            hosts = spark.table("events").select("host").distinct()
            hosts.show()
    ''', config)
    assert [(u.kind, u.location(0)[0], u.text.splitlines()[0].strip()) for u in units] == [
        ("pyspark", 4, 'events = spark.table("events")'),
        ("pyspark", 8, 'hosts = spark.table("events").select("host").distinct()'),
    ]
    assert units[0].text.splitlines()[-1].strip() == 'errors.write.saveAsTable("errors")'
    assert units[1].text.splitlines()[-1].strip() == "hosts.show()"


def test_a_dataframe_two_pipelines_share_is_linted_in_the_first(config):
    raw, units = units_of('''
        events = spark.table("events").orderBy("time")
        events.write.saveAsTable("a")
        events.join(spark.table("events"), "event_id").write.saveAsTable("b")
    ''', config)
    first, second = (statement(u, config) for u in units)
    shared = [n for n in walk(second.root) if isinstance(n, Alias) and n.origin is not None]
    assert len(shared) == 1 and shared[0].origin is units[0]
    assert units[1].location(0)[0] == 3  # its own text starts at the join


def test_an_unused_dataframe_is_a_result(config):
    _, units = units_of('''
        unused = spark.table("events").orderBy("time")
        ignored = spark.table("events")
    ''', config)
    assert [u.text for u in units] == ['unused = spark.table("events").orderBy("time")',
                                       'ignored = spark.table("events")']


def test_spark_sql_spanning_lines_maps_into_the_literal(config):
    raw, units = units_of('''
        top = spark.sql(
            """
            SELECT host, time
            FROM events
            ORDER BY time
            """
        )
        top.collect()
    ''', config)
    sql = [u for u in units if u.kind == "sql"]
    assert len(sql) == 1
    text = sql[0].text
    assert text.startswith("SELECT host, time") and text.endswith("ORDER BY time")
    assert sql[0].location(text.index("ORDER BY")) == (5, 5)
    assert [u.kind for u in units] == ["sql", "pyspark"]  # in the order they run
    pipeline = statement(units[1], config).root  # the SQL's plan, linted as the SQL unit only
    assert [type(n).__name__ for n in walk(pipeline)][:2] == ["Project", "Alias"]


def test_spark_sql_of_concatenated_literals_and_a_module_constant(config):
    raw, units = units_of('''
        QUERY = "SELECT host FROM events ORDER BY host"
        a = spark.sql(QUERY)
        a.write.saveAsTable("a")
        b = spark.sql("SELECT host "  # the host
                      'FROM events')
        b.write.saveAsTable("b")
    ''', config)
    sql = [u for u in units if u.kind == "sql"]
    assert [u.text for u in sql] == ["SELECT host FROM events ORDER BY host", "SELECT host FROM events"]
    assert sql[0].location(sql[0].text.index("ORDER")) == (1, 34)
    assert sql[1].location(sql[1].text.index("FROM")) == (5, 16)


def test_fstring_fields_are_opaque_names(config):
    raw, units = units_of('''
        def job(spark, table, day):
            df = spark.sql(f"SELECT host FROM {table} WHERE day = '{day}' ORDER BY host")
            df.collect()
    ''', config)
    sql = next(u for u in units if u.kind == "sql")
    assert sql.text == "SELECT host FROM `{table}` WHERE day = '{day}' ORDER BY host"
    where = sql.text.index("`{table}`")
    assert sql.offsets.uneditable(where, where + 3) is not None
    assert sql.offsets.uneditable(sql.text.index("ORDER"), len(sql.text)) is None


def test_sql_built_at_run_time_is_followed_with_a_placeholder_for_the_unknown(config):
    raw, units = units_of('''
        def job(spark, day):
            query = "SELECT host FROM events WHERE day = " + day
            spark.sql(query).write.saveAsTable("x")
            spark.sql("SELECT * FROM {}".format(day)).show()
    ''', config)
    assert [u.kind for u in units if u.kind not in ("sql", "pyspark")] == []
    # The parameter's value is known at run time only: a placeholder (a name), never a guess.
    sql = [u for u in units if u.kind == "sql"]
    assert [u.text for u in sql] == ["SELECT host FROM events WHERE day = `{day}`", "SELECT * FROM `{}`"]
    assert raw[sql[0].start:sql[0].start + 11] == "SELECT host"  # the literal, on its line
    assert statement(sql[0], config).error is None


def test_sql_built_in_two_ways_is_not_analysable_and_not_an_error(config):
    raw, units = units_of('''
        def job(spark, day):
            query = "SELECT host FROM events"
            if day:
                query = "SELECT host FROM events WHERE day = " + day
            spark.sql(query).write.saveAsTable("x")
    ''', config)
    opaque = [u for u in units if u.kind == "opaque"]
    assert [u.text for u in opaque] == ["spark.sql(query)"]
    built = statement(opaque[0], config)
    assert built.error is None
    assert isinstance(built.root, Opaque) and "not analysable" in built.root.reason
    pipeline = next(u for u in units if u.kind == "pyspark")
    reasons = [n.reason for n in walk(statement(pipeline, config).root) if isinstance(n, Opaque)]
    assert reasons == ["the SQL is built at run time: not analysable"]


def test_crlf_file_positions(config):
    raw, units = units_of('''
        df = (spark.table("events")
              .orderBy("host", "time"))
        df.write.saveAsTable("x")
    ''', config, newline="\r\n")
    built = statement(units[0], config)
    sort = next(n for n in walk(built.root) if type(n).__name__ == "Sort")
    assert units[0].location(sort.span.start) == (2, 7)
    assert units[0].text[sort.span.start : sort.span.end] == '.orderBy("host", "time")'
    assert [units[0].text[k.span.start : k.span.end] for k in sort.keys] == ['"host"', '"time"']


@pytest.mark.parametrize("raw", [
    "from pyspark.sql import functions as F\ndef (:\n",
    "spark = 1\ndef (:\n",  # a job with a global `spark`, never naming pyspark
    "import os\ndef (:\n",  # nothing of Spark: still a Python file sortlint was given
])
def test_python_that_does_not_parse_is_an_error_at_its_line(config, raw):
    with pytest.raises(UserError) as error:
        pyspark_units(Path("job.py"), raw, Reading(config))
    assert (error.value.line, error.value.message) == (2, "cannot parse Python: invalid syntax")


def test_python_newer_than_the_interpreter_is_no_error(config):
    """A job in Python 3.12's syntax (type parameters) checked by sortlint on an older Python:
    libcst reads it, so it is no syntax error (on 3.12 and later Python reads it too)."""
    raw = (
        "def first[T](rows: list[T]) -> T:\n"
        "    return rows[0]\n"
        "spark.table('t').orderBy('a').write.saveAsTable('x')\n"
    )
    assert [unit.kind for unit in pyspark_units(Path("job.py"), raw, Reading(config))] == ["pyspark"]


def test_names_followed_through_assignments_and_branches(config):
    raw, units = units_of('''
        from pyspark.sql import functions as F
        df = spark.table("events")
        if flag:
            df = df.filter(F.col("level") == "ERROR")
        df.write.saveAsTable("x")
    ''', config)
    (unit,) = units
    root = statement(unit, config).root
    merged = [n for n in walk(root) if isinstance(n, Opaque)]
    assert [m.reason for m in merged] == ["assigned in branches"]
    assert [type(c).__name__ for c in merged[0].children] == ["Filter", "Scan"]


def test_a_dataframe_from_elsewhere_is_rows_of_columns_not_known(config):
    _, units = units_of('''
        from pyspark.sql import functions as F

        def enrich(df):
            return df.withColumn("x", F.lit(1)).orderBy("x")
    ''', config)
    (unit,) = units
    root = statement(unit, config).root
    leaf = list(walk(root))[-1]
    assert isinstance(leaf, Scan) and (leaf.table, leaf.alias, leaf.columns) == ("<the parameter df of enrich()>", "df", ())
    assert not any(isinstance(node, Opaque) for node in walk(root))


def test_fstring_fields_naming_constants_are_their_values(config):
    raw, units = units_of('''
        DB = "prod"
        TABLE = f"{DB}.events"

        def job(spark, day):
            a = spark.sql(f"SELECT host FROM {TABLE} WHERE day = '{day}'")
            a.collect()
            b = spark.table(f"{DB}.events")
            b.collect()
    ''', config)
    sql = next(u for u in units if u.kind == "sql")
    assert sql.text == "SELECT host FROM prod.events WHERE day = '{day}'"
    field = sql.text.index("prod.events")
    assert sql.offsets.uneditable(field, field + 4) is not None  # still the field, not text
    scans = [n for u in units if u.kind == "pyspark" for n in walk(statement(u, config).root)
             if type(n).__name__ == "Scan"]
    assert [s.table for s in scans] == ["prod.events", "prod.events"]  # the SQL's, and b's
