"""`sortlint check`: exit codes, output formats, selection and suppression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sortlint.cli import COMMANDS, main, parser

# One host per table (a declared constant), stored ordered by time (a layout: Spark does not
# read it in that order).
CATALOG = (
    "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n"
    "    constants: {host: h}\n    orderings: [[time]]\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "good.sql").write_text("SELECT host FROM events ORDER BY time;\n")
    (tmp_path / "bad.sql").write_text("SELECT host FROM events ORDER BY host, host;\n")
    return tmp_path


def test_exit_code_0_when_clean(repo, capsys):
    assert main(["check", str(repo / "good.sql")]) == 0
    assert capsys.readouterr().out == "All checks passed (1 file).\n"


def test_exit_code_1_with_findings(repo, capsys):
    assert main(["check", str(repo)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"{repo / 'bad.sql'}:1:25: SL001 [*unsafe] ORDER BY [host ASC NULLS FIRST, "
        "host ASC NULLS FIRST] is already satisfied by its input: declared constant"
    )
    assert out[-1] == "Found 1 finding in 1 file."


def test_json_output(repo, capsys):
    assert main(["check", str(repo / "bad.sql"), "--output-format", "json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert finding == {
        "code": "SL001",
        "name": "unnecessary-sort",
        "message": finding["message"],
        "path": str(repo / "bad.sql"),
        "line": 1,
        "column": 25,
        "end_line": 1,
        "end_column": 44,
        "basis": "declared",
        "fix": {
            "applicability": "unsafe",
            "message": "remove the ORDER BY",
            "edits": [{"line": 1, "column": 24, "end_line": 1, "end_column": 44, "content": ""}],
        },
        # Spark runs this ORDER BY: a range exchange and a sort (tests/engines/test_spark_rules.py).
        "effect": {"removes": ["Exchange", "Sort"], "adds": [], "lightens": []},
        "effect_unknown": None,
    }


def test_an_effect_not_predicted_says_why_in_every_format(repo, capsys):
    """`effect` null, `effect_unknown` what Spark's plan depends on: here no fix at all, as
    lag() needs its window's only ORDER BY key (TPC-DS q70's rank())."""
    (repo / "w.sql").write_text(
        "SELECT time, lag(time) OVER (PARTITION BY time ORDER BY time) AS p, count(*) OVER (PARTITION BY time) AS n "
        "FROM events;\n")
    why = "the function needs its window's only ORDER BY key: there is no fix whose plan to predict"
    assert main(["check", str(repo / "w.sql"), "--output-format", "json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["code"], finding["fix"], finding["effect"], finding["effect_unknown"]) == ("SL201", None, None, why)
    assert main(["check", str(repo / "w.sql"), "--output-format", "full"]) == 1
    assert f"  = on Spark: runtime effect unknown: {why}\n" in capsys.readouterr().out
    assert main(["check", str(repo / "w.sql"), "--output-format", "sarif"]) == 1
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["properties"] == {"basis": "query", "effect_unknown": why}


def test_ignore_noop_leaves_out_the_findings_whose_fix_changes_no_plan(repo, capsys):
    # Spark drops the subquery's sort itself: its removal changes nothing Spark runs.
    (repo / "noop.sql").write_text("SELECT count(*) AS n FROM (SELECT host, time FROM events ORDER BY time) e;\n")
    # The repeated sort key goes, the sort stays - by one key less: less work, kept.
    (repo / "lighter.sql").write_text("SELECT host, time FROM events ORDER BY time, time;\n")
    assert main(["check", str(repo), "--output-format", "json"]) == 1
    found = {(f["code"], Path(f["path"]).name): f["effect"] for f in json.loads(capsys.readouterr().out)}
    assert found == {
        ("SL001", "bad.sql"): {"removes": ["Exchange", "Sort"], "adds": [], "lightens": []},
        ("SL002", "noop.sql"): {"removes": [], "adds": [], "lightens": []},
        ("SL003", "lighter.sql"): {"removes": [], "adds": [], "lightens": ["Exchange", "Sort"]},
    }
    assert main(["check", str(repo), "--ignore-noop", "--output-format", "concise"]) == 1
    assert [line.split(": ")[1][:5] for line in capsys.readouterr().out.splitlines()[:-1]] == ["SL001", "SL003"]
    (repo / "sortlint.yml").write_text(CATALOG + "ignore_noop: true\n")
    assert main(["check", str(repo / "noop.sql")]) == 0
    assert main(["check", str(repo / "lighter.sql")]) == 1
    (repo / "sortlint.yml").write_text(CATALOG + "target: datafusion\nignore_noop: true\n")
    assert main(["check", str(repo / "noop.sql")]) == 1  # no effect is predicted off Spark: kept


def test_select_and_ignore(repo, capsys):
    assert main(["check", str(repo), "--ignore", "SL001"]) == 0
    assert main(["check", str(repo), "--select", "SL2"]) == 0
    assert main(["check", str(repo), "--select", "SL00"]) == 1


def test_noqa(repo, capsys):
    (repo / "bad.sql").write_text("SELECT host FROM events ORDER BY host, host; -- noqa: SL001\n")
    assert main(["check", str(repo)]) == 0
    (repo / "bad.sql").write_text("SELECT host FROM events ORDER BY host, host; -- noqa: SL003\n")
    assert main(["check", str(repo)]) == 1


def test_unparsable_sql_is_reported_and_other_files_still_checked(repo, capsys):
    (repo / "broken.sql").write_text("SELECT 1;\n\nSELECT FROM WHERE ((;\n")
    assert main(["check", str(repo)]) == 2
    out, err = capsys.readouterr()
    assert f"{repo / 'bad.sql'}:1:25: SL001" in out
    assert err.startswith(f"error: {repo / 'broken.sql'}:3: cannot parse SQL")


def test_a_statement_sqlglot_reads_as_a_bare_command_prints_no_warning(repo):
    # A process of its own: pytest's log capture would hide what sqlglot's logger prints.
    (repo / "repair.sql").write_text("MSCK REPAIR TABLE db.events;\n")
    run = subprocess.run([sys.executable, "-m", "sortlint", "check", "repair.sql"],
                         cwd=repo, capture_output=True, text=True)
    assert (run.returncode, run.stdout, run.stderr) == (0, "All checks passed (1 file).\n", "")


def test_broken_catalog_exits_2_with_file_and_line(repo, capsys):
    (repo / "sortlint.yml").write_text("sources:\n  events:\n    orderings: [[host sideways]]\n")
    assert main(["check", str(repo)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {repo / 'sortlint.yml'}:3: ")


def test_missing_path_exits_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.sql")]) == 2
    assert capsys.readouterr() == (
        "Found 0 findings. 1 error.\n",
        f"error: {tmp_path / 'nope.sql'}: no such file or directory\n",
    )


@pytest.mark.parametrize("form", ["text", "json", "github", "sarif", "gitlab", "rdjson", "junit"])
def test_errors_go_to_stderr_in_every_output_format(repo, capsys, form):
    """Findings are the report, on stdout; every error is also one line on stderr (the
    machine-readable formats keep theirs as entries of the report as well)."""
    (repo / "broken.sql").write_text("SELECT (;\n")
    assert main(["check", "--output-format", form, str(repo / "broken.sql"), str(repo / "bad.sql")]) == 2
    out, err = capsys.readouterr()
    assert err == (
        f"error: {repo / 'broken.sql'}:1: cannot parse SQL: Required keyword: 'this' missing for "
        "<class 'sqlglot.expressions.core.Paren'>\n"
    )
    assert "SL001" in out
    assert ("error: " in out) is False


def test_rules_and_rule_pages(capsys):
    assert main(["rules"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("SL001  unnecessary-sort")
    assert main(["rule", "SL103"]) == 0
    page = capsys.readouterr().out
    for heading in ("## What it does", "## Why it matters", "## Example", "## Fix safety"):
        assert heading in page
    assert page.endswith("\n\nhttps://sortlint.readthedocs.io/en/latest/rules/redundant-group-keys/\n")
    assert main(["rule", "SL999"]) == 2


def test_a_rule_page_is_found_by_the_rules_name_as_by_its_code(capsys):
    """As `ruff rule` takes a rule's name: the name `sortlint rules` lists gives the same page."""
    assert main(["rule", "SL001"]) == 0
    by_code = capsys.readouterr().out
    assert main(["rule", "unnecessary-sort"]) == 0
    assert capsys.readouterr().out == by_code
    assert main(["rule", "unnecessary-sorts"]) == 2
    assert capsys.readouterr().err == "error: unknown rule 'unnecessary-sorts'; `sortlint rules` lists them\n"


