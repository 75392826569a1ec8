"""Bad input is an error with its path and line, exit code 2 - never a traceback, never a
silent skip, never silent acceptance - and everything else is still checked."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from processes import permissions_apply, run, without_root_file_access

from sortlint.cli import main
from sortlint.config.syntax import ACCEPTED_TYPES

FIXABLE = "SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n"
FINDING = "q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]"
RULES = "the rules are SL001, SL002, SL003, SL101, SL102, SL103, SL201, SL301"
KINDS = "(sortlint reads .sql, .hql and .py files; include: **/*.sql, **/*.py)"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.sql").write_text(FIXABLE)
    return tmp_path


def out_lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


# --- paths -----------------------------------------------------------------------------------


def test_a_loop_of_symbolic_links_named_on_the_command_line(repo, capsys):
    os.symlink("b.sql", "a.sql")
    os.symlink("a.sql", "b.sql")
    assert main(["check", "a.sql", "q.sql"]) == 2
    assert capsys.readouterr() == (f"{FINDING}\nFound 1 finding in 1 file. 1 error.\n", "error: a.sql: a loop of symbolic links\n")


def test_a_loop_of_symbolic_links_inside_a_folder(repo, capsys):
    (repo / "d").mkdir()
    os.symlink("y.sql", "d/x.sql")
    os.symlink("x.sql", "d/y.sql")
    assert main(["check", "."]) == 2
    assert capsys.readouterr() == (
        f"{FINDING}\nFound 1 finding in 1 file. 2 errors.\n",
        "error: d/x.sql: a loop of symbolic links\nerror: d/y.sql: a loop of symbolic links\n",
    )


def test_a_broken_symbolic_link(repo, capsys):
    os.symlink("gone.sql", "link.sql")
    assert main(["check", "."]) == 2
    assert capsys.readouterr().err == "error: link.sql: a broken symbolic link (to gone.sql)\n"


def test_a_pipe_named_like_sql_is_not_read(repo, capsys):
    os.mkfifo("pipe.sql")  # reading it would wait forever
    assert main(["check", "pipe.sql"]) == 2
    assert capsys.readouterr().err == "error: pipe.sql: not a regular file or a folder\n"


@pytest.fixture
def permissions():
    reason = permissions_apply()
    if reason is not None:
        pytest.skip(reason)


def test_an_unreadable_folder_named_or_met_on_the_way(repo, permissions):
    (repo / "closed").mkdir()
    (repo / "closed" / "x.sql").write_text(FIXABLE)
    (repo / "open").mkdir()
    (repo / "open" / "inner").mkdir()
    (repo / "open" / "inner" / "y.sql").write_text(FIXABLE)
    (repo / "open" / "inner").chmod(0)
    (repo / "closed").chmod(0)
    try:
        named = run(["check", "closed"], repo, setup=without_root_file_access)
        walked = run(["check", "."], repo, setup=without_root_file_access)
    finally:
        (repo / "closed").chmod(0o755)
        (repo / "open" / "inner").chmod(0o755)
    assert (named.returncode, named.stdout, named.stderr) == (
        2, "Found 0 findings. 1 error.\n", "error: closed: cannot read the folder: Permission denied\n"
    )
    assert (walked.returncode, walked.stdout, walked.stderr) == (
        2,
        f"{FINDING}\nFound 1 finding in 1 file. 2 errors.\n",
        "error: ./closed: cannot read the folder: Permission denied\n"
        "error: ./open/inner: cannot read the folder: Permission denied\n",
    )


def test_an_unreadable_file(repo, permissions):
    (repo / "secret.sql").write_text(FIXABLE)
    (repo / "secret.sql").chmod(0)
    result = run(["check", "."], repo, setup=without_root_file_access)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, f"{FINDING}\nFound 1 finding in 1 file. 1 error.\n", "error: secret.sql: cannot read: Permission denied\n"
    )


def test_an_unreadable_excluded_folder_is_not_entered(repo, permissions):
    (repo / "sortlint.yml").write_text('exclude: ["target/**"]\n')
    (repo / "target").mkdir()
    (repo / "target").chmod(0)
    try:
        result = run(["check", "."], repo, setup=without_root_file_access)
    finally:
        (repo / "target").chmod(0o755)
    assert (result.returncode, result.stdout.splitlines()[-1]) == (1, "Found 1 finding in 1 file.")


# --- what the configuration says about named files ---------------------------------------------


def test_exclude_applies_to_files_named_as_pre_commit_names_them(repo, capsys):
    (repo / "sortlint.yml").write_text('exclude: ["target/**"]\n')
    (repo / "target").mkdir()
    (repo / "target" / "built.sql").write_text(FIXABLE)
    assert main(["check", "target/built.sql"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "All checks passed (0 files).\n"
    assert captured.err == (
        "note: target/built.sql: skipped: excluded by the configuration (--no-force-exclude checks it)\n"
        f"warning: no files checked: nothing in target/built.sql matched {KINDS}\n"
    )
    assert main(["check", "--no-force-exclude", "target/built.sql"]) == 1
    assert out_lines(capsys) == [FINDING.replace("q.sql", "target/built.sql"), "Found 1 finding in 1 file."]


def test_a_named_file_of_no_kind_sortlint_reads_is_noted(repo, capsys):
    (repo / "README.md").write_text("# SELECT 1\n")
    assert main(["check", "README.md"]) == 0
    assert capsys.readouterr().err == (
        "note: README.md: skipped: not a kind of file sortlint reads (.sql, .hql, .py)\n"
        f"warning: no files checked: nothing in README.md matched {KINDS}\n"
    )


# --- rule codes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "code", "message"),
    [
        ("--select", "SL999", f"unknown rule code 'SL999' in --select; {RULES}"),
        ("--ignore", "SL0001", f"unknown rule code 'SL0001' in --ignore; did you mean SL001? {RULES}"),
        ("--select", "SL03", f"unknown rule code 'SL03' in --select; did you mean SL003? {RULES}"),
    ],
)
def test_unknown_rule_codes_on_the_command_line(repo, capsys, option, code, message):
    assert main(["check", option, code, "q.sql"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"error: {message}\n")


def test_rule_prefixes_that_select_rules_are_fine(repo, capsys):
    assert main(["check", "--select", "sl0", "q.sql"]) == 1
    assert main(["check", "--select", "SL1", "q.sql"]) == 0


def test_unknown_rule_codes_in_the_config(repo, capsys):
    (repo / "sortlint.yml").write_text("select: [SL0]\nignore:\n  - SL1\n  - SL999\n")
    assert main(["check", "q.sql"]) == 2
    assert capsys.readouterr().err == (
        f"error: {repo / 'sortlint.yml'}:4: unknown rule code 'SL999' in ignore; {RULES}\n"
    )


def test_unknown_rule_codes_in_noqa_comments(repo, capsys):
    (repo / "q.sql").write_text(
        "SELECT a FROM t WHERE b = 1 ORDER BY a, a; -- noqa: SL03\n"
        "SELECT a FROM t WHERE b = 1 ORDER BY a, a; -- noqa: LT01, SL003\n"
    )
    assert main(["check", "q.sql"]) == 2
    assert capsys.readouterr() == (
        f"{FINDING}\nFound 1 finding in 1 file. 1 error.\n",
        f"error: q.sql:1: unknown rule code 'SL03' in a noqa comment; did you mean SL003? {RULES}\n",
    )


# --- noqa is a comment -------------------------------------------------------------------------


def test_noqa_inside_a_string_silences_nothing(repo, capsys):
    (repo / "q.sql").write_text(
        "SELECT a FROM t WHERE b = 1 AND c = '-- noqa' ORDER BY a, a;\n"
        "SELECT a FROM t WHERE b = 1 ORDER BY a, a /* noqa? no: -- noqa */;\n"
        "SELECT `-- noqa` FROM t WHERE b = 1 ORDER BY `-- noqa`, `-- noqa`;\n"
    )
    assert main(["check", "q.sql"]) == 1
    assert [line.split(" ")[:2] for line in out_lines(capsys)] == [
        ["q.sql:1:59:", "SL003"], ["q.sql:3:57:", "SL003"], ["Found", "2"],
    ]


def test_noqa_in_python_comments_and_in_the_sql_of_a_string(repo, capsys):
    (repo / "job.py").write_text(
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "a = spark.sql('SELECT a FROM t WHERE b = 1 ORDER BY a, a')  # noqa: SL003\n"
        "b = spark.sql('SELECT a FROM t WHERE b = 1 ORDER BY a, a -- noqa')\n"
        "c = spark.sql('SELECT a FROM t WHERE b = 1 ORDER BY a, a'); d = '# noqa'\n"
        "e = spark.sql(\"SELECT a FROM t WHERE b = 1 AND c = '-- noqa' ORDER BY a, a\")\n"
    )
    assert main(["check", "job.py"]) == 1
    assert [line.split(" ")[:2] for line in out_lines(capsys)] == [
        ["job.py:5:56:", "SL003"], ["job.py:6:74:", "SL003"], ["Found", "2"],
    ]


# --- the catalog -------------------------------------------------------------------------------


def test_an_unknown_column_type_is_a_catalog_error(repo, capsys):
    (repo / "sortlint.yml").write_text("sources:\n  t:\n    columns:\n      b: int\n      a: timestmp\n")
    assert main(["check", "--output-format", "json", "q.sql"]) == 2
    captured = capsys.readouterr()
    message = (
        "column 'a' of source 't': unknown column type 'timestmp'; did you mean 'timestamp'? "
        f"the types Spark accepts are {ACCEPTED_TYPES}"
    )
    assert captured.err == f"error: {repo / 'sortlint.yml'}:5: {message}\n"
    assert json.loads(captured.out) == [{
        "code": "E002", "name": "configuration-error", "message": message,
        "path": str(repo / "sortlint.yml"), "line": 5, "column": None, "end_line": None,
        "end_column": None, "basis": None, "fix": None, "effect": None, "effect_unknown": None,
    }]


# --- text --------------------------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_is_read_and_kept(repo, capsys):
    (repo / "sortlint.yml").write_bytes(BOM + b"sources:\n  t:\n    columns: {a: int, b: int}\n")
    (repo / "q.sql").write_bytes(BOM + FIXABLE.encode())
    (repo / "job.py").write_bytes(BOM + (
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "spark.sql('SELECT a FROM t WHERE b = 1 ORDER BY a, a')\n"
    ).encode())
    assert main(["check", "."]) == 1
    assert out_lines(capsys) == [
        "job.py:3:52: SL003 [*] sort key a repeats an earlier key [query]",
        FINDING,
        "Found 2 findings in 2 files.",
    ]
    assert main(["check", "--fix", "."]) == 0
    assert (repo / "q.sql").read_bytes() == BOM + b"SELECT a FROM t WHERE b = 1 ORDER BY a;\n"
    assert (repo / "job.py").read_bytes().startswith(BOM + b"from pyspark")
    assert b"ORDER BY a')" in (repo / "job.py").read_bytes()


def test_utf16_and_invalid_utf8_are_errors_at_their_line(repo, capsys):
    (repo / "wide.sql").write_bytes("SELECT 1;\n".encode("utf-16"))
    (repo / "latin.sql").write_bytes(b"SELECT 1;\nSELECT 'caf\xe9';\n")
    assert main(["check", "."]) == 2
    assert capsys.readouterr() == (
        f"{FINDING}\nFound 1 finding in 1 file. 2 errors.\n",
        "error: latin.sql:2: not UTF-8 text: invalid continuation byte at byte 21\n"
        "error: wide.sql: UTF-16 or UTF-32 text (it starts with that byte-order mark); save it as UTF-8\n",
    )




def test_a_file_defining_a_table_read_elsewhere_that_is_not_utf8_is_an_error_of_the_run(repo, capsys):
    # Checked alone, q.sql reads the view view.sql defines: it is analysed for q.sql's sake,
    # and what it cannot decode is said - not q.sql's findings quietly gone.
    (repo / "sortlint.yml").write_text("target: datafusion\nsources:\n  t:\n    columns: {a: int not null, b: int not null}\n")
    (repo / "view.sql").write_bytes(b"-- caf\xe9\nCREATE VIEW v AS SELECT a, b FROM t WHERE b = 1;\n")
    (repo / "q.sql").write_text("SELECT a, b FROM v ORDER BY b, a;\n")
    assert main(["check", "--no-cache", "q.sql"]) == 2
    assert capsys.readouterr() == (
        "Found 0 findings. 1 error.\n",
        "error: view.sql:1: not UTF-8 text: invalid continuation byte at byte 6 "
        "(it defines v, which a checked file reads)\n",
    )
    (repo / "view.sql").write_bytes(b"-- cafe\nCREATE VIEW v AS SELECT a, b FROM t WHERE b = 1;\n")
    assert main(["check", "--no-cache", "q.sql"]) == 1
    assert out_lines(capsys)[0].startswith("q.sql:1:29: SL003 [*unsafe] sort key b is constant")
# --- nesting -----------------------------------------------------------------------------------


def nested(depth: int) -> str:
    return "SELECT a\nFROM " + "(SELECT a FROM " * depth + "t" + ") x" * depth + ";\n"


def test_deep_nesting_is_analysed_or_reported_as_such(repo, capsys):
    (repo / "q.sql").write_text(nested(40) + "\n" + nested(400) + FIXABLE)
    assert main(["check", "q.sql"]) == 2
    assert capsys.readouterr() == (
        "q.sql:6:41: SL003 [*] sort key a repeats an earlier key [query]\nFound 1 finding in 1 file. 1 error.\n",
        "error: q.sql:5: too deeply nested to analyse (brackets 400 deep; name inner queries "
        "in a WITH clause or a view)\n",
    )


def test_a_chain_of_400_ctes_is_analysed(repo, capsys):
    # Only 2 brackets deep, but 1,200 plan nodes (an Alias, a Filter, a Project a CTE):
    # sqlglot parses it, and the passes over the plan (reporting Spark's order, propagating
    # properties, linting) walk it without recursion (issue 31: dbt models of 20-30 CTEs
    # inlined through ref were "too deeply nested to analyse", and from about 300 CTEs).
    ctes = ["c0 AS (SELECT a, b FROM t ORDER BY a)"] + [
        f"c{i} AS (SELECT a, b FROM c{i - 1} WHERE b > {i})" for i in range(1, 400)
    ]
    (repo / "q.sql").write_text("WITH " + ",\n".join(ctes) + "\nSELECT a, b FROM c399 JOIN c0 USING (a) ORDER BY a, a;\n")
    assert main(["check", "--no-cache", "q.sql"]) == 1
    assert capsys.readouterr() == (
        "q.sql:1:32: SL002 [*] ORDER BY has no effect: its rows feed a join, which does not keep "
        "the order of its inputs. Spark removes this sort itself; the clause only misleads readers "
        "[query] (no runtime effect)\n"
        "q.sql:401:53: SL003 [*] sort key a repeats an earlier key [query]\n"
        "Found 2 findings in 1 file.\n",
        "",
    )


def test_deep_brackets_of_one_expression_are_not_told_to_use_a_with_clause(repo, capsys):
    (repo / "q.sql").write_text("SELECT " + "(" * 5000 + "a" + ")" * 5000 + " FROM t;\n" + FIXABLE)
    assert main(["check", "--no-cache", "q.sql"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["Found 1 finding in 1 file. 1 error."]
    assert err == (
        "error: q.sql:1: too deeply nested to analyse (brackets 5000 deep in one expression; write "
        "it with fewer nested parentheses)\n"
    )


def test_a_long_chain_is_reported_as_too_deep_not_as_a_bug(repo, capsys):
    union = " UNION ALL ".join(["SELECT a FROM t"] * 2000)
    (repo / "q.sql").write_text(f"{union};\n{FIXABLE}")
    assert main(["check", "q.sql"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["Found 1 finding in 1 file. 1 error."]
    assert err == (
        "error: q.sql:1: too deeply nested to analyse (a chain of operators or set operations "
        "too long to follow; split it)\n"
    )


def test_the_recursion_limit_is_never_said_as_a_parse_error():
    """With little stack left (deep in a plan), sqlglot's tokenizer and parser meet Python's
    recursion limit, and the tokenizer reports any failure as "Error tokenizing '...'" (that
    was `Error tokenizing 'cha'`). At every depth near the limit, parsing a statement either
    works or says the statement is too deeply nested - never a misleading parse error."""
    import sys

    from sortlint.errors import UserError
    from sortlint.plan.parse import parse_unit
    from sortlint.units import Unit

    text = "SELECT CAST(a AS CHAR(3)) AS c FROM t WHERE b = 'x' ORDER BY c"
    unit = Unit(Path("q.sql"), text, 0, text)

    def parse_at(remaining: int):
        if remaining:
            return parse_at(remaining - 1)
        try:
            parse_unit(unit, "spark")
            return "parsed"
        except UserError as error:
            return error.message

    said = set()
    limit = sys.getrecursionlimit()
    for depth in range(limit - 200, limit - 20):
        try:
            said.add(parse_at(depth).split(" (")[0])
        except RecursionError:
            said.add("no stack left to say anything")
    assert "parsed" in said and "too deeply nested to analyse" in said
    assert not any(message.startswith("cannot parse SQL") for message in said), said


# --- templates that never end -------------------------------------------------------------------

NEVER_ENDS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def test_a_template_that_never_ends_or_outgrows_its_budget_is_its_files_error(repo):
    # 10**10 iterations, or 10**10 pieces of output: each file's one error within its
    # budget (here 1 s and 1 MB), the other files still checked - in a real process, which
    # the test would otherwise wait on for hours.
    (repo / "sortlint.yml").write_text("dbt:\n  render_timeout: 1\n  render_max_bytes: 1000000\n")
    (repo / "loops.sql").write_text(f"SELECT a FROM t\n{NEVER_ENDS}\n")
    (repo / "grows.sql").write_text(NEVER_ENDS.replace("{% endfor %}", "SELECT 1;{% endfor %}", 1) + "\n")
    started = time.monotonic()
    result = run(["check", "--no-cache", "."], repo, timeout=60)
    assert time.monotonic() - started < 30
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        f"{FINDING}\nFound 1 finding in 1 file. 2 errors.\n",
        "error: grows.sql:1: rendering produced more than 1000000 bytes (sortlint.yml's "
        "`dbt: {render_max_bytes: ...}` sets the limit)\n"
        "error: loops.sql:1: rendering took longer than 1 s; a template that never ends? "
        "(sortlint.yml's `dbt: {render_timeout: ...}` sets the limit)\n",
    )
    # ran out of time, it is tried again: on a machine less busy it may render in time
    assert run(["check", "."], repo, timeout=60).stderr.count("rendering took longer") == 1
    assert run(["check", "."], repo, timeout=60).stderr.count("rendering took longer") == 1


def test_the_render_budget_is_a_positive_whole_number(repo, capsys):
    (repo / "sortlint.yml").write_text("dbt:\n  render_timout: 5\n")
    assert main(["check", "q.sql"]) == 2
    assert capsys.readouterr().err == (
        f"error: {repo / 'sortlint.yml'}:2: unknown key 'render_timout' in dbt (did you mean "
        "'render_timeout'?); allowed keys: render_max_bytes, render_timeout, renderer\n")
    (repo / "sortlint.yml").write_text("dbt:\n  render_timeout: 0.5\n")
    assert main(["check", "q.sql"]) == 2
    assert capsys.readouterr().err == (
        f"error: {repo / 'sortlint.yml'}:2: dbt.render_timeout must be a positive integer, got the number 0.5\n")
