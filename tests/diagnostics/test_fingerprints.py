"""A fingerprint names a finding across runs: the same code, path and flagged text (with its
whitespace normalised) give the same fingerprint wherever the lines move; identical ones in a
file are numbered in report order."""

from pathlib import Path

from sortlint.diagnostics import Finding, fingerprint, fingerprints, flagged_text


def finding(line: int, column: int, end_line: int, end_column: int, code: str = "SL001",
            path: str = "q.sql") -> Finding:
    return Finding(code, "unnecessary-sort", "message", Path(path), line, column, end_line, end_column, "query")


RAW = "SELECT a FROM t\nORDER BY a;\n"


def test_the_flagged_text_has_its_whitespace_normalised():
    assert flagged_text(finding(2, 1, 2, 11), RAW) == "ORDER BY a"
    assert flagged_text(finding(1, 8, 3, 6), "SELECT a  FROM\n   t\r\nORDER BY a") == "a FROM t ORDER"
    assert flagged_text(finding(9, 1, 9, 2), RAW) == ""


def test_a_fingerprint_survives_moved_lines_and_reindentation():
    before = fingerprint(finding(2, 1, 2, 11), RAW)
    moved = "-- a comment\n\nSELECT a FROM t\n    ORDER   BY a;\n"
    assert fingerprint(finding(4, 5, 4, 17), moved) == before
    assert len(before) == 32 and int(before, 16) >= 0


def test_a_fingerprint_changes_with_the_code_the_path_the_text_and_the_occurrence():
    base = fingerprint(finding(2, 1, 2, 11), RAW)
    assert fingerprint(finding(2, 1, 2, 11, code="SL002"), RAW) != base
    assert fingerprint(finding(2, 1, 2, 11, path="r.sql"), RAW) != base
    assert fingerprint(finding(2, 1, 2, 11), RAW.replace("ORDER BY a", "ORDER BY b")) != base
    assert fingerprint(finding(2, 1, 2, 11), RAW, occurrence=1) != base


def test_identical_findings_of_a_file_are_numbered_in_report_order():
    raw = "SELECT a FROM t ORDER BY a;\nSELECT a FROM t ORDER BY a;\n"
    second, first = finding(2, 17, 2, 27), finding(1, 17, 1, 27)
    other = finding(1, 17, 1, 27, path="r.sql")
    made = fingerprints([second, first, other], lambda path: raw)
    assert made == [fingerprint(second, raw, 1), fingerprint(first, raw, 0), fingerprint(other, raw, 0)]
    assert len(set(made)) == 3
