"""DataFusion's model, as the seed documents describe it: a declared order is read in order
(`WITH ORDER` is known to the engine), and operators that keep order keep it.

* An aggregate or DISTINCT whose input is ordered on some of its keys streams
  (`ordering_mode=Sorted` / `PartiallySorted`) and emits its groups in that order.
* UNION ALL passes every input partition through unchanged: an order all branches share
  holds in each partition, and a sort-preserving merge (no sort) makes it global. UNION
  (distinct) aggregates, INTERSECT / EXCEPT join: no order is kept.
* A hash join collects its left (build) input and streams the right (probe) one through it.
* Windows run without a sort when their input fits them, as below.

Everything else is shared with Spark (`sortlint.engines.operators`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from sqlglot import exp

from sortlint.engines import operators
from sortlint.engines.analysis import Analysis, Transfer
from sortlint.engines.comparisons import Semantics, Side
from sortlint.ordering import types
from sortlint.ordering.types import SqlType
from sortlint.ordering import Evidence, Expr, Properties, SortKey, SortOptions
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import is_aggregate, unwrap


def _union_all(node: n.SetOp) -> bool:
    return node.kind == "union" and not node.distinct


def join(node: n.Join, analysis: Analysis) -> Properties:
    props = operators.join(node, analysis)
    if node.kind in ("inner", "right"):
        # DataFusion's hash join (and nested-loop join) collects the left input and streams
        # the right one through it: output rows come in the right (probe) side's order for
        # INNER and RIGHT joins. The left side's order is lost; appending it to the probe
        # side's order is valid only when a probe row meets at most one build row, which
        # is not known here. A CROSS JOIN keeps no order.
        for fact in analysis.of(node.children[1]).orderings:
            props = props.with_ordering(fact.keys, fact.evidence, fact.partitioned_by)
    return props


# --- windows ----------------------------------------------------------------------------
#
# DataFusion plans one window operator per distinct (PARTITION BY, ORDER BY) of a SELECT,
# each keeping its input's order. Its sort enforcement (`get_best_fitting_window`) runs a
# window without a sort when the input is ordered by some permutation of all the partition
# keys followed, inside each partition, by the window's ORDER BY - or by that ORDER BY
# reversed, when every function of the window can be computed backwards (aggregates,
# first/last/nth_value, lag/lead: DataFusion flips their frames). Otherwise it sorts on
# the partition keys (ASC NULLS LAST; in the order the input already has them when it has
# them all, else as written) and then the ORDER BY. On an unbounded input DataFusion may
# also run a window over partially ordered partition keys (`Linear`, `PartiallySorted`);
# sortlint does not know boundedness and models the bounded case.


@dataclass
class _WindowGroup:
    partition: tuple[Expr, ...]
    order: tuple[SortKey, ...]
    functions: list[n.WindowFunction]
    evidence: Evidence


def _window_groups(node: n.Window, analysis: Analysis) -> list[_WindowGroup]:
    groups: dict[tuple, _WindowGroup] = {}
    for function in node.functions:
        partition = tuple(key.expr for key in function.partition_by)
        order = tuple(SortKey(item.expr, item.options) for item in function.order_by)
        group = groups.get((partition, order))
        if group is None:
            evidence = operators.query_evidence(analysis, "window", function.span)
            group = groups[(partition, order)] = _WindowGroup(partition, order, [], evidence)
        group.functions.append(function)
    return list(groups.values())


def _runs_on(props: Properties, group: _WindowGroup) -> bool | None:
    """Whether DataFusion runs the window on these rows without sorting them; None when that
    depends on whether it can reverse a function sortlint does not know."""
    if group.partition:
        permutation = props.ordered_permutation(group.partition)
        if len(permutation.indices) != len(group.partition):
            return False
    if props.satisfies(group.order, within=group.partition):
        return True
    backwards = [
        SortKey(k.expr, SortOptions(not k.options.descending, not k.options.nulls_first))
        for k in group.order
    ]
    if not group.order or not props.satisfies(backwards, within=group.partition):
        return False
    if all(_reversible(f) for f in group.functions):
        return True
    return None


# Functions DataFusion computes over the reversed order (`reverse_expr`): order-insensitive
# aggregates as they are, first/last_value, nth_value and lag/lead with flipped frames.
# Whether it reverses any other (ranking functions included) is not known here.
REVERSIBLE = (
    exp.Sum, exp.Count, exp.Min, exp.Max, exp.Avg,
    exp.FirstValue, exp.LastValue, exp.NthValue, exp.Lag, exp.Lead,
)


def _reversible(function: n.WindowFunction) -> bool:
    call = unwrap(function.expr.node.this)
    return not function.ranking and isinstance(call, REVERSIBLE)


def _window_sort(props: Properties, group: _WindowGroup) -> list[SortKey]:
    """The keys of the sort DataFusion puts under a window whose input does not fit it."""
    partition = list(group.partition)
    permutation = props.ordered_permutation(partition)
    if partition and len(permutation.indices) == len(partition):
        partition = [partition[i] for i in permutation.indices]
    keys = [SortKey(e, SortOptions.datafusion()) for e in partition]
    return keys + [k for k in group.order if k.expr not in group.partition]


def window(node: n.Window, analysis: Analysis) -> Properties:
    props = operators.input_of(node, analysis)
    groups = _window_groups(node, analysis)
    fits = [_runs_on(props, g) for g in groups]
    unfit = [g for g, fit in zip(groups, fits) if fit is False]
    # The groups whose functions see the rows in the order the operator emits them.
    last: list[_WindowGroup] = []
    if None in fits:
        out = props.without_orderings()  # sorted or not: not known
    elif not unfit:
        out, last = props, groups
    elif len(unfit) == 1:
        # One sort: the final order is its order wherever DataFusion stacks the group,
        # provided every other group runs on the sorted rows as well.
        sorted_ = props.sorted_by(_window_sort(props, unfit[0]), [unfit[0].evidence])
        if all(_runs_on(sorted_, g) is True for g in groups if g is not unfit[0]):
            out, last = sorted_, unfit
        else:
            out = props.without_orderings()
    else:
        out = props.without_orderings()  # several sorts, stacked in an order not modelled
    for group in groups:
        for function in group.functions:
            out = _window_facts(out, group, function, group in last)
    return out


def _window_facts(
    props: Properties, group: _WindowGroup, function: n.WindowFunction, in_order: bool
) -> Properties:
    """What a window function's values tell about the rows (DataFusion's
    `window_equivalence_properties`)."""
    evidence = [group.evidence]
    partition = list(group.partition)
    keys: list[SortKey] | None = []
    if partition:
        permutation = props.ordered_permutation(partition)
        keys = list(permutation.keys) if len(permutation.indices) == len(partition) else None
    if function.ranking and in_order and keys is not None:
        # row_number/rank/dense_rank grow through each partition in the order rows come.
        return operators.ranked(props, function, keys, evidence)
    if is_aggregate(unwrap(function.expr.node.this)) and _whole_partition(function):
        # Every row of a partition sees the same frame, so the same value.
        if not partition:
            return props.with_constant(function.expr, None, evidence)
        if keys is not None:
            for descending in (False, True):
                for nulls_first in (False, True):
                    value = SortKey(function.expr, SortOptions(descending, nulls_first))
                    props = props.with_ordering([*keys, value], evidence)
    return props


def _whole_partition(function: n.WindowFunction) -> bool:
    """The frame is the whole partition: no ORDER BY and no frame, or a frame unbounded on
    both sides."""
    spec = function.expr.node.args.get("spec")
    if spec is None:
        return not function.order_by

    def bound(name: str) -> str:
        return str(spec.args.get(name) or "").upper()

    return (bound("start"), bound("start_side"), bound("end"), bound("end_side")) == (
        "UNBOUNDED", "PRECEDING", "UNBOUNDED", "FOLLOWING",
    )


TRANSFER: dict[type, Transfer] = {
    **operators.SHARED,
    # A streaming aggregate emits its groups in its input's order.
    n.Aggregate: partial(operators.aggregate, streaming_keeps_order=True),
    n.Distinct: partial(operators.distinct, streaming_keeps_order=True),
    n.SetOp: partial(operators.set_operation, keeps_order=_union_all),
    n.Join: join,
    n.Window: window,
}


# --- comparisons and arithmetic ----------------------------------------------------------
#
# DataFusion's type coercion (`comparison_coercion`), then its optimizer's
# `unwrap_cast_in_comparison`, as the `datafusion` package's logical plans show them
# (tests/engines/test_coercion_facts.py):
#
# * a literal is cast to the other side's type when it fits it: `i = 1` on an INT compares
#   INTs (the literal 1 is an Int64), `d = '2024-01-02'` compares dates, `m = 2.5` decimals;
# * integers: the wider one; an integer and a decimal: the decimal both fit in; an integer
#   and a float: the float's type; a decimal and a float: decimal(30,15);
# * a string column and a number: the string is cast to the number's type;
# * a date and a timestamp: both timestamps.
#
# Every integer literal is an Int64 and every fractional one a Float64; integer `/` is
# integer division; integer arithmetic wraps around on overflow (decimals do not fail
# either), so `c + 1` keeps order on an INT (computed as an Int64) but not on a BIGINT.
# -0.0 and 0.0 compare equal but sort apart: a floating-point equality gives no fact.

ARITHMETIC = types.Arithmetic(
    integer_literals="bigint", fractional_literals="double", integer_division=True, overflow="wrap"
)


def comparison(left: Side, right: Side) -> tuple[SqlType, SqlType] | None:
    """The types DataFusion compares `left` and `right` as."""
    a, b = left.type, right.type
    if a is None or b is None:
        return None
    if a == b:
        return a, b
    for literal, other in ((left, right), (right, left)):
        if literal.literal and not other.literal and other.type is not None and _fits(literal, other.type):
            return other.type, other.type
    if "string" in (a.family, b.family):
        other = b if a.family == "string" else a
        return (other, other) if other.family != "string" else (a, b)
    kinds = {a.family, b.family}
    if kinds == {"integer"}:
        common = a if a.bits >= b.bits else b
    elif kinds == {"integer", "decimal"} or kinds == {"decimal"}:
        da, db = types.as_decimal(a), types.as_decimal(b)
        assert da is not None and db is not None
        common = types.wider_decimal(da, db)
    elif kinds == {"integer", "floating"}:
        common = a if a.family == "floating" else b
    elif kinds == {"decimal", "floating"}:
        common = types.decimal(30, 15)
    elif kinds == {"floating"}:
        common = types.DOUBLE
    elif kinds == {"date", "timestamp"}:
        common = types.TIMESTAMP
    else:
        return None
    return (common, common) if common is not None else None


def _fits(literal: Side, target: SqlType) -> bool:
    """Whether DataFusion casts the literal to `target` (a string literal always is; a number
    when its value is one of the type's)."""
    if literal.type is None:
        return False
    if literal.type.family == "string":
        return True
    value = literal.integer_value()
    if value is not None and target.family == "integer":
        return -(2**target.bits) <= value < 2**target.bits
    if value is not None and target.family == "decimal":
        return len(str(abs(value))) <= target.integer_digits
    return False


SEMANTICS = Semantics(ARITHMETIC, comparison, equal_floats_sort_together=False)
