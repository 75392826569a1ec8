"""Which expressions keep (or reverse) the order of their operands.

Each entry is a function from the sort properties and types of an expression's operands
to the sort property of the expression. Only what is exactly true is listed; everything
else is unordered. "Ordered" means non-decreasing in the given direction with nulls where
the operand had them: every function here maps null to null and a non-null to a non-null.

Arithmetic keeps an order only while it cannot overflow and wrap around. Whether it can
is the engine's (`Arithmetic.overflow`): with Spark's ANSI mode (the default since 4.0) an
overflow fails the query, so `x + 1` keeps the order of every row it returns; without it,
and in DataFusion, integers wrap, so `x + 1` keeps order only when its result type is wider
than any value it can reach (`fits`: DataFusion computes an int plus the bigint literal 1
as a bigint, which never wraps; a bigint plus 1 can).

Floating-point values may be NaN or infinite. Spark sorts NaN above every number, keeps it
NaN through negation, floors it to 0 and gets it from `inf + -inf`; so the rules that
reverse an order, floor it, or add two ordered values ask for operands known to be finite.
"""

from __future__ import annotations

from typing import TypeGuard
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from sortlint.ordering.expressions import Expr, literal_number, literal_sign
from sortlint.ordering.sort import SortOptions
from sortlint.ordering.types import Arithmetic, decimal, exact_cast, sql_type


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

# Units of a fixed length: Spark adds a day-time interval to a timestamp as a number of
# microseconds. A year-month interval moves the calendar date and clamps the day of the
# month, so Jan 30 23:00 and Jan 31 10:00 both land on Feb 29, in the wrong order.
FIXED_LENGTH_UNITS = {"WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"}
FLOATING = {"float", "real", "double", "double precision"}


def is_integer(t: str | None) -> TypeGuard[str]:
    found = sql_type(t)
    return found is not None and found.family == "integer"


def is_numeric(t: str | None) -> bool:
    found = sql_type(t)
    return found is not None and found.family in ("integer", "decimal", "floating")


def is_temporal(t: str | None) -> bool:
    return t is not None and (t == "date" or t.startswith("timestamp"))


def is_monotonic_cast(source: str | None, target: str) -> bool:
    """A cast that never reorders values: widening, or rounding into a wider domain."""
    if source is None:
        return False
    if source == target:
        return True
    a, b = sql_type(source), sql_type(target)
    if a is not None and b is not None:
        if exact_cast(a, b):
            return True
        if a.family in ("integer", "decimal") and b.family == "floating" and b.bits == 53:
            return True  # rounds, never reorders
        if a.family == "integer" and b.family == "decimal":
            return b.integer_digits >= a.integer_digits
    # date -> timestamp is exact; timestamp -> date truncates (non-decreasing).
    return is_temporal(source) and is_temporal(target)


