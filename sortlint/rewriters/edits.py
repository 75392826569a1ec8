"""Minimal text edits on a unit's text, mapped to the raw file.

Rules describe a fix as edits on the unit's text (the statement as its front end sees
it); `Unit.raw_offset` maps them into the raw file, so the same rule code serves SQL files
and, later, SQL inside templates and Python strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sortlint.linter.finding import Edit
from sortlint.sources.units import Unit


class UneditableRegion(Exception):
    """The edit would touch raw text that is not the unit's text as written (a Jinja
    expression or tag): such a fix is reported, never applied."""


def edit(unit: Unit, start: int, end: int, content: str) -> Edit:
    """Replace unit text [start, end) by `content`, as an edit on the raw file.

    A unit's offset map may refuse a range (`uneditable(start, end)` returns why) and may
    encode inserted text for where it lands (`encode(text)`: escapes inside a Python
    string literal).
    """
    mapping = unit.offsets
    refusal = getattr(mapping, "uneditable", None)
    reason = refusal(start, end) if refusal else None
    if reason:
        raise UneditableRegion(reason)
    encode = getattr(mapping, "encode", None)
    if encode and content:
        content = encode(content)
    raw_start, raw_end = unit.raw_offset(start), unit.raw_offset(end)
    line, column = unit.location(start)
    end_line, end_column = unit.location(end)
    return Edit(line, column, end_line, end_column, content, raw_start, raw_end)


def apply_edits(raw: str, edits: Iterable[Edit]) -> str:
    """The raw text with every edit applied. Edits must not overlap."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for first, second in zip(ordered, ordered[1:]):
        if second.start < first.end:
            raise ValueError(f"overlapping edits at offsets {first.start} and {second.start}")
    pieces, cursor = [], 0
    for e in ordered:
        pieces += [raw[cursor : e.start], e.content]
        cursor = e.end
    pieces.append(raw[cursor:])
    return "".join(pieces)


def overlaps(a: Sequence[Edit], b: Sequence[Edit]) -> bool:
    return any(x.start < y.end and y.start < x.end for x in a for y in b)
