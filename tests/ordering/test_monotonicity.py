"""Every entry of the monotonicity table (sortlint/ordering/monotonicity.py), checked twice.

First the engine's verdict: a column ordered one way, what does `sort_property` say of an
expression over it. Then the values: a sorted sample with ties and NULLs, the function
applied in Python with Spark's semantics (NULL in, NULL out; NaN sorts above every number),
and the result checked to be sorted as the verdict claims. An entry the engine calls
unordered because it is not monotonic comes with a counterexample that is sorted no way.
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from itertools import pairwise

import pytest

from sortlint.ordering import UNORDERED, Expr, Properties, SortKey, SortOptions, SortProperty
from sortlint.engines.datafusion import ARITHMETIC as DATAFUSION
from sortlint.ordering.types import Arithmetic

ASC_NULLS_FIRST = SortOptions(descending=False, nulls_first=True)
ASC_NULLS_LAST = SortOptions(descending=False, nulls_first=False)
DESC_NULLS_FIRST = SortOptions(descending=True, nulls_first=True)
DESC_NULLS_LAST = SortOptions(descending=True, nulls_first=False)
ALL_OPTIONS = (ASC_NULLS_FIRST, ASC_NULLS_LAST, DESC_NULLS_FIRST, DESC_NULLS_LAST)


# --- Spark's order on values, in Python ---------------------------------------------


def rank(value):
    """Spark sorts NaN above every other number (and equal to itself)."""
    if isinstance(value, float) and math.isnan(value):
        return (1, 0.0)
    return (0, value)


def in_order(values: list, options: SortOptions) -> bool:
    """Whether `values` are sorted by `options` (equal neighbours are fine)."""
    for before, after in pairwise(values):
        if before is None or after is None:
            if (before is None) != (after is None) and (after is None) == options.nulls_first:
                return False
            continue
        first, second = rank(before), rank(after)
        if (first < second) if options.descending else (first > second):
            return False
    return True


def sort_values(values: list, options: SortOptions) -> list:
    nulls = [v for v in values if v is None]
    rest = sorted((v for v in values if v is not None), key=rank, reverse=options.descending)
    return nulls + rest if options.nulls_first else rest + nulls


def null_safe(function: Callable) -> Callable:
    return lambda value: None if value is None else function(value)


def verdict(sql: str, types: dict[str, str], options: SortOptions = ASC_NULLS_FIRST) -> SortProperty:
    """The engine's verdict on `sql` when its one column is ordered by `options`."""
    column = Expr.column(next(iter(types)))
    props = Properties(types={Expr.column(c): t for c, t in types.items()})
    return props.with_ordering([SortKey(column, options)]).sort_property(Expr.parse(sql))


# --- sample values -------------------------------------------------------------------

INTS = [None, -7, -1, 0, 0, 3, 3, 12, None, 2147483000]
DECIMALS = [None, Decimal("-2.50"), Decimal("-2.00"), Decimal("0.01"), Decimal("0.01"), Decimal("7.99")]
DOUBLES = [None, -math.inf, -2.5, 0.0, 0.0, 1.5, math.inf, math.nan, math.nan]
TIMESTAMPS = [
    None,
    datetime(2024, 1, 30, 23, 0),
    datetime(2024, 1, 31, 10, 15),
    datetime(2024, 1, 31, 10, 15),
    datetime(2024, 2, 29, 23, 59, 59),
    datetime(2024, 3, 1, 0, 0),
    None,
]
DATES = [None, date(2023, 12, 31), date(2024, 1, 31), date(2024, 1, 31), date(2024, 2, 29)]


def add_months(day: date, months: int) -> date:
    """Spark's add_months: the day of month is clamped to the target month's length."""
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return day.replace(year=year, month=month, day=min(day.day, calendar.monthrange(year, month)[1]))


def bin_minutes(value: datetime, minutes: int) -> datetime:
    """DataFusion's date_bin with the default origin 1970-01-01: the start of the bin."""
    return value - timedelta(minutes=value.minute % minutes, seconds=value.second)


