"""SL101 aggregate-could-stream

## What it does
Reports a GROUP BY that the engine would run without a hash table - streaming each group
as its input delivers it - but for the order its keys are written in, or for a session
setting that is off.

Under `target: spark` that input order must be one Spark itself knows at the aggregate:
its own sort, a window's order, a streaming aggregate below, or a bucketed table read with
`spark.sql.legacy.bucketedTableScan.outputOrdering` (`spark: {legacy_bucketed_scan_ordering:
true}`) - never an ordering declared for a table, which Spark does not read in order. Spark
streams (`SortAggregate`) only when that order starts with every GROUP BY key, in GROUP BY
order, ascending, with no shuffle in between, and `spark.sql.execution.replaceHashWithSortAgg`
is on (`spark: {replace_hash_with_sort_agg: ...}`, on by default since Spark 4.3). The message
says what is missing: the key order, the setting, or both. Under `target: datafusion` the
engine streams any key order, so the rule stays quiet (`sortlint explain` shows the mode).

## Why it matters
A hash aggregate holds every group in memory until its input ends, and spills when they do
not fit; a sort aggregate emits each group as soon as the next one starts, in constant
memory.

## Example
```sql
SELECT host, time, count(*) FROM (
  SELECT host, time, row_number() OVER (PARTITION BY host ORDER BY time) AS seq
  FROM events
) e
GROUP BY time, host   -- SL101: the window leaves each partition sorted by (host, time)
```

## Fix safety
When the key order is what the engine is missing, the fix puts the GROUP BY keys in the
input's order. Reordering GROUP BY keys never changes a SQL result (the select list is left
as it is), so the fix is safe. A setting is the session's to change: that has no fix.

Effect on Spark: a HashAggregate becomes a SortAggregate (on rows already clustered by the
keys Spark plans one aggregate, not a partial and a final one), with no sort added: it
streams over the order the rows have. With `spark.sql.execution.replaceHashWithSortAgg` off
(`spark: {replace_hash_with_sort_agg: false}`, or `spark: {version: ...}` of 3.3 to 4.2) the
reordering has no runtime effect: Spark hashes in either key order, and only the setting
makes it stream.
"""

from __future__ import annotations

from collections.abc import Iterator

from functools import partial

from sortlint.diagnostics import Finding, Fix
from sortlint.engines import spark
from sortlint.linter.context import Context, because
from sortlint.ordering import format_ordering
from sortlint.plan import nodes as n

CODE = "SL101"
NAME = "aggregate-could-stream"
NODE = n.Aggregate  # the plan nodes `check` is called with


def check(node: n.Aggregate, context: Context) -> Iterator[Finding]:
    if node.span is None:
        return
    strategy = context.analysis.strategy(node)
    if strategy.streams or strategy.key_order is None:
        return
    order = list(strategy.key_order)
    missing = []
    if order != list(range(len(node.keys))):
        keys = ", ".join(node.keys[i].text for i in order)
        missing.append(f"the keys must follow the input's order (GROUP BY {keys})")
    missing += strategy.settings_off
    order += [i for i in range(len(node.keys)) if i not in order]
    prediction = context.predicted(partial(spark.regrouping, node, [node.keys[i].expr for i in order]))
    fix = reorder_fix(node, order, context) if not strategy.settings_off else None
    yield context.finding(
        CODE,
        NAME,
        node.span,
        f"GROUP BY input is already ordered by {format_ordering(strategy.input_ordering)} "
        f"({because(strategy.evidence)}), but it runs as a hash aggregate: {'; '.join(missing)}",
        strategy.evidence,
        fix,
        prediction,
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
