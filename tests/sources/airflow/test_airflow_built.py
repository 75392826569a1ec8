"""Airflow SQL built at run time (issue 33): functions returning formatted HQL, callables
concatenating pieces, names bound in branches or reassigned, helpers of the repository's own
modules followed; unknown pieces are placeholders inside a statement, opaque units between
statements."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from built_repository import CATALOG, write_repository
from sortlint.cli import main
from sortlint.config import load_config
from sortlint.sources.python.strings import MappedText, joined
from sortlint.workspace.check import check

@pytest.fixture
def project(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "dags").mkdir()
    return tmp_path


def run(project: Path, source: str, **modules: str):
    for name, text in modules.items():
        module = project / "dags" / f"{name}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(textwrap.dedent(text).lstrip("\n"))
    path = project / "dags" / "d.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    result = check([path], load_config(project / "sortlint.yml"), plans=True)
    assert not result.all_errors, result.all_errors
    found = [(f.line, f.code, f.fix.applicability if f.fix else None) for f in result.findings]
    statements = [s for f in result.files for s in f.statements]
    return found, result, statements


def shapes(statements) -> list[tuple[str, str]]:
    """(kind, text or the opaque reason) of each statement, in the file's order."""
    return [(s.unit.kind, s.unit.payload if s.unit.kind == "opaque" else " ".join(s.unit.text.split()))
            for s in statements]


def test_the_repository_is_mostly_analysed(tmp_path, capsys):
    root = write_repository(tmp_path)
    assert main(["coverage", "--output-format", "json", "--config", str(root / "sortlint.yml"),
                 str(root / "dags")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["statements"], report["analysed_without_opaque"], report["errors"]) == (21, 14, 0)
    assert report["opaque_by_reason"] == {
        "MSCK REPAIR statement is not a query": 2,
        "ALTER statement is not a query": 2,
        "SET statement is not a query": 1,
        "a part of sql= of HiveCliHook.run_cli, a call to session_settings, is computed at run time: not analysed": 1,
        "sql= of HiveCliHook.run_cli is a call to Variable.get, computed at run time: not analysed": 1,
    }
    run_time = sum(n for reason, n in report["opaque_by_reason"].items() if "computed at run time" in reason)
    assert report["analysed_without_opaque"] / report["statements"] >= 0.5
    assert run_time / report["statements"] <= 0.1
    assert report["findings_by_rule"] == {"SL002": 1, "SL003": 1}


def test_the_repositorys_findings_land_on_their_lines_and_fix_the_literal(tmp_path):
    root = write_repository(tmp_path)
    result = check([root / "dags"], load_config(root / "sortlint.yml"))
    assert not result.all_errors, result.all_errors
    assert [(Path(f.path).name, f.line, f.column, f.code, f.fix.applicability) for f in result.findings] == [
        ("orders_daily.py", 13, 72, "SL002", "safe"),
        ("users_snapshot.py", 9, 80, "SL003", "safe"),
    ]
    before = (root / "dags" / "orders_daily.py").read_text()
    assert main(["check", "--fix", "--config", str(root / "sortlint.yml"), str(root / "dags")]) == 0
    assert (root / "dags" / "orders_daily.py").read_text() == before.replace(
        "WHERE dt = '{v_date}' ORDER BY amount) t", "WHERE dt = '{v_date}') t")


def test_an_unknown_piece_between_statements_is_cut_out(project):
    found, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook
        from vendor import cf

        def x_sql_task(ds, v_date):
            HQL = """
            INSERT OVERWRITE TABLE dw.t PARTITION (pt='{pt}')
            SELECT user_id, count(*) AS n
            FROM (SELECT user_id FROM ods.orders WHERE dt = '{v_date}' ORDER BY user_id) s
            GROUP BY user_id
            """.format(pt=ds, v_date=v_date)
            return HQL

        def run_task(ds, **kwargs):
            v_date = kwargs["v_date"]
            _sql = "\\n" + cf.alter_partition() + "\\n" + x_sql_task(ds, v_date)
            HiveCliHook().run_cli(_sql)
    ''')
    assert shapes(statements) == [
        ("sql", "INSERT OVERWRITE TABLE dw.t PARTITION (pt='{pt}') SELECT user_id, count(*) AS n "
                "FROM (SELECT user_id FROM ods.orders WHERE dt = '{v_date}' ORDER BY user_id) s GROUP BY user_id"),
        ("opaque", "a part of sql= of HiveCliHook.run_cli, a call to cf.alter_partition(), "
                   "is computed at run time: not analysed"),
    ]
    assert statements[1].unit.text == "cf.alter_partition()"
    assert found == [(8, "SL002", "safe")]


def test_an_unknown_piece_inside_a_statement_is_a_placeholder(project):
    found, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def run(ds, table):
            sql = "SELECT user_id FROM ods.orders WHERE dt = '" + ds + "'"
            sql += " AND user_id IN (SELECT user_id FROM " + table + ") ORDER BY dt, user_id"
            HiveCliHook().run_cli(sql)
    ''')
    assert shapes(statements) == [
        ("sql", "SELECT user_id FROM ods.orders WHERE dt = '{ds}' AND user_id IN (SELECT user_id FROM `{table}`) "
                "ORDER BY dt, user_id"),
    ]
    # The sort key is on the second line of the assembled string: the finding is there, and
    # its fix edits the literal holding it.
    assert found == [(5, "SL003", "safe")]


