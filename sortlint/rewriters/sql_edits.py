"""The shapes of SQL edits the rules need: drop a clause, drop items of a comma list,
reorder items, replace an item. Layout and comments around what changes are kept; a
clause alone on its lines takes its lines with it, leaving no blank line behind."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.diagnostics import Edit
from sortlint.plan.nodes import Span
from sortlint.units import Unit


def remove_clause(unit: Unit, span: Span) -> list[Edit]:
    text = unit.text
    line_start = text.rfind("\n", 0, span.start) + 1
    after = _skip_blanks(text, span.end)
    alone_before = text[line_start : span.start].strip() == ""
    alone_after = after >= len(text) or text[after] in "\r\n"
    if alone_before and alone_after and line_start > 0:
        # The clause owns its lines: remove them, from the line break before it.
        return [unit.edit(_line_break_before(text, line_start), after, "")]
    if span.start > 0 and text[span.start - 1] == "(":
        # First inside parentheses (`OVER (PARTITION BY a ORDER BY b)`): take the space after.
        return [unit.edit(span.start, _skip_blanks_and_breaks(text, span.end, len(text)), "")]
    start = span.start
    while start > 0 and text[start - 1] in " \t\r\n":
        start -= 1
    return [unit.edit(start, span.end, "")]


def remove_items(unit: Unit, items: Sequence[Span], drop: set[int]) -> list[Edit]:
    """Drop items of a comma-separated list with their separating commas.

    An item goes with the comma before it (the first kept item keeps none); comments
    between items stay. A line left blank by the removal goes too.
    """
    if len(drop) >= len(items):
        raise ValueError("cannot drop every item of a list")
    text = unit.text
    edits: list[Edit] = []
    first_kept = min(set(range(len(items))) - drop)
    for index in sorted(drop):
        item = items[index]
        if index < first_kept:
            # Before the first kept item: take the item and the comma after it.
            comma = text.index(",", item.end)
            end = _skip_blanks_and_breaks(text, comma + 1, items[index + 1].start)
            edits.append(unit.edit(item.start, end, ""))
            continue
        comma = text.rindex(",", items[index - 1].end, item.start)
        edits.append(unit.edit(comma, comma + 1, ""))
        start, end = item.start, item.end
        line_start = text.rfind("\n", 0, start) + 1
        line_end = _skip_blanks(text, end)
        if text[line_start:start].strip() == "" and (line_end >= len(text) or text[line_end] in "\r\n"):
            start, end = _line_break_before(text, line_start), line_end  # the item's own line
        else:
            while start > comma + 1 and text[start - 1] in " \t":
                start -= 1
        edits.append(unit.edit(start, end, ""))
    return _merge(edits)


def reorder_items(unit: Unit, items: Sequence[Span], order: Sequence[int]) -> list[Edit]:
    """Put the item texts in `order` (order[i] = which item goes to position i)."""
    texts = [unit.text[s.start : s.end] for s in items]
    return [
        unit.edit(span.start, span.end, texts[source])
        for position, (span, source) in enumerate(zip(items, order))
        if source != position
    ]


def replace(unit: Unit, span: Span, content: str) -> list[Edit]:
    return [unit.edit(span.start, span.end, content)]


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _skip_blanks_and_breaks(text: str, position: int, limit: int) -> int:
    while position < limit and text[position] in " \t\r\n":
        position += 1
    return position


def _line_break_before(text: str, line_start: int) -> int:
    """The offset of the line break ending the previous line (CRLF counts whole)."""
    position = line_start - 1
    if position > 0 and text[position - 1] == "\r":
        position -= 1
    return position


def _merge(edits: list[Edit]) -> list[Edit]:
    """Join edits that touch or overlap (a comma and the item right after it)."""
    merged: list[Edit] = []
    for e in sorted(edits, key=lambda e: e.start):
        if merged and e.start <= merged[-1].end and not e.content and not merged[-1].content:
            last = merged[-1]
            if e.end > last.end:
                merged[-1] = Edit(last.line, last.column, e.end_line, e.end_column, "", last.start, e.end)
            continue
        merged.append(e)
    return merged
