"""DataFusion's model: orderings hold inside each partition, and only a merge or a single
partition makes one global.

DataFusion runs a plan on several partitions at once (`target_partitions`, by default the
number of cores): a table's files, and byte ranges of a large file, are read as separate
file groups, each in its declared `WITH ORDER` order. An ORDER BY over such a scan needs no
SortExec - a SortPreservingMergeExec merges the ordered partitions - but without the ORDER
BY the partitions' rows come interleaved. With `datafusion: {target_partitions: 1}` in the
configuration a table is one file group, read file after file: one stream in its declared
order when its files, in path order, continue one another's (DataFusion checks that with
Parquet statistics and reorders the files only for a query that asks for the order), so
an ORDER BY it satisfies is dropped by DataFusion's planner. Not told the count, sortlint
models several partitions, which claims nothing that one partition would contradict. So
every ordering here is one of two kinds:

* inside each partition (`partitioned_by` empty, or the hash keys rows were repartitioned
  by): what DataFusion's operators that run per partition - a sort's SortExec, an
  aggregate's streaming mode, a window - can use, asked with `per_partition=True`;
* global: one partition in that order - after the final ORDER BY (its merge or sort), a
  sort under a LIMIT (TopK), a window without PARTITION BY (which merges its input).

Operator by operator (each checked on the `datafusion` package, see
tests/engines/test_datafusion_model.py):

* A scan of a declared table: its orderings inside each partition; with one partition, a
  global declared ordering as it is (under the caveat on its files' order above) - unless
  a LIMIT reaches the scan (through projections, filters and sorts), which DataFusion
  pushes into it: it then reads the files it needs in no declared order.
* A sort is global where DataFusion keeps it: the final ORDER BY, under a LIMIT, under an
  INSERT. A sort in a subquery that nothing above needs is removed by DataFusion's optimizer
  - and a sort above that needed it is exactly what SL001 would delete - so it gives an
  ordering inside each partition only (DataFusion sorts there if an operator asks).
* LIMIT gathers the partitions into one: only global orderings survive.
* An aggregate or DISTINCT streams (`ordering_mode=Sorted` / `PartiallySorted`) over keys
  ordered inside each partition; its groups are then hash-repartitioned by the keys, so
  they come in that order inside each partition of the keys only - with one partition
  over input in that order across all its rows, in that order everywhere.
* A window runs without a sort when each partition fits it, as below; without PARTITION BY
  it merges (or sorts) into one partition in its order, with PARTITION BY it hash-
  repartitions by the keys and is ordered inside each of those partitions. A window
  function whose value nothing reads is pruned, with its sort.
* An equi-join is a sort-merge join where the settings make it one (several partitions,
  `repartition_joins`, not `prefer_hash_join`): it keeps the order of its left side (the
  right one for a RIGHT JOIN, none for a FULL JOIN) inside each partition, when that side
  is ordered by the join keys (ASC NULLS FIRST) and `prefer_existing_sort` keeps that order
  through the repartition by the keys; else none. With `prefer_hash_join: false` and no
  partition count, the join keeps no order (either join may run).
* A hash join builds one side and streams the other: which one it builds DataFusion decides
  by the tables' statistics, so an INNER join's output is ordered (inside each partition;
  with one partition, as one stream where both sides are one) only as both sides are; other
  joins keep no order - a RIGHT SEMI / ANTI join too, whose side streams unless statistics
  swap it onto the build side, whose rows come in no order DataFusion claims. Except where
  the statistics are surely missing - a side that reads CSV files (`format: csv`) has none,
  and DataFusion swaps only on both sides' - and the left side is collected whole (one
  partition, or `repartition_joins` off): then the right side streams, and an INNER or
  RIGHT SEMI / ANTI join keeps its order. And except where both sides of an INNER join
  read tables whose row counts the catalog declares (`statistics: {rows: N}`) and join on
  string keys, so that DataFusion compares rows and the declared counts decide which side
  it collects (`_built_side`): the other side streams.
* A window over an unbounded source (`unbounded: true`) that its input does not fit is run
  over the rows as they come: DataFusion cannot sort an infinite input.
* UNION ALL puts its branches' partitions side by side: an order all branches share holds
  inside each partition. UNION (distinct) aggregates, INTERSECT / EXCEPT join: no order.

Everything else is shared with Spark (`sortlint.engines.operators`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Literal

from sqlglot import exp

from sortlint.config import Source
from sortlint.engines import operators
from sortlint.engines.analysis import AggregateStrategy, Analysis, Engine, Transfer
from sortlint.engines.comparisons import Semantics, Side
from sortlint.engines.seeding import scan as catalog_scan
from sortlint.ordering import Evidence, Expr, Permutation, Properties, SortKey, SortOptions, types
from sortlint.ordering.types import SqlType
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import is_aggregate, unwrap


def scan(node: n.Scan, analysis: Analysis) -> Properties:
    """A declared table's orderings inside each partition; with one partition, a global
    ordering as one stream - under the caveat that its files, read one after another in
    path order, continue that order (DataFusion reorders them by their statistics only for
    a query that asks for the order: without the ORDER BY it reads them in path order)."""
    source = analysis.config.source(node.table)
    if analysis.config.datafusion.one_partition and source is not None and source.scope == "global":
        if _limit_reaches(node, analysis):
            return catalog_scan(node, analysis).without_orderings()
        caveat = f"read as one stream (target_partitions 1) if {source.name}'s files, in path order, continue that order"
        return catalog_scan(node, analysis, ordering_caveat=caveat)
    return catalog_scan(node, analysis).in_each_partition()


def _limit_reaches(node: n.Scan, analysis: Analysis) -> bool:
    """Whether a LIMIT stands over the scan with only projections, filters and sorts between
    (a sort that SL001 may remove): DataFusion pushes such a limit into the scan, which then
    reads only the files it needs, picked by their statistics rather than in path order
    (`SELECT m FROM t LIMIT 5` over a file of 1 row and one of 6 reads the second alone).
    Only an ORDER BY keeps the files in order, so the scan's order cannot stand for it."""
    parent = analysis.parent(node)
    while isinstance(parent, (n.Project, n.Filter, n.Sort)):
        parent = analysis.parent(parent)
    return isinstance(parent, n.Limit)


