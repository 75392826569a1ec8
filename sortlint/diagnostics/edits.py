"""Minimal text edits on a raw file.

An edit replaces raw-file text between two positions; a fix is a set of them. Front ends
make edits from offsets in a unit's text (`sortlint.units.Unit.edit`), and may refuse one
that would touch text not written as it reads (a Jinja expression, an f-string field):
`UneditableRegion`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Edit:
    """Replace raw-file text between two 1-based positions (end exclusive) by `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    start: int = field(default=0, compare=False)  # the same range as raw-file offsets
    end: int = field(default=0, compare=False)


class UneditableRegion(Exception):
    """The edit would touch raw text that is not the unit's text as written (a Jinja
    expression or tag): such a fix is reported, never applied."""


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
