"""SL201 redundant-window-keys

## What it does
Reports keys of a window's PARTITION BY or ORDER BY that cannot change its result: a
constant, a repeated key, a key equal to another, one determined by the others, and an
ORDER BY key that is already a partition key (constant inside every partition).

## Why it matters
Spark shuffles on the partition keys and sorts every partition on the order keys; each
redundant key widens the shuffle and the sort.

## Example
```sql
SELECT host, row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn
FROM events            -- SL201 on the ORDER BY's host: constant inside each partition
```

## Fix safety
The fix drops the keys; when the window column had no alias it is aliased to the name
Spark gave it before, so the output columns stay the same. Safe when the query itself makes
the key redundant; unsafe when it rests on a declaration.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from sortlint.linter.context import Context
from sortlint.diagnostics import Finding
from sortlint.linter.redundancy import describe
from sortlint.ordering import SortKey
from sortlint.plan import nodes as n
from sortlint.rewriters.names import UnknownName, alias_needed, spark_output_name
from sortlint.rewriters.sql_edits import remove_clause, remove_items

CODE = "SL201"
NAME = "redundant-window-keys"

# Functions that need an ORDER BY in their window.
NEEDS_ORDER = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.Lag, exp.Lead, exp.NthValue,
               exp.Ntile, exp.PercentRank, exp.CumeDist, exp.FirstValue, exp.LastValue)


def check(node: n.Node, context: Context) -> Iterator[Finding]:
    if not isinstance(node, n.Window):
        return
    props = context.input_of(node)
    for function in node.functions:
        keys = [SortKey(key.expr) for key in function.partition_by]
        keys += [SortKey(item.expr, item.options) for item in function.order_by]
        clauses = function.partition_by + function.order_by
        texts = [clause.text for clause in clauses]
        verdicts = props.normalize(keys)
        partition_count = len(function.partition_by)
        for index, (clause, verdict) in enumerate(zip(clauses, verdicts)):
            if not verdict.redundant:
                continue
            in_order_by = index >= partition_count
            what = "window order key" if in_order_by else "partition key"
            message = describe(verdicts, index, texts, what)
            if in_order_by and _repeats_a_partition_key(verdicts, index, partition_count):
                message = f"{what} {texts[index]} is a partition key: constant inside each partition"
            fix = _fix(node, function, index, context, verdict.evidence)
            yield context.finding(CODE, NAME, clause.span, message, verdict.evidence, fix)


def _repeats_a_partition_key(verdicts, index: int, partition_count: int) -> bool:
    target = verdicts[index].normalized.expr
    return any(verdicts[j].normalized.expr == target for j in range(partition_count))


def _fix(window: n.Window, function: n.WindowFunction, index: int, context: Context, evidence):
    clauses = function.partition_by + function.order_by
    message = f"drop the window key {clauses[index].text}"
    return context.fix(message, lambda: _edits(window, function, index, context), evidence)


def _edits(window: n.Window, function: n.WindowFunction, index: int, context: Context):
    """Drop the key from its list (or the whole PARTITION BY / ORDER BY when it is the
    only one), and alias an unaliased window column to the name Spark gave it before."""
    if context.unit.kind == "pyspark":  # a DataFrame Window.partitionBy(...).orderBy(...)
        from sortlint.plan.dataframe_fixes import drop_window_key

        return drop_window_key(window, function, index, context)
    partition_count = len(function.partition_by)
    if index < partition_count:
        items, span, position = function.partition_by, function.partition_span, index
    else:
        items, span, position = function.order_by, function.order_span, index - partition_count
        if len(items) == 1 and _order_matters(function):
            return None
    if len(items) == 1:
        edits = remove_clause(context.unit, span)
    else:
        edits = remove_items(context.unit, [item.span for item in items], {position})
    for column in _columns_showing(window, function, context):
        if column is None or column.span is None:
            return None
        if not column.aliased:
            written = context.unit.text[column.span.start : column.span.end]
            try:
                name = spark_output_name(column.node, source=written)
            except (UnknownName, ValueError):
                return None
            alias = f" AS {alias_needed(name)}"
            edits.append(context.unit.edit(column.span.end, column.span.end, alias))
    return edits


def _order_matters(function: n.WindowFunction) -> bool:
    node = function.expr.node
    return isinstance(node.this, NEEDS_ORDER) or node.args.get("spec") is not None


def _columns_showing(window: n.Window, function: n.WindowFunction, context: Context):
    """The select items whose expression contains the window function (None when the
    window's output is read somewhere the fix cannot follow)."""
    parent = context.parent(window)
    while isinstance(parent, n.Filter):
        parent = context.parent(parent)
    if not isinstance(parent, n.Project):
        return [None]
    return [
        column
        for column in parent.columns
        if column.expr == function.expr or any(
            sub is not None and sub == function.expr.node for sub in column.expr.node.find_all(exp.Window)
        )
    ]