def test_the_language_server_refuses_an_unknown_rule_before_it_starts(capsys):
    assert main(["server", "--select", "SL999"]) == 2
    assert capsys.readouterr().err == (
        "error: unknown rule code 'SL999' in --select; the rules are SL001, SL002, SL003, SL101, SL102, SL103, "
        "SL201, SL301\n"
    )


def test_version_runs_as_a_console_script():
    out = subprocess.run([sys.executable, "-m", "sortlint", "--version"], capture_output=True, text=True)
    assert out.stdout.strip().startswith("sortlint ")


def test_import_is_light():
    code = "import sys, sortlint.cli; print(sorted(m for m in ('sqlglot','pyspark','libcst','sqlfluff','pygls','lsprotocol') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_jobs_must_be_a_positive_number(repo, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["check", str(repo), "--jobs", "0"])
    assert exit.value.code == 2
    assert "argument --jobs: expected a positive number of processes, got '0'" in capsys.readouterr().err


def test_jobs_do_not_change_the_report(repo, capsys):
    for name in "cdefgh":  # enough files for workers
        (repo / f"{name}.sql").write_text("SELECT host FROM events ORDER BY host;\n")
    reports = []
    for jobs in ("1", "2"):
        assert main(["check", str(repo), "--jobs", jobs]) == 1
        reports.append(capsys.readouterr().out)
    assert reports[0] == reports[1]
    assert reports[0].splitlines()[-1] == "Found 7 findings in 7 files."


