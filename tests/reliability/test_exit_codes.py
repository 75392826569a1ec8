"""Exit codes mean one thing - 0 clean, 1 findings (or changes `--diff` would make), 2 an
error of any kind, 130 interrupted, 141 when the reader of the output went away - and every
failure is one line, without a traceback unless `--debug` (or SORTLINT_DEBUG=1) asks for it.
Output stays what its format promises whatever else is asked: JSON is valid JSON."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from processes import command, environment, run

from sortlint.cli import main

FIXABLE = "SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n"
FINDING = "q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.sql").write_text(FIXABLE)
    return tmp_path


def test_diff_with_changes_exits_1_and_says_what_it_would_fix(repo, capsys):
    assert main(["check", "--diff", "q.sql"]) == 1
    out = capsys.readouterr().out
    assert out.endswith(f"{FINDING}\nFound 1 finding in 1 file.\n1 would be fixed, 0 remaining.\n")
    assert "All checks passed" not in out
    assert (repo / "q.sql").read_text() == FIXABLE


def test_diff_without_changes_exits_0(repo, capsys):
    (repo / "q.sql").write_text("SELECT a FROM t ORDER BY a;\n")
    assert main(["check", "--diff", "q.sql"]) == 0
    assert capsys.readouterr().out == "All checks passed (1 file).\n0 would be fixed, 0 remaining.\n"


def test_json_with_diff_is_json_and_the_diff_goes_to_stderr(repo, capsys):
    (repo / "broken.sql").write_text("SELECT FROM WHERE ((;\n")
    assert main(["check", "--output-format", "json", "--diff", "."]) == 2
    captured = capsys.readouterr()
    entries = json.loads(captured.out)
    assert [(e["code"], e["name"], e["path"], e["line"]) for e in entries] == [
        ("SL003", "redundant-sort-keys", "q.sql", 1),
        ("E001", "input-error", "broken.sql", 1),
    ]
    assert entries[1]["message"].startswith("cannot parse SQL: ")
    assert captured.err == (
        "--- a/q.sql\n+++ b/q.sql\n@@ -1 +1 @@\n"
        "-SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n+SELECT a FROM t WHERE b = 1 ORDER BY a;\n"
        f"error: broken.sql:1: {entries[1]['message']}\n"
    )


def test_json_holds_a_configuration_error(repo, capsys):
    (repo / "sortlint.yml").write_text("select: [SL00x]\n")
    assert main(["check", "--output-format", "json", "q.sql"]) == 2
    [entry] = json.loads(capsys.readouterr().out)
    assert (entry["code"], entry["name"], entry["line"]) == ("E002", "configuration-error", 1)


def test_an_internal_error_is_one_line_with_debug_its_traceback(repo, capsys, monkeypatch):
    from sortlint.plan import statement

    def broken(*args):
        raise KeyError("x")

    monkeypatch.setattr(statement, "build_tree", broken)
    assert main(["check", "q.sql"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "Found 0 findings. 1 error.\n"
    line = (
        "error: q.sql:1: internal error: KeyError: 'x' while building statement; "
        "please report this at the sortlint issue tracker\n"
    )
    assert captured.err == line
    assert main(["check", "--debug", "q.sql"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line + "Traceback (most recent call last):") and err.endswith("KeyError: 'x'\n")


def test_a_usage_error_exits_2(repo):
    result = run(["check", "--output-format", "xml", "q.sql"], repo)
    assert result.returncode == 2
    assert "invalid choice: 'xml'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["rules"], ["check", "q.sql"], ["check", "--diff", "q.sql"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(repo, args):
    """`sortlint rules | head -1`: the pipe is closed when sortlint writes."""
    read, write = os.pipe()
    os.close(read)
    try:
        process = subprocess.run(command(*args), cwd=repo, env=environment(), stdout=write,
                                 stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert (process.returncode, process.stderr) == (141, "")
    assert (repo / "q.sql").read_text() == FIXABLE
