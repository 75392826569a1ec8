"""Any query expression: a SELECT block, a set operation, parenthesised queries, VALUES.

This is where a construct the builder does not model stops: `NotUnderstood` raised while
building a query makes that query `Opaque`, and the enclosing query goes on.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from sortlint.plan import organization
from sortlint.plan import select as selects
from sortlint.plan.built import Built, NotUnderstood
from sortlint.plan.context import Context
from sortlint.plan.nodes import Opaque, SetOp, Values
from sortlint.plan.organization import Output, Outputs
from sortlint.plan.scope import Scope

SET_KINDS = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}
# Clauses a set operation or parenthesised query may carry, beside ORDER BY and LIMIT.
ORGANIZATION = ("order", "limit", "offset", "sort", "cluster", "distribute")


def build_query(node: exp.Expression, ctx: Context, outer: Scope | None) -> Built:
    """The plan of a query; `outer` is the scope a correlated subquery may refer to."""
    try:
        return _build(node, ctx, outer)
    except NotUnderstood as error:
        return Built(Opaque(span=ctx.spans.extent(node), reason=error.reason))


def _build(node: exp.Expression, ctx: Context, outer: Scope | None) -> Built:
    with_ = node.args.get("with_")
    if with_ is not None and with_.args.get("recursive"):
        raise NotUnderstood("WITH RECURSIVE")
    ctx = ctx.with_ctes(with_)
    if isinstance(node, exp.Select):
        return selects.build_select(node, ctx, outer)
    if isinstance(node, exp.SetOperation):
        built = build_set_operation(node, ctx, outer)
    elif isinstance(node, exp.Subquery):
        built = _build(node.this, ctx, outer)
    elif isinstance(node, exp.Values):
        built = build_values(node, ctx)
    else:
        raise NotUnderstood(f"{node.key.upper()} as a query")
    return organized(node, built, ctx)


def organized(node: exp.Expression, built: Built, ctx: Context) -> Built:
    """ORDER BY / LIMIT written after a set operation or a parenthesised query: over its
    outputs only."""
    if not any(node.args.get(arg) for arg in ORGANIZATION):
        return built
    outputs = Outputs(tuple(Output(name) for name in built.names), len(built.names) if built.complete else 0)
    try:
        steps, _ = organization.organize(node, outputs, ctx)
    except NotUnderstood as error:
        opaque = Opaque(children=(built.node,), span=ctx.spans.extent(node), reason=error.reason,
                        columns=built.columns)
        return Built(opaque, built.names, built.complete)
    plan = organization.limit(node, organization.stack(built.node, steps), ctx)
    return Built(plan, built.names, built.complete)


def build_set_operation(node: exp.SetOperation, ctx: Context, outer: Scope | None) -> Built:
    if node.args.get("by_name"):
        raise NotUnderstood("a set operation BY NAME")
    branches = list(set_branches(node))
    built = [build_query(branch, ctx, outer) for branch in branches]
    first = built[0]
    return Built(
        SetOp(
            children=tuple(b.node for b in built),
            span=ctx.spans.operator_before(branches[1]),
            kind=SET_KINDS[type(node)],  # type: ignore[arg-type]
            distinct=bool(node.args.get("distinct")),
            columns=first.columns,
        ),
        first.names,
        first.complete,
    )


def set_branches(node: exp.SetOperation) -> Iterator[exp.Expression]:
    """The inputs of a chain of the same associative operation (`a UNION ALL b UNION ALL c`
    is one SetOp of three); EXCEPT is not associative and keeps its two inputs."""
    for side in (node.this, node.expression):
        if (
            type(side) is type(node)
            and not isinstance(node, exp.Except)
            and side.args.get("distinct") == node.args.get("distinct")
            and not side.args.get("by_name")
            and not any(side.args.get(arg) for arg in (*ORGANIZATION, "with_"))
        ):
            yield from set_branches(side)
        else:
            yield side


def build_values(node: exp.Values, ctx: Context) -> Built:
    """Inline rows; Spark names their columns col1, col2, ... unless an alias lists names."""
    rows = node.expressions
    first = rows[0] if rows else None
    width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
    alias = node.args.get("alias")
    names = tuple(c.name for c in alias.columns) if alias is not None and alias.columns else ()
    names = names or tuple(f"col{i}" for i in range(1, width + 1))
    span = ctx.spans.extent(node)
    count = len(rows) + (ctx.spans.index.elided_rows(span) if span is not None else 0)
    return Built(Values(span=span, columns=names, rows=count), names, True)
