"""Python string literals as the text they evaluate to, with a map back to the source.

A query written in a Python file is a string literal, and the text sqlglot reads is the
literal's *value*: escapes decoded (`\\n`, `\\'`, `\\x41`, `\\N{...}`, a backslash before a
newline), raw strings taken as written, newlines inside triple quotes normalised (a CRLF
file's `\\r\\n` is one `\\n`, as Python reads it), an implicit concatenation of adjacent
literals (`"a " "b"`, mixing prefixes and quotes) joined, `{{`/`}}` in f-strings halved, and
f-string replacement fields `{expr}` replaced by text the caller chooses. None of this is
linear, so the value comes with a segment map (`MappedText`) that a `Unit` uses as its
offset map:

* `to_raw(offset)` — the raw-file offset where the character at `offset` is written (its
  escape's backslash, for an escaped one); `len(text)` maps to the end of the last one.
* `uneditable(start, end)` — why an edit of `[start, end)` cannot be written back, or None:
  it would touch text that does not stand for itself (an f-string field, a Jinja expression:
  any *opaque* segment), or it would run from one literal of a concatenation into another
  whose quoting differs or with a comment between them.
* `encode(text)` — the text to write for inserted characters so that the literal evaluates
  to them: backslashes and quotes escaped, a newline written `\\n` outside triple quotes
  (and as the file's own line break inside them), braces doubled in f-strings. Inside
  triple quotes a quote is escaped only where it could meet another (at either end of the
  text, or next to one). The spelling does not depend on where the text lands, so a
  statement spanning literals of several styles gets one valid in all of them. An insertion
  a literal cannot hold (a quote in a raw string of that quote) is refused with
  `UneditableRegion`, and so is one that would copy an opaque region's text (a placeholder
  written back as literal SQL would change what the template means).

`MappedText.substitute` replaces ranges of the value by other text (opaque: the Jinja layer
renders `{{ ds }}` this way) and `slice` cuts a statement out, both keeping the map. A
`MappedText` made by `MappedText.verbatim` maps a plain file region one to one.

Positions come from libcst: `SourceSpans` resolves its byte spans to character offsets in
the raw text (CRLF and non-ASCII text included). libcst is imported only by the caller.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import libcst as cst

TEXT = "text"  # the characters are written as they are: [start, end) == raw[raw_start:raw_end]
ESCAPE = "escape"  # the characters are written otherwise (an escape, a CRLF, `{{`): edit it whole
OPAQUE = "opaque"  # stands for raw text the value does not show (f-string field, Jinja): no edits


@dataclass(frozen=True)
class Segment:
    """Characters [start, end) of the value and the raw characters [raw_start, raw_end)
    that produce them. `piece` indexes `MappedText.pieces` (-1: not inside a literal)."""

    start: int
    end: int
    raw_start: int
    raw_end: int
    kind: str
    piece: int = -1
    reason: str = ""  # an opaque segment: what it stands for, for the refusal message


@dataclass(frozen=True)
class Piece:
    """One literal of an implicit concatenation: `prefix` lower-cased without `u`/`b`
    (`""`, `"r"`, `"f"`, `"fr"`), `quote` one of `'`, `"`, `'''`, `\"\"\"`; raw [start, end)
    covers prefix and quotes, [content_start, content_end) what is between the quotes."""

    prefix: str
    quote: str
    start: int
    end: int
    prefix_written: str = field(default="", compare=False)  # as in the source: `Rb`, `F`
    # Why no edit inside this literal can be written (it is part of several strings built
    # at run time, each of which an edit would change), or "".
    refusal: str = field(default="", compare=False)

    @property
    def content_start(self) -> int:
        return self.start + len(self.prefix_written) + len(self.quote)

    @property
    def content_end(self) -> int:
        return self.end - len(self.quote)

    @property
    def is_raw(self) -> bool:
        return "r" in self.prefix

    @property
    def is_formatted(self) -> bool:
        return "f" in self.prefix

    @property
    def is_triple(self) -> bool:
        return len(self.quote) == 3

    @property
    def style(self) -> tuple[bool, bool, str]:
        return self.is_raw, self.is_formatted, self.quote


@dataclass(frozen=True)
class Field:
    """An f-string replacement field: `source` is its raw text with the braces (`{x!r:>3}`),
    `expression` the libcst node inside, `before` the value decoded so far."""

    source: str
    expression: Any
    conversion: str | None
    has_format_spec: bool  # `{x:>10}`, or the self-documenting `{x=}`: not the plain value
    raw_start: int
    raw_end: int
    before: str


# What a field is rendered as: its text, or None for its source text `{expr}`.
FieldText = Callable[[Field], "str | None"]


@dataclass(frozen=True)
class MappedText:
    """A text and the map from each of its characters back to the raw file: a `Unit`'s
    offset map (`to_raw`), with the `uneditable` and `encode` hooks `Unit.edit` asks."""

    text: str
    segments: tuple[Segment, ...]
    pieces: tuple[Piece, ...] = ()
    raw: str = field(default="", repr=False)
    origin: int = 0  # raw offset of an empty text
    newline: str = "\n"  # what a newline is written as inside triple quotes
    refusal: str = ""  # every edit is refused with this reason (text the fixer cannot write)

    @classmethod
    def verbatim(cls, raw: str, start: int = 0, end: int | None = None) -> MappedText:
        """raw[start:end] as it is: one character for one."""
        end = len(raw) if end is None else end
        segments = (Segment(0, end - start, start, end, TEXT),) if end > start else ()
        return cls(raw[start:end], segments, (), raw, start, _newline_of(raw))

    # -- the offset map ---------------------------------------------------------------------

    def to_raw(self, offset: int) -> int:
        index = self._segment_index(offset)
        if index is None:
            return self._raw_end()
        segment = self.segments[index]
        if segment.kind == TEXT:
            return segment.raw_start + offset - segment.start
        return segment.raw_start

    def uneditable(self, start: int, end: int) -> str | None:
        if self.refusal:
            return self.refusal
        for segment in self.segments:
            if segment.kind != OPAQUE:
                continue
            if segment.start == segment.end:
                # Empty (a Jinja comment): an edit ending at it would remove it.
                touched = start < segment.start <= end and start < end
            else:
                touched = (start < segment.end and segment.start < end) or segment.start < start < segment.end
            if touched:
                return f"the edit would change {segment.reason or 'text that is not written as it reads'}"
        first, last = self._piece_at(start), self._piece_at(end)
        for index in {first, last}:
            if index >= 0 and self.pieces[index].refusal:
                return self.pieces[index].refusal
        if first != last and first >= 0 and last >= 0:
            return self._crossing(first, last)
        return None

    def encode(self, text: str) -> str:
        from sortlint.diagnostics import UneditableRegion

        for segment in self.segments:
            if segment.kind == OPAQUE and segment.end > segment.start:
                written = re.escape(self.text[segment.start : segment.end])
                if re.search(rf"(?<!\w){written}(?!\w)", text):
                    raise UneditableRegion(f"the edit would copy {segment.reason or 'templated text'}")
        styles = {self.pieces[i].style for i in self._piece_indexes()}
        if not styles:
            return text
        if len(styles) == 1:
            (style,) = styles
            return _encode(text, *style, newline=self.newline)
        return _encode_for_all(text, styles)

    # -- building ---------------------------------------------------------------------------

    def slice(self, start: int, end: int) -> MappedText:
        """text[start:end] with its map. An opaque segment cut by the bounds keeps its whole
        raw range (it stays uneditable); an empty segment goes with the slice it starts."""
        kept = []
        at_end = end == len(self.text)
        for s in self.segments:
            if s.start == s.end:
                if start <= s.start < end or (at_end and s.start == end):
                    kept.append(replace(s, start=s.start - start, end=s.end - start))
                continue
            if s.end <= start or s.start >= end:
                continue
            lo, hi = max(s.start, start), min(s.end, end)
            if s.kind == TEXT:
                kept.append(replace(s, start=lo - start, end=hi - start,
                                    raw_start=s.raw_start + lo - s.start, raw_end=s.raw_start + hi - s.start))
            else:
                kept.append(replace(s, start=lo - start, end=hi - start))
        return replace(self, text=self.text[start:end], segments=tuple(kept), origin=self.to_raw(start))

    def substitute(self, replacements: Sequence[tuple[int, int, str, str]]) -> MappedText:
        """Replace each [start, end) by (text, reason): the new text is one opaque segment
        standing for the raw characters of what it replaces. Ranges must not overlap."""
        texts: list[str] = []
        segments: list[Segment] = []
        cursor = shift = 0

        def copy(lo: int, hi: int) -> None:
            part = self.slice(lo, hi)
            if hi == len(self.text) or hi > lo:
                segments.extend(replace(s, start=s.start + lo + shift, end=s.end + lo + shift) for s in part.segments)
            texts.append(part.text)

        for start, end, text, reason in sorted(replacements):
            if start < cursor:
                raise ValueError("overlapping substitutions")
            if start > cursor:
                copy(cursor, start)
            raw_start = self.to_raw(start)
            raw_end = self._raw_end_of(end) if end > start else raw_start
            at = start + shift
            segments.append(Segment(at, at + len(text), raw_start, raw_end, OPAQUE, self._piece_at(start), reason))
            texts.append(text)
            shift += len(text) - (end - start)
            cursor = end
        copy(cursor, len(self.text))
        return replace(self, text="".join(texts), segments=tuple(segments))

    # -- helpers ----------------------------------------------------------------------------

    @cached_property
    def _filled(self) -> tuple[list[int], list[int]]:
        """Starts of the non-empty segments, and their indexes in `segments`."""
        indexes = [i for i, s in enumerate(self.segments) if s.end > s.start]
        return [self.segments[i].start for i in indexes], indexes

    def _segment_index(self, offset: int) -> int | None:
        """The non-empty segment holding character `offset`, or None past the end."""
        starts, indexes = self._filled
        position = bisect.bisect_right(starts, offset) - 1
        if position < 0:
            return indexes[0] if indexes and offset < 0 else None
        index = indexes[position]
        return index if offset < self.segments[index].end else None

    def _raw_end(self) -> int:
        _, indexes = self._filled
        return self.segments[indexes[-1]].raw_end if indexes else self.origin

    def _raw_end_of(self, end: int) -> int:
        """Where character end-1 ends in the raw text."""
        index = self._segment_index(end - 1)
        if index is None:
            return self._raw_end()
        segment = self.segments[index]
        if segment.kind == TEXT:
            return segment.raw_start + end - segment.start
        return segment.raw_end

    def _piece_at(self, offset: int) -> int:
        index = self._segment_index(offset)
        if index is None:
            _, indexes = self._filled
            return self.segments[indexes[-1]].piece if indexes else -1
        return self.segments[index].piece

    def _piece_indexes(self) -> list[int]:
        return sorted({s.piece for s in self.segments if s.piece >= 0})

    def _crossing(self, first: int, last: int) -> str | None:
        a, b = self.pieces[first], self.pieces[last]
        if a.style != b.style:
            return "the edit would join string literals written with different quotes or prefixes"
        for left, right in zip(self.pieces[first:last], self.pieces[first + 1 : last + 1]):
            between = self.raw[left.end : right.start]
            if "#" in between:
                return "the edit would remove a comment between string literals"
            if right.start < left.end or not _ADJACENT.fullmatch(between):
                return "the edit would run across strings joined at run time"
        return None


# What may stand between two literals of one implicit concatenation (comments aside).
_ADJACENT = re.compile(r"(?:\s|\\\r?\n)*")


def joined(parts: Sequence[MappedText]) -> MappedText:
    """The texts one after another (all mapped into one raw text), each keeping its map:
    a string built at run time from pieces written in several places. An edit may not run
    from one piece into another unless they are adjacent literals (`_crossing`)."""
    texts: list[str] = []
    segments: list[Segment] = []
    pieces: list[Piece] = []
    shift = 0
    for part in parts:
        # A literal cut in several parts (a line each, once dedented) is one piece.
        index = []
        for piece in part.pieces:
            if piece not in pieces:
                pieces.append(piece)
            index.append(pieces.index(piece))
        segments.extend(replace(s, start=s.start + shift, end=s.end + shift,
                                piece=index[s.piece] if s.piece >= 0 else -1) for s in part.segments)
        texts.append(part.text)
        shift += len(part.text)
    first = parts[0] if parts else MappedText("", ())
    return MappedText("".join(texts), tuple(segments), tuple(pieces), first.raw, first.origin, first.newline)


def _newline_of(raw: str) -> str:
    return "\r\n" if "\r\n" in raw else "\n"


_SIMPLE_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _encode(text: str, is_raw: bool, is_formatted: bool, quote: str, newline: str = "\n") -> str:
    from sortlint.diagnostics import UneditableRegion

    q = quote[0]
    triple = len(quote) == 3
    out: list[str] = []
    for i, char in enumerate(text):
        if char == q:
            needs = True
            if triple:  # a lone quote is fine inside triple quotes, not at an edge or in a run
                needs = i == 0 or i == len(text) - 1 or text[i - 1] == q or text[i + 1] == q
            if not needs:
                out.append(char)
            elif is_raw:
                raise UneditableRegion(f"a raw string cannot hold the inserted {q}")
            else:
                out.append("\\" + q)
        elif char in "\r\n":
            if triple:
                if char == "\r":
                    if is_raw:
                        raise UneditableRegion("a raw string cannot hold an inserted carriage return")
                    out.append("\\r")
                else:
                    out.append(newline)
            elif is_raw:
                raise UneditableRegion("a one-line raw string cannot hold an inserted line break")
            else:
                out.append(_SIMPLE_ESCAPES[char])
        elif char == "\\":
            if is_raw:
                raise UneditableRegion("a raw string cannot hold an inserted backslash safely")
            out.append("\\\\")
        elif char in "{}" and is_formatted:
            out.append(char * 2)
        elif (ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F:
            if is_raw:
                raise UneditableRegion("a raw string cannot hold an inserted control character")
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "".join(out)


def _encode_for_all(text: str, styles: set[tuple[bool, bool, str]]) -> str:
    """One spelling valid in literals of every style the unit spans."""
    from sortlint.diagnostics import UneditableRegion

    quotes = {quote[0] for _, _, quote in styles}
    formatted = {f for _, f, _ in styles}
    special = set(quotes) | {"\\", "\n", "\r"}
    if any(c in special for c in text) and any(r for r, _, _ in styles):
        raise UneditableRegion("the statement spans string literals that cannot all hold the inserted text")
    if formatted == {True, False} and any(c in "{}" for c in text):
        raise UneditableRegion("the statement spans f-strings and plain strings: braces cannot be inserted")
    out = []
    for char in text:
        if char in quotes:
            out.append("\\" + char)
        elif char in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[char])
        elif char in "{}" and formatted == {True}:
            out.append(char * 2)
        else:
            out.append(char)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Decoding libcst string nodes


class SourceSpans:
    """Character spans of libcst nodes in the raw text (libcst reports UTF-8 byte spans)."""

    def __init__(self, wrapper: cst.MetadataWrapper, raw: str) -> None:
        from libcst.metadata import ByteSpanPositionProvider

        self._spans = wrapper.resolve(ByteSpanPositionProvider)
        self._chars: list[int] | None = None
        if not raw.isascii():
            chars = []
            for index, char in enumerate(raw):
                chars.extend([index] * len(char.encode("utf-8")))
            chars.append(len(raw))
            self._chars = chars

    def __call__(self, node: cst.CSTNode) -> tuple[int, int]:
        span = self._spans[node]
        return self._char(span.start), self._char(span.start + span.length)

    def _char(self, byte: int) -> int:
        return byte if self._chars is None else self._chars[byte]


STRING_NODES = ("SimpleString", "ConcatenatedString", "FormattedString")


def is_string(node: object) -> bool:
    return type(node).__name__ in STRING_NODES


def is_bytes(node: cst.BaseExpression) -> bool:
    """A bytes literal (`b"..."`), which is not text."""
    first = node
    while type(first).__name__ == "ConcatenatedString":
        first = first.left
    prefix = first.prefix if type(first).__name__ == "SimpleString" else first.prefix
    return "b" in prefix.lower()


def decode(node: cst.BaseExpression, raw: str, span_of: Callable, field_text: FieldText | None = None) -> MappedText:
    """The value of a string literal node (SimpleString, FormattedString or an implicit
    ConcatenatedString of them) with its map into `raw`. `span_of(node)` gives a node's
    [start, end) in `raw` (a `SourceSpans`). An f-string field becomes `field_text(field)`,
    or its own source text when that returns None; either way an opaque segment."""
    builder = _Builder(raw)
    for literal in _literals(node):
        start, end = span_of(literal)
        if type(literal).__name__ == "SimpleString":
            prefix = literal.prefix
            piece = builder.piece(prefix, literal.quote, start, end)
            _decode_text(builder, raw, piece.content_start, piece.content_end, piece, index=len(builder.pieces) - 1)
            continue
        prefix = literal.prefix
        quote = literal.end
        piece = builder.piece(prefix, quote, start, end)
        index = len(builder.pieces) - 1
        for part in literal.parts:
            part_start, part_end = span_of(part)
            if type(part).__name__ == "FormattedStringText":
                _decode_text(builder, raw, part_start, part_end, piece, index)
                continue
            spec = part.format_spec
            info = Field(
                source=raw[part_start:part_end],
                expression=part.expression,
                conversion=part.conversion,
                has_format_spec=bool(spec) or getattr(part, "equal", None) is not None,
                raw_start=part_start,
                raw_end=part_end,
                before="".join(builder.chars),
            )
            text = field_text(info) if field_text else None
            builder.opaque(info.source if text is None else text, part_start, part_end, index,
                           f"the f-string field {info.source}")
    return builder.build()


def _literals(node: cst.BaseExpression) -> list:
    if type(node).__name__ == "ConcatenatedString":
        return _literals(node.left) + _literals(node.right)
    return [node]


_SPECIAL = re.compile(r"[\\\r{}]")
_NAMED = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
          "\\": "\\", "'": "'", '"': '"'}


def _decode_text(builder: _Builder, raw: str, start: int, end: int, piece: Piece, index: int) -> None:
    """Decode raw[start:end], the inside of a literal (or an f-string's text part)."""
    position = start
    while position < end:
        match = _SPECIAL.search(raw, position, end)
        stop = match.start() if match else end
        if stop > position:
            builder.text(raw[position:stop], position, index)
        if not match:
            return
        position = stop
        char = raw[position]
        if char == "\r":  # Python reads \r\n and a lone \r as \n
            width = 2 if raw.startswith("\r\n", position) else 1
            builder.escape("\n", position, position + width, index)
            position += width
        elif char in "{}":
            if piece.is_formatted and raw.startswith(char * 2, position):
                builder.escape(char, position, position + 2, index)
                position += 2
            else:
                builder.text(char, position, index)
                position += 1
        elif piece.is_raw:  # a backslash stays as it is
            builder.text("\\", position, index)
            position += 1
        else:
            position = _escape(builder, raw, position, end, index)


def _escape(builder: _Builder, raw: str, position: int, end: int, index: int) -> int:
    """Decode the escape starting at the backslash at `position`; return where it ends."""
    nxt = raw[position + 1] if position + 1 < end else ""
    if nxt == "\n" or nxt == "\r":
        width = 3 if raw.startswith("\r\n", position + 1) else 2
        builder.escape("", position, position + width, index)  # a line continuation
        return position + width
    if nxt in _NAMED:
        builder.escape(_NAMED[nxt], position, position + 2, index)
        return position + 2
    if nxt in "01234567" and nxt:
        digits = re.match(r"[0-7]{1,3}", raw[position + 1 : min(end, position + 4)]).group()
        builder.escape(chr(int(digits, 8)), position, position + 1 + len(digits), index)
        return position + 1 + len(digits)
    widths = {"x": 2, "u": 4, "U": 8}
    try:
        if nxt in widths:
            digits = raw[position + 2 : position + 2 + widths[nxt]]
            if len(digits) == widths[nxt]:
                builder.escape(chr(int(digits, 16)), position, position + 2 + len(digits), index)
                return position + 2 + len(digits)
        if nxt == "N" and raw.startswith("{", position + 2):
            close = raw.index("}", position + 3, end)
            builder.escape(unicodedata.lookup(raw[position + 3 : close]), position, close + 1, index)
            return close + 1
    except (ValueError, KeyError):
        pass  # not a valid escape (Python would not compile it): read the backslash as text
    builder.text("\\", position, index)  # an unknown escape keeps its backslash
    return position + 1


class _Builder:
    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.chars: list[str] = []
        self.length = 0
        self.segments: list[Segment] = []
        self.pieces: list[Piece] = []

    def piece(self, prefix: str, quote: str, start: int, end: int) -> Piece:
        letters = "".join(sorted(c for c in prefix.lower() if c in "rf"))
        piece = Piece(letters, quote, start, end, prefix_written=prefix)
        self.pieces.append(piece)
        return piece

    def _add(self, text: str, raw_start: int, raw_end: int, kind: str, piece: int, reason: str = "") -> None:
        last = self.segments[-1] if self.segments else None
        if (kind == TEXT and last is not None and last.kind == TEXT and last.piece == piece
                and last.raw_end == raw_start and last.end == self.length):
            self.segments[-1] = replace(last, end=self.length + len(text), raw_end=raw_end)
        else:
            self.segments.append(Segment(self.length, self.length + len(text), raw_start, raw_end, kind, piece, reason))
        self.chars.append(text)
        self.length += len(text)

    def text(self, text: str, raw_start: int, piece: int) -> None:
        self._add(text, raw_start, raw_start + len(text), TEXT, piece)

    def escape(self, text: str, raw_start: int, raw_end: int, piece: int) -> None:
        self._add(text, raw_start, raw_end, ESCAPE, piece)

    def opaque(self, text: str, raw_start: int, raw_end: int, piece: int, reason: str) -> None:
        self._add(text, raw_start, raw_end, OPAQUE, piece, reason)

    def build(self) -> MappedText:
        origin = self.pieces[0].content_start if self.pieces else 0
        return MappedText("".join(self.chars), tuple(self.segments), tuple(self.pieces), self.raw,
                          origin, _newline_of(self.raw))


# ---------------------------------------------------------------------------------------------
# `str.format` and `%` applied to a literal


@dataclass(frozen=True)
class FormatField:
    """A replacement field of a template: `{name!r:>3}` of `str.format`, or `%(name)s` / `%s`
    of `%`. `key` is the argument it reads: a position (int) or a name; [start, end) is where
    it is in the template's value; `source` its text there."""

    key: int | str
    start: int
    end: int
    source: str
    conversion: str | None = None
    format_spec: str = ""


_PERCENT = re.compile(r"%(?:\((?P<name>[^)]*)\))?(?P<flags>[-#0 +]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?(?P<type>[diouxXeEfFgGcrsa%])")


def format_fields(text: str, style: str) -> tuple[list[FormatField], list[tuple[int, int, str]]] | None:
    """The replacement fields of a `str.format` template (style "format") or a `%` template
    (style "%"), and the escapes (`{{`, `}}`, `%%`) with the one character each stands for.
    None when the template is not one Python would format."""
    fields: list[FormatField] = []
    escapes: list[tuple[int, int, str]] = []
    if style == "%":
        position = 0
        counter = 0
        while True:
            at = text.find("%", position)
            if at < 0:
                return fields, escapes
            match = _PERCENT.match(text, at)
            if match is None:
                return None
            if match.group("type") == "%":
                escapes.append((at, match.end(), "%"))
            else:
                if "*" in (match.group("width") or "") + (match.group("precision") or ""):
                    return None
                name = match.group("name")
                key: int | str = name if name is not None else counter
                counter += name is None
                spec = match.group(0)[1:] if name is None else match.group(0)[len(name) + 3:]
                conversion = {"r": "r", "a": "a"}.get(match.group("type"))
                fields.append(FormatField(key, at, match.end(), match.group(0), conversion,
                                          "" if spec in ("s", "r", "a") else spec))
            position = match.end()
    position = 0
    counter = 0
    length = len(text)
    while position < length:
        char = text[position]
        if char in "{}" and text.startswith(char * 2, position):
            escapes.append((position, position + 2, char))
            position += 2
            continue
        if char == "}":
            return None
        if char != "{":
            position += 1
            continue
        close = text.find("}", position)
        if close < 0 or "{" in text[position + 1 : close]:
            return None  # nested fields (`{x:{width}}`) are not followed
        inside = text[position + 1 : close]
        name, _, spec = inside.partition(":")
        name, _, conversion = name.partition("!")
        if name == "":
            key = counter
            counter += 1
        elif name.isdigit():
            key = int(name)
        elif name.isidentifier():
            key = name
        else:
            return None  # `{a.b}`, `{a[0]}`: an attribute or item of an argument
        fields.append(FormatField(key, position, close + 1, text[position : close + 1], conversion or None, spec))
        position = close + 1
    return fields, escapes


def apply_formatting(
    template: MappedText, style: str, field_text: Callable[[FormatField, str], str]
) -> MappedText | None:
    """The template's value formatted: each field replaced by `field_text(field, before)`
    (`before`: the formatted text up to it), each escape by its character, all of them opaque
    segments no fix may edit. None when the template is not one Python would format."""
    found = format_fields(template.text, style)
    if found is None:
        return None
    fields, escapes = found
    replacements: list[tuple[int, int, str, str]] = []
    pieces = sorted([(f.start, f.end, f) for f in fields] + [(s, e, c) for s, e, c in escapes], key=lambda p: p[0])
    built: list[str] = []
    cursor = 0
    for start, end, what in pieces:
        built.append(template.text[cursor:start])
        if isinstance(what, FormatField):
            text = field_text(what, "".join(built))
            reason = f"the format field {what.source}"
        else:
            text, reason = what, "an escaped character of a formatted string"
        built.append(text)
        replacements.append((start, end, text, reason))
        cursor = end
    return template.substitute(replacements)
