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

from sortlint.engines import operators
from sortlint.engines.analysis import Analysis, Transfer
from sortlint.ordering import Properties, SortKey, SortOptions
from sortlint.plan import nodes as n


def window(node: n.Window, analysis: Analysis) -> Properties:
    props = operators.input_of(node, analysis)
    for function in node.functions:
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
    # GenerateExec maps each partition's rows in order (it reports no ordering to the
    # planner, but the rows keep theirs: tests/engines/test_spark_generate.py).
    n.Generate: partial(operators.generate, keeps_order=True),
}