def sort(node: n.Sort, analysis: Analysis) -> Properties:
    props = operators.sort(node, analysis)
    return props if _kept(node, analysis) else props.in_each_partition()


def _kept(node: n.Sort, analysis: Analysis) -> bool:
    """Whether DataFusion keeps a sort's order: the statement's final ORDER BY (its query's,
    under an INSERT), one under a LIMIT. Its optimizer removes a sort in a subquery that
    nothing above requires."""
    parent = analysis.parent(node)
    while isinstance(parent, (n.Project, n.Filter)):
        parent = analysis.parent(parent)
    return parent is None or isinstance(parent, (n.Limit, n.Write))


def limit(node: n.Limit, analysis: Analysis) -> Properties:
    return operators.input_of(node, analysis).global_orderings_only()


def aggregate(node: n.Aggregate, analysis: Analysis) -> Properties:
    """GROUP BY: the streaming mode from the orders inside each partition; the groups come
    ordered by the streamed keys inside each partition of the keys."""
    props = operators.input_of(node, analysis)
    keys = [key.expr for key in node.keys]
    permutation = props.ordered_permutation(keys, per_partition=True)
    out = operators.aggregate(node, analysis)
    ordered = permutation.indices if node.keys and not node.grouping_sets else ()
    analysis.strategies[id(node)] = AggregateStrategy(
        mode=permutation.mode,
        streams=bool(ordered) and len(ordered) == len(node.keys),
        partially_ordered=ordered if len(ordered) < len(node.keys) else (),
        input_ordering=permutation.keys,
        evidence=permutation.evidence,
    )
    if ordered:
        out = out.with_ordering(permutation.keys, permutation.evidence, _groups_scope(props, permutation, keys, analysis))
    return out


def distinct(node: n.Distinct, analysis: Analysis) -> Properties:
    out = operators.distinct(node, analysis)
    names = n.output_names(node.children[0])
    columns = [Expr.column(name) for name in names]
    props = operators.input_of(node, analysis)
    permutation = props.ordered_permutation(columns, per_partition=True)
    if permutation.indices:
        out = out.with_ordering(permutation.keys, permutation.evidence, _groups_scope(props, permutation, columns, analysis))
    return out


