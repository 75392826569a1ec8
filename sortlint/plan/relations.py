"""The FROM clause: tables, CTEs, views, subqueries and inline rows, joined.

Each relation comes with the `Source` it adds to the scope: its qualifier and what is known
of its columns. A CTE or view is built again at each place it is read, so its plan sits
under an `Alias` exactly where Spark would inline it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.plan import query as queries
from sortlint.plan.built import Built, NotUnderstood
from sortlint.plan.context import Context, CteDefinition
from sortlint.plan.generators import function_name, generate, generator_call, is_generator
from sortlint.plan.nodes import (
    Alias, Join, JoinKind, Node, Opaque, OutputColumn, Project, Scan, Span, Values, copied,
)
from sortlint.plan.parse import view_spans
from sortlint.plan.predicates import conjuncts
from sortlint.plan.scope import Scope, Source, columns_of, qualify


@dataclass(frozen=True)
class Relation:
    """A built FROM item (or join of items) and the names it makes visible."""

    node: Node
    sources: tuple[Source, ...]
    merged: tuple[tuple[str, str], ...] = ()  # USING / NATURAL columns, see `Scope.merged`
    # What `*` reads, in order, as (qualifier, column); None when some column is not known.
    # Not simply every source's columns: a USING / NATURAL join lists its shared columns
    # once, first (Spark's order), and a semi or anti join shows only its left side.
    star: tuple[tuple[str, str], ...] | None = None

    def scope(self, outer: Scope | None) -> Scope:
        return Scope(self.sources, outer, self.merged)


def build_from(select: exp.Select, ctx: Context, outer: Scope | None) -> Relation:
    """The FROM clause with its joins and LATERAL VIEWs; one row of nothing without FROM."""
    from_ = select.args.get("from_")
    joins = list(select.args.get("joins") or [])
    spans = ctx.spans.from_items(select)
    if from_ is None:
        relation = Relation(Values(span=ctx.spans.extent(select), rows=1), ())
    else:
        relation = build_relation(from_.this, ctx, spans[0])
        spans = spans[1:]
    for join, span in zip(joins, spans):
        relation = build_join(relation, join, ctx, outer, span)
    for lateral in select.args.get("laterals") or []:
        relation = lateral_view(relation, lateral, ctx, outer)
    return relation


def of_source(node: Node, source: Source) -> Relation:
    star = tuple((source.alias, c) for c in source.columns) if source.complete else None
    return Relation(node, (source,), star=star)


def build_relation(node: exp.Expression, ctx: Context, span: Span | None = None) -> Relation:
    span = span or ctx.spans.extent(node)
    return modified(base_relation(node, ctx, span), node, ctx, span)


def modified(relation: Relation, node: exp.Expression, ctx: Context, span: Span | None) -> Relation:
    """TABLESAMPLE, PIVOT and UNPIVOT written after a relation: not modelled."""
    alias = relation.sources[0].alias if len(relation.sources) == 1 else node.alias.lower()
    if node.args.get("sample") is not None:
        columns = tuple(c for _, c in relation.star) if relation.star is not None else ()
        opaque = Opaque(children=(relation.node,), span=span, reason="TABLESAMPLE", columns=columns)
        relation = Relation(opaque, relation.sources, relation.merged, relation.star)
    for pivot in node.args.get("pivots") or []:
        reason = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT"
        opaque = Opaque(children=(relation.node,), span=ctx.spans.extent(pivot), reason=reason)
        relation = Relation(opaque, (Source((pivot.alias or alias).lower()),))
    return relation


def base_relation(node: exp.Expression, ctx: Context, span: Span | None) -> Relation:
    if isinstance(node, exp.Table):
        relation = table_relation(node, ctx, span)
        for join in node.args.get("joins") or []:  # a parenthesised join: (a JOIN b ON ...)
            relation = build_join(relation, join, ctx, None, ctx.spans.extent(join))
        return relation
    if isinstance(node, exp.Subquery) and not isinstance(node.this, exp.Query):
        if node.alias:
            raise NotUnderstood("an aliased parenthesised join")
        return build_relation(node.this, ctx)
    if isinstance(node, exp.Subquery):
        built = queries.build_query(node, ctx, None)
        return aliased(renamed(built, alias_columns(node), span), node.alias.lower(), span)
    if isinstance(node, exp.Values):
        built = queries.build_values(node, ctx)
        return aliased(built, node.alias.lower(), span)
    if isinstance(node, exp.Lateral):
        return opaque(node, "LATERAL subquery", span)
    return opaque(node, f"{node.key.upper()} in FROM", span)


def table_relation(table: exp.Table, ctx: Context, span: Span | None) -> Relation:
    if not isinstance(table.this, exp.Identifier):
        function = table.this
        if is_generator(function):
            return generator_table(table, function, span)
        name = function.name if isinstance(function, exp.Anonymous) else function.key
        return opaque(table, f"table-valued function {name.lower()}", span)
    name = ".".join(part.lower() for part in (table.catalog, table.db, table.name) if part)
    alias = (table.alias or table.name).lower()
    built = named(name, table, alias, ctx, span)
    if alias_columns(table):
        built = Built(Opaque(children=(built.node,), span=span, reason="column aliases on a table",
                             columns=alias_columns(table)), alias_columns(table), True)
    return of_source(built.node, source(alias, built))


def generator_table(table: exp.Table, call: exp.Expression, span: Span | None) -> Relation:
    """`FROM explode(array(...)) AS t(x)`: the rows a generator makes of one row."""
    alias = table.alias.lower()
    try:
        generator = generator_call(call, alias_columns(table))
    except NotUnderstood as error:
        return opaque(table, error.reason, span)
    node = generate(Values(span=span, rows=1), generator, call.copy(), alias or None, span)
    return of_source(node, Source(alias, generator.names, True))


def named(name: str, table: exp.Table, alias: str, ctx: Context, span: Span | None) -> Built:
    """What a name in FROM reads: a CTE in scope, an earlier view, or a catalog table."""
    cte = ctx.cte(name) if not table.db else None
    if cte is not None:
        inner = renamed(cte_plan(cte, ctx), cte.columns, span)
        return Built(Alias(children=(inner.node,), span=span, alias=alias, columns=inner.columns),
                     inner.names, inner.complete)
    view = ctx.tables.view(name)
    if view is not None and name in ctx.inlining:
        return Built(Opaque(span=span, reason=f"view {name} reads itself"))
    if view is not None:
        inner_ctx = Context(
            unit=view.unit, tables=ctx.tables, dialect=ctx.dialect, target=ctx.target,
            spans=view_spans(view, ctx.dialect), inlining=ctx.inlining | {name},
        )
        inner = queries.build_query(view.query, inner_ctx, None)
        inner = renamed(inner, view.columns, inner_ctx.spans.head(view.query))
        return Built(
            Alias(children=(inner.node,), span=span, alias=alias, columns=inner.columns,
                  origin=view.unit),
            inner.names, inner.complete,
        )
    columns = ctx.tables.columns(name) or ()
    scan = Scan(span=span, table=name, alias=alias, columns=columns, stored=ctx.tables.stored(name))
    return Built(scan, columns, bool(columns))


def cte_plan(cte: CteDefinition, ctx: Context) -> Built:
    """The plan of a CTE's query: the plan itself where it is first read, a copy of it
    elsewhere.

    The CTEs it reads are built first, innermost first, so that none is built from inside
    another's build: building each where it is read would nest the builds of a chain of
    CTEs (`b` reads `a`, `c` reads `b`, ...) one in another, about ten frames a CTE, and a
    few models of 20-30 CTEs inlined through `ref` ran out of Python's recursion limit."""
    known = ctx.cte_plans.get(id(cte))
    if known is None:
        for definition in _unbuilt_reads(cte, ctx):
            ctx.cte_plans[id(definition)] = (definition, _build_cte(definition, ctx), False)
        known = ctx.cte_plans[id(cte)] = (cte, _build_cte(cte, ctx), False)
    built = known[1]
    if not known[2]:
        ctx.cte_plans[id(cte)] = (cte, built, True)
        return built
    return Built(copied(built.node), built.names, built.complete)


