"""Spark SQL as Spark's own parser reads it: sqlglot's Spark dialect, with Spark's keywords
taken as names where Spark takes them so.

Spark reserves no keyword by default (`spark.sql.ansi.enforceReservedKeywords` is false):
`SELECT values, from, to FROM t`, `WITH join AS (...)` and `FROM t AS WHERE ...` (the table
read under the name `AS`) are all valid Spark SQL, and real pipelines have columns named so.
sqlglot's tokenizer makes these words keywords, and its parser then rejects the statement
or, worse, reads it differently (`SELECT from FROM t` parses as a select of nothing).

The dialect keeps sqlglot's parser and changes only the tokens: a keyword in a place where
Spark's grammar can only mean a name becomes a name (`TokenType.VAR`) before sqlglot sees
it. The places are narrow on purpose - each rule needs the tokens on both sides to say so -
and `tests/plan/test_spark_parser_oracle.py` holds them to Spark's own parser, both ways: a
statement Spark accepts must parse, and must read the same tables and output columns.
"""

from __future__ import annotations

from functools import cache

import sqlglot
from sqlglot import Dialect
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import Token, TokenType

from sortlint.plan.token_types import T

# Keywords that stand for a value, an operator or the start of an expression: never a name
# here (Spark reads `NULL`, `TRUE`, `CASE WHEN ...`, `NOT x` the same way).
NEVER_NAMES = frozenset({
    T.NULL, T.TRUE, T.FALSE, T.CURRENT_DATE, T.CURRENT_DATETIME, T.CURRENT_TIME,
    T.CURRENT_TIMESTAMP, T.CURRENT_USER, T.SESSION_USER, T.NOT, T.AND, T.OR, T.IS, T.IN,
    T.LIKE, T.ILIKE, T.RLIKE, T.BETWEEN, T.CASE, T.EXISTS, T.INTERVAL, T.DISTINCT, T.ALL,
    T.SELECT, T.WITH, T.STAR, T.ANY, T.SOME, T.ARRAY, T.MAP, T.STRUCT,
})
# Keywords that are a value even before a dot: `NULL.a` reads a field of NULL.
VALUES_OF_THEIR_OWN = frozenset({T.NULL, T.TRUE, T.FALSE, T.STAR})
# MERGE's actions: `WHEN MATCHED THEN DELETE`, `THEN INSERT *`.
ACTIONS = frozenset({T.DELETE, T.UPDATE, T.INSERT})

# After these an expression starts: a keyword there, followed by what follows a name, is a
# column (`WHERE values > 1`, `SELECT from FROM t`, `PARTITION BY to`).
OPERAND_BEFORE = frozenset({
    T.SELECT, T.COMMA, T.L_PAREN, T.WHERE, T.AND, T.OR, T.NOT, T.HAVING, T.QUALIFY, T.ON,
    T.WHEN, T.THEN, T.ELSE, T.EQ, T.NEQ, T.NULLSAFE_EQ, T.LT, T.LTE, T.GT, T.GTE, T.PLUS,
    T.DASH, T.SLASH, T.MOD, T.DPIPE, T.GROUP_BY, T.ORDER_BY, T.PARTITION_BY, T.DISTRIBUTE_BY,
    T.SORT_BY, T.CLUSTER_BY,
})

# What may follow a column name.
AFTER_NAME = frozenset({
    T.COMMA, T.R_PAREN, T.SEMICOLON, T.FROM, T.ALIAS, T.ASC, T.DESC, T.IS, T.IN, T.NOT,
    T.BETWEEN, T.LIKE, T.ILIKE, T.RLIKE, T.AND, T.OR, T.THEN, T.ELSE, T.END, T.WHERE,
    T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT, T.L_BRACKET, T.ROWS, T.RANGE, T.DISTRIBUTE_BY,
    T.SORT_BY, T.CLUSTER_BY, T.UNION, T.EXCEPT, T.INTERSECT, T.WINDOW, T.QUALIFY, T.EQ,
    T.NEQ, T.NULLSAFE_EQ, T.LT, T.LTE, T.GT, T.GTE, T.PLUS, T.DASH, T.STAR, T.SLASH, T.MOD,
    T.DPIPE, T.DIV,
})

