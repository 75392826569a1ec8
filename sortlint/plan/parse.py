"""Parsing a unit with sqlglot, and turning what sqlglot rejects into the user's error.

The unit is tokenized once, or not at all when it comes with its share of its file's tokens:
the tokens feed sqlglot's parser and the span lookups. sqlglot reports a parse error at a
line and column of the statement; the error names the raw file line instead, through the
unit's offset map.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.tokens import Token

from sortlint.errors import UserError
from sortlint.plan.spans import Spans
from sortlint.plan.tables import ViewDefinition
from sortlint.plan.tokens import TokenIndex
from sortlint.units import Unit


def parse_unit(unit: Unit, dialect: str) -> tuple[exp.Expression, Spans]:
    """The statement's tree and its span lookups; a UserError when sqlglot cannot read it."""
    reader = sqlglot.Dialect.get_or_raise(dialect)
    try:
        tokens = unit.tokens.take() if unit.tokens is not None else None
        if tokens is None:
            tokens = reader.tokenize(unit.text)
    except TokenError as error:
        raise UserError(f"cannot parse SQL: {error}", unit.path, unit.location(0)[0]) from None
    try:
        tree = reader.parser().parse(tokens, unit.text)[0]
    except ParseError as error:
        detail = error.errors[0] if error.errors else {}
        message = detail.get("description") or str(error)
        line = error_line(unit, tokens, detail.get("line"), detail.get("col"))
        raise UserError(f"cannot parse SQL: {message}", unit.path, line) from None
    except (SqlglotError, RecursionError) as error:  # its other errors, or nested too deeply
        raise UserError(f"cannot parse SQL: {error}", unit.path, unit.location(0)[0]) from None
    if tree is None:
        raise UserError("cannot parse SQL: no statement", unit.path, unit.location(0)[0])
    return tree, Spans(TokenIndex(tuple(tokens)), tree)


def error_line(unit: Unit, tokens: list[Token], line: int | None, col: int | None) -> int:
    """The raw line of the token sqlglot stopped at (it reports the token's line and the
    column of its last character, counted within the statement)."""
    for token in tokens:
        if token.line == line and token.col == col:
            return unit.location(token.start)[0]
    return unit.location(tokens[-1].start if tokens else 0)[0]


def view_spans(view: ViewDefinition, dialect: str) -> Spans:
    """Span lookups for an inlined view's query, in the view's own unit."""
    if view.spans is not None:
        return view.spans
    tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(view.unit.text)
    return Spans(TokenIndex(tuple(tokens)), view.query)
