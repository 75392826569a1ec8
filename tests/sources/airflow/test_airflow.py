"""The Airflow DAG front end: SQL in operator arguments, found, mapped and fixed in place.

The catalog targets DataFusion, which reads a declared order (`WITH ORDER`): `customers`
is engine-known, so fixes resting on it are safe; `events` is only declared
(`engine_known: false`), so its fixes need --unsafe-fixes. What the DAG front end does with
the SQL does not depend on the target.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.diagnostics import UneditableRegion
from sortlint.errors import UserError
from sortlint.sources.airflow.dags import dag_units
from sortlint.sources.airflow.preparation import template_file_units
from sortlint.sources.frontend import Reading
from sortlint.sources.python.strings import MappedText, SourceSpans, decode
from sortlint.workspace.check import check

CATALOG = """\
target: datafusion
include: ["dags/*.py", "dags/sql/*.sql"]
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
    unique: [[event_id]]
    engine_known: false
  customers:
    columns: {customer_id: bigint not null, region: string not null, name: string}
    constants: {customer_id: 7}
    engine_known: true
"""

HEADER = "from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator\n\n"


@pytest.fixture
def project(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "dags" / "sql").mkdir(parents=True)
    return tmp_path


def write(root: Path, files: dict[str, str], newline: str = "\n") -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode())


def findings(root: Path, *paths: str) -> list[tuple[str, int, int, str]]:
    config = load_config(root / "sortlint.yml")
    result = check([root / p for p in paths] or [root], config)
    assert not result.all_errors, result.all_errors
    return [(Path(f.path).resolve().relative_to(root.resolve()).as_posix(), f.line, f.column, f.code)
            for f in result.findings]


def fixes(root: Path, *paths: str) -> dict[tuple[int, str], tuple[str, str]]:
    """(line, code) -> (applicability, message) of each finding's fix."""
    config = load_config(root / "sortlint.yml")
    result = check([root / p for p in paths] or [root], config)
    return {(f.line, f.code): (f.fix.applicability, f.fix.message) for f in result.findings if f.fix}


def fixed(root: Path, name: str, *flags: str) -> str:
    main(["check", "--fix", *flags, str(root / "dags")])
    return (root / name).read_bytes().decode()


def dag(sql_argument: str, before: str = "") -> str:
    return HEADER + before + f"SQLExecuteQueryOperator(\n    task_id=\"t\",\n    sql={sql_argument},\n)\n"


# ---------------------------------------------------------------------------------------------
# Positions and rewrites inside literals


def test_triple_quoted_sql_points_inside_the_python_file_and_keeps_indentation(project):
    text = dag('"""\n        SELECT customer_id, name\n        FROM customers\n        ORDER BY customer_id\n    """')
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 8, 9, "SL001")]
    assert fixed(project, "dags/d.py") == dag('"""\n        SELECT customer_id, name\n        FROM customers\n    """')


def test_escaped_quotes_stay_escaped(project):
    text = dag(r"'SELECT customer_id, name FROM customers WHERE region = \'EU\' ORDER BY region, name'")
    write(project, {"dags/d.py": text})
    column = text.splitlines()[4].index("region, name") + 1
    assert findings(project) == [("dags/d.py", 5, column, "SL003")]
    assert fixed(project, "dags/d.py") == dag(
        r"'SELECT customer_id, name FROM customers WHERE region = \'EU\' ORDER BY name'"
    )


def test_newline_escapes_count_as_line_breaks_of_the_sql(project):
    text = dag(r'"SELECT customer_id, name\nFROM customers\nORDER BY customer_id"')
    write(project, {"dags/d.py": text})
    column = text.splitlines()[4].index("ORDER") + 1
    assert findings(project) == [("dags/d.py", 5, column, "SL001")]
    # The clause stands on its own SQL line: it goes with the \n before it.
    assert fixed(project, "dags/d.py") == dag(r'"SELECT customer_id, name\nFROM customers"')


def test_raw_string_backslashes_are_kept(project):
    text = dag(r"""r"SELECT customer_id FROM customers WHERE name RLIKE '^\w+$' ORDER BY customer_id" """.strip())
    write(project, {"dags/d.py": text})
    column = text.splitlines()[4].index("ORDER") + 1
    assert findings(project) == [("dags/d.py", 5, column, "SL001")]
    assert fixed(project, "dags/d.py") == dag(r"""r"SELECT customer_id FROM customers WHERE name RLIKE '^\w+$'" """.strip())


