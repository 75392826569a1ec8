"""A plan as text, one node per line with its key fields, children indented: the one plan
printer, for `sortlint explain` (which adds the properties and findings at each node) and
for the tests that specify plans."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sortlint.ordering import Expr
from sortlint.plan.nodes import (
    Aggregate, Alias, Filter, Generate, Join, Limit, Node, Opaque, Project, Repartition, Scan,
    SetOp, Sort, SortItem, Values, Window, Write,
)


def render(
    node: Node,
    indent: str = "  ",
    *,
    depth: int = 0,
    where: Callable[[Node], str] | None = None,
    notes: Callable[[Node], Iterable[str]] | None = None,
) -> str:
    """The plan below `node`, starting `depth` indents in. `where(node)` is appended to a
    node's line (`  (line 4)`); `notes(node)` are lines printed under it, one indent in."""
    return "\n".join(_lines(node, depth, indent, where, notes))


def _lines(node, depth, indent, where, notes) -> Iterable[str]:
    yield indent * depth + describe(node) + (where(node) if where else "")
    for note in notes(node) if notes else ():
        yield indent * (depth + 1) + note
    for child in node.children:
        yield from _lines(child, depth + 1, indent, where, notes)


def describe(node: Node) -> str:
    """The node's label and its key fields."""
    details = _details(node)
    return f"{node.label} {details}" if details else node.label


def _details(node: Node) -> str:
    if isinstance(node, Scan):
        alias = f" AS {node.alias}" if node.alias != node.table.rsplit(".", 1)[-1] else ""
        return f"{node.table}{alias}{_names(node.columns)}"
    if isinstance(node, Alias):
        view = " (view)" if node.origin is not None else ""
        return f"{node.alias or '-'}{_names(node.columns)}{view}"
    if isinstance(node, Filter):
        return f"{node.clause} {_list(node.conjuncts)}"
    if isinstance(node, Project):
        columns = [
            str(c.expr) if c.name.lower() == c.expr.key else f"{c.expr} AS {c.name}"
            for c in node.columns
        ]
        passthrough = "".join(f" {q or '-'}.*" for q in node.passthrough)
        return f"[{', '.join(columns)}]{passthrough}"
    if isinstance(node, Aggregate):
        keys = _list(k.expr for k in node.keys)
        calls = ", ".join(
            f"{a.expr}{' (order-sensitive)' if a.order_sensitive else ''}" for a in node.aggregates
        )
        sets = " grouping sets" if node.grouping_sets else ""
        implicit = " (GROUP BY ALL)" if node.implicit_keys else ""
        return f"keys={keys}{implicit} aggregates=[{calls}]{sets}"
    if isinstance(node, Generate):
        outer = " outer" if node.outer else ""
        return f"{node.generator}{outer} AS {_list(node.columns)}"
    if isinstance(node, Window):
        return ", ".join(
            f"{f.expr}{' (ranking)' if f.ranking else ''}" for f in node.functions
        )
    if isinstance(node, Sort):
        scope = " (partition)" if node.scope == "partition" else ""
        return f"{node.clause} {_sort_keys(node.keys)}{scope}"
    if isinstance(node, Limit):
        offset = f" OFFSET {node.offset}" if node.offset is not None else ""
        limit = "" if node.limit is None else str(node.limit)
        return f"{limit}{offset}".strip()
    if isinstance(node, Join):
        on = [f"{left} = {right}" for left, right in node.equalities]
        residual = f" residual {_list(node.residual)}" if node.residual else ""
        return f"{node.kind}{' [' + ', '.join(on) + ']' if on else ''}{residual}"
    if isinstance(node, SetOp):
        return f"{node.kind} {'distinct' if node.distinct else 'all'}{_names(node.columns)}"
    if isinstance(node, Repartition):
        return f"{node.clause} {_list(node.keys)}"
    if isinstance(node, Values):
        return f"{node.rows} row{'s' if node.rows != 1 else ''}{_names(node.columns)}"
    if isinstance(node, Write):
        return f"{node.kind} {node.target}"
    if isinstance(node, Opaque):
        return f"{node.reason!r}{_names(node.columns)}"
    return ""  # Distinct, Subquery


def _sort_keys(keys: Iterable[SortItem]) -> str:
    return "[" + ", ".join(f"{k.expr} {k.options}" for k in keys) + "]"


def _list(exprs: Iterable[Expr]) -> str:
    return "[" + ", ".join(str(e) for e in exprs) + "]"


def _names(names: tuple[str, ...]) -> str:
    return f" ({', '.join(names)})" if names else ""
