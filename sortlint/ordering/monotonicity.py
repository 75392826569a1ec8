"""Which expressions keep (or reverse) the order of their operands.

Each entry is a function from the sort properties and types of an expression's operands
to the sort property of the expression. Only what is exactly true is listed; everything
else is unordered. "Ordered" means non-decreasing in the given direction with nulls where
the operand had them: every function here maps null to null and a non-null to a non-null.

Arithmetic assumes it does not overflow: with Spark's ANSI mode (the default since 4.0)
an overflow fails the query instead of wrapping around.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from sortlint.ordering.expressions import literal_sign
from sortlint.ordering.sort import SortOptions


@dataclass(frozen=True, slots=True)
class SortProperty:
    """DataFusion's `SortProperties`: ordered with options, a single value, or unordered."""

    options: SortOptions | None = None
    singleton: bool = False

    @property
    def ordered(self) -> bool:
        return self.options is not None

    def reversed(self) -> SortProperty:
        return SortProperty(self.options.reversed()) if self.options else self

    def __str__(self) -> str:
        if self.singleton:
            return "Singleton"
        return f"Ordered({self.options})" if self.options else "Unordered"


UNORDERED = SortProperty()
SINGLETON = SortProperty(singleton=True)


# --- types -------------------------------------------------------------------------

INTEGER_DIGITS = {"tinyint": 3, "byte": 3, "smallint": 5, "short": 5, "int": 10,
                  "integer": 10, "bigint": 19, "long": 19}
FLOATING = {"float", "real", "double", "double precision"}
_DECIMAL = re.compile(r"(?:decimal|numeric|dec)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$")


def is_integer(t: str | None) -> bool:
    return t in INTEGER_DIGITS


def is_numeric(t: str | None) -> bool:
    return t is not None and (t in INTEGER_DIGITS or t in FLOATING or bool(_DECIMAL.match(t)))


def is_temporal(t: str | None) -> bool:
    return t is not None and (t == "date" or t.startswith("timestamp"))


def _decimal_integer_digits(t: str) -> int | None:
    match = _DECIMAL.match(t)
    if not match:
        return None
    precision = int(match.group(1) or 10)
    scale = int(match.group(2) or 0)
    return precision - scale


def is_monotonic_cast(source: str | None, target: str) -> bool:
    """A cast that never reorders values: widening, or rounding into a wider domain."""
    if source is None:
        return False
    if source == target:
        return True
    if is_integer(source) and is_integer(target):
        return INTEGER_DIGITS[target] >= INTEGER_DIGITS[source]
    if is_numeric(source) and target in ("double", "double precision"):
        return True
    if source in ("float", "real") and target in FLOATING:
        return True
    if is_integer(source) and (digits := _decimal_integer_digits(target)) is not None:
        return digits >= INTEGER_DIGITS[source]
    # date -> timestamp is exact; timestamp -> date truncates (non-decreasing).
    return is_temporal(source) and is_temporal(target)


def type_name(data_type: exp.Expression) -> str:
    return data_type.sql(dialect="spark").lower()