def _groups_scope(props: Properties, permutation: Permutation, keys: list[Expr], analysis: Analysis) -> list[Expr] | None:
    """Where a streaming aggregate's groups come in the streamed keys' order: inside each
    partition of the keys, which DataFusion hash-repartitions them by - or, with one
    partition (mode=Single, no repartition) over input in that order across all its rows,
    everywhere (None)."""
    if analysis.config.datafusion.one_partition and props.satisfies(permutation.keys):
        return None
    return keys


def _union_all(node: n.SetOp) -> bool:
    return node.kind == "union" and not node.distinct


def join(node: n.Join, analysis: Analysis) -> Properties:
    props = operators.join(node, analysis)
    if node.equalities:
        algorithm = analysis.config.datafusion.join_algorithm
        if algorithm is None:
            return props  # hash or sort-merge, as the partition count decides: no order
        if algorithm == "sort-merge":
            return _sort_merge_join(node, props, analysis)
    built = _built_side(node, analysis)
    if node.kind in ("semi", "anti") and node.written_right and built is not None and built[0] == 0:
        # DataFusion's RightSemi / RightAnti streams the side it returns (the first here).
        kept = analysis.of(node.children[0])
        return _streamed(props, kept if analysis.config.datafusion.one_partition else kept.in_each_partition(), built[1])
    if node.kind != "inner":
        return props
    # The streamed side's order survives, inside each of its partitions; DataFusion streams
    # the larger side. What holds whichever side it streams: the orderings of one side that
    # the join's rows also have when the other side is streamed. With one partition
    # (target_partitions 1: no repartition anywhere) a side ordered as one stream is
    # streamed as it is, so an order both sides have as one stream is the join's too.
    sides = [analysis.of(child) for child in node.children[:2]]
    if not analysis.config.datafusion.one_partition:
        sides = [side.in_each_partition() for side in sides]
    if built is not None:
        return _streamed(props, sides[1 - built[0]], built[1])
    streams = [_streamed(props, side) for side in sides]
    for one, other in ((streams[0], streams[1]), (streams[1], streams[0])):
        for fact in one.orderings:
            if fact.partitioned_by is None:
                fit = other.satisfaction(fact.keys)
                if fit.satisfied:
                    props = props.with_ordering(fact.keys[: fit.satisfied], fact.evidence | fit.evidence)
            fit = other.satisfaction(fact.keys, per_partition=True)
            if fit.satisfied:
                props = props.with_ordering(fact.keys[: fit.satisfied], fact.evidence | fit.evidence, frozenset())
    return props


def _built_side(node: n.Join, analysis: Analysis) -> tuple[int, tuple[Evidence, ...]] | None:
    """Which input the hash join surely builds whole (0 the left, 1 the right), streaming
    the other one in its partitions, with the declarations that choice rests on; None when
    it is not known.

    DataFusion's physical planner collects the left side (mode=CollectLeft) with one
    partition or `repartition_joins` off; else, statistics being collected (the default),
    it leaves the choice to JoinSelection (mode=Auto), which collects a side whose
    statistics show it small - not empty and under `hash_join_single_partition_threshold`
    (1 MiB) or, its bytes unknown, under `..._threshold_rows` (131072 rows) - and hashes
    both sides (no order kept) when neither is. Both ways it swaps the inputs, building
    the right one, when both sides' statistics show the left larger: bytes where both
    sides know theirs, else rows (`should_swap_join_order`; a tie does not swap). A side
    that reads CSV files has none (`Rows=Absent, Bytes=Absent`: its reader infers none),
    so with CollectLeft nothing swaps. Other sides' rows are what `statistics: {rows: N}`
    declares (`_rows`)."""
    settings = analysis.config.datafusion
    collects_left = settings.one_partition or not settings.repartition_joins
    if collects_left and any(_no_statistics(child, analysis) for child in node.children[:2]):
        return 0, ()
    if node.kind != "inner":
        return None  # an empty side estimated 0 rows swaps an outer or anti join as well
    left, right = (_rows(node, side, analysis) for side in (0, 1))
    if left is None or right is None:
        return None
    (left_low, left_high, left_table), (right_low, right_high, right_table) = left, right
    # With CollectLeft every side may be collected, whatever its size.
    threshold = float("inf") if collects_left else HASH_JOIN_THRESHOLD_ROWS
    if left_high < threshold and left_high <= right_low:
        built = 0
    elif right_high < threshold and left_low > right_high:
        built = 1
    else:
        return None
    # Row counts change as tables grow, and DataFusion checks none: a fix resting on them is unsafe.
    tables = (left_table, right_table)
    evidence = Evidence(
        "declared",
        f"declared statistics rows: {left_table.rows} of {left_table.name} ({left_table.location}) and rows: "
        f"{right_table.rows} of {right_table.name} ({right_table.location}), by which DataFusion builds "
        f"{tables[built].name} and streams {tables[1 - built].name}",
    )
    return built, (evidence,)


