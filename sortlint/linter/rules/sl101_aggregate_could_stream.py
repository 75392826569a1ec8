"""SL101 aggregate-could-stream

## What it does
Reports a GROUP BY whose input is already ordered on all its (non-constant) keys, in some
order, while the engine would still build a hash table.

## Why it matters
An aggregate over ordered input can stream: it emits each group as soon as the next one
starts, in constant memory (DataFusion's `ordering_mode=Sorted`, Spark's `SortAggregate`).
Spark replaces a hash aggregate by a sort aggregate only when
`spark.sql.execution.replaceHashWithSortAgg` is on, the ordering is one Spark itself
knows, and the child's ordering matches the grouping keys in GROUP BY order. The message
says which of those is missing. Under `target: datafusion` the engine already streams any
permutation, so the rule stays quiet (`sortlint explain` shows the mode).

## Example
With `events` declared ordered by `[host, time]`:

```sql
SELECT time, host, count(*) FROM events GROUP BY time, host   -- SL101: input is [host, time]
```

## Fix safety
When the key order is the only thing Spark is missing, the fix puts the GROUP BY keys in
the input's order. Reordering GROUP BY keys never changes a SQL result (the select list is
left as it is), so the fix is safe.
"""

from __future__ import annotations

from collections.abc import Iterator

from sortlint.diagnostics import Finding, Fix
from sortlint.linter.context import Context, because
from sortlint.ordering import Permutation, format_ordering
from sortlint.plan import nodes as n

CODE = "SL101"
NAME = "aggregate-could-stream"


def check(node: n.Node, context: Context) -> Iterator[Finding]:
    permutation = ordered_input(node, context)
    if permutation is None or len(permutation.indices) < len(node.keys):
        return
    missing = _why_spark_hashes(node, permutation, context)
    if not missing:
        return
    # Reordering the keys helps only when the key order is all Spark is missing.
    order_only = len(missing) == 1 and missing[0].startswith("GROUP BY order")
    fix = reorder_fix(node, list(permutation.indices), context) if order_only else None
    yield context.finding(
        CODE,
        NAME,
        node.span,
        f"GROUP BY input is already ordered by {format_ordering(permutation.keys)} "
        f"({because(permutation.evidence)}), but Spark will hash: {'; '.join(missing)}",
        permutation.evidence,
        fix,
    )


def reorder_fix(node: n.Aggregate, leading: list[int], context: Context) -> Fix | None:
    """Put the keys at `leading` first, in that order, the others after them as written.
    GROUP BY key order never changes a SQL result, so the fix is safe (unless how the file
    kind writes it says otherwise)."""
    order = leading + [i for i in range(len(node.keys)) if i not in leading]
    if order == list(range(len(node.keys))):
        return None
    rewrite = context.fixes.reorder_group_keys(context, node, order)
    if rewrite is None:
        return None
    keys = ", ".join(node.keys[i].text for i in order)
    fix = context.fix(f"reorder the {context.fixes.group_by} keys: {keys}{rewrite.also}", rewrite.edits)
    return fix.at_most(rewrite.trust) if fix is not None else None


def varying_keys(node: n.Aggregate, permutation: Permutation, context: Context) -> list[int]:
    """The ordered keys that are not constant, in the order the input has them: a
    constant key is ordered anywhere, so it says nothing about key order (SL103 reports it)."""
    props = context.input_of(node)
    return [
        i
        for i in permutation.indices
        if not props.is_constant(props.normalize_expr(node.keys[i].expr)[0])[0]
    ]


def ordered_input(node: n.Node, context: Context) -> Permutation | None:
    """The aggregate's ordered keys, when the aggregate rules apply to it at all."""
    if context.target != "spark" or not isinstance(node, n.Aggregate):
        return None
    if not node.keys or node.grouping_sets or node.span is None:
        return None
    permutation = context.analysis.permutation(node)
    props = context.input_of(node)
    if all(props.is_constant(props.normalize_expr(k.expr)[0])[0] for k in node.keys):
        return None  # nothing to order by: SL103 reports the constant keys
    return permutation if permutation.indices else None


def _why_spark_hashes(node: n.Aggregate, permutation: Permutation, context: Context) -> list[str]:
    missing = []
    if not context.config.spark.replace_hash_with_sort_agg:
        missing.append("spark.sql.execution.replaceHashWithSortAgg is off")
    if any(e.basis == "declared" and not e.enforced for e in permutation.evidence):
        missing.append("the ordering is declared in the catalog, not known to Spark")
    ordered = varying_keys(node, permutation, context)
    if ordered != sorted(ordered):
        order = ", ".join(node.keys[i].text for i in ordered)
        missing.append(f"GROUP BY order differs from the input's (GROUP BY {order})")
    return missing
