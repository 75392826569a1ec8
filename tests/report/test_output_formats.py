"""`sortlint check` for CI: GitHub annotations, GitLab Code Quality, reviewdog's rdjson,
JUnit XML, `--statistics`, `--show-fixes`, `--exit-zero` and `--output-file`."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import pytest

from sortlint.cli import main

# Constants declared without the engine knowing them (fixes unsafe).
CATALOG = (
    "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null, level: string}\n"
    "    constants: {host: h, time: '2024-01-01 00:00:00'}\n    engine_known: false\ntarget: datafusion\n"
)
QUERIES = "SELECT host, 'é' AS e FROM events ORDER BY host, time;\nSELECT host FROM events WHERE level = 'x' ORDER BY host, level;\n"
DECLARED = "declared constant host = 'h' of events (sortlint.yml:2)"
FIRST = (
    "ORDER BY [events.host ASC NULLS LAST, events.time ASC NULLS LAST] is already satisfied by its input: "
    f"{DECLARED}; declared constant time = '2024-01-01 00:00:00' of events (sortlint.yml:2)"
)
SECOND = f"ORDER BY [events.host ASC NULLS LAST, events.level ASC NULLS LAST] is already satisfied by its input: {DECLARED}; WHERE events.level = 'x' (line 2)"
PARSE_ERROR = "broken.sql:1: cannot parse SQL: Required keyword: 'this' missing for <class 'sqlglot.expressions.core.Paren'>"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "a,b.sql").write_text(QUERIES)  # a comma: escaped in annotations
    (tmp_path / "broken.sql").write_text("SELECT (;\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_github_annotations(repo, capsys):
    assert main(["check", "--output-format", "github", "."]) == 2
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        f"::warning file=a%2Cb.sql,line=1,endLine=1,col=35,title=SL001 unnecessary-sort::{FIRST}",
        f"::warning file=a%2Cb.sql,line=2,endLine=2,col=43,title=SL001 unnecessary-sort::{SECOND}",
        f"::error file=broken.sql,line=1::{PARSE_ERROR.removeprefix('broken.sql:1: ')}",
    ]
    assert out.err == f"error: {PARSE_ERROR}\n"


def test_github_annotations_escape_line_ends_and_percent_signs():
    from sortlint.report.github import _command

    assert _command("warning", {"file": "x:y.sql", "title": "a, b"}, "50%\nof it") == "::warning file=x%3Ay.sql,title=a%2C b::50%25%0Aof it"


def test_gitlab_code_quality(repo, capsys):
    assert main(["check", "--output-format", "gitlab", "a,b.sql"]) == 1
    issues = json.loads(capsys.readouterr().out)
    assert [{k: v for k, v in issue.items() if k != "fingerprint"} for issue in issues] == [
        {"description": f"SL001 unnecessary-sort: {FIRST}", "check_name": "SL001", "severity": "minor",
         "categories": ["Performance"], "location": {"path": "a,b.sql", "lines": {"begin": 1, "end": 1}}},
        {"description": f"SL001 unnecessary-sort: {SECOND}", "check_name": "SL001", "severity": "minor",
         "categories": ["Performance"], "location": {"path": "a,b.sql", "lines": {"begin": 2, "end": 2}}},
    ]
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == 2 and all(len(f) == 32 for f in fingerprints)


def test_rdjson_counts_columns_in_utf8_bytes_and_carries_the_fixes(repo, capsys):
    assert main(["check", "--output-format", "rdjson", "a,b.sql"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["source"] == {"name": "sortlint", "url": "https://sortlint.readthedocs.io/en/latest/"}
    first = result["diagnostics"][0]
    assert first == {
        "message": f"{FIRST} (the fix, remove the ORDER BY, is unsafe: it rests on a declaration)",
        # 'é' is two bytes: character column 35 is byte column 36
        "location": {"path": "a,b.sql", "range": {"start": {"line": 1, "column": 36}, "end": {"line": 1, "column": 55}}},
        "severity": "WARNING",
        "code": {"value": "SL001", "url": "https://sortlint.readthedocs.io/en/latest/rules/unnecessary-sort/"},
        "suggestions": [{"range": {"start": {"line": 1, "column": 35}, "end": {"line": 1, "column": 55}}, "text": ""}],
    }
    assert result["diagnostics"][1]["location"]["range"]["start"] == {"line": 2, "column": 43}


def test_junit(repo, capsys):
    assert main(["check", "--output-format", "junit", "."]) == 2
    root = ET.fromstring(capsys.readouterr().out)
    assert (root.tag, root.attrib) == ("testsuites", {"name": "sortlint", "tests": "3", "failures": "2", "errors": "1"})
    files, errors = root
    assert files.attrib == {"name": "a,b.sql", "tests": "2", "failures": "2", "errors": "0", "skipped": "0"}
    case = files[0]
    assert case.attrib == {"name": "SL001 unnecessary-sort at line 1, column 35", "classname": "a,b.sql", "file": "a,b.sql", "line": "1"}
    assert case[0].attrib == {"message": FIRST, "type": "SL001"}
    assert case[0].text == f"a,b.sql:1:35: SL001 {FIRST} [declared]"
    assert errors[0][0].tag == "error"
    assert errors[0][0].text == PARSE_ERROR


def test_junit_of_a_clean_check(repo, capsys):
    (repo / "clean.sql").write_text("SELECT host FROM events;\n")
    assert main(["check", "--output-format", "junit", "clean.sql"]) == 0
    assert capsys.readouterr().out == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="sortlint" tests="1" failures="0" errors="0">\n'
        '  <testsuite name="sortlint" tests="1" failures="0" errors="0" skipped="0">\n'
        '    <testcase name="All checks passed (1 file)" classname="sortlint" />\n'
        "  </testsuite>\n"
        "</testsuites>\n"
    )


def test_statistics(repo, capsys):
    """Fixable counts what `--fix` fixes; the unsafe fixes are hidden until `--unsafe-fixes`,
    as ruff counts them."""
    (repo / "more.sql").write_text(
        "SELECT level FROM events WHERE level = 'x' ORDER BY level;\n"  # safe: the query's own WHERE
        "SELECT host FROM events WHERE host = 'a' ORDER BY host, time;\n"
    )
    assert main(["check", "--statistics", "a,b.sql", "more.sql"]) == 1
    assert capsys.readouterr().out == (
        "4  SL001  [-] unnecessary-sort\n"
        "Found 4 findings.\n"
        "[*] 1 fixable with the `--fix` option (3 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert main(["check", "--statistics", "--unsafe-fixes", "a,b.sql", "more.sql"]) == 1
    assert capsys.readouterr().out == (
        "4  SL001  [*] unnecessary-sort\n"
        "Found 4 findings.\n"
        "[*] 4 fixable with the `--fix` option.\n"
    )
    assert main(["check", "--statistics", "a,b.sql"]) == 1
    assert capsys.readouterr().out == (
        "2  SL001  [ ] unnecessary-sort\n"
        "Found 2 findings.\n"
        "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert main(["check", "--statistics", "--output-format", "json", "a,b.sql", "more.sql"]) == 1
    assert json.loads(capsys.readouterr().out) == [
        {"code": "SL001", "name": "unnecessary-sort", "count": 4, "fixable": 1, "hidden_unsafe_fixes": 3}
    ]
    assert main(["check", "--statistics", "--unsafe-fixes", "--output-format", "json", "a,b.sql"]) == 1
    assert json.loads(capsys.readouterr().out) == [
        {"code": "SL001", "name": "unnecessary-sort", "count": 2, "fixable": 2, "hidden_unsafe_fixes": 0}
    ]


@pytest.mark.parametrize("form", ["sarif", "junit", "gitlab", "rdjson", "github"])
def test_statistics_with_a_machine_format_is_a_usage_error(repo, capsys, form):
    """The counts replace the report, as ruff's do; a SARIF or JUnit file holding a text
    table would be no report at all, so nothing is written."""
    assert main(["check", "--statistics", "--output-format", form, "--output-file", "report", "a,b.sql"]) == 2
    assert capsys.readouterr() == (
        "",
        f"error: --statistics counts the findings in place of the report, in text or json; a {form} "
        "report has no place for the counts: drop one of the two\n",
    )
    assert not (repo / "report").exists()


def test_statistics_of_a_clean_check(repo, capsys):
    (repo / "clean.sql").write_text("SELECT host FROM events;\n")
    assert main(["check", "--statistics", "clean.sql"]) == 0
    assert capsys.readouterr().out == "Found 0 findings.\n"


def test_show_fixes(repo, capsys):
    assert main(["check", "--show-fixes", "a,b.sql"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"a,b.sql:1:35: SL001 [*unsafe] {FIRST} [declared]",
        "  fix (unsafe): remove the ORDER BY",
        "    1 - SELECT host, 'é' AS e FROM events ORDER BY host, time;",
        "      + SELECT host, 'é' AS e FROM events;",
        f"a,b.sql:2:43: SL001 [*unsafe] {SECOND} [declared]",
        "  fix (unsafe): remove the ORDER BY",
        "    2 - SELECT host FROM events WHERE level = 'x' ORDER BY host, level;",
        "      + SELECT host FROM events WHERE level = 'x';",
        "Found 2 findings in 1 file.",
    ]


def test_show_fixes_with_fix_lists_what_was_fixed(repo, capsys):
    assert main(["check", "--fix", "--unsafe-fixes", "--show-fixes", "a,b.sql"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "All checks passed (1 file).",
        "Fixed 2 findings:",
        "- a,b.sql:",
        "    2 × SL001 (unnecessary-sort)",
        "2 fixed, 0 remaining.",
    ]


def test_exit_zero(repo, capsys):
    assert main(["check", "--exit-zero", "a,b.sql"]) == 0
    assert main(["check", "--exit-zero", "."]) == 2  # errors still fail


def test_output_file(repo, capsys):
    assert main(["check", "--output-format", "gitlab", "--output-file", "report.json", "a,b.sql"]) == 1
    assert capsys.readouterr().out == ""
    assert len(json.loads((repo / "report.json").read_text())) == 2
    umask = os.umask(0o022)
    os.umask(umask)
    assert (repo / "report.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_output_file_creates_its_missing_folders(repo, capsys):
    assert main(["check", "--output-format", "sarif", "--output-file", "out/ci/report.sarif", "a,b.sql"]) == 1
    assert capsys.readouterr() == ("", "")
    assert len(json.loads((repo / "out/ci/report.sarif").read_text())["runs"][0]["results"]) == 2


def test_output_file_under_a_file_is_an_error(repo, capsys):
    assert main(["check", "--output-format", "sarif", "--output-file", "a,b.sql/report.sarif", "a,b.sql"]) == 2
    assert capsys.readouterr() == ("", "error: a,b.sql/report.sarif: cannot write the report: Not a directory\n")