def test_inserted_quotes_are_escaped_for_the_literal(project):
    write(project, {"dags/d.py": dag(
        "'SELECT region, count(*) AS n FROM customers WHERE region = \\'EU\\' GROUP BY region, name'"
    )})
    assert fixed(project, "dags/d.py") == dag(
        "'SELECT \\'EU\\' AS region, count(*) AS n FROM customers WHERE region = \\'EU\\' GROUP BY name'"
    )


def test_a_raw_string_cannot_take_an_inserted_quote_of_its_own_kind(project):
    text = dag("""r'SELECT region, count(*) AS n FROM customers WHERE region = "EU" GROUP BY region, name'""")
    write(project, {"dags/d.py": text})
    assert fixes(project) == {
        (5, "SL103"): ("unavailable", "drop the group key region: a raw string cannot hold the inserted '"),
    }
    assert fixed(project, "dags/d.py") == text


def test_f_string_constant_fields_are_resolved_and_edits_avoid_fields(project):
    before = 'TABLE = "customers"\n'
    text = dag('f"SELECT customer_id, name FROM {TABLE} WHERE region = \'EU\' ORDER BY region, name"', before)
    write(project, {"dags/d.py": text})
    column = text.splitlines()[5].index("region, name") + 1
    assert findings(project) == [("dags/d.py", 6, column, "SL003")]
    assert fixed(project, "dags/d.py") == dag(
        'f"SELECT customer_id, name FROM {TABLE} WHERE region = \'EU\' ORDER BY name"', before
    )


def test_an_unknown_f_string_field_is_an_unknown_name_and_no_fix_edits_it(project):
    text = dag('f"SELECT count(*) AS n FROM (SELECT customer_id FROM customers ORDER BY {key}) c"')
    write(project, {"dags/d.py": text})
    assert fixes(project) == {
        (5, "SL002"): ("unavailable", "remove the ORDER BY: the edit would change the f-string field {key}"),
    }
    other = dag('f"SELECT customer_id FROM {table} ORDER BY customer_id, customer_id"')
    write(project, {"dags/d.py": other})
    assert fixed(project, "dags/d.py") == dag('f"SELECT customer_id FROM {table} ORDER BY customer_id"')


def test_doubled_braces_of_an_f_string_are_airflow_macros(project):
    text = dag("f\"SELECT customer_id, name FROM customers WHERE region = '{{{{ params.region }}}}' ORDER BY region, name\"")
    write(project, {"dags/d.py": text})
    assert fixed(project, "dags/d.py") == dag(
        "f\"SELECT customer_id, name FROM customers WHERE region = '{{{{ params.region }}}}' ORDER BY name\""
    )


def test_implicit_concatenation_across_lines(project):
    text = dag('(\n        "SELECT customer_id, name "\n        "FROM customers "\n        "ORDER BY customer_id"\n    )')
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 8, 10, "SL001")]
    # The removal runs from the space closing the second literal into the third: the two
    # literals are quoted alike, so they merge into one.
    assert fixed(project, "dags/d.py") == dag('(\n        "SELECT customer_id, name "\n        "FROM customers"\n    )')


SELECT_PART = '"SELECT customer_id, name FROM customers "'
DIFFERENT = "the edit would join string literals written with different quotes or prefixes"


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        (SELECT_PART, "'ORDER BY customer_id'", DIFFERENT),
        (SELECT_PART, 'r"ORDER BY customer_id"', DIFFERENT),
        (SELECT_PART, 'f"ORDER BY customer_id"', DIFFERENT),
        (SELECT_PART + "  # all of them", '"ORDER BY customer_id"', "the edit would remove a comment between string literals"),
    ],
)
def test_an_edit_across_literals_needs_alike_quoting_and_no_comment(project, first, second, reason):
    text = dag(f"(\n        {first}\n        {second}\n    )")
    write(project, {"dags/d.py": text})
    assert fixes(project) == {(7, "SL001"): ("unavailable", f"remove the ORDER BY: {reason}")}
    assert fixed(project, "dags/d.py") == text


