"""Cutting SQL text into statements: a `.sql` file, or SQL decoded from elsewhere (a Python
string, a rendered template) with a map back to its file.

The split follows the dialect's own tokenizer, so a semicolon inside a string, a quoted name
or a comment never ends a statement. A unit's text runs from its first token to its last, so
comments and blank lines between statements belong to no unit and a file of comments only
has none.

A file is tokenized once: each unit carries its share of the file's tokens, re-based to
its own text when the parser takes them (`_hand_over`), and the parser reads those instead of
tokenizing again. A big file (more than `PIECE` characters) is tokenized a piece at a time
only to find its statements, which carry no tokens: holding a big file's tokens all at once
cost more memory than anything else in a check.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain, compress, count, repeat
from operator import attrgetter, is_
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from sqlglot.errors import TokenError
from sqlglot.tokens import Token

from sortlint.collector import collector_paused
from sortlint.config import Config
from sortlint.errors import UserError, from_recursion
from sortlint.plan.nodes import Opaque, Span, Write
from sortlint.plan.statement import Statement, build_statement
from sortlint.plan.token_types import T
from sortlint.plan.tokens import Elision, dialect_tokenizer, drop_tokenizer, tokenize
from sortlint.units import OffsetMap, Unit, UnitTokens, line_starts, raw_location

if TYPE_CHECKING:
    from sortlint.plan.tables import TableLookup
    from sortlint.sources.frontend import Reading

# Whitespace and finished comments the tokenizer skips before it meets a token.
_SKIPPED = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)


def sql_units(path: Path, raw: str, reading: Reading) -> list[Unit]:
    """The front end of plain SQL files: it claims every file it is asked about."""
    return split_statements(path, raw, reading.config.dialect)


@dataclass(frozen=True)
class EmbeddedSql:
    """The payload of a SQL unit a Python file runs.

    `run_time_fields` names the format fields whose values are known only at run time
    (`"...".format(x)` with `x` unknown): such a statement that does not parse is not the
    user's error - the values may make it valid - but not analysable. `elsewhere`: the
    string runs somewhere other than where it stands among the file's statements (in a
    function's body, or from two places), so a table it writes is left knowing nothing
    where it stands; each place it runs from forgets what that table was known to satisfy."""

    run_time_fields: str = ""
    elsewhere: bool = False


def build(unit: Unit, tables: TableLookup, config: Config) -> Statement:
    """The plan of a SQL unit."""
    statement = build_statement(unit, tables, config.dialect, config.target)
    embedded = _embedded(unit)
    if statement.error is not None and embedded.run_time_fields:
        reason = f"the SQL is formatted at run time ({embedded.run_time_fields}): not analysable"
        return Statement(unit, Opaque(span=Span(0, len(unit.text)), reason=reason))
    if embedded.elsewhere and isinstance(statement.root, Write):
        statement.root = replace(statement.root, rows="unknown")
    return statement


def embedded_units(units: list[Unit], run_time_fields: Sequence[str], elsewhere: bool = False) -> list[Unit]:
    """The units of SQL a Python file runs, marked as formatted with `run_time_fields` of
    values known only at run time, and as run `elsewhere` than they stand."""
    if not run_time_fields and not elsewhere:
        return units
    payload = EmbeddedSql(", ".join(dict.fromkeys(run_time_fields)), elsewhere)
    return [replace(unit, payload=payload) for unit in units]


def run_elsewhere(units: list[Unit]) -> list[Unit]:
    """The units, marked as run elsewhere than they stand (`EmbeddedSql.elsewhere`)."""
    return [replace(unit, payload=replace(_embedded(unit), elsewhere=True)) if unit.kind == "sql" else unit
            for unit in units]


def _embedded(unit: Unit) -> EmbeddedSql:
    return unit.payload if isinstance(unit.payload, EmbeddedSql) else EmbeddedSql()


class MappedSql(OffsetMap, Protocol):
    """SQL text with a map back to its file, which can be cut (see
    `sortlint.sources.python.strings.MappedText`)."""

    @property
    def text(self) -> str: ...

    def slice(self, start: int, end: int) -> MappedSql: ...


def mapped_statements(path: Path, raw: str, mapped: MappedSql, dialect: str) -> list[Unit]:
    """One SQL unit per statement of decoded text, cut with the dialect's tokenizer and
    mapped into `raw`. Text the tokenizer cannot read is one unit: its parse error is
    reported at its line."""
    try:
        bounds = statement_bounds(tokenize(mapped.text, dialect)[0])
    except TokenError:
        stripped = mapped.text.strip()
        first = mapped.text.find(stripped) if stripped else 0
        bounds = [(first, first + len(stripped))] if stripped else []
    units = []
    for start, end in bounds:
        piece = mapped.slice(start, end)
        units.append(Unit(path=path, text=piece.text, start=piece.to_raw(0), raw=raw, offsets=piece))
    return units


# A file longer than this many characters is tokenized a piece of about this size at a
# time, and its statements carry no tokens (each is tokenized again when it is parsed): a
# file's tokens take about 70 times its text (a 5 MB file's, 340 MiB), and its statements
# are parsed one after another, by this process or a worker, so holding them all only
# raised the peak. Smaller files keep their tokens: they are tokenized once.
PIECE = 1 << 18


def split_statements(path: Path, raw: str, dialect: str) -> list[Unit]:
    """One `Unit` per non-empty statement, its text exactly as in the file minus the `;`.

    The cyclic collector is paused meanwhile: a big file makes a million tokens, none of
    them garbage, which its passes would go over again and again as they pile up (a sixth
    of splitting a 5 MB file)."""
    with collector_paused():
        try:
            if len(raw) > PIECE:
                return [Unit(path=path, text=raw[start:end], start=start, raw=raw) for start, end in _piecewise_bounds(path, raw, dialect)]
            tokens, elided = tokenize_file(path, raw, dialect)
            return _statement_units(path, raw, tokens, elided, dialect)
        finally:
            drop_tokenizer(dialect)


def _piecewise_bounds(path: Path, raw: str, dialect: str) -> list[tuple[int, int]]:
    """[start, end) of each statement of a big file, tokenized a piece at a time.

    A piece starts at a `;` token of the file (the file's start first) and is cut about
    `PIECE` characters on, wherever that falls; its tokens up to its last `;` that another
    token follows are the file's own: the tokenizer read them and that `;` before it could
    meet the cut, and a `;` leaves it in the state it starts in (the comments before a `;`
    hang on the token before it). The next piece starts at that `;`, which is its first
    token as it follows a `;` or the start in the file (a command after it reads the same).
    A piece with no such `;` (a statement longer than a piece) or that cannot be tokenized
    (cut inside a string or a comment, or the file's own error) ends the pieces: the rest of
    the file is tokenized in one go."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while len(raw) - start > PIECE:
        try:
            tokens = tokenize(raw[start : start + PIECE], dialect)[0]
        except TokenError:
            break
        last = next((i for i in range(len(tokens) - 2, 0, -1) if tokens[i].token_type is T.SEMICOLON), None)
        if last is None:
            break
        bounds += [(start + first, start + end) for first, end in statement_bounds(tokens[:last])]
        start += tokens[last].start
    tokens = tokenize_file(path, raw, dialect, start)[0]
    return bounds + [(start + first, start + end) for first, end in statement_bounds(tokens)]


def _statement_units(path: Path, raw: str, tokens: list[Token], elided: tuple[Elision, ...], dialect: str) -> list[Unit]:
    """The units of the statements `tokens` (offsets in `raw`, from a `;` or the file's
    start, up to a `;` or the file's end) hold, each with its share of them."""
    pool: list[Token | None] = list(tokens)
    elided_starts = [e.start for e in elided]  # in order: a unit finds its own by bisection
    units = []
    for first, last in statement_runs(tokens):
        start, end = tokens[first].start, tokens[last].end + 1
        own = elided[bisect.bisect_left(elided_starts, start) : bisect.bisect_left(elided_starts, end)]
        mine = tuple(e.shifted(-start) for e in own)
        held = None
        if not _spans_lines(raw, tokens[first]):
            before = _comments_before(raw, tokens, first, dialect)
            after = _comments_after(raw, tokens, last, dialect)
            held = UnitTokens(partial(_hand_over, pool, first, last, before, after), mine, partial(_drop, pool, first, last))
        units.append(Unit(path=path, text=raw[start:end], start=start, raw=raw, tokens=held))
    return units


def resplit_sql_units(path: Path, raw: str, reading: Reading, before: Sequence[Unit]) -> list[Unit]:
    """`sql_units`, given the units of an earlier text of the file (see `resplit_statements`)."""
    return resplit_statements(path, raw, reading.config.dialect, before)


def resplit_statements(path: Path, raw: str, dialect: str, before: Sequence[Unit]) -> list[Unit]:
    """`split_statements(path, raw, dialect)`, given `before`, what it gave for an earlier
    text of the file (a language server's last check): only the stretch an edit touched is
    tokenized again, so that a keystroke in a file of 20,000 statements costs the
    statements it touched, not the file.

    The stretch runs from a `;` before the edit to the first `;` after it at which the new
    tokens fall in step with the old ones. Both ends are `;` tokens the tokenizer met
    outside any string or comment, after which it starts afresh: the text before the
    first is unchanged, and so are its tokens (no token's reading looks past a `;`); the
    text after the second is the old one moved by the length the edit added, and so are its
    tokens. The statements outside the stretch are `before`'s, moved; they carry no tokens
    (the parser tokenizes one itself if it is analysed again). An edit that leaves no `;`
    in step after it - one opening a string that runs to the end - tokenizes the rest of
    the file."""
    old = before[0].raw if before else ""
    if not before or not all(unit.raw is old and _verbatim(unit) for unit in before):
        return split_statements(path, raw, dialect)
    prefix = _common_prefix(old, raw)
    suffix = _common_prefix(old[::-1], raw[::-1], min(len(old), len(raw)) - prefix)
    moved = len(raw) - len(old)
    ends = [unit.start + len(unit.text) for unit in before]
    # The `;` the stretch starts at: the first one after the last statement it leaves as
    # it was, which is before the edit.
    kept = bisect.bisect_right(ends, prefix)
    start = 0
    while kept > 0:
        semicolon = _semicolon_after(old, before, kept - 1, dialect)
        if semicolon is not None and semicolon < prefix:
            start = semicolon
            break
        kept -= 1
    # The `;` it ends at: after the edit, where the old text goes on unchanged; tried ever
    # further (each try tokenizes the stretch), up to the file's end.
    edited_end = len(old) - suffix
    candidate, step = max(kept, bisect.bisect_left(ends, edited_end) - 1), 1
    with collector_paused():
        while candidate < len(before):
            semicolon = _semicolon_after(old, before, candidate, dialect)
            if semicolon is not None and semicolon >= edited_end:
                end = semicolon + moved + 1
                try:
                    tokens, elided = tokenize(raw[start:end], dialect)
                except TokenError:
                    tokens = []
                if tokens and tokens[-1].token_type is T.SEMICOLON and tokens[-1].start == end - 1 - start:
                    middle = _statement_units(path, raw, *_moved_tokens(tokens, elided, start), dialect)
                    later = [_moved_unit(unit, raw, moved) for unit in before[candidate + 1 :]]
                    return [_moved_unit(unit, raw, 0) for unit in before[:kept]] + middle + later
            candidate, step = candidate + step, step * 2
        try:
            tokens, elided = tokenize(raw[start:], dialect)
        except TokenError:
            return split_statements(path, raw, dialect)  # which says where, in the file
        middle = _statement_units(path, raw, *_moved_tokens(tokens, elided, start), dialect)
        return [_moved_unit(unit, raw, 0) for unit in before[:kept]] + middle


def _verbatim(unit: Unit) -> bool:
    """Whether the unit is a plain SQL statement cut from its file as `split_statements` cuts it."""
    return unit.kind == "sql" and unit.offsets is None and unit.payload is None


def _common_prefix(one: str, other: str, limit: int | None = None) -> int:
    """The length of the longest common prefix of the two texts (at most `limit`), found by
    comparing halves (each comparison runs in C: a 2 MB text takes ~20)."""
    low, high = 0, min(len(one), len(other)) if limit is None else limit
    while low < high:
        middle = (low + high + 1) // 2
        if one[low:middle] == other[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _semicolon_after(raw: str, units: Sequence[Unit], index: int, dialect: str) -> int | None:
    """The offset of the first `;` token after unit `index` (None: none before the next
    unit or the file's end). What lies between two statements is only blanks, comments and
    semicolons, read from a token's end: as the file's tokenizer reads it."""
    end = units[index].start + len(units[index].text)
    upto = units[index + 1].start if index + 1 < len(units) else len(raw)
    gap = raw[end:upto]
    position = gap.find(";")
    if position == -1:
        return None
    if not gap.replace(";", "").strip():  # no comment: the first `;` is a token
        return end + position
    try:
        return next((end + t.start for t in _tokenize(gap, dialect) if t.token_type is T.SEMICOLON), None)
    except TokenError:
        return None


def _moved_tokens(tokens: list[Token], elided: tuple[Elision, ...], by: int) -> tuple[list[Token], tuple[Elision, ...]]:
    """Tokens (and elisions) of a stretch of the file, their offsets made the file's."""
    for token in tokens:
        token.start += by
        token.end += by
    return tokens, tuple(e.shifted(by) for e in elided)


def _moved_unit(unit: Unit, raw: str, by: int) -> Unit:
    return Unit(path=unit.path, text=unit.text, start=unit.start + by, raw=raw)


def tokenize_file(path: Path, raw: str, dialect: str, start: int = 0) -> tuple[list[Token], tuple[Elision, ...]]:
    """The tokens of the file from `start` on, a `;` token or the file's start (see
    `sortlint.plan.tokens.tokenize`; offsets from `start`); a file the tokenizer cannot read
    (an unterminated string, quoted name or comment) is the user's error, reported at the
    line where the bad token begins."""
    try:
        return tokenize(raw[start:] if start else raw, dialect)
    except TokenError as error:
        if from_recursion(error):
            raise
        offset = start + failure_offset(raw[start:] if start else raw, dialect)
        near = raw[offset : offset + 30].splitlines()[0] if offset < len(raw) else ""
        line, _ = raw_location(line_starts(raw), offset)
        raise UserError(f"cannot tokenize SQL near {near!r}", path, line) from None


def failure_offset(text: str, dialect: str) -> int:
    """Where the token the tokenizer fails on begins: after the last good token and what
    the tokenizer skips (whitespace, complete comments)."""
    tokenizer = dialect_tokenizer(dialect)
    try:
        tokenizer.tokenize(text)
    except TokenError:
        pass
    tokens = tokenizer.tokens
    after = tokens[-1].end + 1 if tokens else 0
    return _SKIPPED.match(text, after).end()


def statement_runs(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """The first and last token index of each run of tokens between semicolons."""
    # The semicolons found without a Python step per token (a big file has a million).
    semicolons = compress(count(), map(is_, map(_TOKEN_TYPE, tokens), repeat(T.SEMICOLON)))
    runs: list[tuple[int, int]] = []
    first = 0
    for semicolon in chain(semicolons, (len(tokens),)):
        if first < semicolon:
            runs.append((first, semicolon - 1))
        first = semicolon + 1
    return runs


_TOKEN_TYPE = attrgetter("token_type")


def statement_bounds(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """[start, end) of each run of tokens between semicolons."""
    return [(tokens[first].start, tokens[last].end + 1) for first, last in statement_runs(tokens)]


def _spans_lines(text: str, token: Token) -> bool:
    """Whether the token spans lines (a multi-line string): then where the statement's first
    line begins is not known from it, and the parser tokenizes the statement itself."""
    written = text[token.start : token.end + 1]
    return "\n" in written or "\r" in written


def _drop(pool: list[Token | None], first: int, last: int) -> None:
    """Tokens `first..last` of the file leave its pool untaken."""
    pool[first : last + 1] = [None] * (last + 1 - first)


def _hand_over(pool: list[Token | None], first: int, last: int, before: int, after: int) -> list[Token]:
    """Tokens `first..last` of the file as tokenizing that statement alone gives them.

    Offsets, lines and columns are re-based, in place, to count from the statement's first
    character instead of the file's. Comments outside the statement, which the file's
    tokenizer hung on its first or last token, are taken off again: the `before` first ones
    and the `after` last ones (see `_comments_before`, `_comments_after`). The tokens leave
    the file's pool as they are handed over, so that a big file's tokens are freed
    statement by statement instead of all living until the last one is parsed (and a
    statement's tokens are not copied).
    """
    own = cast("list[Token]", pool[first : last + 1])
    pool[first : last + 1] = [None] * len(own)
    head = own[0]
    start, head_line = head.start, head.line
    line_shift = head_line - 1
    col_shift = head.col - (head.end - start + 1)  # columns of the file's line before `start`
    for token in own:
        if token.line == head_line:
            token.col -= col_shift
        token.line -= line_shift
        token.start -= start
        token.end -= start
    if after:
        own[-1].comments = own[-1].comments[: len(own[-1].comments) - after]
    if before:
        head.comments = head.comments[before:]
    return own


def _comments_before(text: str, tokens: Sequence[Token], first: int, dialect: str) -> int:
    """How many of the comments between the previous `;` (or the file's start) and token
    `first` the file's tokenizer hung on `first`: all but those on the line of the `;`,
    which it hung on the `;`."""
    gap_start = tokens[first - 1].end + 1 if first > 0 else 0
    gap = text[gap_start : tokens[first].start]
    if not gap or gap.isspace():
        return 0
    probe = (";" if first > 0 else "") + gap + "x"  # the same layout, first token as `x`
    return len(_tokenize(probe, dialect)[-1].comments)


def _comments_after(text: str, tokens: Sequence[Token], last: int, dialect: str) -> int:
    """How many comments between token `last` and the next `;` (or the file's end) the
    tokenizer hung on `last`: all of them."""
    gap_end = tokens[last + 1].start if last + 1 < len(tokens) else len(text)
    gap = text[tokens[last].end + 1 : gap_end]
    if not gap or gap.isspace():
        return 0
    return len(_tokenize("(" + gap, dialect)[0].comments)  # the last token as `(`


def _tokenize(text: str, dialect: str) -> list[Token]:
    return dialect_tokenizer(dialect).tokenize(text)
