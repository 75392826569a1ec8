"""Suggestion blocks: a fix as the whole lines it leaves, covering the finding's lines."""

from __future__ import annotations

from pathlib import Path

from sortlint.diagnostics import Applicability, Edit, Finding, Fix
from sortlint.integrations.suggestions import Placement, github_block, gitlab_block, last_line, placement

RAW = "SELECT host, time\nFROM events\nWHERE host = 'a'\nORDER BY host,\n         time;\n"


def finding(line: int, column: int, end_line: int, end_column: int, *edits: Edit) -> Finding:
    fix = Fix(Applicability.SAFE, "fix it", tuple(edits)) if edits else None
    return Finding("SL001", "unnecessary-sort", "m", Path("q.sql"), line, column, end_line, end_column, "query", fix)


def removal(old: str, new: str = "") -> Edit:
    start = RAW.index(old)
    return Edit(0, 0, 0, 0, new, start, start + len(old))


def test_a_fix_that_joins_lines_covers_them_all():
    # ORDER BY on lines 4-5; the fix removes it from the end of line 3.
    found = finding(4, 1, 5, 15, removal("\nORDER BY host,\n         time"))
    assert placement(found, RAW) == Placement(3, 5, ("WHERE host = 'a';",))


def test_a_fix_inside_the_finding_keeps_the_other_covered_lines():
    found = finding(4, 10, 5, 14, removal("host,\n         "))
    assert placement(found, RAW) == Placement(4, 5, ("ORDER BY time;",))


def test_a_finding_without_edits_has_no_replacement():
    assert placement(finding(4, 10, 4, 14), RAW) == Placement(4, 4, None)


def test_a_range_ending_at_a_line_start_ends_on_the_line_before():
    assert last_line(finding(3, 1, 4, 1)) == 3
    assert last_line(finding(3, 1, 3, 1)) == 3


def test_blocks():
    assert github_block(("WHERE host = 'a';",)) == "```suggestion\nWHERE host = 'a';\n```"
    assert github_block(()) == "```suggestion\n```"
    assert gitlab_block(("a", "b"), 2) == "```suggestion:-0+2\na\nb\n```"


def test_a_fence_longer_than_any_backtick_run_in_the_lines():
    assert github_block(("x = '```'",)) == "````suggestion\nx = '```'\n````"
