"""SL002 sort-without-effect

## What it does
Reports a sort (with no LIMIT or OFFSET after it) whose consumer throws the order away: a
join, an aggregate of order-insensitive functions, a set operation, DISTINCT, a shuffle,
a window that sorts its rows by its own keys, a later sort that overrides it, a subquery
used in a predicate, or a write that sorts the rows itself (a bucketed table). With two
sorts of the same rows it is the inner one that is reported: the outer one is the order
the query guarantees.

It stays quiet for a sort that feeds any other write (it shapes the written files), a
window that runs on the order it gives, an order-sensitive aggregate (`first`, `last`,
`collect_list`, and `sum`/`avg` of floating-point or untyped values, whose rounding depends
on the order of addition), or the final result.

## Why it matters
The sort is paid for and its work is discarded by the next operator - or it is not paid
for at all, and only misleads the reader. Under `target: spark` the message says which:
"Spark removes this sort itself" where Spark's optimizer drops it (`EliminateSorts`: under
another sort, a join, an order-insensitive aggregate, DISTINCT, INTERSECT / EXCEPT, a
predicate subquery, a keyed repartition, a bucketed write), "Spark runs this sort: a
shuffle of every row and a sort" where it does not (under UNION ALL, a window, a round
robin repartition, an aggregate Spark does not know to ignore order).

## Example
```sql
SELECT o.id, c.name
FROM (SELECT * FROM orders ORDER BY created_at) o   -- SL002: a join does not keep order
JOIN customers c ON o.customer_id = c.id
```

## Fix safety
Removing the sort is safe: the consumer's result does not depend on the order of its
input, whatever the tables hold.
"""

from __future__ import annotations

from collections.abc import Iterator

from sortlint.diagnostics import Finding
from sortlint.linter.context import Context
from sortlint.linter.rules.sl001_unnecessary_sort import unnecessary
from sortlint.ordering.monotonicity import FLOATING
from sortlint.plan import nodes as n

CODE = "SL002"
NAME = "sort-without-effect"

# Sorts whose removal leaves everything else as it is (DataFrame calls included).
REMOVABLE = ("ORDER BY", "SORT BY", "orderBy", "sort", "sortWithinPartitions")

DISCARDS = {
    n.Join: "a join, which does not keep the order of its inputs",
    n.SetOp: "a set operation, which does not keep the order of its inputs",
    n.Distinct: "DISTINCT, which does not keep the order of its input",
    n.Repartition: "a repartition, which shuffles rows",
    n.Subquery: "a subquery predicate, which does not depend on row order",
}


def check(node: n.Node, context: Context) -> Iterator[Finding]:
    if not isinstance(node, n.Sort) or node.span is None:
        return
    consumer = context.consumer(node)
    reason = _discarded_by(consumer, node, context)
    if reason is None:
        return
    fix = None
    if node.clause in REMOVABLE:  # CLUSTER BY also distributes rows
        fix = context.fix(f"remove the {node.clause}", lambda: context.fixes.remove_sort(context, node))
    message = f"{node.clause} has no effect: its rows feed {reason}"
    fate = context.analysis.sort_fate(node)
    if fate is not None:
        message += f". {fate.text}"
    yield context.finding(CODE, NAME, node.span, message, (), fix)


def _depends_on_order(call: n.AggregateCall, aggregate: n.Aggregate, context: Context) -> bool:
    """Order-sensitive functions, and sums or averages of floating-point values (their
    addition is not associative, as Spark's own EliminateSorts assumes) or of values whose
    type is not known."""
    if call.order_sensitive:
        return True
    if not call.arithmetic:
        return False
    operands = call.expr.children
    types = [context.input_of(aggregate).type_of(operand) for operand in operands]
    return any(t is None or t in FLOATING for t in types)


def _discarded_by(consumer: n.Node | None, sort: n.Sort, context: Context) -> str | None:
    if consumer is None:
        return None
    for kind, reason in DISCARDS.items():
        if isinstance(consumer, kind):
            return reason
    if isinstance(consumer, n.Window) and context.analysis.window_resorts(consumer):
        return "a window, which shuffles and sorts its rows by its own keys"
    if isinstance(consumer, n.Write):
        fate = context.analysis.sort_fate(sort)
        if fate is not None and fate.removed:
            return f"a write into {consumer.target}, which sorts the rows itself"
        return None
    if isinstance(consumer, n.Aggregate):
        if any(_depends_on_order(call, consumer, context) for call in consumer.aggregates):
            return None
        return "an aggregate whose functions do not depend on row order"
    if isinstance(consumer, n.Sort) and consumer.scope == "global":
        # A later sort satisfied by this one is itself the unnecessary one (SL001).
        if unnecessary(consumer, context) is None:
            return f"a later {consumer.clause} (line {context.line_of(consumer.span)}) that overrides it"
    return None
