"""Predicates: WHERE / HAVING / QUALIFY filters, their conjuncts and their subqueries.

A filter's facts come conjunct by conjunct (`host = 'x'` makes a constant, `a = b` merges
classes), so the predicate is split on AND. A subquery in a predicate (IN, EXISTS, scalar)
is built as a plan of its own, under a `Subquery` child, so its sorts are linted too; its
columns may refer to the enclosing scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.plan import query as queries
from sortlint.plan.context import Context
from sortlint.plan.nodes import Filter, Node, Span, Subquery
from sortlint.plan.scope import Scope, qualify


def conjuncts(predicate: exp.Expression) -> list[exp.Expression]:
    """`a AND (b AND c)` as [a, b, c]."""
    inner = predicate.unnest() if isinstance(predicate, exp.Paren) else predicate
    if isinstance(inner, exp.And):
        return [*conjuncts(inner.this), *conjuncts(inner.expression)]
    return [predicate]


def nested_queries(node: exp.Expression) -> Iterator[exp.Expression]:
    """The outermost queries inside an expression (IN, EXISTS and scalar subqueries)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, exp.Query):
            yield current
            continue
        stack.extend(current.iter_expressions(reverse=True))


def subquery_nodes(expression: exp.Expression, scope: Scope, ctx: Context) -> tuple[Node, ...]:
    """A `Subquery` node per query nested in the expression, correlated with `scope`."""
    return tuple(
        Subquery(children=(queries.build_query(query, ctx, scope).node,), span=ctx.spans.extent(query))
        for query in nested_queries(expression)
    )


def build_filter(
    child: Node,
    predicate: exp.Expression,
    clause: str,
    scope: Scope,
    ctx: Context,
    span: Span | None,
    replace: Callable[[exp.Column], exp.Expression | None] | None = None,
) -> Filter:
    return Filter(
        children=(child, *subquery_nodes(predicate, scope, ctx)),
        span=span,
        conjuncts=tuple(Expr.of(qualify(c, scope, replace)) for c in conjuncts(predicate)),
        clause=clause,  # type: ignore[arg-type]
    )
