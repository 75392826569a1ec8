"""A unit's tokens and their bracket structure: the ground truth for spans.

sqlglot records positions only on some leaves (identifiers, literals, function names, `*`),
so the extent of a clause or of a sort key is read from the token stream instead: a clause
starts at its keyword and runs, at its own bracket depth, until the next clause keyword or
the bracket that closes it; its items are separated by commas at that depth. Comments are not
tokens, so a span never starts or ends in one.

A long VALUES list is tokenized without its middle rows (`tokenize`): a plan needs its width
(the first row), its extent (to the last row) and how many rows it has, never their values,
and a generated `INSERT ... VALUES` of millions of literals would otherwise cost a token and
a tree node per literal. A long `IN (...)` list of a filter (WHERE, HAVING, QUALIFY, ON) is
tokenized without its middle values alike: a filter learns nothing from a list of more than
one value. Only plain literals are left out - numbers, strings without quotes, escapes or
line breaks inside, NULL, TRUE, FALSE, typed literals - which every dialect's tokenizer reads
alike; anything else ends the run. An `IN` list elsewhere (a select item, whose Spark name
spells every value) is kept whole.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from sqlglot.errors import TokenError
from sqlglot.tokens import Token, Tokenizer, TokenType

from sortlint.plan.dialect import sql_dialect
from sortlint.plan.nodes import Span
from sortlint.plan.token_types import T
from sortlint.units import Unit

OPENING = {T.L_PAREN: T.R_PAREN, T.L_BRACKET: T.R_BRACKET, T.L_BRACE: T.R_BRACE}
CLOSING = frozenset(OPENING.values())

# Keywords that end a clause when met at the clause's own depth.
CLAUSE_KEYWORDS = frozenset({
    T.FROM, T.WHERE, T.GROUP_BY, T.HAVING, T.QUALIFY, T.WINDOW, T.ORDER_BY, T.SORT_BY,
    T.CLUSTER_BY, T.DISTRIBUTE_BY, T.PARTITION_BY, T.LIMIT, T.OFFSET, T.FETCH, T.UNION,
    T.INTERSECT, T.EXCEPT, T.LATERAL, T.ROWS, T.RANGE, T.WITH, T.SEMICOLON,
})
# Words that may start a join; a run of them is a join only when it ends with JOIN.
JOIN_WORDS = frozenset({
    T.NATURAL, T.INNER, T.CROSS, T.LEFT, T.RIGHT, T.FULL, T.OUTER, T.SEMI, T.ANTI, T.JOIN,
})


# A VALUES list longer than this many rows, or an IN list of more values, is tokenized
# without its middle ones.
ELIDED_AFTER_ROWS = 100
_LITERAL = (
    r"(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?[a-z]{0,2}"
    r"|(?:date|timestamp|timestamp_ntz|timestamp_ltz|x)?\s*'[^'\\\r\n]*'"
    r"|null|true|false)"
)
_ROW = re.compile(rf"\s*\(\s*{_LITERAL}(?:\s*,\s*{_LITERAL})*\s*\)", re.IGNORECASE)
_NEXT_ROW = re.compile(rf"\s*,{_ROW.pattern}", re.IGNORECASE)
_VALUE = re.compile(rf"\s*{_LITERAL}", re.IGNORECASE)
_NEXT_VALUE = re.compile(rf"\s*,\s*{_LITERAL}", re.IGNORECASE)
_CLOSE = re.compile(r"\s*\)")
# VALUES before its first row, or IN and its opening bracket.
_LIST = re.compile(r"\b(?:(?P<values>values)(?=\s*\()|in\s*\()", re.IGNORECASE)
# The keywords that say what an IN list belongs to (the nearest one before it): its values
# are left out only under a filter's.
_CONTEXTS = frozenset({
    T.SELECT, T.WHERE, T.HAVING, T.QUALIFY, T.ON, T.VALUES, T.FROM, T.GROUP_BY, T.ORDER_BY,
    T.SORT_BY, T.CLUSTER_BY, T.DISTRIBUTE_BY, T.LIMIT, T.SET, T.CASE, T.WHEN, T.THEN,
    T.ELSE,
})
_FILTERS = frozenset({T.WHERE, T.HAVING, T.QUALIFY, T.ON})


@dataclass(frozen=True)
class Elision:
    """Part of a long list left out of the tokens: text [start, end), holding `rows` rows of
    a VALUES list (0 for the values of an IN list)."""

    start: int
    end: int
    rows: int

    def shifted(self, by: int) -> Elision:
        return Elision(self.start + by, self.end + by, self.rows)


def tokenize(text: str, dialect: str) -> tuple[list[Token], tuple[Elision, ...]]:
    """The dialect's tokens of `text`, without the middle rows of long VALUES lists and the
    middle values of long IN lists of filters (and which those are); a TokenError where the
    tokenizer fails."""
    tokenizer = dialect_tokenizer(dialect)
    candidates = list(_long_lists(text))
    if not candidates:
        return tokenizer.tokenize(text), ()
    tokens: list[Token] = []
    elided: list[Elision] = []
    lines = _Lines(text)
    position = 0
    for keyword, kind, elision in candidates:
        try:
            piece = _shifted(tokenizer.tokenize(text[position : elision.start]), lines, position)
        except TokenError:
            piece = []
        found = next((i for i, t in enumerate(piece) if t.start == keyword and t.token_type == kind), None)
        if found is None:
            return tokenizer.tokenize(text), ()  # the word is inside a string or a comment
        tokens += piece
        found += len(tokens) - len(piece)
        if kind == T.IN and _context(tokens, found) not in _FILTERS:
            position = elision.start  # kept whole: the next piece goes on from here
            continue
        elided.append(elision)
        position = elision.end
    tokens += _shifted(tokenizer.tokenize(text[position:]), lines, position)
    return tokens, tuple(elided)


_TOKENIZERS = threading.local()  # each thread's tokenizer of each dialect, by name


def dialect_tokenizer(dialect: str) -> Tokenizer:
    """The dialect's tokenizer, made once per thread and reused: `tokenize` starts by
    resetting its state and hands back a new list each time, and making one cost about a
    quarter of tokenizing a short statement (a big file's statements are tokenized one by
    one when they are parsed)."""
    made = _TOKENIZERS.__dict__
    if dialect not in made:
        made[dialect] = sql_dialect(dialect).tokenizer()
    return made[dialect]


def drop_tokenizer(dialect: str) -> None:
    """Let this thread's tokenizer of the dialect go: it holds the last text it read and
    its tokens until it reads another, which after a whole file (or a piece of one) are
    megabytes kept alive for nothing."""
    _TOKENIZERS.__dict__.pop(dialect, None)


def _long_lists(text: str) -> Iterator[tuple[int, TokenType, Elision]]:
    """(offset of the keyword, its token type, what to leave out) of each VALUES list of
    more than `ELIDED_AFTER_ROWS` plain rows, and each IN list of more plain values, in a
    row: all but the first and the last."""
    if text.count(",") < ELIDED_AFTER_ROWS:
        return  # too few commas for such a list: most statements, without a search
    position = 0
    while (match := _LIST.search(text, position)) is not None:
        values = match.group("values") is not None
        position = match.end()
        first = (_ROW if values else _VALUE).match(text, match.end())
        if first is None:
            continue
        follow = _NEXT_ROW if values else _NEXT_VALUE
        ends = [first.end()]
        while (item := follow.match(text, ends[-1])) is not None:
            ends.append(item.end())
        position = ends[-1]
        if len(ends) <= ELIDED_AFTER_ROWS or not (values or _CLOSE.match(text, ends[-1])):
            continue
        kind = T.VALUES if values else T.IN
        yield match.start(), kind, Elision(ends[0], ends[-2], len(ends) - 2 if values else 0)


def _context(tokens: list[Token], index: int) -> TokenType | None:
    """The type of the nearest keyword before token `index` that says which clause it is in."""
    for i in range(index - 1, -1, -1):
        if tokens[i].token_type in _CONTEXTS:
            return tokens[i].token_type
    return None


class _Lines:
    """Lines and columns of offsets in `text`, asked in increasing order: each question scans
    only the text after the previous one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanned = 0  # offsets before this are counted
        self.breaks = 0  # line breaks before `scanned`
        self.line_start = 0  # where the line of `scanned` begins

    def at(self, offset: int) -> tuple[int, int]:
        """(line breaks before `offset`, its column counted from 0 on its line)."""
        for match in _LINE_BREAK.finditer(self.text, self.scanned, offset):
            self.breaks += 1
            self.line_start = match.end()
        self.scanned = offset
        return self.breaks, offset - self.line_start