def test_a_name_bound_in_branches_is_each_of_its_values(project):
    found, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def run(ds, full=False):
            if full:
                sql = "SELECT user_id FROM ods.orders ORDER BY user_id"
            elif ds:
                sql = "SELECT user_id FROM ods.orders WHERE dt = '%s' ORDER BY dt" % ds
            else:
                return
            HiveCliHook().run_cli(sql)
    ''')
    assert shapes(statements) == [
        ("sql", "SELECT user_id FROM ods.orders ORDER BY user_id"),
        ("sql", "SELECT user_id FROM ods.orders WHERE dt = '%s' ORDER BY dt"),
    ]
    assert found == [(7, "SL001", "safe")]


def test_a_literal_two_built_strings_read_is_never_edited(project):
    found, result, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def daily(day):
            return "SELECT user_id, dt FROM ods.orders WHERE dt = '" + day + "' ORDER BY dt, user_id"

        def one(ds):
            HiveCliHook().run_cli(daily(ds))

        def other(ds):
            HiveCliHook().run_cli(daily("2024-01-01"))
    ''')
    assert shapes(statements) == [
        ("sql", "SELECT user_id, dt FROM ods.orders WHERE dt = '{day}' ORDER BY dt, user_id"),
        ("sql", "SELECT user_id, dt FROM ods.orders WHERE dt = '2024-01-01' ORDER BY dt, user_id"),
    ]
    assert found == [(4, "SL003", "unavailable"), (4, "SL003", "unavailable")]
    assert {f.fix.message for f in result.findings} == {
        "drop the sort key dt: the string is part of 2 strings built at run time: an edit would change each"}


def test_text_of_another_module_is_analysed_where_the_dag_uses_it(project):
    found, result, statements = run(project, '''
        from airflow.providers.apache.hive.operators.hive import HiveOperator
        from common import queries

        HiveOperator(
            task_id="a",
            hql=queries.SETTINGS + queries.by_user("{{ ds }}"),
        )
    ''', **{"common/__init__": "", "common/queries": '''
        SETTINGS = "SET hive.exec.parallel=true;"

        def by_user(day):
            return f"""
            SELECT user_id, count(*) AS n
            FROM (SELECT user_id FROM ods.orders WHERE dt = '{day}' ORDER BY user_id) s
            GROUP BY user_id"""
    '''})
    assert [s.unit.kind for s in statements] == ["sql", "sql"]
    assert statements[1].unit.text.split() == (
        "SELECT user_id, count(*) AS n FROM (SELECT user_id FROM ods.orders WHERE dt = '{{ ds }}' "
        "ORDER BY user_id) s GROUP BY user_id").split()
    assert found == [(6, "SL002", "unavailable")]
    (finding,) = result.findings
    assert finding.fix.message == "remove the ORDER BY: the edit would change the text of dags/common/queries.py"


