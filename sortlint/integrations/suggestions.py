"""Suggestion blocks: a fix shown as the whole lines it leaves, for a reviewer to apply
with one click.

GitHub and GitLab replace the lines a comment is on by the block's lines, so a fix's raw
edits become whole lines: the comment covers the finding's lines and every line the fix
changes, and the block holds those lines as the fix leaves them (none, when the fix
deletes them all).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sortlint.diagnostics import Finding
from sortlint.report.fixed_lines import changed_lines, lines_of

BACKTICKS = re.compile(r"`{3,}")


@dataclass(frozen=True)
class Placement:
    """Lines `first` to `last` (inclusive) a comment on a finding covers, and what its fix
    makes of them (None when there is no fix to suggest)."""

    first: int
    last: int
    replacement: tuple[str, ...] | None = None

    @property
    def lines(self) -> range:
        return range(self.first, self.last + 1)


def placement(finding: Finding, raw: str) -> Placement:
    first, last = finding.line, last_line(finding)
    if finding.fix is None or not finding.fix.edits:
        return Placement(first, last)
    change = changed_lines(raw, finding.fix.edits)
    first, last = min(first, change.first), max(last, change.last)
    lines = lines_of(raw)
    return Placement(first, last, (*lines[first - 1 : change.first - 1], *change.after, *lines[change.last : last]))


def last_line(finding: Finding) -> int:
    """The finding's last line: a range that ends at a line's start ends on the line before."""
    if finding.end_line > finding.line and finding.end_column == 1:
        return finding.end_line - 1
    return max(finding.line, finding.end_line)


def github_block(replacement: tuple[str, ...]) -> str:
    """GitHub's block: it replaces the comment's lines (`start_line` to `line`)."""
    return _fenced("suggestion", replacement)


def gitlab_block(replacement: tuple[str, ...], lines_below: int) -> str:
    """GitLab's block: it replaces the commented line and `lines_below` lines after it."""
    return _fenced(f"suggestion:-0+{lines_below}", replacement)


def _fenced(info: str, lines: tuple[str, ...]) -> str:
    longest = max((len(run) for line in lines for run in BACKTICKS.findall(line)), default=2)
    fence = "`" * max(3, longest + 1)
    body = "".join(line + "\n" for line in lines)
    return f"{fence}{info}\n{body}{fence}"