def _shifted(tokens: list[Token], lines: _Lines, offset: int) -> list[Token]:
    """Tokens of `text[offset:]` placed where they are in `text`: offsets, lines and the
    columns of the first line, counted as the tokenizer counts them (a line ends at `\\n`,
    or at a `\\r` not followed by one)."""
    if offset == 0:
        return tokens
    breaks, column = lines.at(offset)
    for token in tokens:
        if token.line == 1:
            token.col += column
        token.line += breaks
        token.start += offset
        token.end += offset
    return tokens


_LINE_BREAK = re.compile(r"\n|\r(?!\n)")


@dataclass(frozen=True)
class TokenIndex:
    """A unit's tokens with the tables the span lookups read: every lookup reads them, so
    they are made with the index (as `cached_property`s they cost the lock Python 3.11
    takes on each first read, four times a statement)."""

    tokens: tuple[Token, ...]
    elided: tuple[Elision, ...] = field(default=(), compare=False)
    unit: Unit | None = field(default=None, compare=False)  # the unit the tokens were read from
    # For each bracket, the index of the one that matches it; -1 elsewhere.
    partners: tuple[int, ...] = field(init=False, repr=False, compare=False)
    # `close_of` every token, read by the scans at a clause's own depth, which ask it of
    # every token they pass.
    _element_ends: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _types: tuple[TokenType, ...] = field(init=False, repr=False, compare=False)
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        types = tuple(token.token_type for token in self.tokens)
        partners = [-1] * len(types)
        stack: list[int] = []
        for i, kind in enumerate(types):
            if kind in OPENING:
                stack.append(i)
            elif kind in CLOSING and stack:
                partners[i] = stack[-1]
                partners[stack.pop()] = i
        made = object.__setattr__  # the dataclass is frozen
        made(self, "partners", tuple(partners))
        made(self, "_element_ends", tuple(partner if partner > i else i for i, partner in enumerate(partners)))
        made(self, "_types", types)
        made(self, "_starts", tuple(token.start for token in self.tokens))

    def elided_rows(self, span: Span) -> int:
        """How many rows of VALUES lists inside `span` the tokens leave out."""
        return sum(e.rows for e in self.elided if span.start <= e.start and e.end <= span.end)

    def __len__(self) -> int:
        return len(self.tokens)

    def type(self, i: int) -> TokenType | None:
        return self._types[i] if 0 <= i < len(self.tokens) else None

    def word(self, i: int) -> str:
        return self.tokens[i].text.upper() if 0 <= i < len(self.tokens) else ""

    def at(self, offset: int) -> int:
        """The index of the token that contains `offset`."""
        return max(bisect.bisect_right(self._starts, offset) - 1, 0)

    def span(self, first: int, last: int) -> Span:
        return Span(self.tokens[first].start, self.tokens[last].end + 1, self.unit)

    def is_open(self, i: int) -> bool:
        return 0 <= i < len(self.tokens) and self._element_ends[i] > i

    def close_of(self, i: int) -> int:
        """The last token of the element starting at i: its closing bracket if i opens one."""
        return self._element_ends[i] if 0 <= i < len(self.tokens) else i

    def clause_end(self, keyword: int, stops: Collection[TokenType] = CLAUSE_KEYWORDS) -> int:
        """The last token of the clause whose keyword is at `keyword`."""
        types, ends = self._types, self._element_ends
        i = keyword + 1
        while i < len(types):
            kind = types[i]
            if kind in CLOSING or kind in stops:
                break
            i = ends[i] + 1
        return max(i - 1, keyword)

    def split(self, first: int, last: int) -> list[tuple[int, int]]:
        """The comma-separated items of tokens first..last, at their own depth."""
        types, ends = self._types, self._element_ends
        items: list[tuple[int, int]] = []
        start = i = first
        while i <= last:
            if types[i] == T.COMMA:
                items.append((start, i - 1))
                start = i + 1
            i = ends[i] + 1
        items.append((start, last))
        return [(a, b) for a, b in items if a <= b]

    def find_back(self, i: int, kinds: Collection[TokenType]) -> int | None:
        """The nearest token of one of `kinds` before i, not inside a bracket closed before i
        (enclosing brackets are walked out of)."""
        types, partners = self._types, self.partners
        i -= 1
        while i >= 0:
            kind = types[i]
            if kind in kinds:
                return i
            i = partners[i] - 1 if kind in CLOSING and partners[i] >= 0 else i - 1
        return None

    def find(self, first: int, last: int, kinds: Collection[TokenType]) -> int | None:
        """The first token of one of `kinds` in first..last at their own depth."""
        types, ends = self._types, self._element_ends
        i = first
        while i <= last:
            if types[i] in kinds:
                return i
            i = ends[i] + 1
        return None

    def join_start(self, i: int) -> bool:
        """Whether a join (`LEFT SEMI JOIN`, `JOIN`, ...) starts at token i: a run of join
        words ending with JOIN, not preceded by another join word."""
        if self.type(i - 1) in JOIN_WORDS:
            return False
        while self.type(i) in JOIN_WORDS:
            if self.type(i) == T.JOIN:
                return True
            i += 1
        return False