# `datafusion.optimizer.hash_join_single_partition_threshold_rows`, DataFusion's default.
HASH_JOIN_THRESHOLD_ROWS = 131072


def _rows(node: n.Join, side: int, analysis: Analysis) -> tuple[int, int, Source] | None:
    """The least and the most rows DataFusion may estimate for one input of the join, and
    the table, from its declared `statistics: {rows: N}`, when the comparison of the two sides is
    by rows: the side is the table read through projections and filters, and its join key
    is a string, whose width is not fixed, so DataFusion knows no byte size of the side
    (`Bytes=Absent`) and compares rows. A filter - the side's own, or one DataFusion may
    push into it: a condition on its columns, or on a join key (it infers the other key's)
    - scales the estimate by its selectivity, rounded up: at least one row, unless
    DataFusion proves the filter false on the files' value ranges, when the side has no
    rows and an inner join none either. With no such filter the estimate is N."""
    child = node.children[side]
    keys = [pair[side] for pair in node.equalities]
    props = analysis.of(child)
    if not keys or not all(key.is_column and _is_string(props.type_of(key)) for key in keys):
        return None
    scan, filtered = child, False
    while isinstance(scan, (n.Project, n.Filter, n.Alias)):
        filtered = filtered or isinstance(scan, n.Filter)
        scan = scan.children[0]
    if not isinstance(scan, n.Scan):
        return None
    source = analysis.config.source(scan.table)
    # An unbounded side is chosen by other rules (JoinSelection keeps it streaming).
    if source is None or not source.rows or source.unbounded:
        return None
    # A name over the join may be the table's, or one a projection of the side gave.
    renamed = () if child is scan else n.output_names(child)
    names = {column.name for column in source.columns} | {name.lower() for name in renamed}
    names |= {_bare(key) for pair in node.equalities for key in pair}
    unknown = not source.columns or (child is not scan and not renamed)
    if unknown or filtered or node.residual or _filters_reach(node, names, analysis):
        return 1, source.rows, source
    return source.rows, source.rows, source


def _is_string(type_: str | None) -> bool:
    sql_type = types.sql_type(type_)
    return sql_type is not None and sql_type.family == "string"


def _bare(expr: Expr) -> str:
    return expr.column_name or ""


def _filters_reach(node: n.Join, names: set[str], analysis: Analysis) -> bool:
    """Whether DataFusion may push a filter from above into a side with these columns: a
    condition of a WHERE right over the join (nothing between: the names are the sides'
    own) that names any of them, or no column. Anything higher - a filter over a
    projection, whose names may stand for any expression of the side, or another join,
    which may infer a join key's value from its own keys - is taken to reach it."""
    parent = analysis.parent(node)
    while isinstance(parent, n.Filter):
        for conjunct in parent.conjuncts:
            columns = {_bare(column) for column in conjunct.columns}
            if not columns or columns & names:
                return True
        parent = analysis.parent(parent)
    while parent is not None:
        if isinstance(parent, (n.Filter, n.Join)):
            return True
        parent = analysis.parent(parent)
    return False


def _no_statistics(node: n.Node, analysis: Analysis) -> bool:
    """Whether DataFusion knows neither the bytes nor the rows of these rows: CSV files,
    through the operators that keep that (measured: projections, filters, windows, sorts;
    not an aggregate, whose one row without GROUP BY is an exact count)."""
    if isinstance(node, n.Scan):
        source = analysis.config.source(node.table)
        return source is not None and source.storage is not None and source.storage.format == "csv"
    if isinstance(node, (n.Project, n.Filter, n.Window, n.Sort, n.Alias)):
        return _no_statistics(node.children[0], analysis)
    return False


# SortMergeJoinExec's `maintains_input_order`: the left input for an inner, left, semi or
# anti join (a RIGHT SEMI / ANTI is built with its kept side on the left), the right one for a
# right join, neither for a full join.
_SORT_MERGE_KEPT = {"inner": 0, "left": 0, "semi": 0, "anti": 0, "right": 1}


