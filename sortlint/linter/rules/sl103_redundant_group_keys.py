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

from sortlint.linter.context import Context
from sortlint.diagnostics import Finding
from sortlint.linter.redundancy import describe
from sortlint.ordering import Expr, KeyVerdict, SortKey
from sortlint.plan import nodes as n
from sortlint.rewriters.names import UnknownName, alias_needed, spark_output_name
from sortlint.rewriters.sql_edits import remove_items, replace

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
    """Drop the key; rewrite the select items that showed it, under their old names."""
    if all(v.redundant for v in verdicts[:index]) and all(v.redundant for v in verdicts[index + 1 :]):
        return None  # the last key standing: without it the aggregate has one group
    if context.unit.kind == "pyspark":  # a DataFrame groupBy(...).agg(...)
        from sortlint.plan.dataframe_fixes import drop_group_key

        return drop_group_key(node, verdicts, index, context)
    project = _select_list(node, context)
    if project is None:
        return None
    key = node.keys[index]
    replacement = _replacement(verdicts, index, node, context)
    edits = remove_items(context.unit, [k.span for k in node.keys], {index})
    for column in project.columns:
        if column.span is None:
            return None
        if column.expr == key.expr:
            if verdicts[index].redundant != "duplicate":
                name = _spark_name(column, context)
                if name is None:
                    return None
                edits += replace(context.unit, column.span, f"{replacement} AS {alias_needed(name)}")
        elif _reads_outside_aggregates(column.expr, key.expr):
            return None  # the key is used in a way the rewrite cannot keep
    return edits


def _spark_name(column: n.OutputColumn, context: Context) -> str | None:
    written = context.unit.text[column.span.start : column.span.end]
    try:
        return spark_output_name(column.node, source=None if column.aliased else written)
    except (UnknownName, ValueError):
        return None


def _select_list(node: n.Aggregate, context: Context) -> n.Project | None:
    """The projection right above the aggregate (through HAVING), if nothing else reads
    the aggregate's keys."""
    parent = context.parent(node)
    while isinstance(parent, n.Filter):
        if any(_reads_outside_aggregates(c, k.expr) for c in parent.conjuncts for k in node.keys):
            return None
        parent = context.parent(parent)
    return parent if isinstance(parent, n.Project) else None


def _replacement(verdicts: Sequence[KeyVerdict], index: int, node: n.Aggregate, context: Context) -> str:
    """The exact expression for a dropped key: a string constant's literal, the kept key
    it equals, or `any_value` of it (the same value in every row of a group)."""
    verdict = verdicts[index]
    key = node.keys[index]
    if verdict.redundant == "constant":
        constant = context.input_of(node).constant(verdict.normalized.expr)
        value = constant.value if constant else None
        if value is not None and isinstance(value.node, exp.Literal) and value.node.is_string:
            return value.node.sql(dialect="spark")
    if verdict.redundant == "equivalent":
        target = verdict.normalized.expr
        for earlier, other in zip(node.keys[:index], verdicts[:index]):
            if other.redundant is None and other.normalized.expr == target:
                return earlier.text
    return f"any_value({key.text})"


def _reads_outside_aggregates(expr: Expr, key: Expr) -> bool:
    """Whether `expr` reads the key's columns other than inside an aggregate call."""
    columns = {c for c in key.columns}
    for column in expr.node.find_all(exp.Column):
        if Expr.of(column) in columns and column.find_ancestor(exp.AggFunc) is None:
            return True
    return expr == key
