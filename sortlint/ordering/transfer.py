"""Transfer functions: the properties of every plan node's output, bottom-up, per target.

`target: datafusion` follows the seeds: a declared order is read in order, and operators
that keep order keep it. `target: spark` follows what Spark's planner does: a shuffle
(join, aggregate, repartition, set operation) reorders rows, a hash aggregate emits in no
order, and only its own sorts produce order. Whatever a node cannot account for is
forgotten, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlglot import exp

from sortlint.config import Config, Source
from sortlint.ordering.expressions import Expr
from sortlint.ordering.properties import Permutation, Properties
from sortlint.ordering.sort import Evidence, SortKey, SortOptions
from sortlint.plan import nodes as n

LineOf = Callable[["n.Span | None"], "int | None"]


@dataclass
class Analysis:
    """The properties of every node's output, and each aggregate's streaming mode."""

    config: Config
    line_of: LineOf
    properties: dict[int, Properties] = field(default_factory=dict)
    permutations: dict[int, Permutation] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return self.config.target

    def of(self, node: n.Node) -> Properties:
        return self.properties[id(node)]

    def permutation(self, node: n.Aggregate) -> Permutation:
        return self.permutations[id(node)]


def analyse(root: n.Node, config: Config, line_of: LineOf = lambda span: None) -> Analysis:
    analysis = Analysis(config, line_of)
    _visit(root, analysis)
    return analysis


def _visit(node: n.Node, analysis: Analysis) -> Properties:
    for child in node.children:
        _visit(child, analysis)
    transfer = TRANSFER.get(type(node), _forget)
    props = transfer(node, analysis)
    analysis.properties[id(node)] = props
    return props


def _input(node: n.Node, analysis: Analysis) -> Properties:
    return analysis.of(node.children[0]) if node.children else Properties()


def _query_evidence(analysis: Analysis, clause: str, span: n.Span | None) -> Evidence:
    line = analysis.line_of(span)
    return Evidence("query", f"{clause} (line {line})" if line else clause, line)


# --- leaves -------------------------------------------------------------------------


def _scan(node: n.Scan, analysis: Analysis) -> Properties:
    source = analysis.config.source(node.table)
    if source is None:
        return Properties()
    return seed(source, node.alias)


def seed(source: Source, alias: str) -> Properties:
    """The catalog's declarations about a table, over columns qualified by `alias`."""

    def column(name: str) -> Expr:
        return Expr.column(name, alias)

    declared = f"of {source.name} ({source.location})"
    known = source.engine_known
    props = Properties(
        types={column(c.name): c.type for c in source.columns if c.type},
        not_null=frozenset(column(c.name) for c in source.columns if not c.nullable),
    )
    for name, value in source.constants:
        evidence = Evidence(
            "declared", f"declared constant {name} = {value!r} {declared}", enforced=known
        )
        props = props.with_constant(column(name), _literal(value), [evidence])
    partitioned_by = None
    if source.scope == "partition":
        partitioned_by = [column(c) for c in source.partitioned_by]
    for ordering in source.orderings:
        keys = [
            SortKey(column(item.column), SortOptions(item.descending, item.nulls_first))
            for item in ordering.items
        ]
        where = f"{source.name} ({ordering.location})"
        evidence = Evidence(
            "declared", f"declared ordering {ordering} of {where}", enforced=known
        )
        props = props.with_ordering(keys, [evidence], partitioned_by)
    for unique in source.unique:
        evidence = Evidence(
            "declared", f"declared unique key ({', '.join(unique)}) {declared}", enforced=known
        )
        props = props.with_unique_key([column(c) for c in unique], [evidence])
    return props


def _literal(value: object) -> Expr:
    if value is None:
        return Expr.of(exp.Null())
    if isinstance(value, bool):
        return Expr.of(exp.Boolean(this=value))
    if isinstance(value, (int, float)):
        return Expr.of(exp.Literal.number(value))
    return Expr.of(exp.Literal.string(str(value)))


def _forget(node: n.Node, analysis: Analysis) -> Properties:
    return Properties()


# --- row-wise operators -------------------------------------------------------------


