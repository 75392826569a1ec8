"""Airflow SQL where real DAG repositories have it (issue 15): run by a hook inside a
`python_callable`, built with `str.format(...)` or `%` from literals and module constants,
`Variable.get("x", default_var=...)` read as its default. `events` is declared (not known to
the engine) to hold host a's events of one instant; `customers` holds one customer, as the
engine knows."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check

CATALOG = """\
target: datafusion
include: ["dags/*.py"]
sources:
  telemetry.events:
    columns: {host: string not null, time: timestamp not null, level: string}
    constants: {host: a, time: '2024-01-01 00:00:00'}
    engine_known: false
  customers:
    columns: {customer_id: bigint not null, region: string not null}
    constants: {customer_id: 7}
    engine_known: true
"""


@pytest.fixture
def project(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "dags").mkdir()
    return tmp_path


def run(project: Path, source: str):
    path = project / "dags" / "d.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    result = check([path], load_config(project / "sortlint.yml"), plans=True)
    assert not result.all_errors, result.all_errors
    return [(f.line, f.code, f.fix.applicability if f.fix else None) for f in result.findings], result


def test_a_hook_run_inside_a_python_callable(project):
    found, _ = run(project, '''
        from airflow.operators.python import PythonOperator
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook, HiveServer2Hook

        def refresh(**context):
            hook = HiveCliHook(hive_cli_conn_id="hive")
            hook.run_cli(hql="SELECT customer_id FROM customers ORDER BY customer_id")
            HiveServer2Hook().get_records("SELECT customer_id FROM customers ORDER BY customer_id")

        PythonOperator(task_id="refresh", python_callable=refresh)
    ''')
    assert found == [(6, "SL001", "safe"), (7, "SL001", "safe")]


def test_a_hook_given_sql_when_it_is_made(project):
    found, _ = run(project, '''
        from airflow.providers.apache.spark.hooks.spark_sql import SparkSqlHook

        def refresh():
            SparkSqlHook(sql="SELECT customer_id FROM customers ORDER BY customer_id", conn_id="s").run_query()
    ''')
    assert found == [(4, "SL001", "safe")]


def test_a_hooks_sql_is_not_rendered_with_the_dags_params(project):
    # Airflow renders templates of operators' fields only: `{{ params.x }}` stays text here.
    _, result = run(project, '''
        from airflow import DAG
        from airflow.providers.postgres.hooks.postgres import PostgresHook

        with DAG("d", params={"region": "EU"}):
            PostgresHook().run("SELECT customer_id FROM customers WHERE region = '{{ params.region }}'")
    ''')
    (statement,) = [s for f in result.files for s in f.statements]
    assert "'{{ params.region }}'" in statement.unit.text


def test_format_with_keywords_module_constants_and_a_literal_mapping(project):
    found, _ = run(project, '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        EVENTS = "telemetry.events"
        QUERY = """
        INSERT OVERWRITE TABLE marts.hosts
        SELECT host, time FROM {table} WHERE host = '{host}' ORDER BY host, time
        """

        HiveOperator(task_id="a", hql=QUERY.format(table=EVENTS, host="a"))
        HiveOperator(task_id="b", hql="SELECT host, time FROM {events} ORDER BY time".format(**{"events": EVENTS}))
    ''')
    # QUERY is formatted once: its fix is written inside the literal.
    assert found == [(6, "SL001", "unsafe"), (10, "SL001", "unsafe")]


def test_a_template_formatted_in_two_places_is_never_edited(project):
    path_source = '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        QUERY = "SELECT host, time FROM telemetry.events WHERE host = '{}' ORDER BY host, time"

        HiveOperator(task_id="a", hql=QUERY.format("a"))
        HiveOperator(task_id="b", hql=QUERY.format("b"))
    '''
    found, result = run(project, path_source)
    assert found == [(3, "SL001", "unavailable"), (3, "SL001", "unavailable")]
    assert {f.fix.message for f in result.findings} == {
        "remove the ORDER BY: the string is formatted in 2 places: an edit would change the SQL of each"
    }


def test_percent_formatting_and_variables_read_as_their_default(project):
    found, _ = run(project, '''
        from airflow.models import Variable
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        DB = Variable.get("events_db", default_var="telemetry")
        HiveOperator(task_id="a", hql="SELECT host, time FROM %s.events WHERE host = '%s' ORDER BY time" % (DB, "a"))
        HiveOperator(task_id="b", hql="SELECT host, time FROM %(db)s.events ORDER BY host" % {"db": DB})
    ''')
    assert found == [(5, "SL001", "unsafe"), (6, "SL001", "unsafe")]


def test_a_field_of_unknown_value_is_a_placeholder_no_fix_edits(project):
    found, result = run(project, '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        def table_of(day):
            return "events_" + day

        HiveOperator(task_id="a", hql="SELECT customer_id FROM customers WHERE region = '{}' ORDER BY {}".format(
            table_of("x"), "customer_id"))
    ''')
    (statement,) = [s for f in result.files for s in f.statements]
    assert statement.unit.text == "SELECT customer_id FROM customers WHERE region = '{}' ORDER BY customer_id"
    assert found == [(6, "SL001", "unavailable")]


def test_the_fix_of_a_formatted_literal_is_written_in_the_literal(project):
    source = '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        HiveOperator(task_id="a", hql="SELECT customer_id FROM {t} ORDER BY customer_id".format(t="customers"))
    '''
    run(project, source)
    assert main(["check", "--fix", str(project / "dags" / "d.py"), "--config", str(project / "sortlint.yml")]) == 0
    assert (project / "dags" / "d.py").read_text() == textwrap.dedent(source).lstrip("\n").replace(
        " ORDER BY customer_id\"", "\"")


def test_an_operator_executed_and_spark_sql_run_inside_callables(project):
    found, result = run(project, '''
        from airflow.decorators import task
        from airflow.providers.apache.hive.operators.hive import HiveOperator
        from pyspark.sql import SparkSession

        @task
        def rollup(**context):
            HiveOperator(task_id="inner", hql="SELECT customer_id FROM customers ORDER BY customer_id").execute(context)
            spark = SparkSession.builder.getOrCreate()
            spark.sql("SELECT customer_id FROM customers ORDER BY customer_id").write.saveAsTable("x")
    ''')
    assert found == [(7, "SL001", "safe"), (9, "SL001", "safe")]
    assert sorted({s.unit.kind for f in result.files for s in f.statements}) == ["pyspark", "sql"]


def test_a_format_whose_unknown_fields_break_the_syntax_is_not_an_error(project):
    found, result = run(project, '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        def filters():
            return "AND region = 'EU'"

        HiveOperator(task_id="a", hql="SELECT customer_id FROM customers WHERE 1 = 1 {} ORDER BY 1".format(filters()))
    ''')
    assert found == []
    (statement,) = [s for f in result.files for s in f.statements]
    assert statement.root.reason == "the SQL is formatted at run time ({}): not analysable"


def test_spark_sql_of_text_built_at_run_time_in_a_python_callable(project):
    # The SQL is built by a function of the DAG file from a module's constant and the
    # callable's `ds` (a placeholder): findings on the literals' lines; the fix edits the DAG
    # file's literal, and never the text another module holds.
    (project / "dags" / "tables.py").write_text(
        'CUSTOMERS = "customers"\n'
        'ORDERED = " ORDER BY customer_id"\n')
    found, result = run(project, '''
        from airflow.operators.python import PythonOperator
        from pyspark.sql import SparkSession
        from tables import CUSTOMERS, ORDERED


        def customers_sql(day):
            sql = "SELECT customer_id FROM " + CUSTOMERS
            sql += " WHERE region = '%s'" % day
            return sql + " ORDER BY customer_id"


        def load(ds, **context):
            spark = SparkSession.builder.getOrCreate()
            spark.sql(customers_sql(ds)).write.saveAsTable("x")
            spark.sql("SELECT customer_id FROM " + CUSTOMERS + ORDERED).collect()


        PythonOperator(task_id="load", python_callable=load)
    ''')
    assert found == [(9, "SL001", "safe"), (15, "SL001", "unavailable")]
    assert [f.fix.message for f in result.findings] == [
        "remove the ORDER BY", "remove the ORDER BY: the edit would change the text of dags/tables.py"]
    source = (project / "dags" / "d.py").read_text()
    main(["check", "--fix", str(project / "dags" / "d.py")])
    fixed = source.replace('return sql + " ORDER BY customer_id"', 'return sql + ""')
    assert fixed != source and (project / "dags" / "d.py").read_text() == fixed
    assert (project / "dags" / "tables.py").read_text() == 'CUSTOMERS = "customers"\nORDERED = " ORDER BY customer_id"\n'
