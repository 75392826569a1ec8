"""Spark's model: what its planner does to the order and the facts of rows.

* A shuffle reorders rows. Every operator that shuffles - a join, an aggregate, DISTINCT, a
  set operation, a repartition - emits its rows in no known order, and a hash aggregate
  emits in no order either, so none of them keeps an ordering.
* Only Spark's own sorts produce order: ORDER BY, SORT BY (inside each partition), and a
  window, which shuffles by its partition keys and sorts each partition by them and its
  ORDER BY - so after a window the rows are ordered that way within partitions of its keys.
  Of several windows of one SELECT, the one whose function is written last is taken to run
  last: its ordering replaces the others'.
* A file scan knows nothing of the catalog: a declared ordering holds only while the table
  really is stored so, which the evidence records (`declared`, not `enforced`).

Everything else is shared with DataFusion (`sortlint.engines.operators`).
"""

from __future__ import annotations

from functools import partial

from sortlint.config.model import SparkSettings
from sortlint.engines import operators
from sortlint.engines.analysis import Analysis, Transfer
from sortlint.engines.comparisons import Semantics, Side
from sortlint.ordering import types
from sortlint.ordering.types import SqlType
from sortlint.ordering import Properties, SortKey, SortOptions
from sortlint.plan import nodes as n


def window(node: n.Window, analysis: Analysis) -> Properties:
    props = operators.input_of(node, analysis)
    for function in analysis.computed(node):
        props = _window_function(props, function, analysis)
    return props


def _window_function(props: Properties, function: n.WindowFunction, analysis: Analysis) -> Properties:
    """Every window shuffles by its partition keys and sorts each partition."""
    partition = [key.expr for key in function.partition_by]
    order = [SortKey(item.expr, item.options) for item in function.order_by]
    evidence = operators.query_evidence(analysis, "window ORDER BY", function.order_span or function.span)
    requirement = [SortKey(e, SortOptions.spark()) for e in partition] + order
    if partition:
        props = props.without_orderings().with_ordering(requirement, [evidence], partition)
    elif order:
        props = props.sorted_by(order, [evidence])
    if function.ranking and order and not partition:
        # row_number/rank/dense_rank grow along the window's order.
        props = operators.ranked(props, function, [], [evidence])
    return props


TRANSFER: dict[type, Transfer] = {
    **operators.SHARED,
    # They shuffle, and a hash aggregate emits in no order: no ordering survives.
    n.Aggregate: partial(operators.aggregate, streaming_keeps_order=False),
    n.Distinct: partial(operators.distinct, streaming_keeps_order=False),
    n.SetOp: partial(operators.set_operation, keeps_order=lambda node: False),
    n.Join: operators.join,
    n.Window: window,
}


# --- comparisons and arithmetic ----------------------------------------------------------
#
# How Spark types the two sides of `a = b` (`TypeCoercion` / `AnsiTypeCoercion`: PromoteStrings,
# DecimalPrecision, findTightestCommonType), measured on Spark 4.3's analyzed plans in
# tests/engines/test_spark_facts.py and tests/engines/test_coercion_facts.py:
#
# * numbers: the wider integer; an integer and a decimal as the decimal both fit in (a literal
#   as the decimal of its digits, a column as decimal(10,0) for an int); any float or double
#   makes both doubles;
# * a string and a number: with ANSI mode both become bigints (an integer) or doubles; without
#   it, the string becomes the number's type - either way the string side is cast, so
#   `sn = 1` holds for '1', '01' and ' 1' (without ANSI mode an integer and a float are
#   compared as floats; a decimal's rules against a string are not modelled: no fact);
# * a string and a date, timestamp or boolean: the string is cast to that type;
# * a date and a timestamp: the date becomes the timestamp at its midnight; a timestamp_ntz
#   and a timestamp: the timestamp_ntz is cast.


def comparison(left: Side, right: Side, ansi: bool) -> tuple[SqlType, SqlType] | None:
    """The types Spark compares `left` and `right` as."""
    a, b = left.type, right.type
    if a is None or b is None:
        return None
    if a == b:
        return a, b
    if b.family == "string":
        found = comparison(right, left, ansi)
        return (found[1], found[0]) if found is not None else None
    if a.family == "string":
        if b.family == "integer":
            common = types.BIGINT if ansi else b
        elif b.family == "floating":
            common = types.DOUBLE if ansi else b
        elif b.family == "decimal" and ansi:
            common = types.DOUBLE
        elif b.family in ("date", "timestamp", "timestamp_ntz", "boolean"):
            common = b
        else:
            return None  # without ANSI mode a decimal's rules are not modelled: no fact
        return common, common
    shared = _common_type(left, right, ansi)
    return (shared, shared) if shared is not None else None


def _common_type(left: Side, right: Side, ansi: bool) -> SqlType | None:
    a, b = left.type, right.type
    assert a is not None and b is not None
    kinds = {a.family, b.family}
    if kinds == {"integer"}:
        return a if a.bits >= b.bits else b
    if kinds <= {"integer", "decimal"}:
        da, db = _decimal_side(left), _decimal_side(right)
        return types.wider_decimal(da, db) if da is not None and db is not None else None
    if kinds == {"integer", "floating"} and not ansi:
        return a if a.family == "floating" else b  # a float stays a float
    if kinds <= {"integer", "decimal", "floating"}:
        return types.DOUBLE
    if kinds == {"date", "timestamp"} or kinds == {"timestamp", "timestamp_ntz"}:
        return types.TIMESTAMP
    if kinds == {"date", "timestamp_ntz"}:
        return b if b.family == "timestamp_ntz" else a
    return None


def _decimal_side(side: Side) -> SqlType | None:
    """The decimal Spark reads a side of a decimal comparison as: an integer literal as the
    decimal of its digits, an integer column as the decimal its type needs."""
    value = side.integer_value()
    if value is not None and side.type is not None and side.type.family == "integer":
        return types.decimal(max(len(str(abs(value))), 1))
    return types.as_decimal(side.type) if side.type is not None else None


def semantics(settings: SparkSettings) -> Semantics:
    """Spark's arithmetic and comparisons under the session's settings: with ANSI mode
    (`spark.sql.ansi.enabled`, on by default since 4.0) an integer or decimal overflow fails
    the query; without it integers wrap around and decimals turn NULL."""
    arithmetic = types.Arithmetic(overflow="error" if settings.ansi else "wrap")
    return Semantics(arithmetic, partial(comparison, ansi=settings.ansi))