# What may follow a table name in FROM (or the `AS` that is a table's alias).
AFTER_TABLE = frozenset({
    T.COMMA, T.R_PAREN, T.SEMICOLON, T.WHERE, T.GROUP_BY, T.ORDER_BY, T.HAVING, T.LIMIT,
    T.JOIN, T.INNER, T.LEFT, T.RIGHT, T.FULL, T.CROSS, T.NATURAL, T.SEMI, T.ANTI, T.LATERAL,
    T.ON, T.USING, T.UNION, T.EXCEPT, T.INTERSECT, T.WINDOW, T.QUALIFY, T.DISTRIBUTE_BY,
    T.SORT_BY, T.CLUSTER_BY,
})
TABLE_BEFORE = frozenset({T.FROM, T.JOIN})
# Words of a join, which follow a table without being its alias: `t LEFT SEMI JOIN u`.
JOIN_WORDS = frozenset({
    T.JOIN, T.INNER, T.LEFT, T.RIGHT, T.FULL, T.CROSS, T.NATURAL, T.SEMI, T.ANTI, T.OUTER,
    T.LATERAL,
})
# A token that ends a table reference, before its alias.
TABLE_END = frozenset({T.VAR, T.IDENTIFIER, T.R_PAREN})
NAMES = frozenset({T.VAR, T.IDENTIFIER})
# What may end an expression of a select list, before an alias written without AS.
EXPRESSION_END = frozenset({T.VAR, T.IDENTIFIER, T.R_PAREN, T.NUMBER, T.STRING})
# Keywords that end an expression (`CASE ... END`, `NULLS FIRST`) or continue it (`a DIV b`).
NOT_ALIASES = NEVER_NAMES | {T.END, T.FIRST, T.COLLATE, T.DIV}
CLAUSES = frozenset({
    T.SELECT, T.FROM, T.JOIN, T.WHERE, T.GROUP_BY, T.HAVING, T.ORDER_BY, T.SORT_BY,
    T.CLUSTER_BY, T.DISTRIBUTE_BY, T.PARTITION_BY, T.LIMIT, T.ON, T.SEMICOLON, T.WINDOW,
    T.QUALIFY, T.UNION, T.EXCEPT, T.INTERSECT,
})
TYPES = frozenset(Spark.Parser.TYPE_TOKENS)
# Spark's keywords that sqlglot makes tokens of their own, and those tokens' types.
KEYWORDS = {word: kind for word, kind in Spark.Tokenizer.KEYWORDS.items() if word.isidentifier() and kind not in NAMES}
KEYWORD_TYPES = frozenset(KEYWORDS.values())
# The tokens `names_for_keywords` looks at: the others (most of them) it passes at once.
_LOOKED_AT = KEYWORD_TYPES | CLAUSES | {T.L_PAREN, T.R_PAREN}


def names_for_keywords(tokens: list[Token]) -> list[Token]:
    """The tokens, with each keyword Spark would read as a name turned into one (in place).

    One pass: the clause each token stands in (the nearest clause keyword before it at its
    parenthesis depth) is kept on a stack as the tokens go by, so a statement of any length
    costs one look at each token."""
    last = len(tokens) - 1
    clauses: list[TokenType | None] = [None]  # the clause at each open parenthesis depth
    for index, token in enumerate(tokens):
        kind = token.token_type
        if kind not in _LOOKED_AT:
            continue
        if (
            kind in KEYWORD_TYPES
            and not (kind in NEVER_NAMES and not (  # the common case, decided at once
                (index > 0 and tokens[index - 1].token_type == T.DOT)
                or (index < last and tokens[index + 1].token_type == T.DOT)))
            and KEYWORDS.get(token.text.upper()) == kind
            and _is_name(tokens, index, clauses[-1])
        ):
            token.token_type = kind = T.VAR
        if kind == T.L_PAREN:
            clauses.append(None)
        elif kind == T.R_PAREN:
            if len(clauses) > 1:
                clauses.pop()
        elif kind in CLAUSES:
            clauses[-1] = _clause_after(kind)
    return tokens


def _clause_after(kind: TokenType) -> TokenType:
    """The clause a clause keyword starts: a join's tables are in FROM."""
    return T.FROM if kind == T.JOIN else kind