def _sort_merge_join(node: n.Join, props: Properties, analysis: Analysis) -> Properties:
    """A sort-merge join hash-repartitions both sides by the join keys, needs each partition
    sorted by them (ASC NULLS FIRST, `SortOptions::default()`) and streams its kept side.
    That side's order survives only where DataFusion neither sorts it again (it is already
    ordered by the keys) nor repartitions it without keeping the order - which, on input of
    several partitions, it does unless `prefer_existing_sort` (measured on the datafusion
    package: a table of two files is repartitioned and sorted by the keys alone)."""
    kept = _SORT_MERGE_KEPT.get(node.kind)
    if kept is None or not analysis.config.datafusion.prefer_existing_sort:
        return props
    side = analysis.of(node.children[kept])
    keys = [SortKey(pair[kept], SortOptions(descending=False, nulls_first=True)) for pair in node.equalities]
    if not side.satisfies(keys, per_partition=True):
        return props
    return _streamed(props, side.in_each_partition())


def _streamed(joined: Properties, side: Properties, why: tuple[Evidence, ...] = ()) -> Properties:
    """The join's rows as they come when `side` is the streamed one (`why`: the
    declarations by which it is)."""
    out = joined
    for fact in side.orderings:
        out = out.with_ordering(fact.keys, fact.evidence | frozenset(why), fact.partitioned_by)
    return out


# --- windows ----------------------------------------------------------------------------
#
# DataFusion plans one window operator per distinct (PARTITION BY, ORDER BY) of a SELECT.
# Its sort enforcement (`get_best_fitting_window`) runs a window without a sort when each
# input partition is ordered by some permutation of all the partition keys followed,
# inside each partition, by the window's ORDER BY - or by that ORDER BY reversed, when
# every function of the window can be computed backwards (aggregates, first/last/nth_value,
# lag/lead: DataFusion flips their frames). Otherwise it sorts on the partition keys (ASC
# NULLS LAST; in the order the input already has them when it has them all, else as
# written) and then the ORDER BY. A window without PARTITION BY then merges (or sorts) its
# input into one partition in that order; one with PARTITION BY hash-repartitions by its
# keys, keeping that order inside each partition. On an unbounded input DataFusion may also
# run a window over partially ordered partition keys (`Linear`, `PartiallySorted`);
# sortlint does not know boundedness and models the bounded case. Of several windows of
# one SELECT the stacking is DataFusion's: their output keeps an order only when one
# partition in that order fits them all.


@dataclass
class _WindowGroup:
    partition: tuple[Expr, ...]
    order: tuple[SortKey, ...]
    functions: list[n.WindowFunction]
    evidence: Evidence


def _window_groups(node: n.Window, analysis: Analysis) -> list[_WindowGroup]:
    groups: dict[tuple, _WindowGroup] = {}
    for function in analysis.computed(node):
        partition = tuple(key.expr for key in function.partition_by)
        order = tuple(SortKey(item.expr, item.options) for item in function.order_by)
        group = groups.get((partition, order))
        if group is None:
            evidence = operators.query_evidence(analysis, "window", function.span)
            group = groups[(partition, order)] = _WindowGroup(partition, order, [], evidence)
        group.functions.append(function)
    return list(groups.values())


def _fitting_order(
    props: Properties, group: _WindowGroup, per_partition: bool = True
) -> list[SortKey] | Literal[False] | None:
    """The order in which DataFusion runs the window on these rows without sorting them
    (the partition keys as the rows have them, then the ORDER BY or its reverse); False
    when it must sort, None when that depends on whether it can reverse a function
    sortlint does not know."""
    keys: list[SortKey] = []
    if group.partition:
        permutation = props.ordered_permutation(group.partition, per_partition=per_partition)
        if len(permutation.indices) != len(group.partition):
            return False
        keys = list(permutation.keys)
    if props.satisfies(group.order, within=group.partition, per_partition=per_partition):
        return keys + list(group.order)
    backwards = [
        SortKey(k.expr, SortOptions(not k.options.descending, not k.options.nulls_first))
        for k in group.order
    ]
    if not group.order or not props.satisfies(backwards, within=group.partition, per_partition=per_partition):
        return False
    if all(_reversible(f) for f in group.functions):
        return keys + backwards
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
    permutation = props.ordered_permutation(partition, per_partition=True)
    if partition and len(permutation.indices) == len(partition):
        partition = [partition[i] for i in permutation.indices]
    keys = [SortKey(e, SortOptions.datafusion()) for e in partition]
    return keys + [k for k in group.order if k.expr not in group.partition]


