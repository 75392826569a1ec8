"""Query units: the text one plan is built from, and the map back to the raw file.

A finding points at a raw line and a fix edits raw characters, but the text a plan is built
from is not always a slice of the file: Jinja rendering and Python string literals shift
offsets. Every unit therefore carries an `OffsetMap` from its own text to the raw file; for a
statement cut out of a `.sql` file the map is a plain shift (`LinearMap`).

A fix is written as edits on the unit's text (`Unit.edit`), mapped to the raw file: the same
rule code serves SQL files, SQL inside templates and Python strings, and DataFrame calls. A
map may refuse an edit (`uneditable`) and encode inserted text for where it lands (`encode`).

A unit cut from a tokenized file also carries its tokens (`UnitTokens`), so the file is
tokenized once.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sortlint.diagnostics import Edit, UneditableRegion

if TYPE_CHECKING:
    from sqlglot.tokens import Token


class OffsetMap(Protocol):
    """Maps an offset in a unit's text to the offset of the same character in the raw file."""

    def to_raw(self, offset: int) -> int: ...


@dataclass(frozen=True)
class LinearMap:
    """The unit's text is the raw file's text from `start` on, unchanged."""

    start: int

    def to_raw(self, offset: int) -> int:
        return self.start + offset


@dataclass(frozen=True)
class Unit:
    """One statement (or pipeline) and where it came from.

    `text` is what the front end parses; `start` is the raw offset of `text[0]`; `raw` is the
    whole file. `offsets` is None for text cut verbatim from the file (a linear map from
    `start`); front ends that transform the text supply their own map. `tokens`, when given,
    hold what the dialect's tokenizer makes of `text`, for the parser to take; without them
    the parser tokenizes `text` itself.
    """

    path: Path
    text: str
    start: int
    raw: str
    kind: str = "sql"
    offsets: OffsetMap | None = field(default=None, compare=False, repr=False)
    tokens: UnitTokens | None = field(default=None, compare=False, repr=False)
    # What a front end hands its plan builder along with the text (a DataFrame pipeline).
    payload: object = field(default=None, compare=False, repr=False)

    def raw_offset(self, offset_in_unit: int) -> int:
        mapping = self.offsets if self.offsets is not None else LinearMap(self.start)
        return mapping.to_raw(offset_in_unit)

    def location(self, offset_in_unit: int) -> tuple[int, int]:
        """1-based (line, column) in the raw file; a column counts characters on its line."""
        return raw_location(file_line_starts(self.raw), self.raw_offset(offset_in_unit))

    def edit(self, start: int, end: int, content: str) -> Edit:
        """Replace unit text [start, end) by `content`, as an edit on the raw file.

        The unit's offset map may refuse the range (`uneditable(start, end)` returns why:
        `UneditableRegion`) and may encode inserted text for where it lands (`encode(text)`:
        escapes inside a Python string literal).
        """
        mapping = self.offsets
        refusal = getattr(mapping, "uneditable", None)
        reason = refusal(start, end) if refusal else None
        if reason:
            raise UneditableRegion(reason)
        encode = getattr(mapping, "encode", None)
        if encode and content:
            content = encode(content)
        line, column = self.location(start)
        end_line, end_column = self.location(end)
        return Edit(line, column, end_line, end_column, content, self.raw_offset(start), self.raw_offset(end))


class UnitTokens:
    """A unit's tokens, exactly as the dialect's tokenizer makes them of its text, handed
    over once: the parser takes them, so that the units a check keeps to the end (in its
    results) do not keep every token alive too. `make` makes them when they are taken (the
    units of a file are cut before any is parsed, and their tokens need not exist all at
    once); a second parse tokenizes the text again. `elided` are the rows of long VALUES
    lists the tokens leave out (`Elision`s of `sortlint.plan.tokens`, offsets in the unit's
    text)."""

    def __init__(self, make: Callable[[], list[Token]], elided: tuple = (),
                 drop: Callable[[], None] | None = None) -> None:
        self._make: Callable[[], list[Token]] | None = make
        self._drop = drop
        self.elided = elided

    def take(self) -> list[Token] | None:
        """The tokens, the first time; None after."""
        make, self._make, self._drop = self._make, None, None
        return make() if make is not None else None

    def release(self) -> None:
        """Let the tokens go untaken (the unit was analysed elsewhere): `drop` frees them
        without making them, else they are made and let go."""
        drop, self._drop = self._drop, None
        if drop is None or self._make is None:
            self.take()
            return
        self._make = None
        drop()


def file_line_starts(raw: str) -> tuple[int, ...]:
    """The line starts of a whole file, made once and shared by all its units (a file's
    units are located together). A copy per unit made the memory of a file grow with the
    square of its statements.

    Kept by the text's identity, not its value: a file's text is often decoded twice (the
    glance at the project's files, then the check), and a cache keyed by value compared the
    two whole texts at every lookup - for each location of each statement, which made a
    2 MB file's locations cost tens of seconds. An equal copy costs one more scan instead."""
    key = id(raw)
    found = _line_starts.get(key)
    if found is not None and found[0] is raw:
        return found[1]
    starts = line_starts(raw)
    _line_starts[key] = (raw, starts)  # the text held, so that its id is not another's
    if len(_line_starts) > 8:
        try:
            del _line_starts[next(iter(_line_starts))]  # the oldest
        except (RuntimeError, KeyError):  # another thread's eviction came first
            pass
    return starts


_line_starts: dict[int, tuple[str, tuple[int, ...]]] = {}  # by id of the text: the text, its line starts


def line_starts(text: str) -> tuple[int, ...]:
    """Offsets where each line begins. Lines end with \\n (so \\r\\n too: the \\r is the last
    character of its line, never a line of its own)."""
    starts = [0]
    position = text.find("\n")
    while position != -1:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return tuple(starts)


def raw_location(starts: tuple[int, ...], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