@dataclass(frozen=True)
class Entry:
    sql: str
    column_type: str
    values: list
    function: Callable
    reverses: bool = False

    def __str__(self) -> str:
        return f"{self.sql} [{self.column_type}]"


TABLE = [
    Entry("date_trunc('hour', t)", "timestamp", TIMESTAMPS, lambda v: v.replace(minute=0, second=0)),
    Entry("trunc(d, 'month')", "date", DATES, lambda v: v.replace(day=1)),
    Entry("to_date(t)", "timestamp", TIMESTAMPS, lambda v: v.date()),
    Entry("date(t)", "timestamp", TIMESTAMPS, lambda v: v.date()),
    Entry("CAST(d AS TIMESTAMP)", "date", DATES, lambda v: datetime(v.year, v.month, v.day)),
    Entry("floor(a)", "int", INTS, math.floor),
    Entry("floor(x)", "decimal(10,2)", DECIMALS, math.floor),
    Entry("ceil(x)", "decimal(10,2)", DECIMALS, math.ceil),
    Entry("floor(a / 2)", "int", INTS, lambda v: math.floor(v / 2)),
    Entry("year(t)", "timestamp", TIMESTAMPS, lambda v: v.year),
    Entry("date_bin(INTERVAL '15' MINUTE, t)", "timestamp", TIMESTAMPS, lambda v: bin_minutes(v, 15)),
    Entry("CAST(a AS BIGINT)", "int", INTS, lambda v: v),
    Entry("CAST(a AS DOUBLE)", "int", INTS, float),
    Entry("CAST(a AS DECIMAL(12, 2))", "int", INTS, Decimal),
    Entry("CAST(a AS DECIMAL(10, 0))", "int", INTS, Decimal),
    Entry("CAST(x AS DOUBLE)", "float", DOUBLES, lambda v: v),
    Entry("a + 1", "int", INTS, lambda v: v + 1),
    Entry("1 + a", "int", INTS, lambda v: 1 + v),
    Entry("a - 1", "int", INTS, lambda v: v - 1),
    Entry("x + 1.5", "double", DOUBLES, lambda v: v + 1.5),
    Entry("a * 2", "int", INTS, lambda v: v * 2),
    Entry("2 * a", "int", INTS, lambda v: 2 * v),
    Entry("a * 1.5", "int", INTS, lambda v: v * Decimal("1.5")),
    Entry("x * 2", "double", DOUBLES, lambda v: v * 2),
    Entry("a * -3", "int", INTS, lambda v: v * -3, reverses=True),
    Entry("a / 2", "int", INTS, lambda v: v / 2),
    Entry("x / 4", "decimal(10,2)", DECIMALS, lambda v: v / 4),
    Entry("a / -2", "int", INTS, lambda v: v / -2, reverses=True),
    Entry("-a", "int", INTS, lambda v: -v, reverses=True),
    Entry("-x", "decimal(10,2)", DECIMALS, lambda v: -v, reverses=True),
    Entry("t + INTERVAL 1 DAY", "timestamp", TIMESTAMPS, lambda v: v + timedelta(days=1)),
    Entry("t + INTERVAL 2 HOURS", "timestamp", TIMESTAMPS, lambda v: v + timedelta(hours=2)),
    Entry("t - INTERVAL 30 MINUTES", "timestamp", TIMESTAMPS, lambda v: v - timedelta(minutes=30)),
    Entry("d + INTERVAL 1 MONTH", "date", DATES, lambda v: add_months(v, 1)),
    Entry("d + 3", "date", DATES, lambda v: v + timedelta(days=3)),
    Entry("date_add(d, 3)", "date", DATES, lambda v: v + timedelta(days=3)),
    Entry("date_sub(d, 3)", "date", DATES, lambda v: v - timedelta(days=3)),
    Entry("atan(x)", "double", DOUBLES, math.atan),  # NaN stays NaN, infinities give ±pi/2
    Entry("atan(a)", "int", INTS, math.atan),
]