def test_a_list_of_statements(project):
    text = dag(
        '[\n'
        '        "SELECT customer_id FROM customers ORDER BY customer_id; SELECT 1",\n'
        '        """SELECT host, time FROM events WHERE level = \'x\'\n'
        '           ORDER BY level, host, latency_ms, host""",\n'
        '    ]'
    )
    write(project, {"dags/d.py": text})
    lines = text.splitlines()
    assert findings(project) == [
        ("dags/d.py", 6, lines[5].index("ORDER") + 1, "SL001"),
        ("dags/d.py", 8, lines[7].index("level,") + 1, "SL003"),
        ("dags/d.py", 8, lines[7].rindex("host") + 1, "SL003"),
    ]
    assert fixed(project, "dags/d.py") == dag(
        '[\n'
        '        "SELECT customer_id FROM customers; SELECT 1",\n'
        '        """SELECT host, time FROM events WHERE level = \'x\'\n'
        '           ORDER BY host, latency_ms""",\n'
        '    ]'
    )


def test_a_name_bound_to_a_constant_is_followed_and_analysed_once(project):
    before = 'QUERY = "SELECT customer_id FROM customers ORDER BY customer_id"\nALIAS = QUERY\n'
    text = HEADER + before + (
        'SQLExecuteQueryOperator(task_id="a", sql=QUERY)\nSQLExecuteQueryOperator(task_id="b", sql=[ALIAS])\n'
    )
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 3, text.splitlines()[2].index("ORDER") + 1, "SL001")]


def test_crlf_files_keep_their_line_endings(project):
    text = dag('"""\n        SELECT customer_id\n        FROM customers\n        ORDER BY customer_id\n    """')
    write(project, {"dags/d.py": text}, newline="\r\n")
    assert findings(project) == [("dags/d.py", 8, 9, "SL001")]
    assert fixed(project, "dags/d.py") == dag(
        '"""\n        SELECT customer_id\n        FROM customers\n    """'
    ).replace("\n", "\r\n")


def test_noqa_inside_the_sql_and_on_the_python_line(project):
    write(project, {"dags/d.py": HEADER + (
        'SQLExecuteQueryOperator(task_id="a", sql="""\n'
        '    SELECT customer_id FROM customers\n'
        '    ORDER BY customer_id -- noqa: SL001\n'
        '""")\n'
        'SQLExecuteQueryOperator(task_id="b", sql="SELECT customer_id FROM customers ORDER BY customer_id")  # noqa\n'
    )})
    assert findings(project) == []


def test_partial_and_expand(project):
    text = HEADER + (
        'SQLExecuteQueryOperator.partial(task_id="m", conn_id="x").expand(\n'
        '    sql=["SELECT customer_id FROM customers ORDER BY customer_id", "SELECT 1"],\n'
        ')\n'
    )
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 4, text.splitlines()[3].index("ORDER") + 1, "SL001")]


def test_spark_sql_and_hive_operators(project):
    text = (
        "from airflow.providers.apache.spark.operators.spark_sql import SparkSqlOperator\n"
        "from airflow.providers.apache.hive.operators.hive import HiveOperator\n"
        'SparkSqlOperator(task_id="s", sql="SELECT customer_id FROM customers ORDER BY customer_id")\n'
        'HiveOperator(task_id="h", hql="SELECT customer_id FROM customers ORDER BY customer_id")\n'
        'SparkSubmitOperator(task_id="j", application="job.py")\n'
        'print(sql="SELECT customer_id FROM customers ORDER BY customer_id")\n'
    )
    write(project, {"dags/d.py": text})
    lines = text.splitlines()
    assert findings(project) == [
        ("dags/d.py", 3, lines[2].index("ORDER") + 1, "SL001"),
        ("dags/d.py", 4, lines[3].index("ORDER") + 1, "SL001"),
    ]


# ---------------------------------------------------------------------------------------------
# Macros and params