def window(node: n.Window, analysis: Analysis) -> Properties:
    props = operators.input_of(node, analysis)
    groups = _window_groups(node, analysis)
    if not groups:
        return props  # every function pruned: no window runs
    in_order: list[_WindowGroup] = []  # the groups whose rows come in the order they see
    if len(groups) == 1:
        group = groups[0]
        fit = _fitting_order(props, group)
        if fit is None:
            out = props.without_orderings()  # sorted or not: not known
        elif fit is False and _unbounded(node, analysis):
            # DataFusion never sorts an infinite input (its sanity check rejects the plan): it
            # runs the window over the rows as they come (mode=Linear / PartiallySorted),
            # hash-repartitioned by an order-preserving repartition that keeps every order
            # inside each partition. A window it cannot run so fails to plan.
            out = props.in_each_partition()
        else:
            keys = _window_sort(props, group) if fit is False else fit
            out, in_order = _arranged(props, group, keys, already=fit is not False), [group]
    else:
        # Several windows without PARTITION BY that all run in one order (as it is, or
        # reversed): one merge into one partition in that order serves them all.
        fits = [_fitting_order(props, g) for g in groups]
        first = fits[0]
        if not any(g.partition for g in groups) and isinstance(first, list) and all(f == first for f in fits):
            out, in_order = _arranged(props, groups[0], first, already=True), groups
        else:
            out = props.without_orderings()
    for group in groups:
        for function in group.functions:
            out = _window_facts(out, group, function, group in in_order)
    return out


def _unbounded(node: n.Node, analysis: Analysis) -> bool:
    """Whether these rows read an unbounded source (`unbounded: true`)."""
    for scan in n.walk(node):
        if isinstance(scan, n.Scan):
            source = analysis.config.source(scan.table)
            if source is not None and source.unbounded:
                return True
    return False


def _arranged(props: Properties, group: _WindowGroup, keys: list[SortKey], already: bool) -> Properties:
    """The rows as one window leaves them, ordered by `keys`: in one partition without
    PARTITION BY (the input's own global orderings kept when it was one already), else
    inside each partition of the hash of its keys."""
    evidence = [group.evidence]
    if group.partition:
        return props.without_orderings().with_ordering(keys, evidence, group.partition)
    if already and props.satisfies(keys):
        return props.global_orderings_only()
    return props.sorted_by(keys, evidence)


def _window_facts(
    props: Properties, group: _WindowGroup, function: n.WindowFunction, in_order: bool
) -> Properties:
    """What a window function's values tell about the rows (DataFusion's
    `window_equivalence_properties`), inside each partition of the window's keys."""
    evidence = [group.evidence]
    partition = list(group.partition)
    scope = partition or None
    keys: list[SortKey] | None = []
    if partition:
        permutation = props.ordered_permutation(partition, per_partition=True)
        keys = list(permutation.keys) if len(permutation.indices) == len(partition) else None
    if function.ranking and in_order and keys is not None:
        # row_number/rank/dense_rank grow through each partition in the order rows come.
        return operators.ranked(props, function, keys, evidence, scope)
    if is_aggregate(unwrap(function.expr.node.this)) and _whole_partition(function):
        # Every row of a partition sees the same frame, so the same value.
        if not partition:
            return props.with_constant(function.expr, None, evidence)
        if keys is not None:
            for descending in (False, True):
                for nulls_first in (False, True):
                    value = SortKey(function.expr, SortOptions(descending, nulls_first))
                    props = props.with_ordering([*keys, value], evidence, scope)
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


TRANSFER: dict[type, Transfer] = {
    **operators.SHARED,
    n.Scan: scan,
    n.Sort: sort,
    n.Limit: limit,
    n.Aggregate: aggregate,
    n.Distinct: distinct,
    n.SetOp: partial(operators.set_operation, keeps_order=_union_all, per_partition=True),
    n.Join: join,
    n.Window: window,
    # An unnest is not promised to keep the order of its input.
    n.Generate: partial(operators.generate, keeps_order=False),
}


