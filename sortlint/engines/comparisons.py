"""What an equality teaches once the engine's implicit casts are taken into account.

An engine compares `a = b` of two types by casting one side or both to a common type (Spark:
`'1' = 1` compares numbers; a date against a string compares dates). The comparison says
something about `a` and `b` themselves only where their casts keep distinct values distinct
and in order (`exact_cast`): then `a = b` makes `a` and `b` one equivalence class, and
`a = literal` makes `a` a constant - whose value is known when the literal is cast to `a`'s
own type (`d = '2024-01-02'` on a date pins `d` to `DATE '2024-01-02'`). A string cast to
a number (`'01' = 1` and `' 1' = 1` are both true) teaches nothing.

A side whose type is not known teaches nothing either - except against a string literal
the engine casts to no other type (`host = 'app.example.com'`: no number, date, timestamp
or boolean is written so). Whatever `host`'s type, then, a row passes only where `host`
is that string: a non-string `host` fails the query or matches no row. The fact holds if
`host` is a plain string - which nothing checks, so it carries that caveat, and a fix
resting on it is unsafe (`Evidence.fixes_safely`): a collated string
(`STRING COLLATE UTF8_LCASE`) equals 'APP.example.com' too.

Which casts an engine makes is the target's (`Semantics.comparison`, in
`sortlint.engines.spark` and `sortlint.engines.datafusion`); this module draws the facts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlglot import exp

from sortlint.ordering import Evidence, Expr, Properties
from sortlint.ordering.types import Arithmetic, SqlType, exact_cast, sql_type


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the expression, its type (None: unknown or not modelled),
    and whether it is a literal - a value written in the query, typed (`DATE '2024-01-02'`,
    `CAST(1.5 AS DECIMAL(12,2))`) or not."""

    expr: Expr
    type: SqlType | None
    literal: bool = False

    def integer_value(self) -> int | None:
        """The value of an integer literal."""
        node = self.expr.node
        sign = -1 if isinstance(node, exp.Neg) else 1
        node = node.this if isinstance(node, exp.Neg) else node
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return sign * int(node.this)
        return None


# The types a target compares the two sides as: (left's, right's), None when it cannot say.
Comparison = Callable[[Side, Side], "tuple[SqlType, SqlType] | None"]


@dataclass(frozen=True)
class Semantics:
    """What a target computes, where a fact depends on it: its arithmetic, the casts of its
    comparisons, and whether floating-point values that compare equal (`-0.0 = 0.0`) also
    sort as equals (Spark: yes; DataFusion sorts -0.0 before 0.0)."""

    arithmetic: Arithmetic
    comparison: Comparison
    equal_floats_sort_together: bool = True
    # Whether no cast of the target to a type other than a string accepts this string (the
    # literal's value): None where the target's casts are not modelled - no fact.
    only_a_string_equals: Callable[[str], bool] | None = None


def equality(
    props: Properties, left: Expr, right: Expr, evidence: list[Evidence], semantics: Semantics
) -> Properties:
    """The facts `left = right` (or `<=>`) gives, after the engine's casts."""
    if isinstance(left.node, exp.Null) or isinstance(right.node, exp.Null):
        return props.with_equality(left, right, evidence)  # IS NULL (`<=>`), or no row at all
    sides = (_side(props, left), _side(props, right))
    if sides[0].literal and sides[1].literal:
        return props
    casts = semantics.comparison(*sides)
    if casts is None:
        return _if_a_string(props, sides, evidence, semantics)
    if not semantics.equal_floats_sort_together and any(
        t is not None and t.family == "floating" for t in (*casts, *(s.type for s in sides))
    ):
        return props
    kept = [s.type is not None and exact_cast(s.type, cast) for s, cast in zip(sides, casts)]
    if sides[0].literal or sides[1].literal:
        literal, other = (0, 1) if sides[0].literal else (1, 0)
        if not kept[other]:
            return props
        value = None
        if casts[literal] == sides[other].type:  # the literal is cast to the column's type
            value = _as_type(sides[literal], sides[other].type)
        return props.with_constant(sides[other].expr, value, evidence)
    if all(kept):
        return props.with_equality(left, right, evidence)
    return props


def _if_a_string(
    props: Properties, sides: tuple[Side, Side], evidence: list[Evidence], semantics: Semantics
) -> Properties:
    """`e = 'text'` where `e`'s type is not known: `e` is the constant 'text' if it is a
    plain string, when the target casts 'text' to no other type (see the module's text)."""
    literal, other = sides if sides[0].literal else (sides[1], sides[0])
    node = literal.expr.node
    if (
        semantics.only_a_string_equals is None
        or other.literal
        or props.type_of(other.expr) is not None  # known, if not modelled (a collated string)
        or not (isinstance(node, exp.Literal) and node.is_string)
        or not semantics.only_a_string_equals(node.this)
    ):
        return props
    caveat = f"if {other.expr} is a plain string: no other type equals {literal.expr}"
    conditional = [replace(e, caveat=caveat if e.caveat is None else f"{e.caveat}; {caveat}") for e in evidence]
    return props.with_constant(other.expr, literal.expr, conditional)


def _side(props: Properties, expr: Expr) -> Side:
    return Side(expr, sql_type(props.type_of(expr)), _is_value(expr))


def _is_value(expr: Expr) -> bool:
    """A literal, or a cast of one (`DATE '2024-01-02'` reads as one)."""
    node = expr.node
    while isinstance(node, exp.Cast):
        node = node.this
    return Expr.of(node).is_literal


def _as_type(literal: Side, target: SqlType | None) -> Expr:
    """The literal as a value of `target`: itself when it already is one, else cast."""
    if target is None or literal.type == target:
        return literal.expr
    cast = exp.Cast(this=literal.expr.node.copy(), to=exp.DataType.build(target.name, dialect="spark"))
    return Expr.of(cast)
