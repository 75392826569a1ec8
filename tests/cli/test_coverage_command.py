"""`sortlint coverage`: what sortlint analyses of a repository and what it does not, by reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.report.coverage import reason_group

CATALOG = """\
sources:
  events:
    columns: {host: string not null, time: timestamp not null}
    constants: {host: h}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text(
        "SELECT host FROM events ORDER BY host;\n"
        "SELECT * FROM events TABLESAMPLE (10 PERCENT) ORDER BY host;\n"
        "SELECT (;\n"
    )
    (tmp_path / "job.py").write_text(
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "def f(df):\n"
        "    return df.orderBy('host')\n"
        "spark.sql(load_query()).collect()\n"  # no function of the repository: not followed
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_text_report(repo, capsys):
    assert main(["coverage", "."]) == 0
    # The SQL built at run time is an opaque unit (for `explain`) and the opaque source of
    # the pipeline that collects it.
    assert capsys.readouterr().out == (
        "files                                  2\n"
        "statements                             6\n"
        "  parsed or rendered                   5  (83%)\n"
        "  analysed without an opaque node      2  (33%)\n"
        "plan nodes                            11\n"
        "  opaque                               3  (27%)\n"
        "statements by kind: opaque 1, pyspark 2, sql 2\n"
        "opaque nodes by reason:\n"
        "  2  the SQL is built at run time: not analysable\n"
        "  1  TABLESAMPLE\n"
        "findings by rule: SL001 1\n"
    )


def test_the_json_report(repo, capsys):
    assert main(["coverage", "--output-format", "json", "."]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {
        "files": 2, "files_with_nothing_to_analyse": [], "statements": 6, "parsed": 5, "analysed_without_opaque": 2, "nodes": 11,
        "opaque_nodes": 3, "errors": 1, "statements_by_kind": {"opaque": 1, "pyspark": 2, "sql": 2},
        "opaque_by_reason": {"the SQL is built at run time: not analysable": 2, "TABLESAMPLE": 1},
        "findings_by_rule": {"SL001": 1},
    }


@pytest.mark.parametrize("reason, group", [
    ("a DataFrame from elsewhere (df)", "a DataFrame from elsewhere"),
    ("a DataFrame from elsewhere (a.join(b, 'x').drop(c))", "a DataFrame from elsewhere"),
    ("the parameter frame of extract()", "a parameter of a function"),
    ("LATERAL VIEW: the columns of explode(...), named by types not known",
     "LATERAL VIEW: the columns of explode, named by types not known"),
    ("template file x.sql not found in `dags/`", "template file x.sql not found in"),
    ("a filter on 'kind' of mart.daily's rows", "a filter on of mart.daily's rows"),
])
def test_reasons_are_grouped_without_their_names(reason, group):
    assert reason_group(reason) == group


def test_the_files_nothing_in_which_concerns_sortlint_are_named(repo, capsys):
    """A Python file that parses and holds no Spark job or DAG is checked and passes; coverage
    says which files those are."""
    (repo / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    (repo / "tools").mkdir()
    (repo / "tools" / "notes.py").write_text("# nothing\n")
    assert main(["coverage", "."]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "files                                  4",
        "  with nothing to analyse              2  (50%)",
    ]
    assert out[-1] == "files with nothing to analyse: setup.py, tools/notes.py"
    assert main(["coverage", "--output-format", "json", "."]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files_with_nothing_to_analyse"] == ["setup.py", "tools/notes.py"]