def test_a_check_of_no_file_warns_and_passes_as_ruff_does(tmp_path, monkeypatch, capsys):
    """A CI job whose paths or globs match nothing is told so (ruff: "No Python files found
    under the given path(s)", exit 0)."""
    (tmp_path / "sortlint.yml").write_text('include: ["warehouse/**/*.sql"]\n')
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "orders.sql").write_text("SELECT 1;\n")
    (tmp_path / "notes.txt").write_text("no SQL\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "models", "notes.txt"]) == 0
    assert capsys.readouterr() == (
        "All checks passed (0 files).\n",
        "note: notes.txt: skipped: not a kind of file sortlint reads (.sql, .hql, .py)\n"
        "warning: no files checked: nothing in models, notes.txt matched "
        "(sortlint reads .sql, .hql and .py files; include: warehouse/**/*.sql)\n",
    )
    assert main(["check"]) == 0
    assert capsys.readouterr().err == (
        "warning: no files checked: nothing in . matched (sortlint reads .sql, .hql and .py files; include: warehouse/**/*.sql)\n"
    )


def test_a_check_of_some_files_does_not_warn(repo, capsys):
    (repo / "notes.txt").write_text("no SQL\n")
    assert main(["check", str(repo / "good.sql"), str(repo / "notes.txt")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_notebook_style_job_that_does_not_parse_is_an_error(tmp_path, monkeypatch, capsys):
    """A job that uses a global `spark` and never says `pyspark`, cut off mid-call."""
    (tmp_path / "job.py").write_text('df = spark.table("events")\ndf.orderBy("host").write.saveAsTable("x"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["check", "job.py"]) == 2
    assert capsys.readouterr() == (
        "Found 0 findings. 1 error.\n",
        "error: job.py:2: cannot parse Python: '(' was never closed\n",
    )


def test_any_python_file_checked_that_does_not_parse_is_an_error(tmp_path, monkeypatch, capsys):
    """As ruff reports a syntax error in every Python file it is given, whatever it holds;
    the rest is still checked."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "old.py").write_text('import os\nprint "no Spark here"\n')
    (tmp_path / "q.sql").write_text("SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "."]) == 2
    assert capsys.readouterr() == (
        "q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]\n"
        "Found 1 finding in 1 file. 1 error.\n",
        "error: scripts/old.py:2: cannot parse Python: Missing parentheses in call to 'print'. Did you mean print(...)?\n",
    )
    (tmp_path / "sortlint.yml").write_text('exclude: ["scripts/**"]\n')  # what a user who means it does
    assert main(["check", "."]) == 1


def test_a_python_file_that_parses_and_concerns_no_rule_passes(tmp_path, monkeypatch, capsys):
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "setup.py"]) == 0
    assert capsys.readouterr() == ("All checks passed (1 file).\n", "")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_parsed_by_its_parser_alone_reads_as_the_whole_parser_reads_it(command, capsys):
    # `main` builds the parser of the command it is given only; its help is what the
    # parser of every command gives for it.
    with pytest.raises(SystemExit):
        parser().parse_args([command, "--help"])
    whole = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert capsys.readouterr().out == whole != ""
