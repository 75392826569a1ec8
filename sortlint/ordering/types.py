"""SQL types, where they change a conclusion: which values a type holds, which casts keep
values apart and in order, and how an engine types literals and computes numbers.

A type is written as the catalog writes it, lower case (`int`, `decimal(12,2)`, `timestamp`);
`sql_type` reads it into a `SqlType`, or None for a type sortlint does not model (a collated
or padded string, an interval, a struct, an unsigned integer): a fact that needs a type it
does not model is not made.

`Arithmetic` holds what differs between engines: how a literal is typed, whether `/` on
integers stays an integer, and whether integer overflow raises or wraps around. Each target
gives its own (`sortlint.engines.spark`, `sortlint.engines.datafusion`); the ordering engine
only reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from sqlglot import exp

Family = Literal[
    "integer", "decimal", "floating", "string", "boolean", "date", "timestamp", "timestamp_ntz"
]

# Magnitude bits of each integer type: its values are -2**bits .. 2**bits - 1.
INTEGER_BITS = {"tinyint": 7, "byte": 7, "smallint": 15, "short": 15, "int": 31, "integer": 31,
                "bigint": 63, "long": 63}
# Decimal digits an integer type's values have, and the decimal engines read the type as
# (Spark and DataFusion alike: an int is a decimal(10,0), a bigint a decimal(20,0)).
INTEGER_DIGITS = {7: 3, 15: 5, 31: 10, 63: 19}
INTEGER_AS_DECIMAL = {7: 3, 15: 5, 31: 10, 63: 20}
# Significand bits of the floating types: an integer of at most that many bits is exact.
FLOATING_BITS = {"float": 24, "real": 24, "double": 53, "double precision": 53}
STRINGS = {"string", "text", "varchar"}
MAX_PRECISION = 38

_DECIMAL = re.compile(r"(?:decimal|numeric|dec)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?")
_VARCHAR = re.compile(r"varchar\s*\(\s*\d+\s*\)")


@dataclass(frozen=True)
class SqlType:
    family: Family
    bits: int = 0  # integers: magnitude bits; floating: significand bits
    precision: int = 0  # decimals
    scale: int = 0

    @property
    def name(self) -> str:
        """The canonical Spark SQL name."""
        if self.family == "integer":
            return {7: "tinyint", 15: "smallint", 31: "int", 63: "bigint"}[self.bits]
        if self.family == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.family == "floating":
            return "float" if self.bits == 24 else "double"
        return self.family

    @property
    def integer_digits(self) -> int:
        """Digits before the decimal point a value can have (integers and decimals)."""
        if self.family == "integer":
            return INTEGER_DIGITS[self.bits]
        return self.precision - self.scale

    def __str__(self) -> str:
        return self.name


def integer(bits: int) -> SqlType:
    return SqlType("integer", bits)


def decimal(precision: int, scale: int = 0) -> SqlType:
    return SqlType("decimal", precision=precision, scale=scale)


DOUBLE = SqlType("floating", 53)
BIGINT = integer(63)
INT = integer(31)
STRING = SqlType("string")
DATE = SqlType("date")
TIMESTAMP = SqlType("timestamp")


@cache
def sql_type(text: str | None) -> SqlType | None:
    """The type a declared type name stands for; None when unknown or not modelled."""
    if text is None:
        return None
    name = " ".join(text.lower().split())
    if name in INTEGER_BITS:
        return integer(INTEGER_BITS[name])
    if name in FLOATING_BITS:
        return SqlType("floating", FLOATING_BITS[name])
    if name in STRINGS or _VARCHAR.fullmatch(name):
        return STRING
    if name in ("boolean", "bool"):
        return SqlType("boolean")
    if name == "date":
        return DATE
    if name in ("timestamp", "timestamp_ltz"):
        return TIMESTAMP
    if name == "timestamp_ntz":
        return SqlType("timestamp_ntz")
    match = _DECIMAL.fullmatch(name)
    if match:
        precision = int(match.group(1) or 10)
        scale = int(match.group(2) or 0)
        if 0 < precision <= MAX_PRECISION and 0 <= scale <= precision:
            return decimal(precision, scale)
    return None


def as_decimal(t: SqlType) -> SqlType | None:
    """The decimal an integer or decimal is compared and computed as."""
    if t.family == "decimal":
        return t
    if t.family == "integer":
        return decimal(INTEGER_AS_DECIMAL[t.bits])
    return None


def wider_decimal(left: SqlType, right: SqlType) -> SqlType | None:
    """The decimal both sides fit in without losing a digit; None beyond 38 digits."""
    scale = max(left.scale, right.scale)
    precision = max(left.integer_digits, right.integer_digits) + scale
    return decimal(precision, scale) if precision <= MAX_PRECISION else None


def exact_cast(source: SqlType, target: SqlType) -> bool:
    """A cast that keeps distinct values distinct and in order: comparing the cast values is
    comparing the values. Widening integers and decimals, integers into a decimal or a float
    wide enough, float to double, a date to a timestamp (its midnight), and decimals of at
    most 15 digits to a double."""
    if source == target:
        return True
    kinds = (source.family, target.family)
    if kinds == ("integer", "integer"):
        return target.bits >= source.bits
    if kinds in (("integer", "decimal"), ("decimal", "decimal")):
        return target.integer_digits >= source.integer_digits and target.scale >= source.scale
    if kinds == ("integer", "floating"):
        return source.bits <= target.bits
    if kinds == ("floating", "floating"):
        return target.bits >= source.bits
    if kinds == ("decimal", "floating"):
        return target.bits == 53 and source.precision <= 15
    return kinds in (("date", "timestamp"), ("date", "timestamp_ntz"))


# --- literals -------------------------------------------------------------------------------

_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?")


def typed_literal(value: exp.Expression, value_type: str | None, column_type: SqlType) -> str:
    """SQL text of a constant `value` (of type `value_type`) as a value of `column_type`: as
    written when it already is one, a typed literal for a date or timestamp string, else a
    CAST of the literal (`CAST(2.5 AS DECIMAL(12,2))`)."""
    if isinstance(value, exp.Cast) and isinstance(value.this, (exp.Literal, exp.Null)):
        value, value_type = value.this, None  # the literal an implicit cast typed
    if sql_type(value_type) == column_type:
        return value.sql(dialect="spark")
    if isinstance(value, exp.Literal) and value.is_string:
        if column_type == DATE and _DATE_TEXT.fullmatch(value.this):
            return f"DATE '{value.this}'"
        if column_type == TIMESTAMP and _TIMESTAMP_TEXT.fullmatch(value.this):
            return f"TIMESTAMP '{value.this}'"
    return f"CAST({value.sql(dialect='spark')} AS {column_type.name.upper()})"


def shows_values_when_grouped(t: SqlType | None) -> bool:
    """Whether a GROUP BY key of this type shows each group's value as the rows hold it, so
    that any row's value is the key's: not for floats (a group shows -0.0 as 0.0), nor for
    a type not modelled."""
    return t is not None and t.family != "floating"


# --- arithmetic -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Arithmetic:
    """How an engine types literals and computes `+ - * /` on numbers, where an order
    depends on it. The defaults are Spark's with ANSI mode (its default since 4.0).

    * `integer_literals`: "narrowest" - `1` is an int, a larger one a bigint (Spark); "bigint"
      - every integer literal is a bigint (DataFusion's Int64).
    * `fractional_literals`: "decimal" - `2.5` is a decimal(2,1) (Spark); "double" (DataFusion).
    * `integer_division`: `7 / 2` is 3, an integer (DataFusion), not 3.5 (Spark).
    * `overflow`: "error" - an integer or decimal result out of range fails the query (Spark
      with ANSI mode); "wrap" - it wraps around (or turns NULL), so `+ - *` keep order only
      where the result type is wide enough for every value they can reach.
    * `rounding`: what `floor` / `ceil` give. "bigint" - a bigint, of a floating-point
      number too, NaN becoming 0 (Spark); "in_type" - a number of the operand's type (an
      integer's a double), NaN and infinities kept as they are (DataFusion: its NaN sorts
      above every number, so `ceil(x)` keeps x's order, NaN included).
    * `failed_cast`: what an operand cast to the type a function computes on gives when the
      cast fails (`floor('abc')`, `date_add('x', 1)`): "error" - the query fails (Spark with
      ANSI mode, DataFusion); "null" - NULL (Spark without ANSI mode), so a function of a
      non-null string can be NULL.
    """

    integer_literals: Literal["narrowest", "bigint"] = "narrowest"
    fractional_literals: Literal["decimal", "double"] = "decimal"
    integer_division: bool = False
    overflow: Literal["error", "wrap"] = "error"
    rounding: Literal["bigint", "in_type"] = "bigint"
    failed_cast: Literal["error", "null"] = "error"

    def literal_type(self, literal: exp.Literal) -> SqlType | None:
        """The type of a number or string literal."""
        if literal.is_string:
            return STRING
        text = literal.this
        if re.fullmatch(r"\d+", text):
            value = int(text)
            if self.integer_literals == "bigint":
                return BIGINT if value < 2**63 else DOUBLE if self.fractional_literals == "double" else None
            if value < 2**31:
                return INT
            if value < 2**63:
                return BIGINT
            return decimal(len(text)) if len(text) <= MAX_PRECISION else None
        match = re.fullmatch(r"(\d*)\.(\d*)", text)
        if match and self.fractional_literals == "decimal":
            whole, fraction = match.group(1).lstrip("0"), match.group(2)
            precision = max(len(whole) + len(fraction), len(fraction), 1)
            return decimal(precision, len(fraction)) if precision <= MAX_PRECISION else None
        return DOUBLE

    def result_type(self, node: exp.Expression, left: SqlType, right: SqlType) -> SqlType | None:
        """The type of `left op right` for a numeric `+ - * /`; None when not known."""
        kinds = {left.family, right.family}
        if not kinds <= {"integer", "decimal", "floating"}:
            return None
        if "floating" in kinds:
            return DOUBLE if DOUBLE in (left, right) or kinds != {"floating"} else left
        if kinds == {"integer"}:
            if isinstance(node, exp.Div) and not self.integer_division:
                return DOUBLE
            return left if left.bits >= right.bits else right
        if isinstance(node, exp.Div):
            return None  # a decimal quotient's scale follows rules not modelled here
        a, b = as_decimal(left), as_decimal(right)
        assert a is not None and b is not None
        if isinstance(node, exp.Mul):
            precision, scale = a.precision + b.precision + 1, a.scale + b.scale
        else:
            scale = max(a.scale, b.scale)
            precision = max(a.integer_digits, b.integer_digits) + scale + 1
        if precision > MAX_PRECISION:
            return None  # the engine narrows it, and a result may not fit
        return decimal(precision, scale)
