"""One SELECT block, in the order Spark evaluates it.

FROM (joins, LATERAL VIEW) -> WHERE -> GROUP BY / aggregates -> HAVING -> windows ->
QUALIFY -> [sorts that need input columns] -> select list -> DISTINCT -> [partitioning
hints] -> [sorts over outputs] -> LIMIT / OFFSET.

Expressions are resolved against the FROM scope. Output columns carry the same qualified
expressions the Aggregate and Window nodes carry, so `count(*) AS n` above an Aggregate
reads the aggregate's `COUNT(*)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from sqlglot import exp
from sqlglot.tokens import TokenType

from sortlint.ordering import Expr
from sortlint.ordering.expressions import column_node
from sortlint.plan import organization
from sortlint.plan.aggregates import (
    aggregate_calls, arithmetic, is_aggregate, is_ranking, order_sensitive, window_calls,
)
from sortlint.plan.built import Built, NotUnderstood
from sortlint.plan.contents import Contents, contents
from sortlint.plan.context import Context
from sortlint.plan.generators import (
    GeneratorCall, alias_names, contains_generator, generate, generator_call, is_generator,
)
from sortlint.plan.names import output_name
from sortlint.plan.nodes import (
    Aggregate, AggregateCall, Distinct, GroupKey, Node, Opaque, OutputColumn, Project,
    Repartition, Span, Window, WindowFunction,
)
from sortlint.plan.organization import Output, Outputs
from sortlint.plan.predicates import build_filter, subquery_nodes
from sortlint.plan.relations import Relation, build_from
from sortlint.plan.scope import Scope, columns_of, qualify
from sortlint.plan.token_types import T

# Select arguments with no Spark meaning this builder models.
UNSUPPORTED = {
    "into": "SELECT INTO", "connect": "CONNECT BY", "match": "MATCH_RECOGNIZE",
    "prewhere": "PREWHERE", "pivots": "PIVOT", "kind": "SELECT AS STRUCT", "locks": "FOR UPDATE",
    "sample": "TABLESAMPLE", "operation_modifiers": "SELECT modifiers", "exclude": "EXCLUDE",
}
PARTITIONING_HINTS = {"REPARTITION", "REPARTITION_BY_RANGE", "REBALANCE", "COALESCE"}


class ItemValue(NamedTuple):
    """The expression of a select item that is not a column of a `*`."""

    node: exp.Expression  # the expression, alias removed
    resolved: exp.Expression  # qualified against the scope
    contents: Contents  # what `node` holds


class Item(NamedTuple):
    """One output of the select list (a `*` yields one per known column). A tuple: a chain
    of `SELECT *` over wide CTEs makes hundreds of thousands of them in a project."""

    name: str
    written: exp.Expression  # the select item as written
    expr: Expr  # the resolved expression as a key, for the outputs, the projection, GROUP BY
    span: Span | None
    aliased: bool
    # None for a column of a `*`, which is only ever read as its key (made without a node).
    value: ItemValue | None = None


@dataclass(frozen=True)
class SelectList:
    items: tuple[Item, ...]
    passthrough: tuple[str, ...]  # qualifiers of `*` over relations of unknown columns
    known: int  # items before the first such `*`: ordinals can reach only those
    span: Span | None
    # A generator item (`explode(a) AS x`): its call resolved, and the item's span. Its
    # columns are items of their own, read by name from the Generate node below.
    generator: tuple[GeneratorCall, exp.Expression, Span | None] | None = None

    def named(self, name: str) -> Item | None:
        for item in self.items:
            if item.name.lower() == name.lower():
                return item
        return None


def build_select(select: exp.Select, ctx: Context, outer: Scope | None) -> Built:
    relation = build_from(select, ctx, outer)
    try:
        select = with_named_windows_written_out(select)
        return build_body(select, relation, relation.scope(outer), ctx)
    except NotUnderstood as error:
        names, complete = written_names(select)
        return Built(
            Opaque(children=(relation.node,), span=ctx.spans.extent(select), reason=error.reason,
                   columns=names if complete else ()),
            names, complete,
        )


def build_body(select: exp.Select, relation: Relation, scope: Scope, ctx: Context) -> Built:
    for arg, construct in UNSUPPORTED.items():
        if select.args.get(arg):
            raise NotUnderstood(construct)
    if any(isinstance(e, exp.QueryTransform) for e in select.expressions):
        raise NotUnderstood("TRANSFORM ... USING")
    listed = select_list(select, relation, scope, ctx)
    node = relation.node
    where = select.args.get("where")
    if where is not None:
        span = clause_span(ctx, where, T.WHERE)
        node = build_filter(node, where.this, "WHERE", scope, ctx, span)
    if listed.generator is not None:
        node = generated(select, listed, node)
    node = aggregate(select, listed, node, scope, ctx)
    having = select.args.get("having")
    if having is not None:
        span = clause_span(ctx, having, T.HAVING)
        node = build_filter(node, having.this, "HAVING", scope, ctx, span, alias_first(listed))
    node = windows(select, listed, node, scope, ctx)
    qualify_ = select.args.get("qualify")
    if qualify_ is not None:
        span = clause_span(ctx, qualify_, T.QUALIFY)
        node = build_filter(node, qualify_.this, "QUALIFY", scope, ctx, span, alias_first(listed))
    distinct = select.args.get("distinct") is not None
    steps, above = organization_steps(select, listed, scope, ctx)
    if distinct and not above:
        raise NotUnderstood("a sort key that is not an output of a DISTINCT")
    if not above:
        node = organization.stack(node, steps)
    node = project(listed, node, scope, ctx)
    if distinct:
        node = Distinct(children=(node,), span=ctx.spans.keyword_after_select(select, T.DISTINCT))
    node = partitioning_hints(select, node, ctx)
    if above:
        node = organization.stack(node, steps)
    node = organization.limit(select, node, ctx)
    names = tuple(item.name for item in listed.items)
    return Built(node, names, not listed.passthrough)


def organization_steps(select: exp.Select, listed: SelectList, scope: Scope, ctx: Context) -> tuple[list[Node], bool]:
    """`organization.organize` of the SELECT; its outputs are made only when it has a clause
    to organize (most have none)."""
    if not organization.organizes(select):
        return [], True
    outputs = Outputs(
        tuple(Output(item.name, item.expr) for item in listed.items),
        listed.known,
        lambda key: qualify(key, scope, alias_first(listed)),
    )
    return organization.organize(select, outputs, ctx)


def clause_span(ctx: Context, clause: exp.Expression, keyword: TokenType) -> Span | None:
    found = ctx.spans.clause(clause, {keyword}, ())
    return found.span if found is not None else None


# --- the select list ----------------------------------------------------------------------


def select_list(select: exp.Select, relation: Relation, scope: Scope, ctx: Context) -> SelectList:
    clause = ctx.spans.select_list(select)
    spans = clause.items if clause is not None else tuple(ctx.spans.extent(e) for e in select.expressions)
    items: list[Item] = []
    passthrough: list[str] = []
    known: int | None = None
    generator = None
    aliases: set[str] = set()  # of the items so far, in lower case
    for written, span in zip(select.expressions, spans):
        if is_star(written):
            expanded, unknown = star(written, relation, scope, span)
            items.extend(expanded)
            if unknown and known is None:
                known = len(items) - len(expanded)
            passthrough.extend(unknown)
            continue
        value = written.this if isinstance(written, (exp.Alias, exp.Aliases)) else written
        if is_generator(value):
            if generator is not None:
                raise NotUnderstood("two generators in one select list")
            called = generator_call(value, alias_names(written))
            generator = (called, qualify(value, scope), span)
            for name in called.names:
                column = column_node(name)
                items.append(Item(name, written, Expr.of(column), span, written is not value,
                                  ItemValue(column, column, contents(column))))
                if written is not value:
                    aliases.add(name.lower())
            continue
        held = contents(value)
        if held.generator:
            raise NotUnderstood("a generator inside an expression")
        resolved = qualify(value, scope, lateral_alias(items, aliases, value, scope))
        text = ctx.unit.text[span.start : span.end] if span and not isinstance(written, exp.Alias) else None
        name = output_name(written, text)
        if isinstance(written, exp.Alias):
            aliases.add(name.lower())
        items.append(Item(name, written, Expr.of(resolved), span, isinstance(written, exp.Alias),
                          ItemValue(value, resolved, held)))
    return SelectList(tuple(items), tuple(passthrough), len(items) if known is None else known,
                      clause.span if clause is not None else None, generator)



def is_star(node: exp.Expression) -> bool:
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def star(
    written: exp.Expression, relation: Relation, scope: Scope, span: Span | None
) -> tuple[list[Item], list[str]]:
    """`*` or `t.*`: one item per known column, and the qualifiers whose columns are unknown."""
    star_node = written.this if isinstance(written, exp.Column) else written
    if any(star_node.args.get(a) for a in ("except_", "except", "replace", "rename")):
        raise NotUnderstood("* with EXCEPT / REPLACE")
    qualifier = written.table.lower() if isinstance(written, exp.Column) else None
    if qualifier is None and relation.star is not None:
        return [star_item(q, c, written, span) for q, c in relation.star], []
    sources = scope.sources if qualifier is None else tuple(s for s in scope.sources if s.alias == qualifier)
    if qualifier is not None and not sources:
        raise NotUnderstood(f"{qualifier}.* of a relation that is not in FROM")
    items: list[Item] = []
    unknown: list[str] = []
    for source in sources:
        if not source.complete:
            unknown.append(source.alias)
            continue
        items.extend(star_item(source.alias, c, written, span) for c in source.columns)
    return items, unknown


def star_item(qualifier: str, column: str, written: exp.Expression, span: Span | None) -> Item:
    return Item(column, written, Expr.column(column, qualifier), span, False)


def lateral_alias(
    items: list[Item], aliases: set[str], value: exp.Expression, scope: Scope
) -> Callable[[exp.Column], exp.Expression | None] | None:
    """A name no relation can have, but an earlier select item's alias: that item (Spark's
    lateral column alias). None when `value` reads none of the earlier items' `aliases`
    without a qualifier, as most items do: qualifying an item without a `replace` makes no
    second copy of each column for it to look at."""
    if not aliases or not any(not c.table and c.name.lower() in aliases for c in columns_of(value)):
        return None

    def replace(column: exp.Column) -> exp.Expression | None:
        if column.table or scope.qualifier(column.name.lower()) is not None:
            return None
        for item in reversed(items):
            if item.aliased and item.value is not None and item.name.lower() == column.name.lower():
                return item.value.resolved
        return None

    return replace


def alias_first(listed: SelectList) -> Callable[[exp.Column], exp.Expression | None]:
    """In HAVING and QUALIFY a bare name outside aggregate calls is first an output of the
    select list (Spark resolves them against the aggregate's named outputs)."""

    def replace(column: exp.Column) -> exp.Expression | None:
        if column.table or inside_aggregate(column):
            return None
        item = listed.named(column.name)
        return item.value.resolved if item is not None and item.aliased and item.value is not None else None

    return replace


def inside_aggregate(node: exp.Expression) -> bool:
    parent = node.parent
    while parent is not None:
        if is_aggregate(parent):
            return True
        parent = parent.parent
    return False


def written_names(select: exp.Select) -> tuple[tuple[str, ...], bool]:
    """The output names a select list spells out, for a SELECT that is not understood."""
    if any(is_star(e) or isinstance(e, exp.QueryTransform) or contains_generator(e) for e in select.expressions):
        return (), False
    return tuple(output_name(e) for e in select.expressions), True


def project(listed: SelectList, node: Node, scope: Scope, ctx: Context) -> Project:
    subqueries = tuple(
        sub for item in listed.items if item.value is not None and item.value.contents.queries
        for sub in subquery_nodes(item.value.node, scope, ctx)
    )
    columns = tuple(
        OutputColumn(item.name, item.expr, item.span, item.aliased, item.written)
        for item in listed.items
    )
    return Project(children=(node, *subqueries), span=listed.span, columns=columns,
                   passthrough=listed.passthrough)


def generated(select: exp.Select, listed: SelectList, node: Node) -> Node:
    """The select list's generator, applied to the rows WHERE keeps (with an aggregate or a
    window in the same SELECT, Spark applies it to their rows: not modelled)."""
    assert listed.generator is not None
    if select.args.get("group") or any(aggregate_calls_of(select, listed)) or any(window_calls_of(select, listed)):
        raise NotUnderstood("a generator beside an aggregate or a window")
    called, resolved, span = listed.generator
    return generate(node, called, resolved, None, span)


# --- aggregation --------------------------------------------------------------------------


def aggregate(select: exp.Select, listed: SelectList, node: Node, scope: Scope, ctx: Context) -> Node:
    """The Aggregate node, when the block groups or calls an aggregate function."""
    group = select.args.get("group")
    having = select.args.get("having")
    calls = list(aggregate_calls_of(select, listed))
    if group is None and having is None and not calls:
        return node
    implicit = group is not None and bool(group.args.get("all"))
    if implicit:
        keys, grouping_sets = all_keys(listed), False
    else:
        keys, grouping_sets = group_keys(group, listed, scope, ctx) if group is not None else ((), False)
    aggregates: dict[Expr, exp.Expression] = {}
    for call in calls:
        aggregates.setdefault(Expr.of(qualify(call, scope)), call)
    span = clause_span(ctx, group, T.GROUP_BY) if group is not None else None
    if span is None and calls:
        span = ctx.spans.extent(calls[0])
    return Aggregate(
        children=(node,), span=span, keys=keys,
        aggregates=tuple(AggregateCall(e, order_sensitive(c), arithmetic(c)) for e, c in aggregates.items()),
        grouping_sets=grouping_sets, implicit_keys=implicit,
    )


def aggregate_calls_of(select: exp.Select, listed: SelectList) -> Iterator[exp.Expression]:
    """Aggregate calls of the select list, HAVING and ORDER BY, in that order."""
    return _calls_of(select, listed, lambda held: held.aggregates, aggregate_calls, ("having", "order"))


def _calls_of(select: exp.Select, listed: SelectList, held, calls, clauses: tuple[str, ...]):
    """The calls of the select list (`held` of their contents), then those `calls` finds in
    the named clauses, in order."""
    for item in listed.items:
        if item.value is not None:
            yield from held(item.value.contents)
    for arg in clauses:
        clause = select.args.get(arg)
        if clause is not None:
            yield from calls(clause)


def group_keys(
    group: exp.Group, listed: SelectList, scope: Scope, ctx: Context
) -> tuple[tuple[GroupKey, ...], bool]:
    """GROUP BY keys, with ordinals and select aliases resolved; ROLLUP / CUBE / GROUPING
    SETS contribute each expression once and mark the aggregate as null-filling."""
    clause = ctx.spans.clause(group, {T.GROUP_BY}, group.expressions)
    spans = clause.items if clause is not None else tuple(ctx.spans.extent(e) for e in group.expressions)
    grouping_sets = any(group.args.get(a) for a in ("rollup", "cube", "grouping_sets"))
    keys: list[GroupKey] = []
    for written, span in zip(group.expressions, spans):
        if isinstance(written, (exp.Rollup, exp.Cube, exp.GroupingSets)):
            grouping_sets = True
            for inner in set_members(written):
                key = group_key(inner, ctx.spans.extent(inner), listed, scope, ctx)
                if all(key.expr != k.expr for k in keys):
                    keys.append(key)
            continue
        keys.append(group_key(written, span, listed, scope, ctx))
    return tuple(keys), grouping_sets


def all_keys(listed: SelectList) -> tuple[GroupKey, ...]:
    """GROUP BY ALL: every item of the select list that calls no aggregate function (Spark
    groups by those; with none, the whole input is one group)."""
    if listed.passthrough:
        raise NotUnderstood("GROUP BY ALL over a * of columns not known")
    keys: list[GroupKey] = []
    for item in listed.items:
        if item.value is not None and item.value.contents.windows:
            raise NotUnderstood("GROUP BY ALL of a window function")  # Spark refuses it
        if item.value is not None and item.value.contents.aggregates:
            continue
        if item.span is None:
            raise NotUnderstood("GROUP BY ALL over an item not written")
        if all(item.expr != key.expr for key in keys):
            keys.append(GroupKey(item.expr, item.span, item.name))
    return tuple(keys)


def set_members(node: exp.Expression) -> Iterator[exp.Expression]:
    """The expressions inside ROLLUP(...), CUBE(...), GROUPING SETS((...), ...)."""
    for member in node.expressions:
        if isinstance(member, (exp.Tuple, exp.Rollup, exp.Cube, exp.GroupingSets)):
            yield from set_members(member)
        elif isinstance(member, exp.Paren):
            yield member.this
        else:
            yield member


def group_key(
    written: exp.Expression, span: Span | None, listed: SelectList, scope: Scope, ctx: Context
) -> GroupKey:
    text = ctx.text(span, written)
    if isinstance(written, exp.Literal) and written.is_int:
        ordinal = int(written.this)
        if not 1 <= ordinal <= listed.known:
            raise NotUnderstood(f"GROUP BY {ordinal} over outputs that are not known")
        return GroupKey(listed.items[ordinal - 1].expr, span, text, ordinal)
    item = group_alias(written, listed, scope)
    expr = item.expr if item is not None else Expr.of(qualify(written, scope))
    return GroupKey(expr, span, text)


def group_alias(written: exp.Expression, listed: SelectList, scope: Scope) -> Item | None:
    """A bare name that is a select alias and that no input relation can have (Spark prefers
    the input column; when a relation might have it, the name stays as written)."""
    if not isinstance(written, exp.Column) or written.table:
        return None
    name = written.name.lower()
    if any(s.may_have(name) for s in scope.sources):
        return None
    item = listed.named(name)
    return item if item is not None and item.aliased else None


# --- windows ------------------------------------------------------------------------------


def windows(select: exp.Select, listed: SelectList, node: Node, scope: Scope, ctx: Context) -> Node:
    """One Window node for every window function of the block."""
    found = list(window_calls_of(select, listed))
    if not found:
        return node
    span = ctx.spans.extent(found[0])
    if any(w.args.get("alias") is not None for w in found):
        raise NotUnderstood("a window named in no WINDOW clause of its SELECT")
    functions: dict[Expr, WindowFunction] = {}
    for window in found:
        function = window_function(window, scope, ctx)
        functions.setdefault(function.expr, function)
    return Window(children=(node,), span=span, functions=tuple(functions.values()))


WINDOW_PARTS = ("partition_by", "order", "spec")


def with_named_windows_written_out(select: exp.Select) -> exp.Select:
    """The SELECT with every `OVER w` of its own (not of its subqueries) written out as the
    window its WINDOW clause names: a copy, whose nodes keep their positions in the text.
    A window that names another adds what that one leaves out; a PARTITION BY, ORDER BY
    or frame written twice, or a framed window extended (SQL rejects it; engines differ),
    or a name defined nowhere or in a cycle, is not understood."""
    if not select.args.get("windows"):
        return select
    select = select.copy()
    definitions = {d.name.lower(): d for d in select.args["windows"]}
    for window in list(select.find_all(exp.Window)):
        if window.arg_key == "windows" or window.args.get("alias") is None:
            continue
        if window.find_ancestor(exp.Select) is not select:
            continue  # a subquery's window: its own SELECT writes it out
        chain = [window]
        name = window.args.get("alias")
        while name is not None:
            definition = definitions.get(name.name.lower())
            if definition is None or any(definition is w for w in chain):
                raise NotUnderstood(f"the named WINDOW {name.name}: defined nowhere, or in a cycle")
            chain.append(definition)
            name = definition.args.get("alias")
        written = {part: [w for w in chain if w.args.get(part)] for part in WINDOW_PARTS}
        if any(len(found) > 1 for found in written.values()):
            raise NotUnderstood("a named WINDOW whose PARTITION BY, ORDER BY or frame is written twice")
        framed = next((i for i, w in enumerate(chain) if w.args.get("spec")), None)
        if framed is not None and any(w.args.get(p) for w in chain[:framed] for p in WINDOW_PARTS):
            raise NotUnderstood("a named WINDOW with a frame, extended")
        for part, found in written.items():
            if found and found[0] is not window:
                value = found[0].args[part]
                copied = [unpositioned(v) for v in value] if isinstance(value, list) else unpositioned(value)
                window.set(part, copied)
        window.set("alias", None)
    return select


def unpositioned(node: exp.Expression) -> exp.Expression:
    """A copy of `node` without positions in the text: a named window's keys written out at
    each window that names it are not where that window is written (a span would reach the
    WINDOW clause), and a fix must not edit the one clause for one of its windows."""
    copy = node.copy()
    for sub in copy.walk():
        sub.meta.pop("start", None)
        sub.meta.pop("end", None)
    return copy


def window_calls_of(select: exp.Select, listed: SelectList) -> Iterator[exp.Window]:
    """Window calls of the select list, QUALIFY and ORDER BY, in that order."""
    return _calls_of(select, listed, lambda held: held.windows, window_calls, ("qualify", "order"))


def window_function(window: exp.Window, scope: Scope, ctx: Context) -> WindowFunction:
    spans = ctx.spans.window(window)
    partition = list(window.args.get("partition_by") or [])
    order = list((window.args.get("order") or exp.Order()).expressions)
    partition_spans = spans.partition.items if spans.partition else (None,) * len(partition)
    order_spans = spans.order.items if spans.order else (None,) * len(order)
    return WindowFunction(
        expr=Expr.of(qualify(window, scope)),
        partition_by=tuple(
            GroupKey(Expr.of(qualify(key, scope)), span, ctx.text(span, key))
            for key, span in zip(partition, partition_spans)
        ),
        order_by=tuple(
            organization.sort_item(key, Expr.of(qualify(key.this, scope)), span, ctx)
            for key, span in zip(order, order_spans)
        ),
        ranking=is_ranking(window.this),
        span=spans.over,
        partition_span=spans.partition.span if spans.partition else None,
        order_span=spans.order.span if spans.order else None,
    )


# --- hints --------------------------------------------------------------------------------


def partitioning_hints(select: exp.Select, node: Node, ctx: Context) -> Node:
    """`/*+ REPARTITION(...) */` and the like move rows between partitions."""
    hint = select.args.get("hint")
    for call in hint.expressions if hint is not None else ():
        name = (call.name if isinstance(call, exp.Anonymous) else call.key).upper()
        if name in PARTITIONING_HINTS:
            keys = tuple(Expr.of(column_node(c.name)) for c in call.find_all(exp.Column))
            span = ctx.spans.keyword_after_select(select, T.HINT)
            node = Repartition(children=(node,), span=span, keys=keys, clause=f"{name} hint")
    return node
