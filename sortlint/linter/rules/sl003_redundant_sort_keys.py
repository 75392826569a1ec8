"""SL003 redundant-sort-keys

## What it does
Reports sort keys that cannot change the order: a constant, a key repeated, a key equal
to an earlier one, or one determined by the earlier keys (a function of them, or any key
after a full unique key).

## Why it matters
Every key is compared for every pair of rows the sort looks at. A redundant key costs
comparisons and hides what the order really is.

## Example
```sql
SELECT * FROM events
WHERE host = 'app.example.com'
ORDER BY host, time, time_cloned   -- SL003 on host (constant) and time_cloned (= time)
```

## Fix safety
Dropping a key that the query itself makes redundant is safe; one that rests on a
declaration (a declared constant or unique key) or on another file's code (what an upstream
dbt model's query, or a statement that wrote the table, guarantees) is unsafe, unless the
engine itself knows the declaration (`engine_known`). When both
hold - the key repeats an earlier one, or a WHERE makes it constant, and a declared unique
key or constant also makes it redundant - the finding rests on the query's reason
(`[query]`) and its fix is safe: `ORDER BY id, n, n` with `id` declared unique drops the
second `n` safely, and the first only with `--unsafe-fixes`. Dropping a position
(`ORDER BY 1, 2`) renumbers nothing: each names a select item, not another key.

Effect on Spark: usually the same plan, its sort (and range exchange, or sorted top-k) by fewer
keys (`lightens`: cheaper comparisons, measured -17% at 10M rows); none where Spark runs no sort
either way; the sort and its exchange go where Spark then knows its input is in the order of
the keys left. Under a LIMIT it is one sorted top-k either way: as the statement's result the
same plan, whatever joins and aggregates lie beneath (TPC-DS q43, measured with both join
strategies); read by an aggregate or DISTINCT above, its new order may let it stream: a hash
aggregate becomes a sort aggregate over the sorted top-k's rows, no sort added - no worse
(`Effect.worse`), and the fix is offered. Unknown, and said so (`effect_unknown`), for a sort
a window reads (its range partitioning may serve the window) and for a sorted top-k another
operator reads.
"""

from __future__ import annotations

from collections.abc import Iterator

from functools import partial

from sortlint.diagnostics import Finding
from sortlint.engines import spark
from sortlint.linter.context import Context
from sortlint.linter.redundancy import describe
from sortlint.linter.rules.sl001_unnecessary_sort import unnecessary
from sortlint.plan import nodes as n

CODE = "SL003"
NAME = "redundant-sort-keys"
NODE = n.Sort  # the plan nodes `check` is called with


def check(node: n.Sort, context: Context) -> Iterator[Finding]:
    if unnecessary(node, context) is not None:
        return  # the whole sort goes (SL001)
    verdicts = context.sort_satisfaction(node).verdicts
    texts = [item.text for item in node.keys]
    redundant = [i for i, verdict in enumerate(verdicts) if verdict.redundant]
    spans = [item.span for item in node.keys]
    for index in redundant:
        verdict = verdicts[index]
        prediction = context.predicted(partial(spark.dropping_sort_key, node, index))
        fix = context.fix(
            f"drop the sort key {texts[index]}",
            lambda index=index: context.fixes.drop_sort_key(context, node, index),
            verdict.evidence,
            prediction.effect,
        )
        message = describe(verdicts, index, texts, "sort key")
        yield context.finding(CODE, NAME, spans[index], message, verdict.evidence, fix, prediction)

