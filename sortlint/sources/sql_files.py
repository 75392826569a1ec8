"""Cutting a `.sql` file into statements.

The split follows the dialect's own tokenizer, so a semicolon inside a string, a quoted name
or a comment never ends a statement. A unit's text runs from its first token to its last, so
comments and blank lines between statements belong to no unit and a file of comments only
has none.
"""

from __future__ import annotations

import re
from pathlib import Path

import sqlglot
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from sortlint.errors import UserError
from sortlint.sources.units import Unit, line_starts, raw_location

# Whitespace and finished comments the tokenizer skips before it meets a token.
_SKIPPED = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)


def split_statements(path: Path, raw: str, dialect: str) -> list[Unit]:
    """One `Unit` per non-empty statement, its text exactly as in the file minus the `;`."""
    return [
        Unit(path=path, text=raw[start:end], start=start, raw=raw)
        for start, end in statement_bounds(tokenize_file(path, raw, dialect))
    ]


def tokenize_file(path: Path, raw: str, dialect: str) -> list[Token]:
    """The file's tokens; a file the tokenizer cannot read (an unterminated string, quoted
    name or comment) is the user's error, reported at the line where the bad token begins."""
    tokenizer = sqlglot.Dialect.get_or_raise(dialect).tokenizer()
    try:
        return tokenizer.tokenize(raw)
    except TokenError:
        offset = failure_offset(raw, tokenizer.tokens)
        near = raw[offset : offset + 30].splitlines()[0] if offset < len(raw) else ""
        line, _ = raw_location(line_starts(raw), offset)
        raise UserError(f"cannot tokenize SQL near {near!r}", path, line) from None


def failure_offset(raw: str, tokens: list[Token]) -> int:
    """Where the token that failed begins: after the last good token and what the tokenizer
    skips (whitespace, complete comments)."""
    after = tokens[-1].end + 1 if tokens else 0
    return _SKIPPED.match(raw, after).end()


def statement_bounds(tokens: list[Token]) -> list[tuple[int, int]]:
    """[start, end) of each run of tokens between semicolons."""
    bounds: list[tuple[int, int]] = []
    first: Token | None = None
    last: Token | None = None
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if first is not None and last is not None:
                bounds.append((first.start, last.end + 1))
            first = last = None
            continue
        first = first or token
        last = token
    if first is not None and last is not None:
        bounds.append((first.start, last.end + 1))
    return bounds