def _build_cte(cte: CteDefinition, ctx: Context) -> Built:
    return queries.build_query(cte.query, replace(ctx, ctes=cte.visible), None)


def _unbuilt_reads(cte: CteDefinition, ctx: Context) -> list[CteDefinition]:
    """The CTEs `cte` reads, directly or through others, not built yet: each after those it
    reads. A name is taken as read wherever it appears as a table in the query, so a CTE
    shadowed by an inner WITH may be built unread; that costs time, not correctness."""
    order: list[CteDefinition] = []
    seen = {id(cte)}
    stack = [(cte, iter(_reads(cte)))]
    while stack:
        definition, pending = stack[-1]
        following = next(pending, None)
        if following is None:
            stack.pop()
            if definition is not cte:
                order.append(definition)
        elif id(following) not in seen and id(following) not in ctx.cte_plans:
            seen.add(id(following))
            stack.append((following, iter(_reads(following))))
    return order


def _reads(cte: CteDefinition) -> list[CteDefinition]:
    """The CTEs defined before `cte` that its query names (a CTE sees only earlier ones)."""
    by_name = {definition.name: definition for definition in cte.visible}  # the latest wins
    names = dict.fromkeys(table.name.lower() for table in cte.query.find_all(exp.Table) if not table.db)
    return [by_name[name] for name in names if name in by_name]


