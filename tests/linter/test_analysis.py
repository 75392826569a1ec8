"""A bug inside a front end, a plan builder or a rule is never silence: it is an internal
error of its file or statement - file, line, the exception, a request to report it, exit
code 2 - and everything else is still checked. SORTLINT_DEBUG=1 adds the traceback.

The bugs are injected into the real functions (nothing else is replaced)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.linter import lint
from sortlint.plan import statement
from sortlint.sources.sql import files

CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n    constants: {host: h}\n"
SORTED = "SELECT host, time FROM events ORDER BY host, host"
REPORT = "please report this at the sortlint issue tracker"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "a.sql").write_text(f"{SORTED};\nSELECT host FROM events WHERE host = 'boom';\n{SORTED};\n")
    (tmp_path / "b.sql").write_text(f"{SORTED};\n")
    return tmp_path


def fail_on_boom(original):
    def failing(*args):
        unit = args[0] if not hasattr(args[1], "unit") else args[1].unit
        if "boom" in unit.text:
            raise RuntimeError("boom")
        return original(*args)

    return failing


def test_a_builder_bug_is_an_internal_error_of_its_statement(project, monkeypatch, capsys):
    monkeypatch.setattr(statement, "build_tree", fail_on_boom(statement.build_tree))
    assert main(["check", "."]) == 2
    out, err = capsys.readouterr()
    assert [line.split(" ")[0] for line in out.splitlines() if "SL001" in line] == ["a.sql:1:31:", "a.sql:3:31:", "b.sql:1:31:"]
    assert err == f"error: a.sql:2: internal error: RuntimeError: boom while building statement; {REPORT}\n"
    assert out.splitlines()[-1] == "Found 3 findings in 2 files. 1 error."


def test_a_rule_bug_is_an_internal_error_of_its_statement(project, monkeypatch, capsys):
    lint_original = lint.lint_statement

    def failing(unit, root, config, *analysis):
        if "boom" in unit.text:
            raise KeyError("oops")
        return lint_original(unit, root, config, *analysis)

    monkeypatch.setattr("sortlint.linter.analysis.lint_statement", failing)
    assert main(["check", "."]) == 2
    out, err = capsys.readouterr()
    assert err == f"error: a.sql:2: internal error: KeyError: 'oops' while linting statement; {REPORT}\n"
    assert out.count("SL001") == 3


def test_a_front_end_bug_is_an_internal_error_of_its_file(project, monkeypatch, capsys):
    split = files.split_statements

    def failing(path, raw, dialect):
        if path.name == "a.sql":
            raise IndexError("list index out of range")
        return split(path, raw, dialect)

    monkeypatch.setattr(files, "split_statements", failing)
    assert main(["check", "."]) == 2
    out, err = capsys.readouterr()
    assert err == f"error: a.sql: internal error: IndexError: list index out of range while reading the file; {REPORT}\n"
    assert "b.sql:1:31: SL001" in out


def test_the_traceback_is_printed_only_when_asked(project, monkeypatch, capsys):
    monkeypatch.setattr(statement, "build_tree", fail_on_boom(statement.build_tree))
    main(["check", "."])
    assert "Traceback" not in capsys.readouterr().err
    monkeypatch.setenv("SORTLINT_DEBUG", "1")
    main(["check", "."])
    err = capsys.readouterr().err
    line, traceback = err.split("\n", 1)
    assert line == f"error: a.sql:2: internal error: RuntimeError: boom while building statement; {REPORT}"
    assert traceback.startswith("Traceback (most recent call last):")
    assert 'raise RuntimeError("boom")' in err and err.rstrip().endswith("RuntimeError: boom")


def test_a_bug_outside_any_file_is_one_line_and_exit_2(project, monkeypatch, capsys):
    monkeypatch.setattr("sortlint.workspace.check.discover", lambda paths, config, force_exclude: 1 / 0)
    assert main(["check", "."]) == 2
    err = capsys.readouterr().err
    assert err == f"error: internal error: ZeroDivisionError: division by zero while running `sortlint check`; {REPORT}\n"
