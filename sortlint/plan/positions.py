"""What GROUP BY and ORDER BY keys name, as Spark resolves them.

A position (`GROUP BY 2`, `ORDER BY 2`) is the select item at that place
(`spark.sql.groupByOrdinal` and `spark.sql.orderByOrdinal`, both on by default), and a
GROUP BY alias the item of that name: the plan's keys are those items' expressions. Spark
refuses a GROUP BY key that names an aggregate (`GROUP_BY_POS_AGGREGATE`), and a key that
names a literal groups or orders by nothing. A fix that rewrites a select item
(`any_value(x) AS x`, `'a' AS host`) changes what every key naming the item means:
`keys_naming_nothing` lists such keys, for the fixer's proof to compare before and after.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sortlint.ordering import Expr
from sortlint.ordering.monotonicity import foldable
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import aggregate_calls


@dataclass(frozen=True)
class NamedKey:
    """A key as written (`GROUP BY 3`), what it names, and why that is no key: "an aggregate"
    or "a literal"."""

    clause: str
    text: str
    named: Expr
    kind: str

    def __str__(self) -> str:
        refused = " (Spark refuses it)" if self.kind == "an aggregate" else ""
        return f"{self.clause} {self.text} would name {self.named}, {self.kind}{refused}"


def keys_naming_nothing(root: n.Node) -> list[NamedKey]:
    """Every GROUP BY key that names an aggregate or a literal, and every ORDER BY position
    that names a literal, in plan order. (An ORDER BY position may name an aggregate: it
    sorts by the aggregate's value.)"""
    found: list[NamedKey] = []
    for node in n.walk(root):
        if isinstance(node, n.Aggregate) and not node.implicit_keys:
            for key in node.keys:
                kind = _no_key(key.expr, aggregates_refused=True)
                if kind is not None:
                    found.append(NamedKey("GROUP BY", key.text, key.expr, kind))
        elif isinstance(node, n.Sort):
            for item, named in _positions(node):
                kind = _no_key(named, aggregates_refused=False)
                if kind is not None:
                    found.append(NamedKey(node.clause, item.text, named, kind))
    return found


def _no_key(expr: Expr, aggregates_refused: bool) -> str | None:
    if aggregates_refused and next(aggregate_calls(expr.node), None) is not None:
        return "an aggregate"
    return "a literal" if foldable(expr.node) else None


def _positions(sort: n.Sort) -> Iterator[tuple[n.SortItem, Expr]]:
    """The sort's positional keys with the select item each names. Over the select list the
    key is the output's name, so the item is the projection's; below it (a key reads the
    input), the key is already the item's expression."""
    below = sort.children[0] if sort.children else None
    while isinstance(below, n.Distinct):
        below = below.children[0]
    for item in sort.keys:
        if item.ordinal is None:
            continue
        if isinstance(below, n.Project) and item.ordinal <= len(below.columns):
            column = below.columns[item.ordinal - 1]
            if item.expr.column_name == column.name.lower():
                yield item, column.expr
                continue
        yield item, item.expr
