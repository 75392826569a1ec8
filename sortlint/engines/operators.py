"""The transfer functions both targets share: operators whose effect on row properties does
not depend on the engine, and the engine-independent part of the others.

Row-wise operators (filter, projection, renaming) keep or teach facts; a sort makes an
ordering; a shuffle (`Repartition`) destroys every ordering. What an aggregate, DISTINCT, a
set operation or a join emits in order depends on the engine: those functions take the
engine's answer as a parameter, and `sortlint.engines.spark` / `sortlint.engines.datafusion`
give it. Whatever a node cannot account for is forgotten, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace

from sqlglot import exp

from sortlint.engines.analysis import Analysis, Transfer
from sortlint.engines.comparisons import Semantics, equality
from sortlint.engines.seeding import scan
from sortlint.ordering import Evidence, Expr, Properties, SortKey, SortOptions
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import unwrap


def input_of(node: n.Node, analysis: Analysis) -> Properties:
    return analysis.of(node.children[0]) if node.children else analysis.nothing_known()


def query_evidence(analysis: Analysis, clause: str, span: n.Span | None) -> Evidence:
    place = analysis.place_of(span)
    if place is None:
        return Evidence("query", clause)
    return Evidence("upstream" if place.elsewhere else "query", f"{clause} ({place.text})", place.line)


def forget(node: n.Node, analysis: Analysis) -> Properties:
    return analysis.nothing_known()


def keep(node: n.Node, analysis: Analysis) -> Properties:
    return input_of(node, analysis)


# --- row-wise operators -------------------------------------------------------------


def filter_rows(node: n.Filter, analysis: Analysis) -> Properties:
    props = input_of(node, analysis)
    for conjunct in node.conjuncts:
        evidence = _conjunct_evidence(analysis, node, conjunct)
        props = apply_predicate(props, conjunct, evidence, analysis.semantics)
    return props


def _conjunct_evidence(analysis: Analysis, node: n.Filter, conjunct: Expr) -> Evidence:
    return replace(query_evidence(analysis, f"{node.clause} {{subject}}", node.span), subject=conjunct)


def apply_predicate(
    props: Properties, predicate: Expr, evidence: Evidence, semantics: Semantics
) -> Properties:
    """What a row filter teaches: `e = literal` a constant, `a = b` an equality, each only
    as far as the engine's casts allow (`sortlint.engines.comparisons`)."""
    node = predicate.node
    if isinstance(node, (exp.EQ, exp.NullSafeEQ)):
        left, right = Expr.of(node.this), Expr.of(node.expression)
        props = equality(props, left, right, [evidence], semantics)
        if isinstance(node, exp.EQ):  # `=` is never true on a null, whatever it casts
            props = props.with_not_null(e for e in (left, right) if not e.is_literal)
        return props
    if isinstance(node, exp.In) and not node.args.get("query"):
        values = node.expressions
        if len(values) == 1:
            single = Expr.of(exp.EQ(this=node.this, expression=values[0]))
            return apply_predicate(props, single, evidence, semantics)
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        if isinstance(node.this.expression, exp.Null):
            return props.with_not_null([Expr.of(node.this.this)])
    return props


def project(node: n.Project, analysis: Analysis) -> Properties:
    props = input_of(node, analysis)
    # Outputs are named; two outputs of one name (`SELECT *` over a join) cannot be told
    # apart by a later clause, so neither carries any fact.
    counts = Counter(column.name.lower() for column in node.columns)
    mapping = [
        (column.expr, Expr.column(column.name))
        for column in node.columns
        if counts[column.name.lower()] == 1
    ]
    # A column a `*` passes through under the name of a listed output (`withColumn` over
    # columns not all known replaces it) is that output's name: it carries nothing more.
    listed = set(counts)
    for alias in node.passthrough:
        mapping += [(c, Expr.column(c.column_name)) for c in props.mentioned_columns()
                    if _qualifier(c) == alias and (c.column_name or "").lower() not in listed]
    return props.project(mapping)


def alias(node: n.Alias, analysis: Analysis) -> Properties:
    props = input_of(node, analysis)
    names = node.columns or tuple(
        c.column_name for c in props.mentioned_columns() if not _qualifier(c)
    )
    return props.project([(Expr.column(name), Expr.column(name, node.alias)) for name in names])


def _qualifier(column: Expr) -> str:
    return column.node.table if isinstance(column.node, exp.Column) else ""


def generate(node: n.Generate, analysis: Analysis, keeps_order: bool) -> Properties:
    """A generator: each input row becomes zero or more rows that repeat its columns. What
    holds of the input's columns row by row still holds (constants, equalities, types,
    non-null columns); no key stays unique, as rows repeat; and of the generated columns
    nothing is known - not even from constant arguments: `explode(array(3, 1, 2))` is three
    rows. `keeps_order`: whether the engine emits each row's rows where the row was, so that
    the input's orderings hold of the output."""
    props = input_of(node, analysis)
    generated = set(node.columns)
    kept = [column for column in props.mentioned_columns() if column not in generated]
    props = replace(props.project([(column, column) for column in kept]), unique_keys=())
    return props if keeps_order else props.without_orderings()


# --- order-producing and order-destroying operators ---------------------------------


def sort(node: n.Sort, analysis: Analysis) -> Properties:
    props = input_of(node, analysis)
    keys = [SortKey(item.expr, item.options) for item in node.keys]
    evidence = query_evidence(analysis, node.clause, node.span)
    if node.scope == "global":
        return props.sorted_by(keys, [evidence])
    child = node.children[0]
    if isinstance(child, n.Repartition) and child.keys:
        # DISTRIBUTE BY k SORT BY s: rows sharing k share a partition, sorted by s there.
        return props.without_orderings().with_ordering(keys, [evidence], child.keys)
    return props.without_orderings()