def renamed(built: Built, names: tuple[str, ...], span: Span | None) -> Built:
    """A query read under a column list (`c (a, b) AS (...)`, `(...) s (a, b)`): a Project
    renaming its outputs by position."""
    if not names:
        return built
    if not built.complete or len(built.names) != len(names):
        return Built(Opaque(children=(built.node,), span=span, reason="column list of unknown arity",
                            columns=names), names, True)
    columns = tuple(
        OutputColumn(new, Expr.column(old), aliased=True) for new, old in zip(names, built.names)
    )
    return Built(Project(children=(built.node,), span=span, columns=columns), names, True)


def aliased(built: Built, alias: str, span: Span | None) -> Relation:
    node = Alias(children=(built.node,), span=span, alias=alias, columns=built.columns)
    return of_source(node, source(alias, built))


def opaque(node: exp.Expression, reason: str, span: Span | None) -> Relation:
    columns = alias_columns(node)
    built = Built(Opaque(span=span, reason=reason, columns=columns), columns, bool(columns))
    return of_source(built.node, source(node.alias.lower(), built))


def source(alias: str, built: Built) -> Source:
    return Source(alias, tuple(n.lower() for n in built.names), built.complete)


def alias_columns(node: exp.Expression) -> tuple[str, ...]:
    alias = node.args.get("alias")
    return tuple(c.name for c in alias.columns) if isinstance(alias, exp.TableAlias) else ()


def lateral_view(relation: Relation, lateral: exp.Lateral, ctx: Context, outer: Scope | None) -> Relation:
    """`LATERAL VIEW [OUTER] explode(...) t AS c`: each row becomes the rows the generator
    makes of it, and the generated columns are added under the view's name. A call that is
    not a generator, or whose columns' names are not known, is opaque."""
    alias = lateral.args.get("alias")
    name = alias.name.lower() if alias is not None else ""
    columns = tuple(c.name.lower() for c in alias.columns) if alias is not None else ()
    span = ctx.spans.extent(lateral)
    call = lateral.this
    try:
        if not is_generator(call):
            raise NotUnderstood(f"{function_name(call)}(...) is not a generator")
        generator = generator_call(call, columns, bool(lateral.args.get("outer")))
    except NotUnderstood as error:
        node: Node = Opaque(children=(relation.node,), span=span, reason=f"LATERAL VIEW: {error.reason}")
    else:
        columns = generator.names
        resolved = qualify(call, relation.scope(outer))
        node = generate(relation.node, generator, resolved, name or None, span)
    generated = of_source(node, Source(name, columns, bool(columns)))
    star = relation.star + generated.star if relation.star is not None and generated.star else None
    return Relation(node, (*relation.sources, *generated.sources), relation.merged, star)