@pytest.mark.parametrize("entry", TABLE, ids=str)
@pytest.mark.parametrize("options", ALL_OPTIONS, ids=str)
def test_table_entry_keeps_or_reverses_the_order(entry: Entry, options: SortOptions):
    column = next(c for c in ("a", "d", "t", "x") if Expr.column(c) in Expr.parse(entry.sql).columns)
    claimed = verdict(entry.sql, {column: entry.column_type}, options)
    expected = SortProperty(options.reversed() if entry.reverses else options)
    assert claimed == expected
    result = [null_safe(entry.function)(v) for v in sort_values(entry.values, options)]
    assert in_order(result, claimed.options), result


def test_unary_minus_keeps_nulls_where_they_were():
    claimed = verdict("-a", {"a": "int"}, ASC_NULLS_FIRST)
    assert claimed.options == DESC_NULLS_FIRST
    result = [null_safe(lambda v: -v)(v) for v in sort_values(INTS, ASC_NULLS_FIRST)]
    assert result[0] is None and in_order(result, DESC_NULLS_FIRST)
    assert not in_order(result, DESC_NULLS_LAST)


@dataclass(frozen=True)
class NotMonotonic:
    """An expression the engine must call unordered, and ascending inputs it scrambles."""

    sql: str
    column_type: str
    ascending: list
    function: Callable

    def __str__(self) -> str:
        return f"{self.sql} [{self.column_type}]"


def wrap_int(value: int) -> int:
    """Spark's legacy CAST(bigint AS int): the low 32 bits."""
    return (value + 2**31) % 2**32 - 2**31


def decimal_or_null(precision: int, scale: int) -> Callable:
    """TRY_CAST to decimal(p, s): NULL when the value does not fit."""
    limit = Decimal(10) ** (precision - scale)
    return lambda v: None if abs(v) >= limit else Decimal(v).quantize(Decimal(1).scaleb(-scale))


def double_to_int(value: float) -> int:
    """Spark's CAST(double AS int): truncation, NaN becomes 0."""
    return 0 if math.isnan(value) else int(value)


def spark_floor(value: float) -> int:
    """Spark's floor(double) returns a bigint: `Math.floor(NaN).toLong` is 0."""
    return 0 if math.isnan(value) else math.floor(value)


NOT_MONOTONIC = [
    NotMonotonic("CAST(b AS INT)", "bigint", [0, 2**31, 2**31 + 1], wrap_int),
    NotMonotonic("CAST(x AS INT)", "double", [-1.5, 1.5, math.nan], double_to_int),
    NotMonotonic("CAST(a AS STRING)", "int", [9, 10, 11], str),
    NotMonotonic("CAST(a AS DECIMAL(5, 2))", "int", [-1000, 0, 1000], decimal_or_null(5, 2)),
    NotMonotonic("floor(x)", "double", [-1.5, 1.5, math.nan], spark_floor),
    NotMonotonic("ceil(x)", "double", [-1.5, 1.5, math.nan], lambda v: -spark_floor(-v)),
    NotMonotonic("-x", "double", [-1.0, 1.0, math.nan], lambda v: -v),
    NotMonotonic("x * -2", "double", [-1.0, 1.0, math.nan], lambda v: v * -2),
    NotMonotonic("1 - x", "double", [-1.0, 1.0, math.nan], lambda v: 1 - v),
    NotMonotonic(
        "t + INTERVAL 1 MONTH",
        "timestamp",
        [datetime(2024, 1, 30, 23, 0), datetime(2024, 1, 31, 10, 0), datetime(2024, 2, 1, 0, 0)],
        lambda v: datetime.combine(add_months(v.date(), 1), v.time()),
    ),
    NotMonotonic(
        "t - INTERVAL 1 YEAR",
        "timestamp",
        [datetime(2024, 2, 28, 23, 0), datetime(2024, 2, 29, 10, 0), datetime(2024, 3, 1, 0, 0)],
        lambda v: datetime.combine(add_months(v.date(), -12), v.time()),
    ),
]


