"""SL103 redundant-group-keys

## What it does
Reports GROUP BY keys that cannot split a group: a constant, a key repeated or equal to
another key, or one determined by the other keys (a function of them, or a column of a
table whose unique key is among them).

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
The fix drops the key and keeps the column under its old name and position: a constant
becomes its literal (`'app.example.com' AS host`), an equal key becomes the kept key
(`a AS a_clone`), a determined column becomes `any_value(col) AS col`. Safe when the
query itself makes the key redundant; unsafe when it rests on a declaration.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlglot import exp

from sortlint.diagnostics import Finding
from sortlint.linter.context import Context
from sortlint.linter.redundancy import describe
from sortlint.ordering import KeyVerdict, SortKey
from sortlint.plan import nodes as n
from sortlint.sources.frontend import KeptColumn

CODE = "SL103"
NAME = "redundant-group-keys"


def check(node: n.Node, context: Context) -> Iterator[Finding]:
    if not isinstance(node, n.Aggregate) or node.grouping_sets or len(node.keys) < 1:
        return
    verdicts = context.input_of(node).normalize([SortKey(key.expr) for key in node.keys])
    texts = [key.text for key in node.keys]
    for index, (key, verdict) in enumerate(zip(node.keys, verdicts)):
        if verdict.redundant:
            message = describe(verdicts, index, texts, "group key")
            fix = _fix(node, verdicts, index, context)
            yield context.finding(CODE, NAME, key.span, message, verdict.evidence, fix)


def _fix(node: n.Aggregate, verdicts: Sequence[KeyVerdict], index: int, context: Context):
    message = f"drop the group key {node.keys[index].text}"
    return context.fix(message, lambda: _edits(node, verdicts, index, context), verdicts[index].evidence)


def _edits(node: n.Aggregate, verdicts: Sequence[KeyVerdict], index: int, context: Context):
    """Drop the key; its output column keeps its name and position."""
    if all(v.redundant for v in verdicts[:index]) and all(v.redundant for v in verdicts[index + 1 :]):
        return None  # the last key standing: without it the aggregate has one group
    kept = _kept_column(verdicts, index, node, context)
    return context.fixes.drop_group_key(context, node, index, kept)


def _kept_column(verdicts: Sequence[KeyVerdict], index: int, node: n.Aggregate, context: Context) -> KeptColumn:
    """What the dropped key's column shows: nothing new for a repeated key, a string
    constant's literal, the kept key it equals, or any value of the group (the same in
    every row of it)."""
    verdict = verdicts[index]
    if verdict.redundant == "duplicate":
        return KeptColumn(duplicate=True)
    if verdict.redundant == "constant":
        constant = context.input_of(node).constant(verdict.normalized.expr)
        value = constant.value if constant else None
        if value is not None and isinstance(value.node, exp.Literal) and value.node.is_string:
            return KeptColumn(constant=value.node.sql(dialect="spark"))
    if verdict.redundant == "equivalent":
        target = verdict.normalized.expr
        for earlier, other in enumerate(verdicts[:index]):
            if other.redundant is None and other.normalized.expr == target:
                return KeptColumn(equal_to=earlier)
    return KeptColumn()