def test_params_with_known_values_render_as_airflow_renders_them(project):
    text = HEADER + (
        "from airflow import DAG\nfrom airflow.models.param import Param\n"
        'with DAG("d", params={"table": Param("customers", type="string")},\n'
        '         default_args={"params": {"region": "EU"}}):\n'
        '    SQLExecuteQueryOperator(task_id="a", sql="SELECT customer_id FROM {{ params.table }} ORDER BY customer_id")\n'
        '    SQLExecuteQueryOperator(task_id="b", sql="SELECT customer_id FROM {{ params.table }} ORDER BY customer_id",\n'
        '                            params={"table": "events"})\n'
    )
    write(project, {"dags/d.py": text})
    # b's own params win over the DAG's: `events` has no customer_id ordering.
    assert findings(project) == [("dags/d.py", 7, text.splitlines()[6].index("ORDER") + 1, "SL001")]
    assert fixed(project, "dags/d.py") == text.replace(
        '{{ params.table }} ORDER BY customer_id")\n    SQL', '{{ params.table }}")\n    SQL'
    )


def test_default_args_params_apply_to_operators_without_their_own(project):
    text = HEADER + (
        "from airflow import DAG\n"
        'ARGS = {"owner": "data", "params": {"t": "customers"}}\n'
        'with DAG("d", default_args=ARGS):\n'
        '    SQLExecuteQueryOperator(task_id="a", sql="SELECT customer_id FROM {{ params[\'t\'] }} ORDER BY customer_id")\n'
    )
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 6, text.splitlines()[5].index("ORDER") + 1, "SL001")]


def test_unknown_macros_decide_nothing_and_quoted_ones_are_constants(project):
    text = HEADER + (
        'SQLExecuteQueryOperator(task_id="a", sql="SELECT customer_id FROM {{ params.table }} ORDER BY customer_id")\n'
        "SQLExecuteQueryOperator(task_id=\"b\", sql=\"SELECT host, time FROM events WHERE host = '{{ params.host }}' "
        'ORDER BY host, time, {{ params.extra }}")\n'
        'SQLExecuteQueryOperator(task_id="c", sql="SELECT customer_id FROM customers_{{ ds_nodash }} ORDER BY customer_id")\n'
    )
    write(project, {"dags/d.py": text})
    line = text.splitlines()[3]
    assert findings(project) == [("dags/d.py", 4, line.index("host, time,") + 1, "SL003")]
    assert fixed(project, "dags/d.py") == text.replace("ORDER BY host, time,", "ORDER BY time,")


def test_macros_are_never_edited(project):
    text = dag("\"SELECT count(*) AS n FROM (SELECT host FROM events ORDER BY host, {{ params.key }}) e\"")
    write(project, {"dags/d.py": text})
    assert fixes(project) == {
        (5, "SL002"): ("unavailable", "remove the ORDER BY: the edit would change the Jinja expression {{ params.key }}"),
    }


def test_a_jinja_comment_renders_as_nothing_and_is_kept(project):
    text = dag('"SELECT customer_id {# all #} FROM customers ORDER BY customer_id"')
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 5, text.splitlines()[4].index("ORDER") + 1, "SL001")]
    assert fixed(project, "dags/d.py") == dag('"SELECT customer_id {# all #} FROM customers"')
    # Right before the clause, the comment would go with the space before it: no fix.
    write(project, {"dags/d.py": dag('"SELECT customer_id FROM customers {# all #} ORDER BY customer_id"')})
    assert fixes(project) == {
        (5, "SL001"): ("unavailable", "remove the ORDER BY: the edit would change the Jinja comment {# all #}"),
    }


# ---------------------------------------------------------------------------------------------
# Template files


def test_the_dag_of_an_operator_is_its_block_its_dag_argument_or_its_decorator(project):
    write(project, {
        "dags/d.py": (
            "from airflow import DAG\nfrom airflow.decorators import dag\n" + HEADER
            + 'first = DAG("a", params={"t": "customers"})\n'
            + 'second = DAG("b", params={"t": "events"})\n'
            + 'SQLExecuteQueryOperator(task_id="x", dag=first, sql="SELECT customer_id FROM {{ params.t }} ORDER BY customer_id")\n'
            + 'SQLExecuteQueryOperator(task_id="y", dag=second, sql="SELECT customer_id FROM {{ params.t }} ORDER BY customer_id")\n'
            + '@dag(params={"t": "customers"})\n'
            + "def third():\n"
            + '    SQLExecuteQueryOperator(task_id="z", sql="SELECT customer_id FROM {{ params.t }} ORDER BY customer_id")\n'
        ),
    })
    assert [(line, code) for _, line, _, code in findings(project)] == [(7, "SL001"), (11, "SL001")]



