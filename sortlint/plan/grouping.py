"""What a grouped SELECT may read: its group keys and aggregate calls, nothing else.

After GROUP BY, the select list, HAVING, the windows, QUALIFY and an ORDER BY over the input
are evaluated once per group: Spark's analyzer refuses a column there that is neither a group
key (or part of an expression that is one) nor inside an aggregate call
(`MISSING_AGGREGATION`, or `UNRESOLVED_COLUMN` for an ORDER BY key it cannot add). A rewrite
that drops a group key another clause still reads leaves such a column behind;
`ungrouped_columns` finds them on the plan.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import is_aggregate

# Operators of a grouped SELECT between its Aggregate and its select list.
ABOVE_AGGREGATE = (n.Filter, n.Window, n.Sort)


def ungrouped_columns(root: n.Node) -> list[str]:
    """`column (clause)` for every column a grouped SELECT reads outside its group keys and
    aggregate calls, each aggregate's in plan order."""
    parents = {id(child): node for node in n.walk(root) for child in node.children}
    found: list[str] = []
    for node in n.walk(root):
        if not isinstance(node, n.Aggregate) or node.grouping_sets:
            continue
        keys = {key.expr for key in node.keys}
        parent = parents.get(id(node))
        while isinstance(parent, (*ABOVE_AGGREGATE, n.Project)):
            for expr, clause in _read_by(parent):
                found += [f"{column} ({clause})" for column in _outside(expr.node, keys)]
            if isinstance(parent, n.Project):
                break
            parent = parents.get(id(parent))
    return found


def _read_by(node: n.Node) -> Iterator[tuple[Expr, str]]:
    if isinstance(node, n.Filter):
        yield from ((c, node.clause) for c in node.conjuncts)
    elif isinstance(node, n.Window):
        yield from ((f.expr, "window") for f in node.functions)
    elif isinstance(node, n.Sort):
        yield from ((item.expr, node.clause) for item in node.keys)
    elif isinstance(node, n.Project):
        yield from ((c.expr, "select list") for c in node.columns)


def _outside(node: exp.Expression, keys: set[Expr]) -> Iterator[str]:
    """The columns of `node` not inside a group key or an aggregate call."""
    if Expr.of(node) in keys:
        return
    if is_aggregate(node) and not (isinstance(node.parent, exp.Window) and node.arg_key == "this"):
        return
    if isinstance(node, exp.Column):
        yield node.sql(dialect="spark")
        return
    if isinstance(node, (exp.Subquery, exp.Query)):
        return  # resolved in its own scope
    for child in node.iter_expressions():
        yield from _outside(child, keys)