@pytest.mark.parametrize("entry", NOT_MONOTONIC, ids=str)
def test_non_monotonic_expression_is_unordered(entry: NotMonotonic):
    column = next(iter(Expr.parse(entry.sql).columns)).column_name
    assert verdict(entry.sql, {column: entry.column_type}) == UNORDERED
    result = [entry.function(v) for v in entry.ascending]
    assert not any(in_order(result, options) for options in ALL_OPTIONS), result


def test_unknown_column_type_is_unordered():
    props = Properties().with_ordering([SortKey(Expr.column("z"))])
    for sql in ("floor(z)", "z + 1", "-z", "CAST(z AS BIGINT)", "date_trunc('hour', z)"):
        assert props.sort_property(Expr.parse(sql)) == UNORDERED, sql


def test_date_trunc_of_a_string_is_unordered():
    assert verdict("date_trunc('hour', s)", {"s": "string"}) == UNORDERED
    assert verdict("to_date(s)", {"s": "string"}) == UNORDERED


def test_date_bin_with_a_varying_stride_or_origin_is_unordered():
    types = {"t": "timestamp", "o": "timestamp"}
    assert verdict("date_bin(INTERVAL '1' HOUR, t, o)", types) == UNORDERED
    assert verdict("date_bin(INTERVAL '1' HOUR, t, TIMESTAMP '2024-01-01 00:30:00')", types).ordered


def test_to_date_with_a_format_is_unordered():
    # to_date(s, fmt) parses text: '01/02/2024' < '12/31/2023' as strings, not as dates.
    assert verdict("to_date(s, 'MM/dd/yyyy')", {"s": "string"}) == UNORDERED
    assert verdict("to_date(t, 'yyyy')", {"t": "timestamp"}) == UNORDERED


def two_columns(a_options: SortOptions, b_options: SortOptions) -> Properties:
    """`a` and `b` each ordered on its own (so also together, row by row)."""
    return (
        Properties(types={Expr.column("a"): "int", Expr.column("b"): "int"})
        .with_ordering([SortKey(Expr.column("a"), a_options)])
        .with_ordering([SortKey(Expr.column("b"), b_options)])
    )


def test_sum_of_columns_ordered_the_same_way_is_ordered():
    a = sort_values([None, 1, 1, 4, 9], ASC_NULLS_FIRST)
    b = sort_values([-3, 0, 0, None, 2], ASC_NULLS_FIRST)
    props = two_columns(ASC_NULLS_FIRST, ASC_NULLS_FIRST)
    assert props.sort_property(Expr.parse("a + b")) == SortProperty(ASC_NULLS_FIRST)
    sums = [None if x is None or y is None else x + y for x, y in zip(a, b)]
    assert in_order(sums, ASC_NULLS_FIRST)


def test_difference_of_opposite_orders_is_ordered():
    a = sort_values([None, 1, 1, 4, 9], ASC_NULLS_FIRST)
    b = sort_values([None, -3, 0, 0, 2], DESC_NULLS_FIRST)
    props = two_columns(ASC_NULLS_FIRST, DESC_NULLS_FIRST)
    assert props.sort_property(Expr.parse("a - b")) == SortProperty(ASC_NULLS_FIRST)
    differences = [None if x is None or y is None else x - y for x, y in zip(a, b)]
    assert in_order(differences, ASC_NULLS_FIRST)


def test_sum_of_columns_ordered_in_different_directions_is_unordered():
    a = [1, 2, 30]
    b = [30, 10, 0]  # descending
    props = two_columns(ASC_NULLS_FIRST, DESC_NULLS_LAST)
    assert props.sort_property(Expr.parse("a + b")) == UNORDERED
    assert not any(in_order([x + y for x, y in zip(a, b)], o) for o in ALL_OPTIONS)


def test_sum_of_doubles_is_unordered_because_infinities_add_to_nan():
    props = (
        Properties(types={Expr.column("x"): "double", Expr.column("y"): "double"})
        .with_ordering([SortKey(Expr.column("x"))])
        .with_ordering([SortKey(Expr.column("y"))])
    )
    assert props.sort_property(Expr.parse("x + y")) == UNORDERED
    x, y = [-math.inf, -math.inf, 0.0], [0.0, math.inf, math.inf]  # both ascending
    assert not any(in_order([p + q for p, q in zip(x, y)], o) for o in ALL_OPTIONS)