# --- comparisons and arithmetic ----------------------------------------------------------
#
# DataFusion's type coercion (`comparison_coercion`), then its optimizer's
# `unwrap_cast_in_comparison`, as the `datafusion` package's logical plans show them
# (tests/engines/test_coercion_facts.py):
#
# * a literal is cast to the other side's type when it fits it: `i = 1` on an INT compares
#   INTs (the literal 1 is an Int64), `d = '2024-01-02'` compares dates, `m = 2.5` decimals;
# * integers: the wider one; an integer and a decimal: the decimal both fit in; an integer
#   and a float: the float's type; a decimal and a float: decimal(30,15);
# * a string column and a number: the string is cast to the number's type;
# * a date and a timestamp: both timestamps.
#
# Every integer literal is an Int64 and every fractional one a Float64; integer `/` is
# integer division; integer arithmetic wraps around on overflow (decimals do not fail
# either), so `c + 1` keeps order on an INT (computed as an Int64) but not on a BIGINT.
# -0.0 and 0.0 compare equal but sort apart: a floating-point equality gives no fact.
# floor and ceil keep a float's type and NaN (an integer's is a Float64), so they keep the
# order of every number (tests/ordering/test_monotonicity.py, on the datafusion package).

ARITHMETIC = types.Arithmetic(
    integer_literals="bigint", fractional_literals="double", integer_division=True, overflow="wrap",
    rounding="in_type",
)


def comparison(left: Side, right: Side) -> tuple[SqlType, SqlType] | None:
    """The types DataFusion compares `left` and `right` as."""
    a, b = left.type, right.type
    if a is None or b is None:
        return None
    if a == b:
        return a, b
    for literal, column in ((left, right), (right, left)):
        if literal.literal and not column.literal and column.type is not None and _fits(literal, column.type):
            return column.type, column.type
    if "string" in (a.family, b.family):
        other = b if a.family == "string" else a
        return (other, other) if other.family != "string" else (a, b)
    kinds = {a.family, b.family}
    common: SqlType | None
    if kinds == {"integer"}:
        common = a if a.bits >= b.bits else b
    elif kinds == {"integer", "decimal"} or kinds == {"decimal"}:
        da, db = types.as_decimal(a), types.as_decimal(b)
        assert da is not None and db is not None
        common = types.wider_decimal(da, db)
    elif kinds == {"integer", "floating"}:
        common = a if a.family == "floating" else b
    elif kinds == {"decimal", "floating"}:
        floating = a if a.family == "floating" else b
        as_decimal = types.decimal(14, 7) if floating.bits == 24 else types.decimal(30, 15)
        common = types.wider_decimal(a if a.family == "decimal" else b, as_decimal)
    elif kinds == {"floating"}:
        common = types.DOUBLE
    elif kinds == {"date", "timestamp"}:
        common = types.TIMESTAMP
    elif kinds == {"integer", "date"}:
        common = types.DATE
    else:
        return None
    return (common, common) if common is not None else None


def _fits(literal: Side, target: SqlType) -> bool:
    """Whether DataFusion casts the literal to `target` (a string literal always is; a number
    when its value is one of the type's)."""
    if literal.type is None:
        return False
    if literal.type.family == "string":
        return True
    value = literal.integer_value()
    if value is not None and target.family == "integer":
        return -(2**target.bits) <= value < 2**target.bits
    if target.family == "decimal" and literal.type.family in ("integer", "floating"):
        number = _exact_number(literal.expr.node)
        if number is None:
            return False
        _, digits, exponent = number.as_tuple()
        scale, whole = max(-int(exponent), 0), max(len(digits) + int(exponent), 0)
        return scale <= target.scale and whole <= target.integer_digits
    return False


def _exact_number(node: exp.Expression) -> Decimal | None:
    """The value of a number literal, when it has one finite decimal value."""
    sign = -1 if isinstance(node, exp.Neg) else 1
    node = node.this if isinstance(node, exp.Neg) else node
    if not isinstance(node, exp.Literal) or node.is_string:
        return None
    try:
        value = Decimal(node.this)
    except InvalidOperation:
        return None
    return (value * sign).normalize() if value.is_finite() else None


SEMANTICS = Semantics(ARITHMETIC, comparison, equal_floats_sort_together=False)


ENGINE = Engine(TRANSFER)
