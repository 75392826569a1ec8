"""Expressions as hashable keys.

The engine compares expressions by their canonical Spark SQL text after normalisation:
identifiers folded to lower case (Spark resolves names case-insensitively), redundant
parentheses dropped (the tree already encodes precedence). `a + 1` written in SQL, in a
PySpark `selectExpr`, or built from `F.col("A") + 1` becomes the same key.
"""

from __future__ import annotations

from functools import cached_property

import sqlglot
from sqlglot import exp

DIALECT = "spark"


class Expr:
    """A normalised sqlglot expression, hashed and compared by its canonical text."""

    __slots__ = ("key", "node", "__dict__")

    def __init__(self, node: exp.Expression, key: str) -> None:
        self.node = node
        self.key = key

    @classmethod
    def of(cls, node: exp.Expression) -> Expr:
        """Normalise a sqlglot expression (it is copied, never mutated)."""
        node = _normalise(node.copy())
        return cls(node, node.sql(dialect=DIALECT))

    @classmethod
    def parse(cls, text: str, dialect: str = DIALECT) -> Expr:
        return cls.of(sqlglot.parse_one(text, read=dialect))

    @classmethod
    def column(cls, name: str, table: str | None = None) -> Expr:
        node = exp.column(name.lower(), table=table.lower() if table else None)
        return cls.of(node)

    @cached_property
    def is_literal(self) -> bool:
        return _is_literal(self.node)

    @cached_property
    def is_column(self) -> bool:
        return isinstance(self.node, exp.Column)

    @cached_property
    def column_name(self) -> str | None:
        """The unqualified column name, for a plain column reference."""
        return self.node.name if isinstance(self.node, exp.Column) else None

    @cached_property
    def columns(self) -> frozenset[Expr]:
        """The column references this expression reads."""
        if isinstance(self.node, exp.Column):
            return frozenset((self,))
        return frozenset(Expr.of(c) for c in self.node.find_all(exp.Column))

    @cached_property
    def children(self) -> tuple[Expr, ...]:
        """Direct operand expressions (type and unit arguments excluded)."""
        return tuple(
            Expr.of(child)
            for child in self.node.iter_expressions()
            if not isinstance(child, (exp.DataType, exp.Var))
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: Expr) -> bool:
        return self.key < other.key

    def __repr__(self) -> str:
        return f"Expr({self.key!r})"

    def __str__(self) -> str:
        return self.key


def _is_literal(node: exp.Expression) -> bool:
    if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
        return True
    if isinstance(node, exp.Neg):
        return _is_literal(node.this)
    if isinstance(node, exp.Interval):
        return isinstance(node.this, exp.Literal)
    return False


def literal_sign(node: exp.Expression) -> int | None:
    """-1, 0 or 1 for a numeric literal, None for anything else."""
    if isinstance(node, exp.Neg):
        inner = literal_sign(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            value = float(node.this)
        except ValueError:
            return None
        return (value > 0) - (value < 0)
    return None


def _normalise(node: exp.Expression) -> exp.Expression:
    """Fold identifiers to lower case and drop parentheses that carry no precedence.

    sqlglot prints a tree as it is, without adding parentheses, so the ones around an
    operator inside another operator must stay; the others go.
    """
    for sub in list(node.walk()):
        if isinstance(sub, exp.Identifier):
            name = sub.this.lower()
            sub.set("this", name)
            sub.set("quoted", exp.to_identifier(name).quoted)
    for paren in list(node.find_all(exp.Paren)):
        inner = paren.this
        keeps_precedence = isinstance(paren.parent, (exp.Binary, exp.Unary)) and isinstance(
            inner, (exp.Binary, exp.Unary)
        )
        if paren is not node and not keeps_precedence:
            paren.replace(inner)
    while isinstance(node, exp.Paren):
        node = node.this
    return node
