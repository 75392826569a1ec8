"""Transfer functions: the properties of every plan node's output, bottom-up, per target.

`target: datafusion` follows the seeds: a declared order is read in order, and operators
that keep order keep it. `target: spark` follows what Spark's planner does: a shuffle
(join, aggregate, repartition, set operation) reorders rows, a hash aggregate emits in no
order, and only its own sorts produce order. Whatever a node cannot account for is
forgotten, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sortlint.config import Config, Source
from sortlint.ordering.expressions import Expr, column_node
from sortlint.ordering.properties import Permutation, Properties
from sortlint.ordering.sort import Evidence, SortKey, SortOptions
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import is_aggregate, unwrap

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
            SortKey(
                declared_expr(item.column, alias, source),
                SortOptions(item.descending, item.nulls_first),
            )
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


def declared_expr(text: str, alias: str, source: Source) -> Expr:
    """A declared ordering key, over columns qualified by `alias`: a column, or - when the text
    names no declared column but reads as an expression over declared columns (DataFusion's
    `WITH ORDER (a + b)`) - that expression. A backtick-quoted name such as `a + b` that is a
    declared column stays that column."""
    declared = {c.name for c in source.columns}
    if not declared or text in declared:
        return Expr.column(text, alias)
    try:
        node = sqlglot.parse_one(text, read="spark")
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
    text = f"{node.clause} {{subject}}"
    return Evidence("query", f"{text} (line {line})" if line else text, line, subject=conjunct)


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
    # Outputs are named; two outputs of one name (`SELECT *` over a join) cannot be told
    # apart by a later clause, so neither carries any fact.
    counts = Counter(column.name.lower() for column in node.columns)
    mapping = [
        (column.expr, Expr.column(column.name))
        for column in node.columns
        if counts[column.name.lower()] == 1
    ]
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
    if analysis.target == "datafusion":
        return _datafusion_window(props, node, analysis)
    for function in node.functions:
        props = _window_function(props, function, analysis)
    return props


def _window_function(props: Properties, function: n.WindowFunction, analysis: Analysis) -> Properties:
    """Spark: every window shuffles by its partition keys and sorts each partition."""
    partition = [key.expr for key in function.partition_by]
    order = [SortKey(item.expr, item.options) for item in function.order_by]
    evidence = _query_evidence(analysis, "window ORDER BY", function.order_span or function.span)
    requirement = [SortKey(e, SortOptions.spark()) for e in partition] + order
    if partition:
        props = props.without_orderings().with_ordering(requirement, [evidence], partition)
    elif order:
        props = props.sorted_by(order, [evidence])
    if function.ranking and order and not partition:
        # row_number/rank/dense_rank grow along the window's order.
        props = _ranked(props, function, [], [evidence])
    return props


# --- DataFusion windows -------------------------------------------------------------
#
# DataFusion plans one window operator per distinct (PARTITION BY, ORDER BY) of a SELECT,
# each keeping its input's order. Its sort enforcement (`get_best_fitting_window`) runs a
# window without a sort when the input is ordered by some permutation of all the partition
# keys followed, inside each partition, by the window's ORDER BY - or by that ORDER BY
# reversed, when every function of the window can be computed backwards (aggregates,
# first/last/nth_value, lag/lead: DataFusion flips their frames). Otherwise it sorts on
# the partition keys (ASC NULLS LAST; in the order the input already has them when it has
# them all, else as written) and then the ORDER BY. On an unbounded input DataFusion may
# also run a window over partially ordered partition keys (`Linear`, `PartiallySorted`);
# sortlint does not know boundedness and models the bounded case.


@dataclass
class _WindowGroup:
    partition: tuple[Expr, ...]
    order: tuple[SortKey, ...]
    functions: list[n.WindowFunction]
    evidence: Evidence


def _window_groups(node: n.Window, analysis: Analysis) -> list[_WindowGroup]:
    groups: dict[tuple, _WindowGroup] = {}
    for function in node.functions:
        partition = tuple(key.expr for key in function.partition_by)
        order = tuple(SortKey(item.expr, item.options) for item in function.order_by)
        group = groups.get((partition, order))
        if group is None:
            evidence = _query_evidence(analysis, "window", function.span)
            group = groups[(partition, order)] = _WindowGroup(partition, order, [], evidence)
        group.functions.append(function)
    return list(groups.values())


def _runs_on(props: Properties, group: _WindowGroup) -> bool | None:
    """Whether DataFusion runs the window on these rows without sorting them; None when that
    depends on whether it can reverse a function sortlint does not know."""
    if group.partition:
        permutation = props.ordered_permutation(group.partition)
        if len(permutation.indices) != len(group.partition):
            return False
    if props.satisfies(group.order, within=group.partition):
        return True
    backwards = [
        SortKey(k.expr, SortOptions(not k.options.descending, not k.options.nulls_first))
        for k in group.order
    ]
    if not group.order or not props.satisfies(backwards, within=group.partition):
        return False
    if all(_reversible(f) for f in group.functions):
        return True
    return None


# Functions DataFusion computes over the reversed order (`reverse_expr`): order-insensitive
# aggregates as they are, first/last_value, nth_value and lag/lead with flipped frames.
# Whether it reverses any other (ranking functions included) is not known here.
REVERSIBLE = (
    exp.Sum, exp.Count, exp.Min, exp.Max, exp.Avg,
    exp.FirstValue, exp.LastValue, exp.NthValue, exp.Lag, exp.Lead,
)


def _reversible(function: n.WindowFunction) -> bool:
    call = unwrap(function.expr.node.this)
    return not function.ranking and isinstance(call, REVERSIBLE)


def _window_sort(props: Properties, group: _WindowGroup) -> list[SortKey]:
    """The keys of the sort DataFusion puts under a window whose input does not fit it."""
    partition = list(group.partition)
    permutation = props.ordered_permutation(partition)
    if partition and len(permutation.indices) == len(partition):
        partition = [partition[i] for i in permutation.indices]
    keys = [SortKey(e, SortOptions.datafusion()) for e in partition]
    return keys + [k for k in group.order if k.expr not in group.partition]


def _datafusion_window(props: Properties, node: n.Window, analysis: Analysis) -> Properties:
    groups = _window_groups(node, analysis)
    fits = [_runs_on(props, g) for g in groups]
    unfit = [g for g, fit in zip(groups, fits) if fit is False]
    # The groups whose functions see the rows in the order the operator emits them.
    last: list[_WindowGroup] = []
    if None in fits:
        out = props.without_orderings()  # sorted or not: not known
    elif not unfit:
        out, last = props, groups
    elif len(unfit) == 1:
        # One sort: the final order is its order wherever DataFusion stacks the group,
        # provided every other group runs on the sorted rows as well.
        sorted_ = props.sorted_by(_window_sort(props, unfit[0]), [unfit[0].evidence])
        if all(_runs_on(sorted_, g) is True for g in groups if g is not unfit[0]):
            out, last = sorted_, unfit
        else:
            out = props.without_orderings()
    else:
        out = props.without_orderings()  # several sorts, stacked in an order not modelled
    for group in groups:
        for function in group.functions:
            out = _window_facts(out, group, function, group in last)
    return out


def _window_facts(
    props: Properties, group: _WindowGroup, function: n.WindowFunction, in_order: bool
) -> Properties:
    """What a window function's values tell about the rows (DataFusion's
    `window_equivalence_properties`)."""
    evidence = [group.evidence]
    partition = list(group.partition)
    keys: list[SortKey] | None = []
    if partition:
        permutation = props.ordered_permutation(partition)
        keys = list(permutation.keys) if len(permutation.indices) == len(partition) else None
    if function.ranking and in_order and keys is not None:
        # row_number/rank/dense_rank grow through each partition in the order rows come.
        return _ranked(props, function, keys, evidence)
    if is_aggregate(unwrap(function.expr.node.this)) and _whole_partition(function):
        # Every row of a partition sees the same frame, so the same value.
        if not partition:
            return props.with_constant(function.expr, None, evidence)
        if keys is not None:
            for descending in (False, True):
                for nulls_first in (False, True):
                    value = SortKey(function.expr, SortOptions(descending, nulls_first))
                    props = props.with_ordering([*keys, value], evidence)
    return props


def _ranked(
    props: Properties, function: n.WindowFunction, partition_keys: list[SortKey], evidence: list[Evidence]
) -> Properties:
    props = props.with_ordering([*partition_keys, SortKey(function.expr, SortOptions())], evidence)
    props = props.with_not_null([function.expr])
    if isinstance(unwrap(function.expr.node.this), exp.RowNumber):
        props = props.with_unique_key([*(k.expr for k in partition_keys), function.expr], evidence)
    return props


def _whole_partition(function: n.WindowFunction) -> bool:
    """The frame is the whole partition: no ORDER BY and no frame, or a frame unbounded on
    both sides."""
    spec = function.expr.node.args.get("spec")
    if spec is None:
        return not function.order_by

    def bound(name: str) -> str:
        return str(spec.args.get(name) or "").upper()

    return (bound("start"), bound("start_side"), bound("end"), bound("end_side")) == (
        "UNBOUNDED", "PRECEDING", "UNBOUNDED", "FOLLOWING",
    )


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
    if analysis.target == "datafusion" and node.kind in ("inner", "right"):
        # DataFusion's hash join (and nested-loop join) collects the left input and streams
        # the right one through it: output rows come in the right (probe) side's order for
        # INNER and RIGHT joins. The left side's order is lost; appending it to the probe
        # side's order is valid only when a probe row meets at most one build row, which
        # is not known here. A CROSS JOIN keeps no order.
        for fact in right.orderings:
            props = props.with_ordering(fact.keys, fact.evidence, fact.partitioned_by)
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
    if not (analysis.target == "datafusion" and node.kind == "union" and not node.distinct):
        props = props.without_orderings()
    # DataFusion's UnionExec passes every input partition through unchanged: an order all
    # branches share holds in each partition, and a sort-preserving merge (no sort) makes it
    # global. UNION (distinct) aggregates, INTERSECT / EXCEPT join: no order is kept.
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
