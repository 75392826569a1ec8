"""Properties from the catalog: what a table scan knows before any operator runs.

A `Scan` of a table the catalog declares starts with its declarations - column types and
nullability, constants, orderings (global or per partition), unique keys - each carrying
`declared` evidence that says where it was declared and whether the engine itself knows it
(`engine_known`); a table another statement of the repository wrote adds what its rows are
known to satisfy (`sortlint.engines.stored`). A table nothing is known of starts with nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sortlint.config import Source
from sortlint.engines.analysis import Analysis
from sortlint.engines.stored import read_back
from sortlint.ordering import Evidence, Expr, Properties, SortKey, SortOptions
from sortlint.ordering.expressions import column_node
from sortlint.ordering.types import Arithmetic
from sortlint.plan import nodes as n
from sortlint.plan.dialect import sql_dialect


def scan(
    node: n.Scan,
    analysis: Analysis,
    carried: Callable[[Source], Source] = lambda source: source,
    ordering_caveat: str | None = None,
) -> Properties:
    """The catalog's declarations (those the target's scan `carried`; its orderings under
    `ordering_caveat`, see `seed`) with the column types learned of the table, and what the
    rows are known to satisfy because another statement of the repository wrote them
    (`sortlint.engines.stored`)."""
    source = declared_source(node.table, analysis)
    if source is None:
        props = analysis.nothing_known()
    else:
        learned = analysis.config.types_of(node.table)
        props = seed(carried(source), node.alias, analysis.semantics.arithmetic, learned, ordering_caveat)
    return props if node.stored is None else read_back(props, node.stored, node.alias)


def declared_source(table: str, analysis: Analysis) -> Source | None:
    """What the catalog says of a table: its declaration, or - where only column types were
    learned of it (`Config.column_types`) - an empty one; None when nothing is known."""
    source = analysis.config.source(table)
    if source is None and analysis.config.types_of(table):
        return Source(table)
    return source


def seed(
    source: Source,
    alias: str,
    arithmetic: Arithmetic = Arithmetic(),
    learned_types: Mapping[str, str] | None = None,
    ordering_caveat: str | None = None,
) -> Properties:
    """The catalog's declarations about a table, over columns qualified by `alias`; the
    column types `learned_types` has (from dbt) where the declaration gives none. An
    `ordering_caveat` is a condition, nothing checks, under which the engine reads the
    table in its declared orderings (see `Evidence.caveat`)."""

    def column(name: str) -> Expr:
        return Expr.column(name, alias)

    declared = f"of {source.name} ({source.location})"
    known = source.engine_known
    types = {column(name): type_ for name, type_ in (learned_types or {}).items()}
    types.update({column(c.name): c.type for c in source.columns if c.type})
    props = Properties(
        types=types,
        not_null=frozenset(column(c.name) for c in source.columns if not c.nullable),
        arithmetic=arithmetic,
    )
    for name, value in source.constants:
        evidence = Evidence(
            "declared", f"declared constant {name} = {value!r} {declared}", enforced=known
        )
        props = props.with_constant(column(name), literal(value), [evidence])
    partitioned_by = None
    if source.scope == "partition":
        partitioned_by = [column(c) for c in source.partitioned_by]
    for ordering in source.orderings:
        keys = [
            SortKey(
                declared_expr(item.column, alias, source),
                SortOptions(item.descending, item.nulls_first),
            )
            for item in ordering.items
        ]
        where = f"{source.name} ({ordering.location})"
        evidence = Evidence(
            "declared", f"declared ordering {ordering} of {where}", enforced=known, caveat=ordering_caveat
        )
        props = props.with_ordering(keys, [evidence], partitioned_by)
    for unique in source.unique:
        evidence = Evidence(
            "declared", f"declared unique key ({', '.join(unique)}) {declared}", enforced=known
        )
        props = props.with_unique_key([column(c) for c in unique], [evidence])
    return props


def declared_expr(text: str, alias: str, source: Source) -> Expr:
    """A declared ordering key, over columns qualified by `alias`: a column, or - when the text
    names no declared column but reads as an expression over declared columns (DataFusion's
    `WITH ORDER (a + b)`) - that expression. A backtick-quoted name such as `a + b` that is a
    declared column stays that column."""
    declared = {c.name for c in source.columns}
    if not declared or text in declared:
        return Expr.column(text, alias)
    try:
        node = sqlglot.parse_one(text, read=sql_dialect("spark"))
    except SqlglotError:
        return Expr.column(text, alias)
    columns = list(node.find_all(exp.Column))
    if not columns or any(c.table or c.name.lower() not in declared for c in columns):
        return Expr.column(text, alias)

    def qualified(sub: exp.Expression) -> exp.Expression:
        if isinstance(sub, exp.Column):
            return column_node(sub.name.lower(), alias.lower() if alias else None)
        return sub

    return Expr.of(node.transform(qualified))


def literal(value: object) -> Expr:
    """A declared constant's value as an expression."""
    if value is None:
        return Expr.of(exp.Null())
    if isinstance(value, bool):
        return Expr.of(exp.Boolean(this=value))
    if isinstance(value, (int, float)):
        return Expr.of(exp.Literal.number(value))
    return Expr.of(exp.Literal.string(str(value)))
