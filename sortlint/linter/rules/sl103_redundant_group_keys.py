"""SL103 redundant-group-keys

## What it does
Reports GROUP BY keys that cannot split a group: a constant, a key repeated or equal to
another key, or one determined by the other keys (a function of them, or a column of a
table whose unique key is among them).

A literal key is not reported - `GROUP BY 'x'`, `GROUP BY 1 + 1`, or a position naming a
literal select item (`SELECT id, '-' AS kind, ... GROUP BY 1, 2`): Spark folds it and drops
it from the grouping itself (`RemoveLiteralFromGroupExpressions`; DataFusion too), so it
costs nothing.

## Why it matters
Every key is hashed, compared and shuffled for every row. A redundant key makes the
aggregate wider and hides which keys really define a group.

## Example
```sql
SELECT host, time_bin, count(*)
FROM events
WHERE host = 'app.example.com'
GROUP BY host, time_bin        -- SL103 on host: it is constant
```

## Fix safety
The fix drops the key and keeps the column under its old name, position and type: a
constant becomes its value as a literal of the column's type (`'app.example.com' AS host`,
`DATE '2024-01-02' AS day`, `CAST(2.5 AS DECIMAL(12,2)) AS price`), an equal key of the same
type becomes the kept key (`a AS a_clone`), anything else `any_value(col) AS col` (a constant
that another file's code makes too: its value is not copied into this file) - except a
floating-point column, whose group shows -0.0 as 0.0 while `any_value` would not, and a
column of unknown type. Under `target: spark`, `any_value` only where Spark updates its
aggregation buffer in place (`UnsafeRow.isMutable`: booleans, integers, decimals, dates,
timestamps): over a string Spark turns the aggregate into a SortAggregate, sorting every
row on each side of the shuffle where it hashed - measured on issue 32's
`GROUP BY kind, channel ORDER BY channel`, 1 sort, 2 exchanges and 2 HashAggregates
become 3 sorts, 2 exchanges and 2 SortAggregates. One key less to hash is not worth that:
the key stays, and the finding says why it has no fix (a key the select list does not show
needs no `any_value`, and goes). A literal is never rewritten (`any_value('-')` named by
`GROUP BY 3` is an aggregate in the GROUP BY, which Spark refuses: `GROUP_BY_POS_AGGREGATE`).
A repeated key goes alone: the key it repeats still shows the column. A key the statement
still reads elsewhere (HAVING, a window, ORDER BY over the input, another select item) is
not dropped.
No fix either when every other key is redundant too (a literal one included): the fixes
would leave a GROUP BY of nothing, whose one group is one row on an empty input where the
grouped statement returns none.

Dropping a key renumbers nothing (a position names a select item, not another key), but a
rewritten select item changes what every position naming it means: before writing, the
proof resolves each GROUP BY and ORDER BY position as Spark does and refuses a fix after
which one names an aggregate (GROUP BY) or a literal it did not name before.

Safe when the query itself makes the key redundant; unsafe when it rests on a declaration,
or on the code of another file (an upstream dbt model, a table another statement wrote),
which may change.
When both hold - the key repeats an earlier one, or a WHERE makes it constant, and a
declared unique key or constant also makes it redundant - the finding rests on the query's
reason (`[query]`) and its fix is safe.

Effect on Spark: the same plan, its aggregate hashing one key less (`lightens`; a literal or a
fixed-width `any_value` keeps its HashAggregate; measured -42% at 10M rows for a constant
string key), except where the keys left are the order the rows come
in: then the HashAggregate becomes a SortAggregate that streams (no sort added). Where the
rows come clustered by the key (`DISTRIBUTE BY p`, an aggregate or window beneath), or the key
is a column of the aggregate's `DISTINCT`, Spark would shuffle once more without it: the
fix is withheld, and the finding says so. Where the key is one of a join's equi-join keys
beneath (with no exchange between), a sort-merge join's partitioning may be what spares the
exchange, and whether Spark picks one depends on table sizes: no effect is predicted
(`effect_unknown` says so) and the fix is withheld. A repeated key costs nothing: Spark groups
by it once itself (`RemoveRepetitionFromGroupExpressions`), no runtime effect. A key of a type
the catalog does not give: the effect whether or not it is floating-point, where both agree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import partial

from sortlint.diagnostics import Finding, Prediction
from sortlint.engines import spark
from sortlint.linter.context import Context, FixWithheld
from sortlint.linter.redundancy import describe
from sortlint.ordering import KeyVerdict, SortKey
from sortlint.ordering.monotonicity import foldable
from sortlint.ordering.types import SqlType, shows_values_when_grouped, sql_type, typed_literal
from sortlint.plan import nodes as n
from sortlint.sources.frontend import KeptColumn

CODE = "SL103"
NAME = "redundant-group-keys"
NODE = n.Aggregate  # the plan nodes `check` is called with


def check(node: n.Aggregate, context: Context) -> Iterator[Finding]:
    if node.grouping_sets or len(node.keys) < 1:
        return
    verdicts = context.input_of(node).normalize([SortKey(key.expr) for key in node.keys])
    texts = [key.text for key in node.keys]
    for index, (key, verdict) in enumerate(zip(node.keys, verdicts)):
        if verdict.redundant and not foldable(key.expr.node):  # Spark drops a literal key itself
            message = describe(verdicts, index, texts, "group key")
            kept = [k.expr for i, k in enumerate(node.keys) if i != index]
            prediction = context.predicted(partial(spark.regrouping, node, kept))
            fix = _fix(node, verdicts, index, context, prediction)
            yield context.finding(CODE, NAME, key.span, message, verdict.evidence, fix, prediction)


def _fix(node: n.Aggregate, verdicts: Sequence[KeyVerdict], index: int, context: Context, prediction: Prediction):
    message = f"drop the group key {node.keys[index].text}"
    return context.fix(
        message, lambda: _edits(node, verdicts, index, context, prediction), verdicts[index].evidence, prediction.effect
    )


def _edits(node: n.Aggregate, verdicts: Sequence[KeyVerdict], index: int, context: Context, prediction: Prediction):
    """Drop the key; its output column keeps its name and position."""
    if all(v.redundant for v in verdicts[:index]) and all(v.redundant for v in verdicts[index + 1 :]):
        return None  # the last key standing: without it the aggregate has one group
    if prediction.withheld:
        raise FixWithheld(prediction.withheld)
    kept = _kept_column(verdicts, index, node, context)
    edits = context.fixes.drop_group_key(context, node, index, kept)
    key_type = _key_type(node, index, context)
    if (
        edits is None
        and key_type is not None
        and shows_values_when_grouped(key_type)
        and not context.analysis.hashes_any_value(key_type)
        and context.fixes.drop_group_key(context, node, index, replace(kept, any_value=True)) is not None
    ):
        # One key less to hash is not worth a sort of every row on each side of the shuffle.
        raise FixWithheld(
            "keeping its column as any_value would make the aggregate sort every row (a SortAggregate, "
            f"not a HashAggregate): a {key_type.name} has no fixed-width aggregation buffer"
        )
    return edits


def _key_type(node: n.Aggregate, index: int, context: Context) -> SqlType | None:
    return sql_type(context.input_of(node).type_of(node.keys[index].expr))


def _kept_column(verdicts: Sequence[KeyVerdict], index: int, node: n.Aggregate, context: Context) -> KeptColumn:
    """What the dropped key's column may show, keeping its type and values: nothing new for
    a repeated key; its constant, as a value of the key's type; the kept key it equals, when
    both have one type; any value of the group (the same in every row of it), when the key's
    type is known, its groups show values as they are, and the engine still hashes with an
    `any_value` of it."""
    verdict = verdicts[index]
    if any(earlier.expr == node.keys[index].expr for earlier in node.keys[:index]):
        # A repeat, whatever else makes it redundant: the earlier key still shows the column
        # (and its own fix, if any, rewrites the select items once).
        return KeptColumn(duplicate=True)
    props = context.input_of(node)
    key_type = _key_type(node, index, context)
    constant = equal_to = None
    if verdict.redundant == "constant" and key_type is not None:
        found = props.constant(verdict.normalized.expr)
        # Another file's value is not copied into this one: it shows as any value of the group
        if found is not None and found.value is not None and not any(e.basis == "upstream" for e in found.evidence):
            constant = typed_literal(found.value.node, props.type_of(found.value), key_type)
    if verdict.redundant == "equivalent" and key_type is not None:
        target = verdict.normalized.expr
        for earlier, other in enumerate(verdicts[:index]):
            if other.redundant is None and other.normalized.expr == target:
                if sql_type(props.type_of(node.keys[earlier].expr)) == key_type:
                    equal_to = earlier
                break
    any_value = key_type is not None and shows_values_when_grouped(key_type) and context.analysis.hashes_any_value(key_type)
    return KeptColumn(constant=constant, equal_to=equal_to, any_value=any_value)
