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
from sortlint.engines.analysis import AggregateStrategy, Analysis, Engine, Transfer
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


def aggregate(node: n.Aggregate, analysis: Analysis) -> Properties:
    """A GROUP BY streams on whatever keys its input is ordered by, in any key order
    (`ordering_mode=Sorted` / `PartiallySorted`), and emits its groups in that order."""
    props = operators.aggregate(node, analysis, streaming_keeps_order=True)
    permutation = analysis.permutation(node)
    ordered = permutation.indices if node.keys and not node.grouping_sets else ()
    analysis.strategies[id(node)] = AggregateStrategy(
        mode=permutation.mode,
        streams=bool(ordered) and len(ordered) == len(node.keys),
        partially_ordered=ordered if len(ordered) < len(node.keys) else (),
        input_ordering=permutation.keys,
        evidence=permutation.evidence,
    )
    return props


TRANSFER: dict[type, Transfer] = {
    **operators.SHARED,
    # A streaming aggregate emits its groups in its input's order.
    n.Aggregate: aggregate,
    n.Distinct: partial(operators.distinct, streaming_keeps_order=True),
    n.SetOp: partial(operators.set_operation, keeps_order=_union_all),
    n.Join: join,
    n.Window: window,
    # An unnest is not promised to keep the order of its input.
    n.Generate: partial(operators.generate, keeps_order=False),
}

ENGINE = Engine(TRANSFER)