def test_join_dedent_and_a_loop_variable(project):
    found, _, statements = run(project, '''
        import textwrap
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        PARTS = ["SET hive.exec.parallel=true;", textwrap.dedent("""
            SELECT user_id FROM ods.orders
            WHERE dt = '2024-01-01'
            ORDER BY dt, user_id""")]

        def run(**kwargs):
            HiveCliHook().run_cli("\\n".join(PARTS))
            for table in ["a", "b"]:
                HiveCliHook().run_cli("SELECT * FROM ods." + table + " ORDER BY 1")
    ''')
    assert shapes(statements) == [
        ("sql", "SET hive.exec.parallel=true"),
        ("sql", "SELECT user_id FROM ods.orders WHERE dt = '2024-01-01' ORDER BY dt, user_id"),
        ("sql", "SELECT * FROM ods.`{table}` ORDER BY 1"),
    ]
    assert found == [(7, "SL003", "safe")]


def test_a_callable_only_ever_called_is_read_from_its_calls(project):
    _, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def run_hql(sql):
            HiveCliHook().run_cli(sql)

        def task(ds, **kwargs):
            run_hql("SELECT user_id FROM ods.orders WHERE dt = '%s'" % ds)
    ''')
    assert shapes(statements) == [("sql", "SELECT user_id FROM ods.orders WHERE dt = '%s'")]


def test_a_value_read_at_run_time_stays_opaque(project):
    _, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def run(sql, **kwargs):
            HiveCliHook().run_cli(sql)
    ''')
    assert shapes(statements) == [
        ("opaque", "sql= of HiveCliHook.run_cli is the name sql, not bound once to a string in this file, "
                   "computed at run time: not analysed"),
    ]


def test_a_format_field_reading_an_item_of_an_argument_leaves_the_text_unknown(project):
    """`{config[level]}` is not followed: the formatted text is unknown, not guessed, and
    the `ALTER` glued before it is still read."""
    _, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        config = {"level": "ERROR"}

        def x_sql_task(ds):
            return """
            INSERT OVERWRITE TABLE dw.t PARTITION (pt='{pt}')
            SELECT kind FROM ods.events WHERE kind = '{config[level]}' ORDER BY kind
            """.format(pt=ds, config=config)

        def run_task(ds, **kwargs):
            HiveCliHook().run_cli("ALTER TABLE dw.t ADD IF NOT EXISTS PARTITION (pt='x');\\n" + x_sql_task(ds))
    ''')
    assert shapes(statements) == [
        ("sql", "ALTER TABLE dw.t ADD IF NOT EXISTS PARTITION (pt='x')"),
        ("opaque", "a part of sql= of HiveCliHook.run_cli, a call to x_sql_task(), is computed at run time: "
                   "not analysed"),
    ]


def test_an_edit_never_runs_across_strings_joined_at_run_time():
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from sortlint.sources.python.strings import SourceSpans, decode

    raw = 'x = "SELECT a FROM t " + "ORDER BY a"\n'
    module = cst.parse_module(raw)
    spans = SourceSpans(MetadataWrapper(module, unsafe_skip_copy=True), raw)
    operation = module.body[0].body[0].value
    mapped = joined([decode(operation.left, raw, spans), decode(operation.right, raw, spans)])
    assert mapped.text == "SELECT a FROM t ORDER BY a"
    assert mapped.to_raw(mapped.text.index("ORDER")) == raw.index("ORDER")
    assert mapped.uneditable(15, 26) == "the edit would run across strings joined at run time"
    assert mapped.uneditable(16, 26) is None
    assert isinstance(mapped, MappedText)


def test_a_list_changed_in_place_or_a_global_rebound_is_not_trusted(project):
    _, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        PARTS = ["SELECT user_id FROM ods.orders"]
        FILTER = "WHERE dt = '2024-01-01'"

        def narrow(day):
            global FILTER
            FILTER = "WHERE dt = '" + day + "'"

        def run(**kwargs):
            PARTS.append(FILTER)
            HiveCliHook().run_cli(" ".join(PARTS))
            HiveCliHook().run_cli("SELECT user_id FROM ods.orders " + FILTER)
    ''')
    assert shapes(statements) == [
        ("opaque", "sql= of HiveCliHook.run_cli is a call, computed at run time: not analysed"),
        ("sql", "SELECT user_id FROM ods.orders `{FILTER}`"),
    ]


