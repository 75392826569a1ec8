"""ORDER BY, SORT BY, CLUSTER BY, DISTRIBUTE BY and LIMIT: what Spark calls a query's
organization, and where each lands in the plan.

Keys resolve as Spark's analyzer resolves them: an integer literal is an ordinal of the
select list; a name that is an output name is that output; an expression equal to an
output's is that output; anything else reads the input. When every key can be said over
the outputs, the sort sits above the projection with keys over output names; otherwise it
sits below, over input expressions (Spark adds the missing columns to the projection, sorts,
and projects them away - the same order either way). After DISTINCT or a set operation only
outputs can be sorted on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from sortlint.ordering import Expr, SortOptions
from sortlint.ordering.expressions import column_node
from sortlint.plan.built import NotUnderstood
from sortlint.plan.context import Context
from sortlint.plan.nodes import Limit, Node, Repartition, Sort, SortItem, Span
from sortlint.plan.scope import uncommented_copy
from sortlint.plan.token_types import T


@dataclass(frozen=True)
class Output:
    name: str
    expr: Expr | None = None  # over the input; None after a set operation


@dataclass(frozen=True)
class Outputs:
    """What keys may refer to: the outputs (ordinals only up to `known`, the outputs before
    a `*` of unknown columns), and how to resolve an expression over the input (None when
    only outputs are visible)."""

    columns: tuple[Output, ...]
    known: int
    read_input: Callable[[exp.Expression], exp.Expression] | None = None

    def named(self, name: str) -> Output | None:
        for output in self.columns:
            if output.name.lower() == name.lower():
                return self._unambiguous(output)
        return None

    def equal_to(self, expr: Expr) -> Output | None:
        for output in self.columns:
            if output.expr == expr:
                return self._unambiguous(output)
        return None

    def _unambiguous(self, output: Output) -> Output | None:
        """An output two columns share the name of cannot be referred to by name
        (`SELECT * FROM a JOIN b` with `id` on both sides): the key reads the input."""
        same = sum(1 for other in self.columns if other.name.lower() == output.name.lower())
        return output if same == 1 else None


@dataclass(frozen=True)
class Key:
    """One key as written, said over the outputs (None when it cannot be). Said over the
    input (`over_input`) only when its clause goes below the projection: most keys name
    outputs, and resolving a key copies it."""

    written: exp.Expression  # Ordered, or a bare expression (CLUSTER BY, DISTRIBUTE BY)
    span: Span | None
    over_output: exp.Expression | None
    ordinal: int | None

    @property
    def expression(self) -> exp.Expression:
        return self.written.this if isinstance(self.written, exp.Ordered) else self.written

    def over_input(self, outputs: Outputs) -> exp.Expression:
        if self.ordinal is not None:
            output = outputs.columns[self.ordinal - 1].expr
            assert output is not None  # outputs without expressions are only read above
            return output.node
        assert outputs.read_input is not None
        return outputs.read_input(self.expression)


# The clauses in the order Spark applies them (it rejects ORDER BY with any of the others).
CLAUSES = (
    ("distribute", "DISTRIBUTE BY", T.DISTRIBUTE_BY),
    ("cluster", "CLUSTER BY", T.CLUSTER_BY),
    ("sort", "SORT BY", T.SORT_BY),
    ("order", "ORDER BY", T.ORDER_BY),
)


def organizes(query: exp.Expression) -> bool:
    """Whether the query has one of the clauses `organize` reads."""
    return any(query.args.get(arg) for arg, _, _ in CLAUSES)


def organize(query: exp.Expression, outputs: Outputs, ctx: Context) -> tuple[list[Node], bool]:
    """The Sort / Repartition nodes (without children yet, lowest first) of the query's
    clauses, and whether they all go above the projection."""
    clauses: list[tuple[str, Span | None, list[Key]]] = []
    for arg, clause, keyword in CLAUSES:
        node = query.args.get(arg)
        if node is None:
            continue
        written = list(node.expressions)
        spans = ctx.spans.clause(node, {keyword}, written)
        items = spans.items if spans is not None else (None,) * len(written)
        keys = [resolve_key(w, span, outputs) for w, span in zip(written, items)]
        clauses.append((clause, spans.span if spans is not None else None, keys))
    above = all(k.over_output is not None for _, _, keys in clauses for k in keys)
    if not above and outputs.read_input is None:
        raise NotUnderstood("a sort key that is not an output of a DISTINCT or set operation")
    nodes: list[Node] = []
    for clause, span, keys in clauses:
        exprs = tuple(Expr.of(k.over_output if above else k.over_input(outputs)) for k in keys)
        nodes.extend(clause_nodes(clause, span, keys, exprs, ctx))
    return nodes, above


def resolve_key(written: exp.Expression, span: Span | None, outputs: Outputs) -> Key:
    key = written.this if isinstance(written, exp.Ordered) else written
    ordinal = int(key.this) if isinstance(key, exp.Literal) and key.is_int else None
    if ordinal is not None:
        if not 1 <= ordinal <= outputs.known:
            raise NotUnderstood(f"ordinal {ordinal} over outputs that are not known")
        return Key(written, span, column_node(outputs.columns[ordinal - 1].name), ordinal)
    return Key(written, span, over_outputs(key, outputs), None)


def over_outputs(node: exp.Expression, outputs: Outputs) -> exp.Expression | None:
    """The expression said over output names, or None if it reads a column that is not one."""
    if isinstance(node, exp.Column) and not node.table:
        output = outputs.named(node.name)
        if output is not None:
            return column_node(output.name)
    if outputs.read_input is not None:
        output = outputs.equal_to(Expr.of(outputs.read_input(node)))
        if output is not None:
            return column_node(output.name)
    if isinstance(node, (exp.Column, exp.Query)):
        return None
    copy = uncommented_copy(node)
    for child in list(copy.iter_expressions()):
        said = over_outputs(child, outputs)
        if said is None:
            return None
        child.replace(said)
    return copy


def clause_nodes(
    clause: str, span: Span | None, keys: list[Key], exprs: tuple[Expr, ...], ctx: Context
) -> list[Node]:
    """The nodes of one clause, its keys resolved to `exprs`."""
    repartition = Repartition(span=span, keys=exprs, clause=clause)
    if clause == "DISTRIBUTE BY":
        return [repartition]
    items = tuple(sort_item(k.written, e, k.span, ctx, k.ordinal) for k, e in zip(keys, exprs))
    if clause == "CLUSTER BY":
        return [repartition, Sort(span=span, keys=items, scope="partition", clause=clause)]
    scope = "partition" if clause == "SORT BY" else "global"
    return [Sort(span=span, keys=items, scope=scope, clause=clause)]


def sort_item(
    written: exp.Expression, expr: Expr, span: Span | None, ctx: Context, ordinal: int | None = None
) -> SortItem:
    """A key with its options: NULLS FIRST/LAST as written, else the target's default."""
    descending = bool(written.args.get("desc")) if isinstance(written, exp.Ordered) else False
    if isinstance(written, exp.Ordered) and ctx.spans.explicit_nulls(span):
        options = SortOptions(descending, bool(written.args.get("nulls_first")))
    else:
        options = ctx.default_options(descending)
    return SortItem(expr, options, span, ctx.text(span, written), ordinal)


def stack(node: Node, above: Sequence[Node]) -> Node:
    """`node` under each of `above` in turn (the first directly over it)."""
    for parent in above:
        node = replace(parent, children=(node,))
    return node


def limit(query: exp.Expression, node: Node, ctx: Context) -> Node:
    """LIMIT / OFFSET over the node, when the query has them."""
    count = query.args.get("limit")
    skip = query.args.get("offset")
    if count is None and skip is None:
        return node
    return Limit(children=(node,), span=ctx.spans.limit(query),
                 limit=integer(count), offset=integer(skip))


def integer(clause: exp.Expression | None) -> int | None:
    value = clause.args.get("expression") if clause is not None else None
    return int(value.this) if isinstance(value, exp.Literal) and value.is_int else None