def _filter(node: n.Filter, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    for conjunct in node.conjuncts:
        props = apply_predicate(props, conjunct, _conjunct_evidence(analysis, node, conjunct))
    return props


def _conjunct_evidence(analysis: Analysis, node: n.Filter, conjunct: Expr) -> Evidence:
    line = analysis.line_of(node.span)
    text = f"{node.clause} {conjunct}"
    return Evidence("query", f"{text} (line {line})" if line else text, line)


def apply_predicate(props: Properties, predicate: Expr, evidence: Evidence) -> Properties:
    """What a row filter teaches: `e = literal` a constant, `a = b` an equality."""
    node = predicate.node
    if isinstance(node, (exp.EQ, exp.NullSafeEQ)):
        left, right = Expr.of(node.this), Expr.of(node.expression)
        props = props.with_equality(left, right, [evidence])
        if isinstance(node, exp.EQ):  # `=` is never true on a null
            props = props.with_not_null(e for e in (left, right) if not e.is_literal)
        return props
    if isinstance(node, exp.In) and not node.args.get("query"):
        values = node.expressions
        if len(values) == 1:
            return apply_predicate(props, Expr.of(exp.EQ(this=node.this, expression=values[0])), evidence)
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        if isinstance(node.this.expression, exp.Null):
            return props.with_not_null([Expr.of(node.this.this)])
    return props


def _project(node: n.Project, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    mapping = [(column.expr, Expr.column(column.name)) for column in node.columns]
    for alias in getattr(node, "passthrough", ()):
        mapping += [(c, Expr.column(c.column_name)) for c in _mentioned_columns(props) if _qualifier(c) == alias]
    return props.project(mapping)


def _alias(node: n.Alias, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    names = node.columns or tuple(
        c.column_name for c in _mentioned_columns(props) if not _qualifier(c)
    )
    return props.project([(Expr.column(name), Expr.column(name, node.alias)) for name in names])


def _qualifier(column: Expr) -> str:
    return column.node.table if isinstance(column.node, exp.Column) else ""


def _mentioned_columns(props: Properties) -> list[Expr]:
    """Every column some fact speaks of, for projections whose column list is unknown."""
    exprs: set[Expr] = set(props.constants) | set(props.types) | set(props.not_null)
    for cls in props.classes:
        exprs.update(cls.members)
    for fact in props.orderings:
        exprs.update(key.expr for key in fact.keys)
        exprs.update(fact.partitioned_by or ())
    for key in props.unique_keys:
        exprs.update(key.exprs)
    columns = {c for e in exprs for c in e.columns}
    return sorted(columns)


def _keep(node: n.Node, analysis: Analysis) -> Properties:
    return _input(node, analysis)


# --- order-producing and order-destroying operators ---------------------------------


def _sort(node: n.Sort, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    keys = [SortKey(item.expr, item.options) for item in node.keys]
    evidence = _query_evidence(analysis, node.clause, node.span)
    if node.scope == "global":
        return props.sorted_by(keys, [evidence])
    child = node.children[0]
    if isinstance(child, n.Repartition) and child.keys:
        # DISTRIBUTE BY k SORT BY s: rows sharing k share a partition, sorted by s there.
        return props.without_orderings().with_ordering(keys, [evidence], child.keys)
    return props.without_orderings()


def _repartition(node: n.Repartition, analysis: Analysis) -> Properties:
    return _input(node, analysis).without_orderings()


def _aggregate(node: n.Aggregate, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    keys = [key.expr for key in node.keys]
    permutation = props.ordered_permutation(keys)
    analysis.permutations[id(node)] = permutation
    if node.grouping_sets:
        return Properties()  # rolled-up rows null-fill keys: constants and keys break
    out = props.project([(key, key) for key in keys])
    if analysis.target == "spark" or not permutation.indices:
        out = out.without_orderings()
    evidence = _query_evidence(analysis, "GROUP BY", node.span)
    out = out.with_unique_key(keys, [evidence])
    counts = [call.expr for call in node.aggregates if isinstance(call.expr.node, exp.Count)]
    return out.with_not_null(counts).with_types({c: "bigint" for c in counts})


def _distinct(node: n.Distinct, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    names = output_names(node.children[0])
    columns = [Expr.column(name) for name in names]
    if not columns:
        return Properties()
    permutation = props.ordered_permutation(columns)
    if analysis.target == "spark" or not permutation.indices:
        props = props.without_orderings()
    return props.with_unique_key(columns, [_query_evidence(analysis, "DISTINCT", node.span)])


def _window(node: n.Window, analysis: Analysis) -> Properties:
    props = _input(node, analysis)
    for function in node.functions:
        props = _window_function(props, function, analysis)
    return props


def _window_function(props: Properties, function: n.WindowFunction, analysis: Analysis) -> Properties:
    partition = [key.expr for key in function.partition_by]
    order = [SortKey(item.expr, item.options) for item in function.order_by]
    evidence = _query_evidence(analysis, "window ORDER BY", function.order_span or function.span)
    requirement = [SortKey(e, SortOptions.spark()) for e in partition] + order
    if analysis.target == "spark":
        # Spark clusters by the partition keys, then sorts each partition.
        if partition:
            props = props.without_orderings().with_ordering(requirement, [evidence], partition)
        elif order:
            props = props.sorted_by(order, [evidence])
    elif not props.satisfaction(order, within=partition).complete:
        props = props.sorted_by(requirement, [evidence])
    if function.ranking and order and not partition:
        # row_number/rank/dense_rank grow along the window's order.
        props = props.with_ordering([SortKey(function.expr, SortOptions())], [evidence])
        props = props.with_not_null([function.expr])
        if isinstance(function.expr.node.this, exp.RowNumber):
            props = props.with_unique_key([function.expr], [evidence])
    return props


def _join(node: n.Join, analysis: Analysis) -> Properties:
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
    )
    if node.kind in ("inner", "cross"):
        evidence = _query_evidence(analysis, "JOIN ON", node.span)
        for left_key, right_key in node.equalities:
            props = props.with_equality(left_key, right_key, [evidence])
            props = props.with_not_null([left_key, right_key])
    return props


def _null_filled(props: Properties) -> Properties:
    """The side of an outer join whose unmatched rows come back as nulls: its columns
    are no longer constant nor non-null, but columns equal to each other stay equal."""
    return replace(props, constants={}, not_null=frozenset(), orderings=(), unique_keys=())


def _set_op(node: n.SetOp, analysis: Analysis) -> Properties:
    columns = [Expr.column(name) for name in node.columns]
    branches = []
    for child in node.children:
        names = output_names(child)
        if len(names) != len(columns):
            return Properties()
        mapping = [(Expr.column(name), column) for name, column in zip(names, columns)]
        branches.append(analysis.of(child).project(mapping))
    if node.kind == "union":
        props = Properties.union(branches)
    else:  # INTERSECT / EXCEPT return rows of the first branch
        props = branches[0]
    props = props.without_orderings()
    if node.distinct and columns:
        props = props.with_unique_key(columns, [_query_evidence(analysis, node.kind.upper(), node.span)])
    return props


def output_names(node: n.Node) -> tuple[str, ...]:
    """The bare output column names of a query's top node, () when unknown."""
    if isinstance(node, n.Project):
        return tuple(column.name for column in node.columns) if not getattr(node, "passthrough", ()) else ()
    if isinstance(node, (n.SetOp, n.Values, n.Opaque)):
        return node.columns
    if isinstance(node, (n.Sort, n.Limit, n.Filter, n.Distinct, n.Repartition, n.Write, n.Window)):
        return output_names(node.children[0]) if node.children else ()
    return ()


TRANSFER: dict[type[n.Node], Callable[[n.Node, Analysis], Properties]] = {
    n.Scan: _scan,
    n.Filter: _filter,
    n.Project: _project,
    n.Alias: _alias,
    n.Aggregate: _aggregate,
    n.Window: _window,
    n.Sort: _sort,
    n.Limit: _keep,
    n.Join: _join,
    n.SetOp: _set_op,
    n.Distinct: _distinct,
    n.Repartition: _repartition,
    n.Write: _keep,
    n.Subquery: _keep,
    n.Values: _forget,
    n.Opaque: _forget,
}
