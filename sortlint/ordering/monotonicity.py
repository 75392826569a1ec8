"""Which expressions keep (or reverse) the order of their operands.

Each entry is a function from the sort properties and types of an expression's operands
to the sort property of the expression. Only what is exactly true is listed; everything
else is unordered. "Ordered" means non-decreasing in the given direction with nulls where
the operand had them: every function here maps null to null and a non-null to a non-null.

Arithmetic assumes it does not overflow: with Spark's ANSI mode (the default since 4.0)
an overflow fails the query instead of wrapping around.

Floating-point values may be NaN or infinite. Spark sorts NaN above every number, keeps it
NaN through negation, floors it to 0 and gets it from `inf + -inf`; so the rules that
reverse an order, floor it, or add two ordered values ask for operands known to be finite.
"""

from __future__ import annotations

import re
from typing import TypeGuard
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from sortlint.ordering.expressions import literal_number, literal_sign
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
# A decimal of unknown precision and scale. Any decimal casts to it without overflow, so
# a cast from it counts as monotonic only to itself or to double.
SOME_DECIMAL = "decimal(38, 0)"
# Units of a fixed length: Spark adds a day-time interval to a timestamp as a number of
# microseconds. A year-month interval moves the calendar date and clamps the day of the
# month, so Jan 30 23:00 and Jan 31 10:00 both land on Feb 29, in the wrong order.
FIXED_LENGTH_UNITS = {"WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"}
_DECIMAL = re.compile(r"(?:decimal|numeric|dec)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$")


def is_integer(t: str | None) -> TypeGuard[str]:
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


def _literal_type(text: str) -> str:
    if not re.fullmatch(r"\d+", text):
        return "decimal(38,18)"
    return "int" if int(text) < 2**31 else "bigint" if int(text) < 2**63 else SOME_DECIMAL


def _arithmetic_type(left: str | None, right: str | None) -> str | None:
    """Spark's result type of `+`, `-`, `*` on numbers: the wider integer, else a decimal
    or a double. Never narrower than an operand, so a later cast is judged on the truth."""
    if not (is_numeric(left) and is_numeric(right)):
        return None
    if left in FLOATING or right in FLOATING:
        return "double"
    if is_integer(left) and is_integer(right):
        return max(left, right, key=INTEGER_DIGITS.__getitem__)
    return SOME_DECIMAL