def repartition(node: n.Repartition, analysis: Analysis) -> Properties:
    return input_of(node, analysis).without_orderings()


def aggregate(node: n.Aggregate, analysis: Analysis) -> Properties:
    """GROUP BY: one row per group, unique on the keys, in no order every engine keeps (an
    engine that emits a streamed aggregate's groups in order says so itself)."""
    props = input_of(node, analysis)
    keys = [key.expr for key in node.keys]
    if node.grouping_sets:
        return analysis.nothing_known()  # rolled-up rows null-fill keys: constants and keys break
    out = props.project([(key, key) for key in keys]).without_orderings()
    evidence = query_evidence(analysis, "GROUP BY", node.span)
    out = out.with_unique_key(keys, [evidence])
    counts = [call.expr for call in node.aggregates if isinstance(call.expr.node, exp.Count)]
    types = {call.expr: t for call in node.aggregates if (t := props.type_of(call.expr)) is not None}
    return out.with_not_null(counts).with_types(types)


def distinct(node: n.Distinct, analysis: Analysis) -> Properties:
    """DISTINCT: an aggregate on every output column (see `aggregate`)."""
    props = input_of(node, analysis)
    names = n.output_names(node.children[0])
    columns = [Expr.column(name) for name in names]
    if not columns:
        return analysis.nothing_known()
    evidence = query_evidence(analysis, "DISTINCT", node.span)
    return props.without_orderings().with_unique_key(columns, [evidence])


def join(node: n.Join, analysis: Analysis) -> Properties:
    """What every engine's join keeps: each side's constants, equalities, types and
    non-null columns (not those an outer join null-fills), and the ON equalities of an
    inner join. No ordering: which side's order survives is the engine's."""
    left, right = (analysis.of(child) for child in node.children[:2])
    if node.kind in ("semi", "anti"):
        return left.without_orderings()
    left = _null_filled(left) if node.kind in ("right", "full") else left
    right = _null_filled(right) if node.kind in ("left", "full") else right
    props = Properties(
        constants={**left.constants, **right.constants},
        classes=left.classes + right.classes,
        not_null=left.not_null | right.not_null,
        types={**left.types, **right.types},
        arithmetic=analysis.semantics.arithmetic,
    )
    if node.kind in ("inner", "cross"):
        evidence = query_evidence(analysis, "JOIN ON", node.span)
        for left_key, right_key in node.equalities:
            props = equality(props, left_key, right_key, [evidence], analysis.semantics)
            props = props.with_not_null([left_key, right_key])
    return props


def _null_filled(props: Properties) -> Properties:
    """The side of an outer join whose unmatched rows come back as nulls: its columns
    are no longer constant nor non-null, but columns equal to each other stay equal."""
    return replace(props, constants={}, not_null=frozenset(), orderings=(), unique_keys=())


def set_operation(
    node: n.SetOp, analysis: Analysis, keeps_order: Callable[[n.SetOp], bool], per_partition: bool = False
) -> Properties:
    """UNION / INTERSECT / EXCEPT: what every branch guarantees about its columns (the first
    branch's for INTERSECT and EXCEPT, which return its rows). `keeps_order(node)`: whether
    the engine emits the branches' common ordering - inside each partition only, with
    `per_partition` (the branches' partitions side by side)."""
    columns = [Expr.column(name) for name in node.columns]
    branches = []
    for child in node.children:
        names = n.output_names(child)
        if len(names) != len(columns):
            return analysis.nothing_known()
        mapping = [(Expr.column(name), column) for name, column in zip(names, columns)]
        branch = analysis.of(child).project(mapping)
        branches.append(branch.in_each_partition() if per_partition else branch)
    if node.kind == "union":
        props = Properties.union(branches, per_partition)
    else:  # INTERSECT / EXCEPT return rows of the first branch
        props = branches[0]
    if not keeps_order(node):
        props = props.without_orderings()
    if node.distinct and columns:
        props = props.with_unique_key(columns, [query_evidence(analysis, node.kind.upper(), node.span)])
    return props


def ranked(
    props: Properties,
    function: n.WindowFunction,
    partition_keys: list[SortKey],
    evidence: list[Evidence],
    partitioned_by: Iterable[Expr] | None = None,
) -> Properties:
    """row_number/rank/dense_rank computed over rows that arrive in the window's order: the
    rank grows with it (inside each partition), and `rank_facts` hold. `partitioned_by`: the
    rows come so only inside each physical partition of these keys."""
    props = props.with_ordering([*partition_keys, SortKey(function.expr, SortOptions())], evidence, partitioned_by)
    return rank_facts(props, function, evidence, [k.expr for k in partition_keys])


def rank_facts(
    props: Properties, function: n.WindowFunction, evidence: list[Evidence], partition: list[Expr] | None = None
) -> Properties:
    """What a rank says whatever order the rows leave in: it is never null, and row_number
    is unique inside its partition."""
    props = props.with_not_null([function.expr])
    if isinstance(unwrap(function.expr.node.this), exp.RowNumber):
        keys = [key.expr for key in function.partition_by] if partition is None else partition
        props = props.with_unique_key([*keys, function.expr], evidence)
    return props


# The operators every target models alike; a target's table adds Aggregate, Distinct,
# Window, Join and SetOp.
SHARED: dict[type, Transfer] = {
    n.Scan: scan,
    n.Filter: filter_rows,
    n.Project: project,
    n.Alias: alias,
    n.Sort: sort,
    n.Limit: keep,
    n.Repartition: repartition,
    n.Write: keep,
    n.Subquery: keep,
    n.Values: forget,
    n.Opaque: forget,
}