def test_a_constant_operand_keeps_the_order():
    props = two_columns(ASC_NULLS_FIRST, ASC_NULLS_FIRST)
    props = props.with_constant(Expr.column("b"), Expr.parse("5"))
    assert props.sort_property(Expr.parse("a * 3 + b")) == SortProperty(ASC_NULLS_FIRST)
    assert props.sort_property(Expr.parse("b - a")) == SortProperty(DESC_NULLS_FIRST)
    assert props.sort_property(Expr.parse("a * b")) == UNORDERED  # not a literal factor


# --- arithmetic that wraps around -----------------------------------------------------

# DATAFUSION is the engine's own: Int64 literals, integer division, wrapping integers,
# floor/ceil in the operand's type. Spark without ANSI mode: Spark's literals, wrapping
# integers (and NULL for a decimal that does not fit).
SPARK_LEGACY = Arithmetic(overflow="wrap")
INT_MAX, BIGINT_MAX = 2**31 - 1, 2**63 - 1


def wrap(value: int, bits: int) -> int:
    """Two's complement wrap-around of an integer of `bits` bits, as both engines compute."""
    return (value + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)


def wrapping_verdict(sql: str, column_type: str, arithmetic: Arithmetic) -> SortProperty:
    props = Properties(types={Expr.column("c"): column_type}, arithmetic=arithmetic)
    return props.with_ordering([SortKey(Expr.column("c"))]).sort_property(Expr.parse(sql))


@pytest.mark.parametrize(
    ("sql", "column_type", "arithmetic", "ordered"),
    [
        # DataFusion adds the Int64 literal 1 to an INT as an Int64: it cannot wrap.
        ("c + 1", "int", DATAFUSION, True),
        ("c * 2", "int", DATAFUSION, True),
        ("c / 2", "int", DATAFUSION, True),
        # To a BIGINT it can: 9223372036854775807 + 1 is -9223372036854775808.
        ("c + 1", "bigint", DATAFUSION, False),
        ("c + c", "int", DATAFUSION, False),  # INT + INT is an INT
        ("-c", "int", DATAFUSION, False),  # -(-2147483648) is -2147483648
        ("CAST(c AS BIGINT) + 1", "int", DATAFUSION, True),
        ("c + 1", "decimal(12,2)", DATAFUSION, True),  # decimal(23,2): room for every value
        # Spark without ANSI mode: an INT plus the INT 1 wraps.
        ("c + 1", "int", SPARK_LEGACY, False),
        ("CAST(c AS BIGINT) + 1", "int", SPARK_LEGACY, True),
        ("c * 2", "int", SPARK_LEGACY, False),
        ("c - 1", "smallint", SPARK_LEGACY, True),  # the INT literal widens it to an INT
        ("c + 1", "decimal(12,2)", SPARK_LEGACY, True),
        ("c + 1", "decimal(38,0)", SPARK_LEGACY, False),  # cut to 38 digits: NULL on overflow
        # With ANSI mode an overflow fails the query: every row it returns is in order.
        ("c + 1", "bigint", Arithmetic(), True),
        ("-c", "int", Arithmetic(), True),
    ],
)
def test_arithmetic_keeps_order_only_where_it_cannot_wrap(sql, column_type, arithmetic, ordered):
    assert wrapping_verdict(sql, column_type, arithmetic).ordered is ordered


@pytest.mark.parametrize("sql", ["floor(c)", "ceil(c)"])
@pytest.mark.parametrize("column_type", ["double", "float", "int"])
def test_datafusion_rounds_in_the_operand_type_and_keeps_nan(sql, column_type):
    """DataFusion's floor/ceil of a float is a float of its type, NaN kept (an integer's is a
    double): ordered like the operand, where Spark's (a bigint, NaN becoming 0) is not."""
    assert wrapping_verdict(sql, column_type, DATAFUSION) == SortProperty(ASC_NULLS_FIRST)
    props = Properties(types={Expr.column("c"): column_type}, arithmetic=DATAFUSION)
    assert props.type_of(Expr.parse(sql)) == ("double" if column_type == "int" else column_type)
    expected = SortProperty(ASC_NULLS_FIRST) if column_type == "int" else UNORDERED
    assert wrapping_verdict(sql, column_type, Arithmetic()) == expected