def infer_type(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> str | None:
    """The result type of `node` where it matters for monotonicity, else None."""
    if isinstance(node, exp.Literal):
        return "string" if node.is_string else _literal_type(node.this)
    if isinstance(node, exp.Interval):
        return "interval"
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return type_name(node.args["to"])
    if isinstance(node, (exp.TimestampTrunc, exp.DateBin)):
        return "timestamp"
    if isinstance(node, (exp.DateTrunc, exp.TsOrDsToDate, exp.TsOrDsAdd, exp.DateAdd, exp.DateSub)):
        return "date"
    if isinstance(node, (exp.Year, exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank)):
        return "bigint" if not isinstance(node, exp.Year) else "int"
    if isinstance(node, (exp.Floor, exp.Ceil)):
        operand = type_of(node.this)
        if not is_numeric(operand):
            return None
        # floor(decimal(p, s)) is a decimal(p - s + 1, 0); of anything else, a bigint.
        return "bigint" if is_integer(operand) or operand in FLOATING else SOME_DECIMAL
    if isinstance(node, exp.Neg):
        return type_of(node.this)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        left, right = type_of(node.this), type_of(node.expression)
        if is_temporal(left) and right in ("interval", "int") and not isinstance(node, exp.Mul):
            return left
        return _arithmetic_type(left, right)
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


def _finite(node: exp.Expression, analyse: Analyse) -> bool:
    """Whether a number is known to be neither NaN nor infinite: integers and decimals
    are, and so are doubles made from them by a cast, a negation, or a division by a
    literal of magnitude at least 1."""
    _, type_ = analyse(node)
    if type_ not in FLOATING:
        return True
    if isinstance(node, (exp.Cast, exp.TryCast)):
        source = analyse(node.this)[1]
        return is_numeric(source) and source not in FLOATING
    if isinstance(node, exp.Div):
        divisor = literal_number(node.expression)
        return divisor is not None and abs(divisor) >= 1 and _finite(node.this, analyse)
    if isinstance(node, exp.Neg):
        return _finite(node.this, analyse)
    return False


def _negate(node, analyse):
    prop, type_ = analyse(node.this)
    return prop.reversed() if is_numeric(type_) and _finite(node.this, analyse) else UNORDERED


def _rounds(node, analyse):
    """floor(x), ceil(x): Spark's floor of a double is a bigint, and NaN becomes 0."""
    prop, type_ = analyse(node.this)
    return prop if is_numeric(type_) and _finite(node.this, analyse) else UNORDERED


def _combine_same(a: SortProperty, b: SortProperty) -> SortProperty:
    """Order of `a + b` given the orders of `a` and `b`."""
    if a.singleton:
        return b
    if b.singleton:
        return a
    if a.options is not None and a.options == b.options:
        return a
    return UNORDERED


def _sum(node, analyse, left: SortProperty, right: SortProperty, subtract: bool) -> SortProperty:
    """Order of `left + right` or `left - right`. Each operand must be finite, except
    one that varies alone and keeps its direction (`x + 1` keeps NaN on top)."""
    if subtract:
        right = right.reversed()
    operands = [node.this, node.expression]
    if right.singleton and not left.singleton:
        operands = [node.expression]
    elif left.singleton and not right.singleton and not subtract:
        operands = [node.this]
    if not all(_finite(operand, analyse) for operand in operands):
        return UNORDERED
    return _combine_same(left, right)


def _fixed_length(interval: exp.Expression) -> bool:
    unit = interval.args.get("unit") if isinstance(interval, exp.Interval) else None
    if isinstance(unit, exp.IntervalSpan):
        names = [unit.this.name, unit.expression.name]
    elif isinstance(unit, exp.Var):
        names = [unit.name]
    else:
        return False
    return all(name.upper().removesuffix("S") in FIXED_LENGTH_UNITS for name in names)


def _shifts(temporal_type: str, shift: exp.Expression, analyse: Analyse) -> bool:
    """A constant moved onto a date or timestamp without reordering it: a day count or
    any interval onto a date, a fixed-length interval onto a timestamp."""
    prop, type_ = analyse(shift)
    if not prop.singleton or type_ not in ("interval", "int"):
        return False
    return temporal_type == "date" or (type_ == "interval" and _fixed_length(shift))


def _add(node, analyse):
    (left, left_type), (right, right_type) = analyse(node.this), analyse(node.expression)
    if is_numeric(left_type) and is_numeric(right_type):
        return _sum(node, analyse, left, right, subtract=False)
    if is_temporal(left_type) and _shifts(left_type, node.expression, analyse):
        return left
    if is_temporal(right_type) and _shifts(right_type, node.this, analyse):
        return right
    return UNORDERED


def _subtract(node, analyse):
    (left, left_type), (right, right_type) = analyse(node.this), analyse(node.expression)
    if is_numeric(left_type) and is_numeric(right_type):
        return _sum(node, analyse, left, right, subtract=True)
    if is_temporal(left_type) and _shifts(left_type, node.expression, analyse):
        return left
    return UNORDERED


def _scale(node, analyse):
    """`x * c` and `c * x` keep x's order for a literal c > 0 and reverse it for c < 0."""
    for constant, operand in ((node.expression, node.this), (node.this, node.expression)):
        sign = literal_sign(constant)
        prop, type_ = analyse(operand)
        if sign and is_numeric(type_):
            if sign > 0:
                return prop
            return prop.reversed() if _finite(operand, analyse) else UNORDERED
    return UNORDERED


def _divide(node, analyse):
    sign = literal_sign(node.expression)
    prop, type_ = analyse(node.this)
    if not (sign and is_numeric(type_)):
        return UNORDERED
    if sign > 0:
        return prop
    return prop.reversed() if _finite(node.this, analyse) else UNORDERED


def _cast(node, analyse):
    prop, type_ = analyse(node.this)
    return prop if is_monotonic_cast(type_, type_name(node.args["to"])) else UNORDERED


def _to_date(node, analyse):
    # to_date(x, fmt) parses strings; only the one-argument form on a date/timestamp.
    if node.args.get("format") is not None:
        return UNORDERED
    prop, type_ = analyse(node.this)
    return prop if is_temporal(type_) else UNORDERED


def _bins(node, analyse):
    """date_bin(stride, t[, origin]) (DataFusion's): t floored onto a grid of constant
    stride and origin. sqlglot keeps the stride in `this`, t in `expression` and the
    origin in `unit`."""
    stride, _ = analyse(node.this)
    origin = node.args.get("unit")
    if not stride.singleton or (origin is not None and not analyse(origin)[0].singleton):
        return UNORDERED
    prop, type_ = analyse(node.expression)
    return prop if is_temporal(type_) else UNORDERED


def _shift_days(node, analyse):
    """date_add(d, n) / date_sub(d, n) with a constant n: whole days onto a date."""
    unit = node.args.get("unit")
    if unit is not None and unit.name.upper() != "DAY":
        return UNORDERED
    prop, type_ = analyse(node.this)
    days, _ = analyse(node.expression)
    return prop if is_temporal(type_) and days.singleton else UNORDERED


MONOTONIC: dict[type[exp.Expression], Rule] = {
    exp.Neg: _negate,
    exp.Add: _add,
    exp.Sub: _subtract,
    exp.Mul: _scale,
    exp.Div: _divide,
    exp.Floor: _rounds,
    exp.Ceil: _rounds,
    exp.TimestampTrunc: _follows_this(is_temporal),  # date_trunc('hour', ts)
    exp.DateBin: _bins,                               # date_bin(INTERVAL '1' HOUR, ts)
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


def preserves_non_null(
    node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]
) -> bool:
    """Whether non-null operands always give a non-null result. A cast or a parse that
    can fail cannot promise it: TRY_CAST('abc' AS INT), and CAST outside ANSI mode, are
    NULL; a widening cast never fails."""
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return is_monotonic_cast(type_of(node.this), type_name(node.args["to"]))
    if isinstance(node, exp.TsOrDsToDate):
        return node.args.get("format") is None and is_temporal(type_of(node.this))
    return isinstance(node, NULL_PRESERVING)


def monotonic_property(node: exp.Expression, analyse: Analyse) -> SortProperty:
    rule = MONOTONIC.get(type(node))
    return rule(node, analyse) if rule else UNORDERED
