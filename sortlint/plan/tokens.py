"""A unit's tokens and their bracket structure: the ground truth for spans.

sqlglot records positions only on some leaves (identifiers, literals, function names, `*`),
so the extent of a clause or of a sort key is read from the token stream instead: a clause
starts at its keyword and runs, at its own bracket depth, until the next clause keyword or
the bracket that closes it; its items are separated by commas at that depth. Comments are not
tokens, so a span never starts or ends in one.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property

from sqlglot.tokens import Token, TokenType

from sortlint.plan.nodes import Span

OPENING = {TokenType.L_PAREN: TokenType.R_PAREN, TokenType.L_BRACKET: TokenType.R_BRACKET,
           TokenType.L_BRACE: TokenType.R_BRACE}
CLOSING = frozenset(OPENING.values())

# Keywords that end a clause when met at the clause's own depth.
CLAUSE_KEYWORDS = frozenset({
    TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.QUALIFY,
    TokenType.WINDOW, TokenType.ORDER_BY, TokenType.SORT_BY, TokenType.CLUSTER_BY,
    TokenType.DISTRIBUTE_BY, TokenType.PARTITION_BY, TokenType.LIMIT, TokenType.OFFSET,
    TokenType.FETCH, TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT, TokenType.LATERAL,
    TokenType.ROWS, TokenType.RANGE, TokenType.WITH, TokenType.SEMICOLON,
})
# Words that may start a join; a run of them is a join only when it ends with JOIN.
JOIN_WORDS = frozenset({
    TokenType.NATURAL, TokenType.INNER, TokenType.CROSS, TokenType.LEFT, TokenType.RIGHT,
    TokenType.FULL, TokenType.OUTER, TokenType.SEMI, TokenType.ANTI, TokenType.JOIN,
})


@dataclass(frozen=True)
class TokenIndex:
    tokens: tuple[Token, ...]

    @cached_property
    def partners(self) -> tuple[int, ...]:
        """For each bracket, the index of the one that matches it; -1 elsewhere."""
        partners = [-1] * len(self.tokens)
        stack: list[int] = []
        for i, token in enumerate(self.tokens):
            if token.token_type in OPENING:
                stack.append(i)
            elif token.token_type in CLOSING and stack:
                partners[i] = stack[-1]
                partners[stack.pop()] = i
        return tuple(partners)

    @cached_property
    def _starts(self) -> tuple[int, ...]:
        return tuple(token.start for token in self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    def type(self, i: int) -> TokenType | None:
        return self.tokens[i].token_type if 0 <= i < len(self.tokens) else None

    def word(self, i: int) -> str:
        return self.tokens[i].text.upper() if 0 <= i < len(self.tokens) else ""

    def at(self, offset: int) -> int:
        """The index of the token that contains `offset`."""
        return max(bisect.bisect_right(self._starts, offset) - 1, 0)

    def span(self, first: int, last: int) -> Span:
        return Span(self.tokens[first].start, self.tokens[last].end + 1)

    def is_open(self, i: int) -> bool:
        return self.type(i) in OPENING and self.partners[i] > i

    def close_of(self, i: int) -> int:
        """The last token of the element starting at i: its closing bracket if i opens one."""
        return self.partners[i] if self.is_open(i) else i

    def clause_end(self, keyword: int, stops: Collection[TokenType] = CLAUSE_KEYWORDS) -> int:
        """The last token of the clause whose keyword is at `keyword`."""
        i = keyword + 1
        while i < len(self.tokens):
            kind = self.tokens[i].token_type
            if kind in CLOSING or kind in stops:
                break
            i = self.close_of(i) + 1
        return max(i - 1, keyword)

    def split(self, first: int, last: int) -> list[tuple[int, int]]:
        """The comma-separated items of tokens first..last, at their own depth."""
        items: list[tuple[int, int]] = []
        start = i = first
        while i <= last:
            if self.tokens[i].token_type == TokenType.COMMA:
                items.append((start, i - 1))
                start = i + 1
            i = self.close_of(i) + 1
        items.append((start, last))
        return [(a, b) for a, b in items if a <= b]

    def find_back(self, i: int, kinds: Collection[TokenType]) -> int | None:
        """The nearest token of one of `kinds` before i, not inside a bracket closed before i
        (enclosing brackets are walked out of)."""
        i -= 1
        while i >= 0:
            kind = self.tokens[i].token_type
            if kind in kinds:
                return i
            i = self.partners[i] - 1 if kind in CLOSING and self.partners[i] >= 0 else i - 1
        return None

    def find(self, first: int, last: int, kinds: Collection[TokenType]) -> int | None:
        """The first token of one of `kinds` in first..last at their own depth."""
        i = first
        while i <= last:
            if self.tokens[i].token_type in kinds:
                return i
            i = self.close_of(i) + 1
        return None

    def join_start(self, i: int) -> bool:
        """Whether a join (`LEFT SEMI JOIN`, `JOIN`, ...) starts at token i: a run of join
        words ending with JOIN, not preceded by another join word."""
        if self.type(i - 1) in JOIN_WORDS:
            return False
        while self.type(i) in JOIN_WORDS:
            if self.type(i) == TokenType.JOIN:
                return True
            i += 1
        return False