def template_dag(searchpath: str) -> str:
    return (
        "import os\nfrom airflow import DAG\n" + HEADER
        + f'with DAG("d", template_searchpath=[{searchpath}], params={{"table": "customers"}}):\n'
        + '    SQLExecuteQueryOperator(task_id="a", sql="by_customer.sql")\n'
    )


TEMPLATE = "-- {{ ds }}\nSELECT customer_id\nFROM {{ params.table }}\nORDER BY customer_id\n"


@pytest.mark.parametrize(
    "searchpath",
    ['os.path.join(os.path.dirname(__file__), "sql")', '"/opt/airflow/dags/sql"', '"sql"'],
)
def test_an_included_template_file_is_checked_and_fixed_as_itself(project, searchpath):
    write(project, {"dags/d.py": template_dag(searchpath), "dags/sql/by_customer.sql": TEMPLATE})
    assert findings(project) == [("dags/sql/by_customer.sql", 4, 1, "SL001")]
    assert fixed(project, "dags/sql/by_customer.sql") == "-- {{ ds }}\nSELECT customer_id\nFROM {{ params.table }}\n"
    assert (project / "dags/d.py").read_text() == template_dag(searchpath)


def test_a_template_file_outside_the_globs_is_reported_from_its_dag_without_fix(project):
    write(project, {"dags/d.py": template_dag('"/opt/airflow/include"'), "include/by_customer.sql": TEMPLATE})
    assert findings(project) == [("include/by_customer.sql", 4, 1, "SL001")]
    [(applicability, message)] = fixes(project).values()
    assert applicability == "unavailable"
    assert "the SQL is in include/by_customer.sql, which the configuration does not include" in message
    assert fixed(project, "include/by_customer.sql") == TEMPLATE


def test_a_template_two_operators_of_a_dag_run_is_reported_once(project):
    text = template_dag('"/opt/airflow/include"') + '    SQLExecuteQueryOperator(task_id="b", sql="by_customer.sql")\n'
    write(project, {"dags/d.py": text, "include/by_customer.sql": TEMPLATE})
    assert findings(project) == [("include/by_customer.sql", 4, 1, "SL001")]


def test_template_params_are_those_all_referencing_dags_agree_on(project):
    other = template_dag('"sql"').replace('{"table": "customers"}', '{"table": "events"}')
    write(project, {
        "dags/a.py": template_dag('"sql"'),
        "dags/b.py": other,
        "dags/sql/by_customer.sql": TEMPLATE,
    })
    assert findings(project) == []  # the table differs between the DAGs: unknown


def test_a_template_file_no_dag_references_is_not_claimed(project):
    write(project, {"dags/sql/by_customer.sql": TEMPLATE})
    config = load_config(project / "sortlint.yml")
    assert template_file_units(project / "dags/sql/by_customer.sql", TEMPLATE, Reading(config)) is None


# ---------------------------------------------------------------------------------------------
# What is not analysed


def explain(root: Path, name: str, capsys) -> str:
    main(["explain", str(root / name)])
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ("build_sql('x')", "sql= of SQLExecuteQueryOperator is a call to build_sql(), computed at run time: not analysed"),
        ('"SELECT {% if x %}1{% endif %}"', "Jinja statement {% if x %} : templates with control flow are not analysed"),
        ('"missing.sql"', "template file missing.sql not found in dags/"),
        ("QUERY % 3", "sql= of SQLExecuteQueryOperator is an expression, computed at run time: not analysed"),
    ],
)
def test_what_is_not_analysed_is_opaque_and_explained(project, capsys, argument, reason):
    write(project, {"dags/d.py": dag(argument)})
    assert findings(project) == []
    assert f"Opaque {reason!r}  (line 5)" in explain(project, "dags/d.py", capsys)


def test_a_python_file_without_sql_operators_has_no_units(project):
    config = load_config(project / "sortlint.yml")
    assert dag_units(Path("x.py"), "import os\nprint('SELECT 1 ORDER BY 1')\n", Reading(config)) is None
    assert dag_units(Path("x.py"), "PythonOperator(task_id='x', python_callable=f)\n", Reading(config)) is None


