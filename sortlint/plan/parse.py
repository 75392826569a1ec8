"""Parsing a unit with sqlglot, and turning what sqlglot rejects into the user's error.

The unit is tokenized once, or not at all when it comes with its share of its file's tokens:
the tokens feed sqlglot's parser and the span lookups. sqlglot reports a parse error at a
line and column of the statement; the error names the raw file line instead, through the
unit's offset map.
"""

from __future__ import annotations

import threading

from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.parser import Parser
from sqlglot.tokens import Token

from sortlint.errors import UserError, from_recursion
from sortlint.plan.dialect import sql_dialect
from sortlint.plan.spans import Spans
from sortlint.plan.tables import ViewDefinition
from sortlint.plan.token_types import T
from sortlint.plan.tokens import CLOSING, OPENING, TokenIndex, tokenize
from sortlint.units import Unit


def parse_unit(unit: Unit, dialect: str) -> tuple[exp.Expression, Spans]:
    """The statement's tree and its span lookups; a UserError when sqlglot cannot read it."""
    try:
        tokens = unit.tokens.take() if unit.tokens is not None else None
        elided = unit.tokens.elided if unit.tokens is not None else ()
        if tokens is None:
            tokens, elided = tokenize(unit.text, dialect)
    except TokenError as error:
        if from_recursion(error):
            raise too_deeply_nested(unit, dialect) from None
        raise UserError(f"cannot parse SQL: {error}", unit.path, unit.location(0)[0]) from None
    try:
        tree = _parser(dialect).parse(tokens, unit.text)[0]
    except (SqlglotError, RecursionError) as error:
        if from_recursion(error):
            raise too_deeply_nested(unit, dialect, tokens) from None
        if isinstance(error, ParseError):
            detail = error.errors[0] if error.errors else {}
            message = detail.get("description") or str(error)
            line = error_line(unit, tokens, detail.get("line"), detail.get("col"))
            raise UserError(f"cannot parse SQL: {message}", unit.path, line) from None
        raise UserError(f"cannot parse SQL: {error}", unit.path, unit.location(0)[0]) from None
    if tree is None:
        raise UserError("cannot parse SQL: no statement", unit.path, unit.location(0)[0])
    return tree, Spans(TokenIndex(tuple(tokens), elided, unit), tree)


_PARSERS = threading.local()  # each thread's parser of each dialect, by name


def _parser(dialect: str) -> Parser:
    """The dialect's parser, made once per thread and reused: `parse` starts by resetting
    its state, and making one cost a seventh of parsing a short statement."""
    made = _PARSERS.__dict__
    if dialect not in made:
        made[dialect] = sql_dialect(dialect).parser()
    return made[dialect]


# A bracket that opens a query: the nesting a WITH clause or a view can name away.
QUERY_STARTS = frozenset({T.SELECT, T.WITH, T.VALUES, T.FROM})


def too_deeply_nested(unit: Unit, dialect: str, tokens: list[Token] | None = None) -> UserError:
    """The error of a statement nested deeper than Python's recursion limit lets sortlint
    (or sqlglot) follow: at the line where its brackets are deepest."""
    try:
        tokens = tokens if tokens is not None else tokenize(unit.text, dialect)[0]
    except SqlglotError:
        tokens = []
    # The open brackets, each with whether a query starts inside it; their deepest stack.
    opened: list[bool] = []
    deepest: list[bool] = []
    where = 0
    for index, token in enumerate(tokens):
        if token.token_type in OPENING:
            following = tokens[index + 1].token_type if index + 1 < len(tokens) else None
            opened.append(following in QUERY_STARTS)
            if len(opened) > len(deepest):
                deepest, where = list(opened), token.start
        elif token.token_type in CLOSING and opened:
            opened.pop()
    if len(deepest) > 1 and any(deepest):
        why = f"brackets {len(deepest)} deep; name inner queries in a WITH clause or a view"
    elif len(deepest) > 1:
        why = f"brackets {len(deepest)} deep in one expression; write it with fewer nested parentheses"
    else:
        why = "a chain of operators or set operations too long to follow; split it"
    return UserError(f"too deeply nested to analyse ({why})", unit.path, unit.location(where)[0])


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
    tokens, elided = tokenize(view.unit.text, dialect)
    return Spans(TokenIndex(tuple(tokens), elided, view.unit), view.query)
