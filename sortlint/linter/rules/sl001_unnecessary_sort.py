"""SL001 unnecessary-sort

## What it does
Reports an `ORDER BY` whose whole requirement the rows already satisfy when they reach it.

## Why it matters
A sort reads every row before it emits the first: it costs memory, spills, and a full
shuffle on Spark. When the input is already in the required order - read from a table
declared in that order, filtered down to constants, or sorted by an inner query - the sort
changes nothing.

Under `target: spark` the input's order is one Spark itself gives: a sort it keeps (an
inner sort is removed by Spark under an outer one: that one is SL002's), `ORDER BY ...
LIMIT`, a window without PARTITION BY, or keys made constant by the query. A table's
declared ordering is its layout, not the order Spark reads it in, so it never satisfies an
ORDER BY. Under `target: datafusion` a declared `WITH ORDER` is read in order inside each
partition, which a final ORDER BY merges; with `datafusion: {target_partitions: 1}` the
table is one partition, and an ORDER BY its order satisfies is reported.

A sort that writes a table's declared layout is never reported (SL301 judges writes).

## Example
```sql
SELECT host, time, amount
FROM events
WHERE host = 'app.example.com'
ORDER BY host            -- SL001: host is constant, any order satisfies it
```

## Fix safety
Removing the clause is safe when the order comes from the query itself (an inner sort, a
WHERE constant). When it rests on a declared ordering (a DataFusion table declared
`engine_known: false`, a declared constant) or on another file's code (a constant an
upstream dbt model's WHERE makes), the fix is unsafe: it is right only while the table
really holds what is declared, or while that code stays as it is. So is one resting on a
DataFusion table read as one partition: without the ORDER BY, DataFusion reads its files in
path order.

Effect on Spark (the finding's `effect`): the fix saves the range exchange and the sort
Spark runs; only the sort when the rows are in one partition already (a window without
PARTITION BY); nothing where Spark already knows the order (a sort above a sort, a global
window's order) and drops the sort itself. Under a LIMIT the sorted top-k goes, and a plain
limit - with an exchange of its own unless it is the statement's result - takes its place.
Where the effect is not known (`effect_unknown`), the finding says what it depends on.
"""

from __future__ import annotations

from collections.abc import Iterator

from functools import partial

from sortlint.diagnostics import Finding
from sortlint.engines import spark
from sortlint.linter.context import Context, because
from sortlint.linter.rules.sl301_write_breaks_layout import feeds_declared_layout
from sortlint.ordering import SortKey, format_ordering
from sortlint.plan import nodes as n

CODE = "SL001"
NAME = "unnecessary-sort"
NODE = n.Sort  # the plan nodes `check` is called with


def check(node: n.Sort, context: Context) -> Iterator[Finding]:
    if node.scope != "global" or node.span is None:
        return
    if feeds_declared_layout(node, context):
        return  # it writes the table's declared layout (SL301 judges it)
    satisfaction = unnecessary(node, context)
    if satisfaction is None:
        return
    keys = format_ordering([SortKey(item.expr, item.options) for item in node.keys])
    prediction = context.predicted(partial(spark.removing_sort, node))
    fix = context.fix(
        f"remove the {node.clause}", lambda: context.fixes.remove_sort(context, node), satisfaction.evidence,
        prediction.effect,
    )
    yield context.finding(
        CODE,
        NAME,
        node.span,
        f"{node.clause} {keys} is already satisfied by its input: "
        f"{because(satisfaction.evidence)}",
        satisfaction.evidence,
        fix,
        prediction,
    )


def unnecessary(node: n.Sort, context: Context):
    """The proof that a sort's input already satisfies it, or None."""
    satisfaction = context.sort_satisfaction(node)
    return satisfaction if satisfaction.complete else None