def test_a_dag_file_that_does_not_parse_is_an_error_with_its_line(project):
    config = load_config(project / "sortlint.yml")
    with pytest.raises(UserError) as error:
        dag_units(Path("x.py"), "SQLExecuteQueryOperator(\n  sql='x',\n  task_id=\n", Reading(config))
    assert error.value.path == Path("x.py") and error.value.line is not None
    # A string cut by a line break: Python's line and words (libcst's tokenizer says "line 1").
    with pytest.raises(UserError) as error:
        dag_units(Path("x.py"), "import os\n\nHiveCliHook().run_cli('ALTER TABLE t;\n' + x)\n", Reading(config))
    assert (error.value.line, error.value.message) == (3, "cannot parse Python: unterminated string literal (detected at line 3)")


def test_checking_plain_sql_does_not_import_libcst(tmp_path):
    (tmp_path / "q.sql").write_text("SELECT 1 ORDER BY 1\n")
    code = (
        "import sys; from sortlint.cli import main; "
        f"main(['check', {str(tmp_path / 'q.sql')!r}]); print('libcst' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path).stdout
    assert out.splitlines()[-1] == "False"


def test_json_positions_point_into_the_literal(project, capsys):
    write(project, {"dags/d.py": dag('"SELECT customer_id FROM customers ORDER BY customer_id"')})
    main(["check", "--output-format", "json", str(project / "dags")])
    [finding] = json.loads(capsys.readouterr().out)
    line = dag('"SELECT customer_id FROM customers ORDER BY customer_id"').splitlines()[4]
    start = line.index(" ORDER") + 1
    assert (finding["line"], finding["column"]) == (5, start + 1)
    assert finding["fix"]["edits"] == [
        {"line": 5, "column": start, "end_line": 5, "end_column": line.index('"', start) + 1, "content": ""}
    ]


# ---------------------------------------------------------------------------------------------
# python_strings: decoding and encoding literals


def decoded(source: str, **names) -> MappedText:
    raw = f"x = {source}\n"
    module = cst.parse_module(raw)
    spans = SourceSpans(MetadataWrapper(module, unsafe_skip_copy=True), raw)
    return decode(module.body[0].body[0].value, raw, spans)


LITERALS = [
    '"plain"', "'it\\'s'", '"tab\\there\\\\back"', "r'\\d+\\'x'", '"""one\ntwo"""', "'''a\r\nb'''",
    '("a " \'b\' r"\\n" f"{{c}}")', "'\\x41\\101\\u00e9\\U0001F600\\N{BULLET}é'", '"line\\\ncontinued"',
    "rf'\\d{{2}}'", "'unknown \\q escape'",
]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the invalid escape \\q, on purpose
@pytest.mark.parametrize("source", LITERALS)
def test_decoded_text_is_the_python_value_and_text_segments_are_verbatim(source):
    raw = f"x = {source}\n"
    namespace: dict = {}
    exec(compile(raw.encode(), "<literal>", "exec"), namespace)
    mapped = decoded(source)
    assert mapped.text == namespace["x"]
    for segment in mapped.segments:
        if segment.kind == "text":
            assert raw[segment.raw_start : segment.raw_end] == mapped.text[segment.start : segment.end]


def test_to_raw_maps_each_character_to_where_it_is_written():
    raw_source = "'a\\'b' \"c\""
    mapped = decoded(raw_source)
    assert mapped.text == "a'bc"
    offsets = [mapped.to_raw(i) - 4 for i in range(5)]
    assert offsets == [1, 2, 4, 8, 9]  # a, \' , b, c, end of c


STYLES = ["'", '"', "'''", '"""', "f'", 'f"""', "r'", 'r"""', "rf'"]
INSERTS = ["'EU' AS region", 'say "hi"', "a\nb", "back\\slash", "{x}", "''", "'", "tab\there", "é"]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("text", INSERTS)
def test_encoded_insertions_evaluate_to_the_text_anywhere_in_the_literal(style, text):
    prefix = style.rstrip("'\"")
    quote = style[len(prefix):]
    mapped = decoded(f"{prefix}{quote}x{quote}")
    try:
        encoded = mapped.encode(text)
    except UneditableRegion:
        assert "r" in prefix  # only raw strings refuse: what they cannot hold
        return
    arounds = [("", ""), ("a", "b")]
    if len(quote) == 3:
        arounds.append((quote[0], "b"))  # a quote just before: no accidental closing triple
    for left, right in arounds:
        source = f"{prefix}{quote}{left}{encoded}{right}{quote}"
        namespace: dict = {}
        exec(compile(f"x = {source}\n", "<literal>", "exec"), namespace)
        assert namespace["x"] == left + text + right, source


def test_raw_strings_refuse_only_what_they_cannot_hold():
    mapped = decoded("r'x'")
    assert mapped.encode('say "hi"') == 'say "hi"'
    for text in ("'EU'", "a\nb", "back\\slash"):
        with pytest.raises(UneditableRegion):
            mapped.encode(text)


# ---------------------------------------------------------------------------------------------
# The example DAGs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_the_example_dags_findings(tmp_path):
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    config = load_config(root / "sortlint.yml")
    result = check([root / "dags"], config)
    assert not result.all_errors
    assert [
        (Path(f.path).relative_to(root).as_posix(), f.line, f.code, f.fix.applicability)
        for f in result.findings
    ] == [
        ("dags/daily_sales.py", 30, "SL003", "safe"),
        ("dags/partitions_daily.py", 35, "SL002", "safe"),
        ("dags/partitions_daily.py", 51, "SL003", "unavailable"),
        ("dags/sql/revenue_by_country.sql", 8, "SL002", "safe"),
        ("dags/telemetry_hourly.py", 36, "SL003", "safe"),
        ("dags/telemetry_hourly.py", 36, "SL003", "safe"),
    ]
    before = {p: p.read_text() for p in (root / "dags").rglob("*.*")}
    main(["check", "--fix", "--unsafe-fixes", str(root / "dags")])
    removed = {
        p.relative_to(root).as_posix(): sorted(set(before[p].splitlines()) - set(p.read_text().splitlines()))
        for p in before
    }
    assert removed == {
        "dags/daily_sales.py": ["            ORDER BY order_date, created_at"],
        "dags/partitions_daily.py": ["        ORDER BY time"],
        "dags/sql/revenue_by_country.sql": ["  ORDER BY created_at"],
        "dags/telemetry_hourly.py": ["            'ORDER BY level, host, time DESC, host',"],
    }
    for path in (root / "dags").glob("*.py"):
        compile(path.read_text(), str(path), "exec")  # still Python
    # What is left: the sort key the code passes in, whose edit would run across strings.
    assert [(Path(f.path).name, f.line, f.code, f.fix.applicability, f.fix.message)
            for f in check([root / "dags"], config).findings] == [
        ("partitions_daily.py", 50, "SL003", "unavailable",
         "drop the sort key host: the edit would run across strings joined at run time"),
    ]


SPARK_LAYOUTS = """\
target: spark
include: ["dags/*.py"]
sources:
  staging: {columns: {id: bigint not null, day: date not null}}
  daily:
    columns: {id: bigint not null, day: date not null}
    orderings: [[id]]
    scope: partition
    partitioned_by: [day]
"""


def test_a_write_that_breaks_a_layout_is_fixed_inside_the_literal(project):
    (project / "sortlint.yml").write_text(SPARK_LAYOUTS)
    text = dag('"INSERT OVERWRITE TABLE daily SELECT id, day FROM staging DISTRIBUTE BY day SORT BY id"')
    write(project, {"dags/d.py": text})
    assert findings(project) == [("dags/d.py", 5, 10, "SL301")]
    assert fixes(project) == {(5, "SL301"): ("unsafe", "sort the written rows: SORT BY day, id")}
    assert fixed(project, "dags/d.py", "--unsafe-fixes") == dag(
        '"INSERT OVERWRITE TABLE daily SELECT id, day FROM staging DISTRIBUTE BY day SORT BY day, id"'
    )
    text = dag('"""\n        INSERT OVERWRITE TABLE daily\n        SELECT id, day FROM staging\n    """')
    write(project, {"dags/d.py": text})
    assert fixed(project, "dags/d.py", "--unsafe-fixes") == dag(
        '"""\n        INSERT OVERWRITE TABLE daily\n        SELECT id, day FROM staging\nSORT BY day, id\n    """'
    )