def build_join(
    left: Relation, join: exp.Join, ctx: Context, outer: Scope | None, span: Span | None
) -> Relation:
    right = build_relation(join.this, ctx)
    kind = join_kind(join)
    both = Scope((*left.sources, *right.sources), outer, (*left.merged, *right.merged))
    equalities: list[tuple[Expr, Expr]] = []
    residual: list[Expr] = []
    on = join.args.get("on")
    for conjunct in conjuncts(on) if on is not None else ():
        resolved = qualify(conjunct, both)
        pair = equality(resolved, left.sources, right.sources)
        if pair is not None:
            equalities.append(pair)
        else:
            residual.append(Expr.of(resolved))
    merged: list[tuple[str, str]] = []
    shared = shared_columns(join, left, right)
    for name in shared:
        left_qualifier = left.scope(None).qualifier(name)
        right_qualifier = right.scope(None).qualifier(name)
        if left_qualifier is not None and right_qualifier is not None:
            equalities.append((Expr.column(name, left_qualifier), Expr.column(name, right_qualifier)))
        reads = {"right": right_qualifier, "full": None}.get(kind, left_qualifier)
        merged.append((name, reads or ""))
    written_right = kind in ("semi", "anti") and join.side.upper() == "RIGHT"
    if written_right:
        # `l RIGHT SEMI JOIN r` returns r's rows: built as `r SEMI JOIN l`.
        left, right = right, left
        equalities = [(r, l) for l, r in equalities]
    node = Join(children=(left.node, right.node), span=span, kind=kind,
                equalities=tuple(equalities), residual=tuple(residual), written_right=written_right)
    if kind in ("semi", "anti"):
        return Relation(node, left.sources, left.merged, left.star)
    star = None
    if left.star is not None and right.star is not None:
        star = (
            *((qualifier, name) for name, qualifier in merged),
            *((q, c) for q, c in (*left.star, *right.star) if c not in shared),
        )
    merged_all = (*left.merged, *right.merged, *merged)
    return Relation(node, (*left.sources, *right.sources), merged_all, star)


def join_kind(join: exp.Join) -> JoinKind:
    kind = join.kind.upper()
    side = join.side.upper()
    if kind in ("SEMI", "ANTI", "CROSS"):
        return kind.lower()  # type: ignore[return-value]
    if side in ("LEFT", "RIGHT", "FULL"):
        return side.lower()  # type: ignore[return-value]
    has_condition = join.args.get("on") is not None or join.args.get("using")
    return "inner" if has_condition or join.method.upper() == "NATURAL" else "cross"


def shared_columns(join: exp.Join, left: Relation, right: Relation) -> tuple[str, ...]:
    """The columns of USING (...), or of NATURAL when both sides' columns are known."""
    if join.method.upper() == "NATURAL":
        if not all(s.complete for s in (*left.sources, *right.sources)):
            return ()
        right_names = {c for s in right.sources for c in s.columns}
        return tuple(c for s in left.sources for c in s.columns if c in right_names)
    return tuple(u.name.lower() for u in join.args.get("using") or [])


def equality(
    conjunct: exp.Expression, left: tuple[Source, ...], right: tuple[Source, ...]
) -> tuple[Expr, Expr] | None:
    """`l = r` with one side over each input, left input's side first."""
    if not isinstance(conjunct, exp.EQ):
        return None
    sides = (side_of(conjunct.this, left, right), side_of(conjunct.expression, left, right))
    if sides == ("left", "right"):
        return Expr.of(conjunct.this), Expr.of(conjunct.expression)
    if sides == ("right", "left"):
        return Expr.of(conjunct.expression), Expr.of(conjunct.this)
    return None


def side_of(node: exp.Expression, left: tuple[Source, ...], right: tuple[Source, ...]) -> str | None:
    qualifiers = {column.table for column in columns_of(node)}
    if not qualifiers or "" in qualifiers:
        return None
    if qualifiers <= {s.alias for s in left}:
        return "left"
    if qualifiers <= {s.alias for s in right}:
        return "right"
    return None