def test_the_projects_own_sql_runners_named_in_the_configuration(project):
    (project / "sortlint.yml").write_text(CATALOG + textwrap.dedent("""\
        airflow:
          sql_arguments:
            HqlTask: query
            Warehouse.execute_sql: statement
    """))
    found, _, statements = run(project, '''
        from company.airflow import HqlTask, Warehouse

        def build(day):
            return "SELECT user_id FROM ods.orders WHERE dt = '%s' ORDER BY dt, user_id" % day

        HqlTask(task_id="a", query=build("{{ ds }}"))

        def refresh(**kwargs):
            warehouse = Warehouse()
            warehouse.execute_sql(statement="SELECT user_id FROM ods.orders WHERE dt = 'x' ORDER BY dt")
    ''')
    assert shapes(statements) == [
        ("sql", "SELECT user_id FROM ods.orders WHERE dt = '{{ ds }}' ORDER BY dt, user_id"),
        ("sql", "SELECT user_id FROM ods.orders WHERE dt = 'x' ORDER BY dt"),
    ]
    assert found == [(4, "SL003", "safe"), (10, "SL001", "safe")]


@pytest.mark.parametrize(("setting", "message"), [
    ("airflow: {sql_arguments: {'a.b.c': sql}}", "bad SQL runner 'a.b.c'; expected ClassName or ClassName.method"),
    ("airflow: {sql_arguments: {Task: '1x'}}", "airflow.sql_arguments.Task must name an argument, got '1x'"),
])
def test_a_bad_sql_runner_is_a_configuration_error(project, setting, message):
    from sortlint.errors import ConfigError

    (project / "sortlint.yml").write_text(CATALOG + setting + "\n")
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        load_config(project / "sortlint.yml")


def test_a_name_bound_in_a_loop_or_a_template_name_built_at_run_time(project):
    _, _, statements = run(project, '''
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook
        from airflow.providers.apache.hive.operators.hive import HiveOperator

        def run(**kwargs):
            while True:
                sql = "SELECT user_id FROM ods.orders ORDER BY user_id"
                break
            HiveCliHook().run_cli(sql)

        HiveOperator(task_id="a", hql=run.__name__ + ".hql")
    ''')
    assert shapes(statements) == [
        ("opaque", "sql= of HiveCliHook.run_cli is the name sql, not bound once to a string in this file, "
                   "computed at run time: not analysed"),
        ("opaque", "hql= of HiveOperator names a template file, computed at run time: not analysed"),
    ]


def test_a_dedented_literal_is_edited_across_its_lines_and_one_read_twice_is_not(project):
    source = '''
        import textwrap
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def run(ds):
            HiveCliHook().run_cli(textwrap.dedent("""
                SELECT user_id, count(*) AS n
                FROM (SELECT user_id FROM ods.orders
                      ORDER BY user_id) s
                GROUP BY user_id"""))

        def twice(ds):
            q = "SELECT user_id FROM ods.orders WHERE dt = 'x' ORDER BY dt, user_id;"
            HiveCliHook().run_cli(q + q)
    '''
    found, result, _ = run(project, source)
    assert found == [(8, "SL002", "safe"), (12, "SL003", "unavailable"), (12, "SL003", "unavailable")]
    assert main(["check", "--fix", "--config", str(project / "sortlint.yml"), str(project / "dags" / "d.py")]) == 1
    assert (project / "dags" / "d.py").read_text() == textwrap.dedent(source).lstrip("\n").replace(
        "ods.orders\n              ORDER BY user_id) s", "ods.orders) s")


def test_a_callable_is_run_with_the_op_kwargs_of_each_operator(project):
    found, _, statements = run(project, '''
        from airflow.operators.python import PythonOperator
        from airflow.providers.apache.hive.hooks.hive import HiveCliHook

        def load(ds, table, **kwargs):
            sql = "SELECT user_id, dt FROM ods." + table + " WHERE dt = '" + kwargs["day"] + "' ORDER BY dt"
            HiveCliHook().run_cli(sql)

        PythonOperator(task_id="a", python_callable=load, op_kwargs={"table": "orders", "day": "x"})
        PythonOperator(task_id="b", python_callable=load, op_kwargs={"table": "orders"})
    ''')
    assert shapes(statements) == [
        ("sql", "SELECT user_id, dt FROM ods.orders WHERE dt = 'x' ORDER BY dt"),
        ("sql", "SELECT user_id, dt FROM ods.orders WHERE dt = '{kwargs[\"day\"]}' ORDER BY dt"),
    ]
    assert found == [(5, "SL001", "unavailable"), (5, "SL001", "unavailable")]