def infer_type(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> str | None:
    """The result type of `node` where it matters for monotonicity, else None."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "string"
        return "int" if re.fullmatch(r"\d+", node.this) else "decimal(38,18)"
    if isinstance(node, exp.Interval):
        return "interval"
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return type_name(node.args["to"])
    if isinstance(node, exp.TimestampTrunc):
        return "timestamp"
    if isinstance(node, (exp.DateTrunc, exp.TsOrDsToDate, exp.TsOrDsAdd, exp.DateAdd, exp.DateSub)):
        return "date"
    if isinstance(node, (exp.Year, exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank)):
        return "bigint" if not isinstance(node, exp.Year) else "int"
    if isinstance(node, (exp.Floor, exp.Ceil)):
        return "bigint" if is_numeric(type_of(node.this)) else None
    if isinstance(node, exp.Neg):
        return type_of(node.this)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        left, right = type_of(node.this), type_of(node.expression)
        if is_temporal(left) and right in ("interval", "int") and not isinstance(node, exp.Mul):
            return left
        if is_numeric(left) and is_numeric(right):
            return "double" if left in FLOATING or right in FLOATING else left
        return None
    if isinstance(node, exp.Div):
        return "double"
    return None


# --- the table ----------------------------------------------------------------------

# A rule gets the expression and a function that analyses any of its operands, so each
# rule names the arguments it depends on (`node.this`, `node.expression`).
Analyse = Callable[[exp.Expression], tuple[SortProperty, "str | None"]]
Rule = Callable[[exp.Expression, Analyse], SortProperty]


def _follows_this(require: Callable[[str | None], bool]) -> Rule:
    def rule(node, analyse):
        prop, type_ = analyse(node.this)
        return prop if require(type_) else UNORDERED

    return rule


def _negate(node, analyse):
    prop, type_ = analyse(node.this)
    return prop.reversed() if is_numeric(type_) else UNORDERED


def _combine_same(a: SortProperty, b: SortProperty) -> SortProperty:
    """Order of `a + b` given the orders of `a` and `b`."""
    if a.singleton:
        return b
    if b.singleton:
        return a
    if a.options is not None and a.options == b.options:
        return a
    return UNORDERED


def _is_shift(type_: str | None, prop: SortProperty) -> bool:
    """A constant interval or day count added to a date or timestamp."""
    return type_ in ("interval", "int") and prop.singleton


def _add(node, analyse):
    (left, left_type), (right, right_type) = analyse(node.this), analyse(node.expression)
    if is_numeric(left_type) and is_numeric(right_type):
        return _combine_same(left, right)
    if is_temporal(left_type) and _is_shift(right_type, right):
        return left
    if is_temporal(right_type) and _is_shift(left_type, left):
        return right
    return UNORDERED


def _subtract(node, analyse):
    (left, left_type), (right, right_type) = analyse(node.this), analyse(node.expression)
    if is_numeric(left_type) and is_numeric(right_type):
        return _combine_same(left, right.reversed())
    if is_temporal(left_type) and _is_shift(right_type, right):
        return left
    return UNORDERED


def _scale(node, analyse):
    """`x * c` and `c * x` keep x's order for a literal c > 0 and reverse it for c < 0."""
    for constant, operand in ((node.expression, node.this), (node.this, node.expression)):
        sign = literal_sign(constant)
        prop, type_ = analyse(operand)
        if sign and is_numeric(type_):
            return prop if sign > 0 else prop.reversed()
    return UNORDERED


def _divide(node, analyse):
    sign = literal_sign(node.expression)
    prop, type_ = analyse(node.this)
    if not (sign and is_numeric(type_)):
        return UNORDERED
    return prop if sign > 0 else prop.reversed()


def _cast(node, analyse):
    prop, type_ = analyse(node.this)
    return prop if is_monotonic_cast(type_, type_name(node.args["to"])) else UNORDERED


def _to_date(node, analyse):
    # to_date(x, fmt) parses strings; only the one-argument form on a date/timestamp.
    if node.args.get("format") is not None:
        return UNORDERED
    prop, type_ = analyse(node.this)
    return prop if is_temporal(type_) else UNORDERED


def _shift_days(node, analyse):
    """date_add(d, n) / date_sub(d, n) with a constant n."""
    prop, type_ = analyse(node.this)
    days, _ = analyse(node.expression)
    return prop if is_temporal(type_) and days.singleton else UNORDERED


MONOTONIC: dict[type[exp.Expression], Rule] = {
    exp.Neg: _negate,
    exp.Add: _add,
    exp.Sub: _subtract,
    exp.Mul: _scale,
    exp.Div: _divide,
    exp.Floor: _follows_this(is_numeric),
    exp.Ceil: _follows_this(is_numeric),
    exp.TimestampTrunc: _follows_this(is_temporal),  # date_trunc('hour', ts)
    exp.DateTrunc: _follows_this(is_temporal),       # trunc(date, 'month')
    exp.TsOrDsToDate: _to_date,                       # to_date(ts)
    exp.Year: _follows_this(is_temporal),
    exp.Cast: _cast,                                  # also date(ts), to_timestamp(d)
    exp.TryCast: _cast,
    exp.TsOrDsAdd: _shift_days,                       # date_add(d, n)
    exp.DateAdd: _shift_days,
    exp.DateSub: _shift_days,
}

# Functions whose value on constant operands is itself constant. Anything unknown
# (user functions, rand(), uuid(), aggregates, windows) is not.
NON_DETERMINISTIC = (exp.Rand, exp.Randn, exp.Uuid, exp.AggFunc, exp.Window, exp.Anonymous,
                     exp.Subquery, exp.Select, exp.Star)

# Expressions that produce null only from a null operand: non-null operands give a
# non-null result.
NULL_PRESERVING = tuple(MONOTONIC) + (exp.Abs, exp.Upper, exp.Lower, exp.Concat)


def monotonic_property(node: exp.Expression, analyse: Analyse) -> SortProperty:
    rule = MONOTONIC.get(type(node))
    return rule(node, analyse) if rule else UNORDERED