def test_datafusion_floor_and_ceil_keep_the_order_of_floats_on_the_datafusion_package():
    """The values of the test above, computed by DataFusion: floor and ceil of doubles in
    DataFusion's own ascending order (NaN above +inf, -0.0 below 0.0) come in that order."""
    datafusion = pytest.importorskip("datafusion")
    values = "(CAST('NaN' AS DOUBLE)), (CAST('-inf' AS DOUBLE)), (-1.5), (-0.5), (-0.0), (0.0), (0.5), (1.5), " \
             "(CAST('inf' AS DOUBLE)), (NULL)"
    ctx = datafusion.SessionContext()
    ctx.sql(f"CREATE TABLE v AS SELECT column1 AS x FROM (VALUES {values})").collect()
    for function in ("floor", "ceil"):
        in_x_order = ctx.sql(f"SELECT {function}(x) AS r FROM v ORDER BY x ASC NULLS LAST").to_pylist()
        own_order = ctx.sql(f"SELECT {function}(x) AS r FROM v ORDER BY r ASC NULLS LAST").to_pylist()
        assert [str(row["r"]) for row in in_x_order] == [str(row["r"]) for row in own_order], function
        assert str(in_x_order[-2]["r"]) == "nan"


def test_datafusion_atan_never_reorders_doubles_on_the_datafusion_package():
    """Spark's atan is Java's, semi-monotonic by its specification; DataFusion's is the C
    library's, which promises nothing: its values over runs of adjacent doubles around the
    points where fdlibm-style implementations switch formulas, in Float64 and Float32."""
    datafusion = pytest.importorskip("datafusion")
    pa = pytest.importorskip("pyarrow")
    values = set()
    for base in (1e-300, 1e-10, 0.1, 0.4375, 0.6875, 1.0, 1.1875, 2.4375, 1e8, 1e16, 1e300):
        for x in (base, -base):
            for _ in range(500):
                values.add(x)
                x = math.nextafter(x, math.inf)
    ctx = datafusion.SessionContext()
    for name, arrow_type in (("d", pa.float64()), ("f", pa.float32())):
        batch = pa.record_batch({"x": pa.array(sorted(values), arrow_type)})
        ctx.register_record_batches(name, [[batch]])
        result = [row["y"] for row in ctx.sql(f"SELECT atan(x) AS y FROM {name} ORDER BY x").to_pylist()]
        assert all(a <= b for a, b in pairwise(result)), name


def test_the_wrapping_counterexamples():
    # The values the engines compute (measured on the datafusion package: 2147483647 + 2147483647
    # is -2, 9223372036854775807 + 1 is -9223372036854775808), sorted before and not after.
    assert [wrap(c + 1, 64) for c in (0, BIGINT_MAX)] == [1, -(2**63)]
    assert [wrap(c + c, 32) for c in (0, INT_MAX)] == [0, -2]
    assert [wrap(-c, 32) for c in (-(2**31), 0)] == [-(2**31), 0]  # still ascending...
    assert [wrap(-c, 32) for c in (-(2**31), 5)] == [-(2**31), -5]  # ...but not descending


@pytest.mark.parametrize(
    ("written", "name"),
    [("decimal(10, 2)", "decimal(10, 2)"), ("struct<A: int>", "struct<a: int>"), ("struct<`A`: int>", "struct<`a`: int>")],
)
def test_a_type_is_named_as_spark_prints_it_each_time_it_is_asked(written, name):
    # Printed once per type and remembered; a struct's field keeps its quotes.
    from sqlglot import exp

    from sortlint.ordering.monotonicity import type_name

    data_type = exp.DataType.build(written, dialect="spark")
    assert type_name(data_type) == type_name(data_type.copy()) == name