def _is_name(tokens: list[Token], index: int, clause: TokenType | None) -> bool:
    """Whether Spark reads the keyword at `index`, standing in `clause`, as a name, from the
    tokens around it."""
    kind = tokens[index].token_type
    preceding = _kind(tokens, index - 1)
    following = _kind(tokens, index + 1)
    if preceding == T.DOT:  # `t.values`
        return True
    if following == T.DOT and kind not in VALUES_OF_THEIR_OWN:  # `values.a`, `join.*`
        beyond = _token(tokens, index + 2)
        return beyond is not None and (beyond.token_type in (*NAMES, T.STAR) or beyond.text.upper() in KEYWORDS)
    if kind in NEVER_NAMES:
        return False
    if kind == T.ALIAS:
        if preceding in (T.SELECT, T.COMMA):  # `SELECT as, a FROM t`
            return following in (T.FROM, T.COMMA) and clause == T.SELECT
        # `FROM t AS WHERE ...` reads t under the name `AS` - unless the keyword after it is
        # the name: `FROM t AS limit`, `FROM t AS window WHERE ...`
        return (
            clause == T.FROM and preceding in TABLE_END and following in AFTER_TABLE
            and _kind(tokens, index + 2) not in AFTER_TABLE
        )
    if preceding == T.ALIAS:  # `a AS from`, `FROM t AS limit`; not `CAST(a AS DATE)`
        return kind not in TYPES and (following in AFTER_NAME or following in AFTER_TABLE)
    if following == T.ALIAS and preceding in (T.WITH, T.COMMA):  # `WITH join AS (...)`
        return _kind(tokens, index + 2) == T.L_PAREN
    if preceding in TABLE_BEFORE:  # `FROM values`, `JOIN join ON ...`
        return following in AFTER_TABLE or following in NAMES or following == T.ALIAS
    if clause == T.SELECT and preceding in EXPRESSION_END and following in (T.FROM, T.COMMA, T.SEMICOLON):
        # `SELECT a from FROM t`: a column's alias without AS (`SELECT a FROM from` reads a table)
        if following == T.FROM and _kind(tokens, index + 2) not in (*NAMES, T.L_PAREN):
            return False
        return kind not in NOT_ALIASES
    if clause == T.FROM and preceding in TABLE_END and following in AFTER_TABLE:
        # `FROM t window WHERE ...`: a table's alias without AS (not `FROM t WHERE where > 1`)
        if kind in JOIN_WORDS:
            return False
        if index + 1 == len(tokens):
            return True
        after = _clause_after(kind) if kind in CLAUSES else clause
        return not _is_name(tokens, index + 1, after)
    if preceding == T.DISTINCT:  # `SELECT DISTINCT from, ...`, not `IS DISTINCT FROM ...`
        return _kind(tokens, index - 2) == T.SELECT and following in AFTER_NAME
    if preceding in OPERAND_BEFORE:  # `WHERE values > 1`, `SELECT from FROM t`, `BY to`
        if preceding == T.L_PAREN and _kind(tokens, index - 2) == T.OVER:  # `OVER (ROWS ...)`
            return False
        if preceding == T.THEN and kind in ACTIONS:
            return False
        return following in AFTER_NAME or _text(tokens, index + 1) == "NULLS"
    return False


def _token(tokens: list[Token], index: int) -> Token | None:
    return tokens[index] if 0 <= index < len(tokens) else None


def _kind(tokens: list[Token], index: int) -> TokenType:
    """The type of the token at `index`; outside the tokens, the end of a statement."""
    token = _token(tokens, index)
    return token.token_type if token is not None else T.SEMICOLON


def _text(tokens: list[Token], index: int) -> str:
    token = _token(tokens, index)
    return token.text.upper() if token is not None else ""


class SortlintSpark(Spark):
    """sqlglot's Spark, reading keywords as names where Spark does.

    Only the dialect and its tokenizer are subclassed: they stay Python classes in sqlglot's
    compiled build (sqlglotc), whose parsers and generators are compiled classes that no
    Python class can inherit from."""

    class Tokenizer(Spark.Tokenizer):
        def tokenize(self, sql: str) -> list[Token]:
            return names_for_keywords(super().tokenize(sql))


@cache
def sql_dialect(name: str) -> Dialect:
    """The sqlglot dialect sortlint reads `name` with: Spark's as Spark reads it, any other
    as sqlglot has it."""
    if name == "spark":
        return SortlintSpark()
    return sqlglot.Dialect.get_or_raise(name)
