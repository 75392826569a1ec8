"""The whole lines a fix changes, before and after: how a fix is shown to people (under a
finding with `--show-fixes`, as a suggestion block in a review)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sortlint.diagnostics import Edit, apply_edits


@dataclass(frozen=True)
class LineChange:
    """Lines `first` to `last` (1-based, inclusive) of the raw file, as they are (`before`)
    and as the fix leaves them (`after`, possibly none), without their line ends."""

    first: int
    last: int
    before: tuple[str, ...]
    after: tuple[str, ...]


def changed_lines(raw: str, edits: Sequence[Edit]) -> LineChange:
    """The lines `edits` (not empty, not overlapping) change, before and after."""
    low = min(e.start for e in edits)
    high = max(e.end for e in edits)
    # The last character replaced is on the last line changed; an insertion changes its line.
    last_position = high - 1 if high > low else low
    region_start = raw.rfind("\n", 0, low) + 1
    line_end = raw.find("\n", last_position)
    region_end = line_end + 1 if line_end != -1 else len(raw)
    fixed = apply_edits(raw, edits)
    shift = len(fixed) - len(raw)
    after = fixed[region_start : region_end + shift]
    # A fix that removes the last line's end joins the next line to it: that line changes too.
    while after and not after.endswith("\n") and region_end < len(raw):
        line_end = raw.find("\n", region_end)
        region_end = line_end + 1 if line_end != -1 else len(raw)
        after = fixed[region_start : region_end + shift]
    first = raw.count("\n", 0, low) + 1
    last = first + len(lines_of(raw[region_start:region_end])) - 1
    return LineChange(first, max(first, last), lines_of(raw[region_start:region_end]), lines_of(after))


def lines_of(text: str) -> tuple[str, ...]:
    """Lines as git counts them: each ended by \\n (a \\r before it is part of the line end)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return tuple(line.removesuffix("\r") for line in lines)