def exact_image_of(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> exp.Expression | None:
    """The operand of which `node` is a one-to-one, order-keeping image - a cast that keeps
    distinct values distinct and in order, `CAST(int AS BIGINT)` - or None. Fixing the image
    fixes the operand, so an ordering that goes on after the operand goes on after the image
    (DataFusion's `CastExpr` keeps a lexicographic ordering through a widening cast)."""
    if not isinstance(node, (exp.Cast, exp.TryCast)):
        return None
    source, target = sql_type(type_of(node.this)), sql_type(type_name(node.args["to"]))
    if source is None or target is None or not exact_cast(source, target):
        return None
    return node.this


def type_name(data_type: exp.Expression) -> str:
    """The type's Spark name in lower case, printed once per type: a project casts to a few
    types thousands of times, and each print starts sqlglot's printer. A type holding a
    name (a struct's field) is printed each time: a key folds the name's case and quotes."""
    if data_type.find(exp.Identifier) is not None:
        return data_type.sql(dialect="spark").lower()
    key = Expr.of(data_type).identity
    found = _TYPE_NAMES.get(key)
    if found is None:
        found = _TYPE_NAMES[key] = data_type.sql(dialect="spark").lower()
    return found


_TYPE_NAMES: dict[tuple | str, str] = {}


def infer_type(
    node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"], arithmetic: Arithmetic
) -> str | None:
    """The result type of `node` where it matters for monotonicity, else None."""
    if isinstance(node, exp.Literal):
        found = arithmetic.literal_type(node)
        return found.name if found is not None else None
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
    if isinstance(node, (exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank)):
        return "bigint"
    if isinstance(node, exp.Year):
        return "int"
    if isinstance(node, (exp.Min, exp.Max, exp.AnyValue, exp.First, exp.Last)):
        return type_of(node.this)
    if isinstance(node, (exp.Floor, exp.Ceil)):
        operand = sql_type(type_of(node.this))
        if operand is None or operand.family not in ("integer", "decimal", "floating"):
            return None
        if arithmetic.rounding == "in_type":
            return "double" if operand.family == "integer" else operand.name
        # floor(decimal(p, s)) is a decimal(p - s + 1, 0); of anything else, a bigint.
        if operand.family == "decimal":
            return decimal(min(operand.integer_digits + 1, 38)).name
        return "bigint"
    if isinstance(node, exp.Neg):
        return type_of(node.this)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        left, right = type_of(node.this), type_of(node.expression)
        if is_temporal(left) and right in ("interval", "int") and isinstance(node, (exp.Add, exp.Sub)):
            return left
        a, b = sql_type(left), sql_type(right)
        if a is None or b is None:
            return None
        found = arithmetic.result_type(node, a, b)
        return found.name if found is not None else None
    return None


def fits(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> bool:
    """Whether every value of a numeric expression fits its result type: `c + 1` over an int
    column computed as a bigint does, over a bigint column it does not (it can wrap). A
    double does (it overflows to infinity, in order); a decimal does when its type is known
    (its precision was not cut to 38 digits)."""
    result = sql_type(type_of(node))
    if result is None or result.family != "integer":
        return result is not None and result.family in ("floating", "decimal")
    bound = _magnitude(node, type_of)
    return bound is not None and bound <= 2**result.bits - 1


def _magnitude(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> int | None:
    """A bound on the absolute value of an integer expression, from its operands' types."""
    value = literal_number(node)
    if value is not None:
        return abs(int(value)) if value == int(value) else None
    if isinstance(node, exp.Neg):
        return _magnitude(node.this, type_of)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        left, right = _magnitude(node.this, type_of), _magnitude(node.expression, type_of)
        if left is None or right is None:
            return None
        return left * right if isinstance(node, exp.Mul) else left + right
    if isinstance(node, exp.Div):
        dividend, divisor = _magnitude(node.this, type_of), literal_number(node.expression)
        if dividend is None or divisor is None or abs(divisor) < 1:
            return None
        return -(-dividend // int(abs(divisor)))
    own = sql_type(type_of(node))
    if own is None or own.family != "integer":
        return None
    if isinstance(node, (exp.Cast, exp.TryCast)) and is_integer(type_of(node.this)):
        inner = _magnitude(node.this, type_of)
        if inner is not None:
            return min(inner, 2**own.bits)
    return 2**own.bits


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


def _rounds(node, analyse, arithmetic: Arithmetic):
    """floor(x), ceil(x): Spark's floor of a double is a bigint, and NaN becomes 0, so the
    operand must be finite there; DataFusion's keeps NaN (sorted above every number) and
    the infinities."""
    prop, type_ = analyse(node.this)
    if not is_numeric(type_):
        return UNORDERED
    return prop if arithmetic.rounding == "in_type" or _finite(node.this, analyse) else UNORDERED


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


# The units Spark truncates to: `date_trunc` (TimestampTrunc) and `trunc` (DateTrunc) are
# NULL for any other, with ANSI mode or without (`trunc(d, 'DD')`, `date_trunc('hours', t)`),
# and sqlglot reads a unit given as a column (`date_trunc(u, t)`) as a unit named U. (It
# also reads the abbreviations 'h', 'q', 'w', 'y'... as HOUR, QUARTER, WEEK, YEAR, which
# Spark does not know: that NULL is not seen here.)
TRUNCATION_UNITS: dict[type[exp.Expression], frozenset[str]] = {
    exp.DateTrunc: frozenset({"YEAR", "YYYY", "YY", "QUARTER", "MON", "MONTH", "MM", "WEEK"}),
    exp.TimestampTrunc: frozenset({"YEAR", "YYYY", "YY", "QUARTER", "MON", "MONTH", "MM", "WEEK", "DAY",
                                   "DD", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"}),
}


def _known_unit(node: exp.Expression) -> bool:
    units = TRUNCATION_UNITS.get(type(node))
    return units is None or node.args["unit"].name.upper() in units


def _truncates(node, analyse):
    """date_trunc(unit, t), trunc(d, unit): t floored to a unit Spark knows; any other
    gives NULL, and a unit read from a column changes from row to row."""
    return _follows_this(is_temporal)(node, analyse) if _known_unit(node) else UNORDERED


MONOTONIC: dict[type[exp.Expression], Rule] = {
    exp.Neg: _negate,
    exp.Add: _add,
    exp.Sub: _subtract,
    exp.Mul: _scale,
    exp.Div: _divide,
    exp.Atan: _follows_this(is_numeric),             # Java's is semi-monotonic by its spec
    exp.TimestampTrunc: _truncates,                   # date_trunc('hour', ts)
    exp.DateBin: _bins,                               # date_bin(INTERVAL '1' HOUR, ts)
    exp.DateTrunc: _truncates,                        # trunc(date, 'month')
    exp.TsOrDsToDate: _to_date,                       # to_date(ts)
    exp.Year: _follows_this(is_temporal),
    exp.Cast: _cast,                                  # also date(ts), to_timestamp(d)
    exp.TryCast: _cast,
    exp.TsOrDsAdd: _shift_days,                       # date_add(d, n)
    exp.DateAdd: _shift_days,
    exp.DateSub: _shift_days,
}

# Rules whose answer depends on how the engine computes (`Arithmetic`).
ENGINE_DEPENDENT: dict[type[exp.Expression], Callable[[exp.Expression, Analyse, Arithmetic], SortProperty]] = {
    exp.Floor: _rounds,
    exp.Ceil: _rounds,
}

# The arithmetic operators, whose result can overflow.
ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg)


def _numeric_arithmetic(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> bool:
    if not isinstance(node, ARITHMETIC):
        return False
    operands = [node.this] if isinstance(node, exp.Neg) else [node.this, node.expression]
    return all(is_numeric(type_of(operand)) for operand in operands)


# Functions whose value on constant operands is itself constant. Anything unknown
# (user functions, rand(), uuid(), aggregates, windows) is not.
NON_DETERMINISTIC = (exp.Rand, exp.Randn, exp.Uuid, exp.AggFunc, exp.Window, exp.Anonymous,
                     exp.Subquery, exp.Select, exp.Star)


def foldable(node: exp.Expression) -> bool:
    """Whether an expression reads no column and calls only functions whose value on
    constant operands is constant: a literal or a function of literals (`'-'`, `1 + 1`,
    `DATE '2024-01-02'`), which Spark folds to a literal while it plans the query (what its
    analyzer calls `foldable`)."""
    return not any(isinstance(sub, (exp.Column, *NON_DETERMINISTIC)) for sub in node.walk())

# Expressions that produce null only from a null operand: non-null operands give a
# non-null result, when each operand already has the type the function computes on (below).
NULL_PRESERVING = tuple(MONOTONIC) + tuple(ENGINE_DEPENDENT) + (exp.Abs, exp.Upper, exp.Lower, exp.Concat)

# The types each function computes on, by argument. An operand of another type is cast,
# and a cast that fails is NULL where the engine says so (`Arithmetic.failed_cast`: Spark
# without ANSI mode gives NULL for `floor('abc')`, `date_add('x', 1)`, `'abc' + 1`). The
# functions not listed (upper, lower, concat) cast to a string, which never fails; a
# truncation's unit is checked apart (`_known_unit`). A type not known may be a string
# (tests/ordering/test_null_preserving.py has Spark's answers).
TypeTest = Callable[[str | None], bool]
_NUMBER: dict[str, TypeTest] = {"this": is_numeric, "expression": is_numeric, "decimals": is_integer}
_DAYS: dict[str, TypeTest] = {"this": is_temporal, "expression": is_integer}
OPERAND_TYPES: dict[type[exp.Expression], dict[str, TypeTest]] = {
    exp.Floor: _NUMBER, exp.Ceil: _NUMBER, exp.Atan: _NUMBER, exp.Abs: _NUMBER, exp.Neg: _NUMBER,
    exp.Mul: _NUMBER, exp.Div: _NUMBER,
    exp.Year: {"this": is_temporal}, exp.TimestampTrunc: {"this": is_temporal},
    exp.DateTrunc: {"this": is_temporal},
    exp.TsOrDsAdd: _DAYS, exp.DateAdd: _DAYS, exp.DateSub: _DAYS,
}


def _typed_operands(node: exp.Expression, type_of: Callable[[exp.Expression], "str | None"]) -> bool:
    """Whether every operand of `node` has a type its function computes on without a cast."""
    if isinstance(node, (exp.Add, exp.Sub)):
        left, right = type_of(node.this), type_of(node.expression)
        if is_numeric(left) and is_numeric(right):
            return True
        return (is_temporal(left) and _shift(right)) or (
            isinstance(node, exp.Add) and is_temporal(right) and _shift(left)
        )
    wanted = OPERAND_TYPES.get(type(node), {})
    for name, value in node.args.items():
        check = wanted.get(name)
        if check is not None and isinstance(value, exp.Expression) and not check(type_of(value)):
            return False
    return True


def _shift(t: str | None) -> bool:
    """A type Spark adds to a date or timestamp as it is: an interval, or a day count."""
    return t == "interval" or is_integer(t)


def preserves_non_null(
    node: exp.Expression,
    type_of: Callable[[exp.Expression], "str | None"],
    arithmetic: Arithmetic = Arithmetic(),
) -> bool:
    """Whether non-null operands always give a non-null result. A cast or a parse that
    can fail cannot promise it: TRY_CAST('abc' AS INT), and CAST outside ANSI mode, are
    NULL; a widening cast never fails. Where overflow does not fail the query, a division
    (by zero) or a decimal result that does not fit is NULL. Where a failed cast is NULL, a
    function of an operand it must cast (a string, or a type not known) can be NULL; a
    truncation to a unit Spark does not know is NULL."""
    if not _known_unit(node):
        return False
    if arithmetic.failed_cast == "null" and not _typed_operands(node, type_of):
        return False
    if arithmetic.overflow == "wrap" and _numeric_arithmetic(node, type_of):
        return not isinstance(node, exp.Div) and fits(node, type_of)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return is_monotonic_cast(type_of(node.this), type_name(node.args["to"]))
    if isinstance(node, exp.TsOrDsToDate):
        return node.args.get("format") is None and is_temporal(type_of(node.this))
    return isinstance(node, NULL_PRESERVING)


def monotonic_property(
    node: exp.Expression,
    analyse: Analyse,
    arithmetic: Arithmetic = Arithmetic(),
    type_of: Callable[[exp.Expression], "str | None"] | None = None,
) -> SortProperty:
    """How `node` is ordered, from how its operands are (`analyse`). Where the engine's
    arithmetic wraps around on overflow, `+ - * /` and negation keep an order only when
    every value they can reach fits their result type (`type_of` gives the types)."""
    engine_rule = ENGINE_DEPENDENT.get(type(node))
    if engine_rule is not None:
        return engine_rule(node, analyse, arithmetic)
    rule = MONOTONIC.get(type(node))
    if rule is None:
        return UNORDERED
    if arithmetic.overflow == "wrap" and type_of is not None and _numeric_arithmetic(node, type_of):
        if not fits(node, type_of):
            return UNORDERED
    return rule(node, analyse)
