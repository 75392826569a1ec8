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
the key redundant; unsafe when it rests on a declaration or on another file's code (an
upstream dbt model, a table another statement wrote).

Effect on Spark: usually the same plan, its window, sort and (for a partition key) exchange
by fewer keys (`lightens`; measured -17% at 10M rows). Where the
rows come clustered by the partition keys (`DISTRIBUTE BY p`) and dropping one of them would
make Spark shuffle them again, the effect adds an exchange and the fix is withheld: the
finding says why. A partition key that is one of a join's equi-join keys beneath is kept
too, with no effect predicted: under a sort-merge join (Spark picks one from table sizes)
the window reuses the join's partitioning, and without the key shuffles again. Among windows
of several specifications, the same plan by fewer keys where no partitioning before or after
fits another's nor the rows' own (each window then shuffles and sorts, whatever order Spark
stacks them in); otherwise unknown (dropping a key may merge or split them), as for a key a
ranking function needs (`rank()` keeps its only ORDER BY key: no fix). Each unknown effect
says what it depends on (`effect_unknown`). A window that reads or feeds another window (through
renames and filters) whose specification is written elsewhere gets no fix on Spark: Spark
runs two adjacent windows of one specification as one (`CollapseWindow`), and a key dropped
from one of them alone splits them - a Window and a Sort more, measured. Windows of one
PySpark `Window` object are one text, which the fix edits for all of them. A key of a named
`WINDOW w AS (...)` clause is reported at each `OVER w` that names it, with no fix: the
clause serves every window naming it.
"""

from __future__ import annotations

from collections.abc import Iterator

from functools import partial

from sortlint.diagnostics import Finding, Prediction
from sortlint.engines import spark
from sortlint.linter.context import Context, FixWithheld
from sortlint.linter.redundancy import describe
from sortlint.ordering import SortKey
from sortlint.plan import nodes as n

CODE = "SL201"
NAME = "redundant-window-keys"
NODE = n.Window  # the plan nodes `check` is called with


def check(node: n.Window, context: Context) -> Iterator[Finding]:
    props = context.input_of(node)
    for function in node.functions:
        keys = [SortKey(key.expr) for key in function.partition_by]
        keys += [SortKey(item.expr, item.options) for item in function.order_by]
        clauses = function.partition_by + function.order_by
        texts = [clause.text for clause in clauses]
        verdicts = props.normalize(keys)
        partition_count = len(function.partition_by)
        for index, (clause, verdict) in enumerate(zip(clauses, verdicts)):
            # A key of a named WINDOW clause has no span at this window: reported where
            # the window names it.
            span = clause.span or function.span
            if not verdict.redundant or span is None:
                continue
            in_order_by = index >= partition_count
            what = "window order key" if in_order_by else "partition key"
            message = describe(verdicts, index, texts, what)
            if in_order_by and _repeats_a_partition_key(verdicts, index, partition_count):
                message = f"{what} {texts[index]} is a partition key: constant inside each partition"
            prediction = context.predicted(partial(spark.rekeying_window, node, function, index))
            fix = _fix(node, function, index, context, verdict.evidence, prediction)
            yield context.finding(CODE, NAME, span, message, verdict.evidence, fix, prediction)


def _repeats_a_partition_key(verdicts, index: int, partition_count: int) -> bool:
    target = verdicts[index].normalized.expr
    return any(verdicts[j].normalized.expr == target for j in range(partition_count))


def _fix(window: n.Window, function: n.WindowFunction, index: int, context: Context, evidence, prediction: Prediction):
    clauses = function.partition_by + function.order_by
    message = f"drop the window key {clauses[index].text}"
    return context.fix(message, lambda: _edits(window, function, index, context, prediction), evidence, prediction.effect)


def _edits(window: n.Window, function: n.WindowFunction, index: int, context: Context, prediction: Prediction):
    """Drop the key; when it is the only ORDER BY key of a function that needs one, the
    window cannot lose it."""
    if function.needs_key(index):
        return None
    if prediction.withheld:
        raise FixWithheld(prediction.withheld)
    return context.fixes.drop_window_key(context, window, function, index)
