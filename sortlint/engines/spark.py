"""Spark's model: what its planner and optimizer do to the order and the facts of rows.

Measured on Spark 4.3 with its default settings (`tests/engines/test_spark_facts.py` holds the
evidence, the README's "What Spark does with order" the summary):

* **Scans.** A file scan packs a table's files into tasks largest first, so a table written
  in order is not read in order, globally or in a task. A declared ordering of a table is its
  layout - what its writers must produce (SL301) - never an order its readers see. Spark
  reports an order only for a bucketed table (per bucket, and only with
  `spark.sql.legacy.bucketedTableScan.outputOrdering`) and for a data source that reports it
  (`engine_known: true`, `scope: partition`). Constants, unique keys, `not null` and types are
  facts about rows and hold whatever the order.
* **Shuffles end every order**: joins, aggregates, DISTINCT, set operations, windows and
  repartitions (UNION ALL concatenates its inputs: no order either). Only Spark's own sorts
  make order: ORDER BY (a range shuffle and a sort: the one global order), SORT BY (each
  partition), a window (each partition of its keys, sorted by them and its ORDER BY) - and
  of several window specifications Spark chooses the stacking, so nothing is known of the
  order they leave. ORDER BY ... LIMIT keeps its order; a LIMIT alone takes rows as they come.
* **Sorts Spark removes itself** (`EliminateSorts`, `OptimizeSubqueries`, `V1Writes`): a sort
  under another ORDER BY, under a join, under an aggregate whose functions ignore order
  (`min`, `max`, `count`, bit aggregates, `sum`/`avg`/moments of non-floating values, DISTINCT),
  under INTERSECT / EXCEPT (they become joins), under a predicate subquery, under a keyed
  repartition, and under a write into a bucketed table (the write sorts each bucket file).
  Such a sort gives no order to anything above it.
* **Aggregates** hash unless their input arrives sorted (per partition, Spark's own order)
  by the GROUP BY keys *in GROUP BY order*, ascending, with no shuffle needed - then, with
  `spark.sql.execution.replaceHashWithSortAgg` (on since Spark 4.3), they stream
  (`SortAggregate`).
* **Writes.** A write into a partitioned or bucketed table sorts each task's rows by the
  partition columns (then bucket id and bucket sort columns) unless the query's order
  already starts with them; the order a write receives is the query's own.

* **Empty parts.** A filter that can never hold, and what only returns its rows, Spark plans as
  an empty relation: nothing there runs (`sortlint.engines.empty_relations`).

Everything else is shared with DataFusion (`sortlint.engines.operators`). Whatever is not
modelled here forgets every ordering.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial, reduce
from itertools import combinations

from sqlglot import exp

from sortlint.config import Source
from sortlint.config.model import SparkSettings
from sortlint.diagnostics import Effect, Prediction, Unknown
from sortlint.engines import empty_relations, operators, seeding
from sortlint.engines.analysis import (
    AggregateStrategy, Analysis, Delivered, Engine, SortFate, Transfer,
)
from sortlint.engines.comparisons import Semantics, Side
from sortlint.ordering import Evidence, Expr, Ordering, Properties, SortKey, SortOptions, types
from sortlint.ordering.monotonicity import FLOATING, NON_DETERMINISTIC
from sortlint.ordering.types import SqlType
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import unwrap

SORT_AGG_OFF = (
    "spark.sql.execution.replaceHashWithSortAgg is off (sortlint.yml says "
    "spark: {replace_hash_with_sort_agg: false}; Spark 4.3 turns it on by default)"
)
ASCENDING = SortOptions.spark()

# --- scans -------------------------------------------------------------------------------


def scan(node: n.Scan, analysis: Analysis) -> Properties:
    return seeding.scan(node, analysis, known_to_spark)


def known_to_spark(source: Source) -> Source:
    """The declarations a Spark scan carries: every row fact, and an ordering only where the
    data source reports it to Spark (`engine_known`, per partition). A declared layout is
    not the order of a read."""
    if source.engine_known and source.scope == "partition":
        return source
    return replace(source, orderings=())


def scan_order(source: Source, alias: str, analysis: Analysis) -> Reported:
    """What a scan reports. A bucketed table: one partition per bucket, hash-partitioned by
    the bucket columns, each bucket sorted by `sorted_by` only when the legacy setting makes
    Spark say so (and, unseen here, every bucket is one file). A data source that reports
    its order (`engine_known`, `scope: partition`): that order in each partition, clustered
    by `partitioned_by` when it reports that partitioning too."""

    def column(name: str) -> Expr:
        return Expr.column(name, alias)

    if source.engine_known and source.scope == "partition" and source.orderings:
        ordering = source.orderings[0]
        evidence = Evidence(
            "declared", f"ordering {ordering} that {source.name} reports to Spark ({ordering.location})",
            enforced=True,
        )
        keys = tuple(SortKey(column(i.column), SortOptions(i.descending, i.nulls_first)) for i in ordering.items)
        clustered = frozenset(map(column, source.partitioned_by)) if source.partitioned_by else None
        return Reported(keys, "partition", clustered, frozenset((evidence,)))
    bucketing = source.bucketing
    if bucketing is None:
        return Reported()
    by = frozenset(map(column, bucketing.by))
    if not (analysis.config.spark.legacy_bucketed_scan_ordering and bucketing.sorted_by):
        return Reported(clustered_by=by)
    evidence = Evidence(
        "declared",
        f"bucketed table {source.name} sorted by ({', '.join(bucketing.sorted_by)}) in each "
        f"bucket ({bucketing.location}), read with "
        f"{analysis.config.spark.SESSION_KEYS['legacy_bucketed_scan_ordering']}",
        enforced=True,
    )
    keys = tuple(SortKey(column(c), ASCENDING) for c in bucketing.sorted_by)
    return Reported(keys, "partition", by, frozenset((evidence,)))


# --- the order Spark itself reports ------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    """What Spark's physical plan says of a node's output: the ordering it reports
    (`outputOrdering`: each partition sorted by `keys`, or all rows when `scope` is global)
    and the expressions its rows are clustered by (rows equal on them share a partition;
    empty: a single partition; None: not known). This is what Spark decides with - to stream
    an aggregate, or to skip a write's sort - so it knows no monotonic function, no constant
    from a WHERE clause and no declaration. `joined_by`: the partitionings a join beneath,
    with no exchange since, may leave the rows in - each side's equi-join keys, when Spark
    plans it as a sort-merge or shuffled hash join, which it picks from table sizes a lint
    cannot know; or, under a broadcast join, the partitioning of the side it streams."""

    keys: Ordering = ()
    scope: str = "partition"
    clustered_by: frozenset[Expr] | None = None
    evidence: frozenset[Evidence] = frozenset()
    joined_by: tuple[frozenset[Expr], ...] = ()

    def clusters(self, keys: frozenset[Expr]) -> bool:
        """Whether rows equal on `keys` already share a partition (no shuffle needed)."""
        return self.clustered_by is not None and self.clustered_by <= keys


def reported(node: n.Node, analysis: Analysis) -> Reported:
    """The order Spark reports for the node's output (computed once per node)."""
    facts = analysis.engine_facts
    if id(node) not in facts:
        # Down the first children first, then up, without recursion: a plan is as deep as
        # its chain of CTEs (400 of them were deeper than Python's stack allows).
        chain = [node]
        while chain[-1].children and id(chain[-1].children[0]) not in facts:
            chain.append(chain[-1].children[0])
        for each in reversed(chain):
            facts[id(each)] = _reported(each, analysis)
    found: Reported = facts[id(node)]
    return found


def _reported(node: n.Node, analysis: Analysis) -> Reported:
    child = (lambda: reported(node.children[0], analysis)) if node.children else Reported
    if isinstance(node, n.Scan):
        source = analysis.config.source(node.table)
        return scan_order(source, node.alias, analysis) if source is not None else Reported()
    if isinstance(node, (n.Filter, n.Write, n.Subquery)):
        return child()
    if isinstance(node, n.Project):
        return _renamed(child(), [(c.expr, Expr.column(c.name)) for c in node.columns])
    if isinstance(node, n.Alias):
        inner = child()
        columns = {c for k in inner.keys for c in k.expr.columns}
        columns |= {c for e in inner.clustered_by or () for c in e.columns}
        columns |= {c for keys in inner.joined_by for e in keys for c in e.columns}
        unqualified = [c for c in columns if c.column_name and not c.node.table]
        return _renamed(inner, [(c, Expr.column(c.column_name, node.alias)) for c in unqualified])
    if isinstance(node, n.Sort):
        fate = analysis.sort_fate(node)
        if fate is not None and fate.removed:
            return child()
        keys = tuple(SortKey(item.expr, item.options) for item in node.keys)
        evidence = frozenset((operators.query_evidence(analysis, node.clause, node.span),))
        if node.scope == "global":
            # range partitioned by its keys, unless the rows are in one partition already
            whole = child().clustered_by == frozenset()
            return Reported(keys, "global", frozenset() if whole else frozenset(k.expr for k in keys), evidence)
        inner = child()
        return Reported(keys, "partition", inner.clustered_by, evidence, inner.joined_by)
    if isinstance(node, n.Window):
        specs = _window_specs(node, analysis)
        if len(specs) != 1:
            return Reported()  # Spark stacks them as it chooses
        (partition, order, function), = specs
        keys = tuple(SortKey(e, ASCENDING) for e in partition) + order
        evidence = frozenset((operators.query_evidence(analysis, "window", function.span),))
        floating = _floating(partition, node, analysis)
        if floating != frozenset():
            # Spark partitions and sorts by the normalized floating-point key, which neither
            # an aggregate's clustering by the column nor a sort by it is (measured: a
            # window by a double over `DISTRIBUTE BY` it shuffles again).
            rows = child()
            prefix = keys[: next(i for i, e in enumerate(partition) if floating is None or e in floating)]
            kept = rows.clustered_by if floating is not None and _window_clusters(rows, partition, floating) else None
            return Reported(prefix, "partition", kept, evidence if prefix else frozenset())
        return Reported(keys, "partition" if partition else "global", _clustered(child(), frozenset(partition)), evidence)
    if isinstance(node, n.Distinct):
        # An aggregate of every column (`ReplaceDistinctWithAggregate`), when they are known.
        below = node.children[0]
        if not isinstance(below, n.Project) or below.passthrough:
            return Reported()
        return Reported(clustered_by=_clustered(child(), frozenset(Expr.column(c.name) for c in below.columns)))
    if isinstance(node, n.Aggregate):
        strategy = analysis.strategy(node)
        clustered = distribution([k.expr for k in node.keys], node, analysis).leaves
        if not strategy.streams:
            return Reported(clustered_by=clustered)
        keys = tuple(SortKey(k.expr, ASCENDING) for k in node.keys)
        return Reported(keys, "partition", clustered, strategy.evidence)
    if isinstance(node, n.Limit):
        below = node.children[0]
        while isinstance(below, n.Project):
            below = below.children[0]
        inner = child()
        if isinstance(below, n.Sort) and below.scope == "global" and inner.scope == "global":
            return replace(inner, clustered_by=frozenset())  # TakeOrderedAndProject
        return Reported()
    if isinstance(node, n.Repartition):
        return Reported(clustered_by=frozenset(node.keys) if node.keys else None)
    if isinstance(node, n.Join) and node.equalities:
        # An outer join's rows are partitioned as its preserved side's (a full one: not known).
        left, right = (frozenset(side) for side in zip(*node.equalities))
        sides = {"left": (left,), "semi": (left,), "anti": (left,), "right": (right,), "full": ()}
        # A broadcast join keeps the partitioning of the side it streams, either side here.
        inputs = [reported(child, analysis) for child in node.children]
        streamed = tuple(r.clustered_by for r in inputs if r.clustered_by)
        streamed += tuple(keys for r in inputs for keys in r.joined_by)
        return Reported(joined_by=sides.get(node.kind, (left, right)) + streamed)
    return Reported()


def _clustered(rows: Reported, keys: frozenset[Expr]) -> frozenset[Expr]:
    """What an operator that needs its rows clustered by `keys` leaves them clustered by: the
    rows' own partitioning where it does that already (no exchange), else the keys'."""
    return rows.clustered_by if rows.clustered_by is not None and rows.clusters(keys) else keys


def _renamed(inner: Reported, mapping: list[tuple[Expr, Expr]]) -> Reported:
    """Through a projection Spark keeps an ordering key that is passed on as a column
    (`AliasAwareOutputOrdering`): the ordering is cut at the first key that is not, the
    clustering lost unless every expression is passed on."""
    passed = {source: output for source, output in mapping if source.is_column}
    keys = []
    for key in inner.keys:
        output = passed.get(key.expr)
        if output is None:
            break
        keys.append(SortKey(output, key.options))
    clustered = None
    if inner.clustered_by is not None and all(e in passed for e in inner.clustered_by):
        clustered = frozenset(passed[e] for e in inner.clustered_by)
    # A join key not passed on: no aggregate or window above can reuse that partitioning.
    joined = tuple(frozenset(passed[e] for e in side) for side in inner.joined_by if all(e in passed for e in side))
    return Reported(tuple(keys), inner.scope, clustered, inner.evidence if keys else frozenset(), joined)


def _window_specs(node: n.Window, analysis: Analysis) -> list[tuple[tuple[Expr, ...], Ordering, n.WindowFunction]]:
    """The distinct (PARTITION BY, ORDER BY) specifications of a SELECT's windows whose value
    is read: Spark runs one Window operator, with its own shuffle and sort, per specification."""
    specs: dict[tuple, tuple[tuple[Expr, ...], Ordering, n.WindowFunction]] = {}
    for function in analysis.computed(node):
        partition = tuple(key.expr for key in function.partition_by)
        order = tuple(SortKey(item.expr, item.options) for item in function.order_by)
        specs.setdefault((partition, order), (partition, order, function))
    return list(specs.values())


# --- sorts Spark removes itself ----------------------------------------------------------

# Repartitions with keys: Spark drops a sort beneath them (their shuffle ignores it). A round
# robin `repartition(n)` keeps it (its output then depends on the input order), `coalesce`
# too.
KEYED_REPARTITIONS = frozenset((
    "DISTRIBUTE BY", "CLUSTER BY", "repartition", "repartitionByRange", "REPARTITION hint",
    "REPARTITION_BY_RANGE hint",
))


def prepare(root: n.Node, analysis: Analysis) -> None:
    """Decide, for every sort of the plan, whether Spark's optimizer removes it (where the
    model knows). A sort under an aggregate is decided by the aggregate, whose functions'
    input types are known only once the rows below it are analysed (`aggregate`)."""
    for node in n.walk(root):
        if isinstance(node, n.Sort):
            fate = _fate(node, analysis)
            if fate is not None:
                analysis.sort_fates[id(node)] = fate


def _settle_sorts_beneath(aggregate: n.Aggregate, analysis: Analysis) -> None:
    """The fate of the sorts an aggregate consumes (`_consumed_by_aggregate`)."""
    sort = _sort_beneath(aggregate)
    if sort is not None:
        analysis.sort_fates[id(sort)] = _consumed_by_aggregate(aggregate, sort, analysis)


def _consumed_by_aggregate(aggregate: n.Aggregate, sort: n.Sort, analysis: Analysis) -> SortFate:
    """A sort an aggregate consumes is removed when its functions ignore order (not under
    ROLLUP / CUBE / GROUPING SETS, whose rows Spark expands first)."""
    if not aggregate.grouping_sets and ignores_order(aggregate, analysis):
        return REMOVED
    return RUNS if sort.scope == "global" else RUNS_LOCALLY


def _sort_beneath(node: n.Node) -> n.Sort | None:
    """The sort the node reads through renames, filters and order-keeping repartitions (the
    one Spark's optimizer reaches from it), if any."""
    below = node.children[0]
    while not isinstance(below, n.Sort) and below.children and _passes_sorts(below, below.children[0]):
        below = below.children[0]
    return below if isinstance(below, n.Sort) else None


def _fate(sort: n.Sort, analysis: Analysis, without: n.Sort | None = None) -> SortFate | None:
    """What Spark's optimizer does with the sort (None: not modelled, or decided by the
    aggregate that consumes it), or would do once the sort `without` above it is gone."""
    if all(_folds(key.expr.node, sort.children[0]) for key in sort.keys):
        return REMOVED_AS_LITERAL  # `EliminateSorts` drops every key that folds to a literal
    below: n.Node = sort
    consumer = analysis.parent(sort)
    through_repartition = False
    while consumer is not None and (consumer is without or _passes_sorts(consumer, below)):
        through_repartition |= isinstance(consumer, n.Repartition)
        below, consumer = consumer, analysis.parent(consumer)
    if isinstance(consumer, n.Sort) and consumer.scope == "partition" and sort.scope == "global":
        # A global sort right under a local one becomes its range shuffle, or stays whole
        # beneath a computed projection: not modelled, unless a repartition lies between.
        return REMOVED if through_repartition else None
    if isinstance(consumer, n.Aggregate):
        # decided by the aggregate once its input is analysed (`_settle_sorts_beneath`)
        return _consumed_by_aggregate(consumer, sort, analysis) if without is not None else None
    if isinstance(consumer, n.Limit) and without is not None:
        return None  # the LIMIT would make it a sorted top-k
    if _removes_sorts(consumer, analysis) and not _sorts_by_a_literal(consumer):
        return REMOVED
    if isinstance(consumer, n.Write) and _bucketed(consumer, analysis):
        # The write sorts each bucket file by its bucket and sort columns: a local sort
        # beneath goes, a global one leaves its shuffle behind.
        return REMOVED_KEEPING_SHUFFLE if sort.scope == "global" else REMOVED
    return RUNS if sort.scope == "global" else RUNS_LOCALLY


REMOVED = SortFate(True, "Spark removes this sort itself; the clause only misleads readers")
REMOVED_AS_LITERAL = SortFate(True, REMOVED.text, keys_fold=True)
REMOVED_KEEPING_SHUFFLE = SortFate(
    True, "Spark removes this sort itself but still runs its exchange", keeps_exchange=True
)
RUNS = SortFate(False, "Spark runs this sort: an exchange and a sort")
RUNS_LOCALLY = SortFate(False, "Spark runs this sort in every partition")


def _passes_sorts(node: n.Node, child: n.Node) -> bool:
    """Operators an upper sort, join or aggregate reaches through to remove a sort: renames,
    deterministic projections and filters (on their input, not a subquery of theirs), and
    repartitions that keep the sort (round robin, coalesce)."""
    if node.children[0] is not child:
        return False
    if isinstance(node, n.Alias):
        return True
    if isinstance(node, n.Project):
        return not any(_nondeterministic(c.expr) for c in node.columns)
    if isinstance(node, n.Filter):
        return not any(_nondeterministic(c) for c in node.conjuncts)
    return isinstance(node, n.Repartition) and not _keyed(node)


def _keyed(node: n.Repartition) -> bool:
    return bool(node.keys) and node.clause in KEYED_REPARTITIONS


def _nondeterministic(expr: Expr) -> bool:
    return any(isinstance(sub, NON_DETERMINISTIC) for sub in expr.node.walk())


def _removes_sorts(consumer: n.Node | None, analysis: Analysis) -> bool:
    """Consumers under which Spark drops a sort: another sort, a join, DISTINCT,
    INTERSECT / EXCEPT (joins), a subquery whose rows are read in no order, a keyed
    repartition (and an aggregate of functions that ignore order: `_settle_sorts_beneath`)."""
    if isinstance(consumer, (n.Sort, n.Join, n.Distinct, n.Subquery)):
        return True
    if isinstance(consumer, n.SetOp):
        return consumer.kind != "union" and consumer.distinct
    return isinstance(consumer, n.Repartition) and _keyed(consumer)


def _sorts_by_a_literal(consumer: n.Node | None, dropped: int | None = None) -> bool:
    """An ORDER BY with a key (but the `dropped`-th) that Spark folds to a literal: a literal,
    or a function of columns the rows beneath bind to literals (`FoldablePropagation`,
    `ConstantFolding`). `EliminateSorts` then only strips that key and leaves the sorts beneath
    in place (measured in tests/engines/test_spark_rules.py: `ORDER BY v, 'a'` over a sorted
    subquery runs both)."""
    if not isinstance(consumer, n.Sort):
        return False
    return any(_folds(k.expr.node, consumer.children[0]) for i, k in enumerate(consumer.keys) if i != dropped)


def _folds(expression: exp.Expression, rows: n.Node) -> bool:
    """Whether Spark folds `expression`, read over `rows`, to a literal: it calls only
    deterministic functions it knows, of literals and of columns bound to such expressions
    by the projections beneath (through renames, filters, sorts and repartitions)."""
    if any(isinstance(sub, NON_DETERMINISTIC) for sub in expression.walk()):
        return False
    for column in expression.find_all(exp.Column):
        binding = _binding(column, rows)
        if binding is None or not _folds(*binding):
            return False
    return True


def _binding(column: exp.Column, rows: n.Node) -> tuple[exp.Expression, n.Node] | None:
    """The expression a projection beneath binds the column to, and that projection's input."""
    table, name = column.table.lower(), column.name.lower()
    node = rows
    while True:
        if isinstance(node, n.Project) and not table:
            for output in node.columns:
                if output.name.lower() == name:
                    return output.expr.node, node.children[0]
        if isinstance(node, n.Alias) and table in ("", node.alias.lower()):
            table = ""
        elif not isinstance(node, (n.Project, n.Filter, n.Sort, n.Repartition)) or not node.children:
            return None
        node = node.children[0]


def _bucketed(write: n.Write, analysis: Analysis) -> bool:
    source = analysis.config.source(write.target) if write.kind != "view" else None
    return source is not None and source.bucketing is not None


# Spark's `EliminateSorts.isOrderIrrelevantAggs`: these ignore the order of their input, and
# sums, averages and moments do too unless their values are floating-point.
ORDER_IRRELEVANT = (exp.Min, exp.Max, exp.Count, exp.CountIf, exp.BitwiseAndAgg, exp.BitwiseOrAgg,
                    exp.BitwiseXorAgg, exp.LogicalAnd, exp.LogicalOr)
EXACT_WHEN_NOT_FLOATING = (exp.Sum, exp.Avg, exp.Stddev, exp.StddevPop, exp.StddevSamp,
                           exp.Variance, exp.VariancePop, exp.Kurtosis, exp.Skewness)


def ignores_order(aggregate: n.Aggregate, analysis: Analysis) -> bool:
    """Whether Spark removes a sort under this aggregate: every function is one it knows to
    ignore order (an arithmetic one over values known not to be floating-point)."""
    props = analysis.of(aggregate.children[0])
    for call in aggregate.aggregates:
        function = unwrap(call.expr.node)
        if isinstance(function, EXACT_WHEN_NOT_FLOATING):
            operand = function.this
            if isinstance(operand, exp.Distinct):
                operand = operand.expressions[0] if operand.expressions else None
            value_type = props.type_of(Expr.of(operand)) if operand is not None else None
            if value_type is None or value_type in FLOATING:
                return False
        elif not isinstance(function, ORDER_IRRELEVANT):
            return False
    return True


# --- transfer functions ------------------------------------------------------------------


def sort(node: n.Sort, analysis: Analysis) -> Properties:
    fate = analysis.sort_fate(node)
    if fate is not None and fate.removed:
        return operators.input_of(node, analysis)
    return operators.sort(node, analysis)


def limit(node: n.Limit, analysis: Analysis) -> Properties:
    """ORDER BY ... LIMIT runs as one sorted top-k (`TakeOrderedAndProject`); a LIMIT alone
    takes rows in the order partitions deliver them, which is no order Spark knows."""
    props = operators.input_of(node, analysis)
    if reported(node, analysis).scope == "global":
        return props
    return props.without_orderings()


def aggregate(node: n.Aggregate, analysis: Analysis) -> Properties:
    _settle_sorts_beneath(node, analysis)
    analysis.strategies[id(node)] = strategy(node, analysis)
    return operators.aggregate(node, analysis)


def strategy(node: n.Aggregate, analysis: Analysis) -> AggregateStrategy:
    return strategy_of([key.expr for key in node.keys], node, analysis)


def strategy_of(keys: list[Expr], node: n.Aggregate | n.Distinct, analysis: Analysis) -> AggregateStrategy:
    """`ReplaceHashWithSortAgg`: Spark streams a GROUP BY when its input's reported ordering
    starts with every key, in GROUP BY order, ascending with nulls first, and its rows are
    clustered by the keys already (no shuffle between). `keys`: the aggregate's, or those a
    fix leaves it."""
    if not keys or (isinstance(node, n.Aggregate) and node.grouping_sets) or len(set(keys)) != len(keys):
        return AggregateStrategy(mode="HashAggregate")
    order = reported(node.children[0], analysis)
    lead = order.keys[: len(keys)]
    if (
        len(lead) != len(keys)
        or {k.expr for k in lead} != set(keys)
        or any(k.options != ASCENDING for k in lead)
        or not order.clusters(frozenset(keys))
    ):
        return AggregateStrategy(mode="HashAggregate")
    key_order = tuple(keys.index(k.expr) for k in lead)
    setting_on = analysis.config.spark.replace_hash_with_sort_agg
    streams = setting_on and key_order == tuple(range(len(keys)))
    return AggregateStrategy(
        mode="SortAggregate" if streams else "HashAggregate",
        streams=streams,
        key_order=key_order,
        settings_off=() if setting_on else (SORT_AGG_OFF,),
        input_ordering=lead,
        evidence=order.evidence,
    )


def window(node: n.Window, analysis: Analysis) -> Properties:
    """Each window specification shuffles by its partition keys and sorts each partition;
    the order left is the last one's, and with several specifications which one runs last
    is Spark's choice: then no order is known, only the functions' own facts."""
    props = operators.input_of(node, analysis)
    specs = _window_specs(node, analysis)
    if not specs:
        # No function's value is read: Spark prunes them all. Nothing is concluded from
        # whether the operator and its sort are gone.
        return props.without_orderings()
    if not any(_fits(reported(node.children[0], analysis), partition, order) for partition, order, _ in specs):
        analysis.resorting_windows.add(id(node))
    if len(specs) == 1:
        partition, order, function = specs[0]
        evidence = operators.query_evidence(analysis, "window ORDER BY", function.order_span or function.span)
        requirement = [SortKey(e, ASCENDING) for e in partition] + list(order)
        if partition:
            props = props.without_orderings().with_ordering(requirement, [evidence], partition)
        elif order:
            props = props.sorted_by(list(order), [evidence])
        else:
            props = props.without_orderings()
    else:
        props = props.without_orderings()
    for function in analysis.computed(node):
        if not (function.ranking and function.order_by):
            continue
        evidence = operators.query_evidence(analysis, "window ORDER BY", function.order_span or function.span)
        if len(specs) == 1 and not function.partition_by:
            # row_number/rank/dense_rank grow along the window's order.
            props = operators.ranked(props, function, [], [evidence])
        else:
            props = operators.rank_facts(props, function, [evidence])
    return props


def _fits(order: Reported, partition: tuple[Expr, ...], keys: Ordering) -> bool:
    """Whether Spark runs a window specification on these rows as they come: clustered by
    its partition keys and sorted by them (ascending, in PARTITION BY order), then its keys."""
    required = [SortKey(e, ASCENDING) for e in partition] + list(keys)
    return order.clusters(frozenset(partition)) and list(order.keys[: len(required)]) == required


def write(node: n.Write, analysis: Analysis) -> Properties:
    order = reported(node.children[0], analysis)
    analysis.delivered[id(node)] = Delivered(order.keys, order.scope, order.evidence)
    return operators.input_of(node, analysis)


TRANSFER: dict[type, Transfer] = {
    **operators.SHARED,
    n.Scan: scan,
    n.Sort: sort,
    n.Limit: limit,
    n.Write: write,
    # They shuffle, and a hash aggregate emits in no order: no ordering survives.
    n.Aggregate: aggregate,
    n.Distinct: operators.distinct,
    n.SetOp: partial(operators.set_operation, keeps_order=lambda node: False),
    n.Join: operators.join,
    n.Window: window,
    # GenerateExec maps each partition's rows in order (it reports no ordering to the
    # planner, but the rows keep theirs: tests/engines/test_spark_generate.py).
    n.Generate: partial(operators.generate, keeps_order=True),
}


# `UnsafeRow.isMutable`: the types an aggregation buffer updates in place, which
# `HashAggregateExec.supportsAggregate` needs of every buffer field. `first` / `any_value`
# buffers its value's own type, so over a string, binary, array or struct Spark plans a
# SortAggregate - a sort of every row - where it hashed (tests/engines/test_spark_facts.py).
IN_PLACE_BUFFERS = frozenset(("boolean", "integer", "decimal", "floating", "date", "timestamp", "timestamp_ntz"))


def hashes_any_value(value_type: SqlType) -> bool:
    return value_type.family in IN_PLACE_BUFFERS





ENGINE = Engine(TRANSFER, prepare, hashes_any_value)

# --- what a fix changes in the executed plan ----------------------------------------------
#
# A finding's `effect`: the operators its fix removes from and adds to the statement's executed
# plan, with adaptive execution off and more than one shuffle partition (with one, Spark needs
# no exchange at all). Predicted from the same model as the findings, and held to Spark's own
# plans, before and after each fix family, in tests/engines/test_spark_rules.py (with adaptive
# execution on too, Spark's default: its final plans differ by as much). None where
# the model does not know: a key dropped from an ORDER BY ... LIMIT (a sorted top-k) that no
# aggregate above streams on, a join above
# the window a sort feeds (its sides must share a partitioning), a window whose
# specifications a fix could merge, a window stacked on or under one written elsewhere (whose
# fixes are withheld: they may split what Spark runs as one window), an aggregate whose
# operator the model does not know where a fix changes its shuffles. The partitioning rows
# come in (`Reported.clustered_by`) decides shuffles as much as their order decides sorts;
# a join's is not known (it depends on the join strategy Spark picks from table sizes). A
# sort-merge join leaves its rows hash partitioned by either side's equi-join keys, which an
# aggregate or window above reuses where they are among its keys: dropping such a key may
# add an exchange under that strategy and not under a broadcast join, so the effect is None
# and the fix withheld (`JOIN_REUSE`). A broadcast join keeps the partitioning of the side it
# streams: keys that side is clustered by count the same way.

JOIN_REUSE = (
    "dropping it could add an exchange when Spark plans the join beneath as a sort-merge join "
    "(or, over a side partitioned by it, as a broadcast join)"
)


def _loses_join_partitioning(rows: Reported, before: frozenset[Expr], after: frozenset[Expr]) -> bool:
    """Whether rows a join may leave partitioned by its keys (`Reported.joined_by`) need no
    exchange for an operator clustering by `before` and may need one for `after` (Spark
    reuses either side's partitioning, whichever is among the keys)."""
    return any(side <= before for side in rows.joined_by) and not any(side <= after for side in rows.joined_by)


def regrouping_loses_join(node: n.Aggregate, keys: list[Expr], analysis: Analysis) -> bool:
    """Whether grouping by `keys` may add an exchange a sort-merge join beneath spared."""
    if node.grouping_sets:
        return False  # the rows are expanded and shuffled whatever the join
    columns = _distinct_columns(node) or frozenset()
    before = frozenset(k.expr for k in node.keys) | columns
    return _loses_join_partitioning(reported(node.children[0], analysis), before, frozenset(keys) | columns)


def rekeying_loses_join(node: n.Window, function: n.WindowFunction, index: int, analysis: Analysis) -> bool:
    """Whether dropping the `index`-th key of the window's function may add an exchange a
    sort-merge join beneath spared (only a partition key can)."""
    partition = [key.expr for key in function.partition_by]
    if index >= len(partition):
        return False
    rows = reported(_lowest_of_one_text(node, analysis).children[0], analysis)
    return _loses_join_partitioning(rows, frozenset(partition), frozenset(partition[:index] + partition[index + 1:]))


STACKED = (
    "the window reads or feeds another window, which Spark may run as one with it; "
    "a key dropped from one of them alone would split them (a window and a sort more)"
)

# Why an effect is not predicted (`Unknown`): each says what Spark's plan then depends on.
JOIN_STRATEGY = Unknown(
    "depends on the join strategy Spark picks from table sizes (a sort-merge join beneath "
    "leaves its rows partitioned by its keys, which the operator reuses)"
)
WINDOWS_MERGED = Unknown("depends on which of the adjacent windows Spark runs as one operator")
KEY_TYPE = Unknown(
    "depends on whether a key is floating-point (Spark normalizes such keys), and the catalog "
    "does not give its type"
)
AGGREGATE_OPERATOR = Unknown(
    "depends on which aggregate operator Spark runs (hash, sort or object hash), which the types "
    "of its functions' arguments decide and the catalog does not give"
)
SORT_FATE = Unknown("whether Spark keeps this sort here is not modelled")
WINDOW_PARTITIONING = Unknown(
    "depends on which window reuses which partitioning, with the sort or without it (not modelled)"
)
WINDOW_SPECIFICATIONS = Unknown(
    "depends on the order Spark stacks windows of several specifications in, whose partitionings "
    "fit one another, or which of them a dropped key merges or splits (not modelled)"
)
WINDOW_ORDER_ABOVE = Unknown("the window's order would then serve the ORDER BY above it (not modelled)")
TOP_K_OFFSET = Unknown("an ORDER BY ... LIMIT with an OFFSET or LIMIT ALL runs operators not modelled")
STREAMED_ABOVE = Unknown(
    "depends on whether the operator above then runs on the sort aggregate's order (not modelled)"
)
DISTINCT_HALVES = Unknown(
    "depends on whether Spark keeps a DISTINCT aggregate's halves apart for a kept column (not modelled)"
)
NORMALIZED_STREAMING = Unknown(
    "depends on which sorts a streamed aggregate's halves need around a floating-point key (not modelled)"
)
RESHUFFLED_STREAMING = Unknown("depends on how the aggregate streams once its exchanges change (not modelled)")
ORDER_NEEDED = Unknown("the function needs its window's only ORDER BY key: there is no fix whose plan to predict")
NEVER_RUNS = "Spark never runs it: it plans this part of the query as empty (a condition that can never hold)"
EMPTY_PART = Unknown(
    "depends on how Spark plans a part of the query it may find empty (a condition it may fold to "
    "false) and the operators around it (not modelled)"
)
LAYOUT = Unknown(
    "the fix adds the sort the declared layout needs, by design; what it adds to or takes from "
    "the write's own sort is not modelled"
)


def _reading_top_k(consumer: n.Node) -> Unknown:
    return Unknown(f"depends on what the {type(consumer).__name__.lower()} reading the sorted top-k's "
                   "rows does with their new order (not modelled)")


# --- the predictor: what a rule reads of a proposed fix (`Context.predicted`) -------------
#
# Its effect on the plan, or why it is withheld - the plans only this engine's model knows a
# fix may make worse. Rules read the `Prediction`, never these predicates.


def _where_spark_runs(node: n.Node, analysis: Analysis, predict: Callable[[], Prediction]) -> Prediction:
    """The prediction for a fix of `node`: no effect where Spark plans the node's part of the
    query as empty; unknown where it may, or reshapes an operator around an empty part."""
    pruned = empty_relations.pruned(node, analysis)
    if pruned:
        return Prediction(Effect(), because=NEVER_RUNS)
    prediction = predict()
    if pruned is None and prediction.effect is not None:
        return replace(prediction, effect=None, unknown=EMPTY_PART.reason)
    return prediction


def removing_sort(sort: n.Sort, analysis: Analysis) -> Prediction:
    return _where_spark_runs(sort, analysis, lambda: Prediction.of(sort_removal(sort, analysis)))


def establishing_layout(analysis: Analysis) -> Prediction:
    """SL301's fix: the sort a declared layout needs (its effect is not predicted)."""
    return Prediction.of(LAYOUT)


def dropping_sort_key(sort: n.Sort, index: int, analysis: Analysis) -> Prediction:
    return _where_spark_runs(sort, analysis, lambda: _dropping_sort_key(sort, index, analysis))


def _dropping_sort_key(sort: n.Sort, index: int, analysis: Analysis) -> Prediction:
    """Where the plan stays, the sort Spark runs (and a global one's range exchange) or the
    sorted top-k sorts by one key less; where Spark runs no sort either way, nothing does."""
    effect = sort_key_dropped(sort, index, analysis)
    if isinstance(effect, Unknown) or not effect.none:
        return Prediction.of(effect)
    keys = tuple(SortKey(item.expr, item.options) for item in sort.keys)
    after = _sort_cost(sort, analysis, keys[:index] + keys[index + 1:])
    if after is None:  # an ORDER BY ... LIMIT whose sorted top-k runs (`_top_k_rekeyed`)
        return Prediction(replace(effect, lightens=("TakeOrderedAndProject",)))
    return Prediction(replace(effect, lightens=tuple(sorted(after.elements())) if after["Sort"] else ()))


def regrouping(node: n.Aggregate, keys: list[Expr], analysis: Analysis) -> Prediction:
    return _where_spark_runs(node, analysis, lambda: _regrouping(node, keys, analysis))


def _regrouping(node: n.Aggregate, keys: list[Expr], analysis: Analysis) -> Prediction:
    """With fewer keys and the same plan, the aggregate hashes (or compares) one key less;
    reordered keys are the same work. Unknown where the aggregate's operator is."""
    if regrouping_loses_join(node, keys, analysis):
        return Prediction.of(JOIN_STRATEGY, withheld=JOIN_REUSE)
    if not node.grouping_sets and keys == list(dict.fromkeys(key.expr for key in node.keys)) != [
            key.expr for key in node.keys]:
        # Spark groups by each key once (`RemoveRepetitionFromGroupExpressions`, keeping the
        # first of each): dropping the repetitions changes nothing it runs (TPC-DS q11).
        return Prediction(Effect())
    effect = regrouped(node, keys, analysis)
    if isinstance(effect, Unknown) and _shuffles_more(node, keys, analysis):
        # the exact effect is not known (a key's type, say), but an exchange more is in it
        return Prediction.of(effect, withheld=Effect(adds=("Exchange",)).worsens)
    if isinstance(effect, Unknown) or not effect.none or len(keys) == len(node.keys):
        return Prediction.of(effect)
    kind = "SortAggregate" if strategy(node, analysis).streams else _physical_aggregate(node, analysis)
    return Prediction(replace(effect, lightens=(kind,))) if kind is not None else Prediction.of(AGGREGATE_OPERATOR)


def _shuffles_more(node: n.Aggregate, keys: list[Expr], analysis: Analysis) -> bool:
    """Whether grouping by `keys` needs more exchanges than by the aggregate's own keys
    (fuzz slice q000_037: `count(DISTINCT k)` without the key k shuffles once more)."""
    shuffles = [distribution(k, node, analysis) for k in ([key.expr for key in node.keys], keys)]
    return sum(shuffles[1].exchanges) > sum(shuffles[0].exchanges)


def rekeying_window(node: n.Window, function: n.WindowFunction, index: int, analysis: Analysis) -> Prediction:
    return _where_spark_runs(node, analysis, lambda: _rekeying_window(node, function, index, analysis))


def _rekeying_window(node: n.Window, function: n.WindowFunction, index: int, analysis: Analysis) -> Prediction:
    """With the same plan, the window (and its sort, and - for a partition key - its
    exchange, where Spark runs them) works by one key less."""
    if function.needs_key(index):
        return Prediction.of(ORDER_NEEDED)  # no rewrite, nothing to predict (TPC-DS q70)
    if stacked(node, analysis):
        return Prediction.of(WINDOWS_MERGED, withheld=STACKED)
    if rekeying_loses_join(node, function, index, analysis):
        return Prediction.of(JOIN_STRATEGY, withheld=JOIN_REUSE)
    effect = window_rekeyed(node, function, index, analysis)
    if isinstance(effect, Unknown) or not effect.none or effect.lightens:
        return Prediction.of(effect)
    (partition, order, _), = _window_specs(node, analysis)
    rows = reported(_lowest_of_one_text(node, analysis).children[0], analysis)
    # what runs whichever keys of unknown type are floating-point (too many to try: the sort)
    costs = [_window_cost(rows, partition, order, floating)
             for floating in _possibly_floating(partition, node, analysis)] or [Counter(Sort=1)]
    cost = reduce(operator.and_, costs)
    if index >= len(partition):
        del cost["Exchange"]  # hashed by the same partition keys
    return Prediction(replace(effect, lightens=tuple(sorted((+cost + Counter(Window=1)).elements()))))


def sort_removal(sort: n.Sort, analysis: Analysis) -> Effect | Unknown:
    """Removing the sort: what Spark ran of it goes, and a window that ran on the range
    partitioning of an ORDER BY brings its own exchange instead. A sort beneath that Spark
    removed only because this one overrides it (`EliminateSorts`) runs again in its place."""
    top_k = _top_k_removal(sort, analysis)
    if top_k is not None:
        return top_k
    before = _sort_cost(sort, analysis)
    if before is None:
        return SORT_FATE
    window = _consuming_window(sort, analysis)
    revived = _sort_beneath(sort)
    if revived is not None and (fate := analysis.sort_fate(revived)) is not None and fate.removed:
        after = _sort_cost(revived, analysis, without=sort)
        if after is None:
            return SORT_FATE
        if after and window is not None:
            return WINDOW_PARTITIONING  # which window runs on the revived sort's partitioning
        if after:
            return Effect.between(before, after)
    if window is None or not before:
        return Effect.between(before, Counter())
    below = reported(sort.children[0], analysis)
    specs = _window_specs(window, analysis)
    if len(specs) != 1 or _joined_above(window, analysis) or below.keys or below.clustered_by is not None:
        return WINDOW_PARTITIONING
    (partition, order, _), = specs
    rows = reported(window.children[0], analysis)

    def removed(floating: frozenset[Expr]) -> Effect:
        if floating:
            # Spark partitions by the normalized floating-point key: the window shuffles either
            # way (fuzz seed 5102, pyspark-modules: `orderBy("x")` under `partitionBy("x")`, x a double)
            return Effect.between(before, Counter())
        return Effect.between(before + _window_cost(rows, partition, order), _window_cost(below, partition, order))

    return _whatever_the_types(_possibly_floating(partition, window, analysis), removed)


def _top_k_limit(sort: n.Sort, analysis: Analysis) -> n.Limit | None:
    """The LIMIT that makes a global sort Spark keeps a sorted top-k, or None."""
    limit = analysis.parent(sort)
    while isinstance(limit, n.Project):
        limit = analysis.parent(limit)
    fate = analysis.sort_fate(sort)
    if sort.scope != "global" or not isinstance(limit, n.Limit) or fate is None or fate.removed:
        return None
    return limit


def _top_k_removal(sort: n.Sort, analysis: Analysis) -> Effect | Unknown | None:
    """An ORDER BY ... LIMIT without its ORDER BY: the sorted top-k goes, and a plain limit
    takes its place, which gathers its rows into one partition with an exchange of its own
    (`GlobalLimit`) - except as the statement's result (`CollectLimit`: measured, no
    exchange) or over rows already in one partition (fuzz seed 6202, multifile: a subquery's
    `ORDER BY v LIMIT 6` with v constant). None where the sort is not a sorted top-k."""
    limit = _top_k_limit(sort, analysis)
    if limit is None:
        return None
    if limit.offset or limit.limit is None:
        return TOP_K_OFFSET
    above = analysis.parent(limit)
    while isinstance(above, (n.Project, n.Alias)):
        above = analysis.parent(above)
    gathered = above is not None and reported(sort.children[0], analysis).clustered_by != frozenset()
    return Effect(removes=("TakeOrderedAndProject",), adds=("Exchange",) if gathered else ())


def sort_key_dropped(sort: n.Sort, index: int, analysis: Analysis) -> Effect | Unknown:
    """Sorting without the `index`-th key: the same operators, unless Spark then finds the
    input already in the order of the others."""
    keys = tuple(SortKey(item.expr, item.options) for item in sort.keys)
    before, after = _sort_cost(sort, analysis), _sort_cost(sort, analysis, keys[:index] + keys[index + 1:])
    if before is None and after is None:
        return _top_k_rekeyed(sort, keys[:index] + keys[index + 1:], analysis)
    if before is None or after is None:
        return SORT_FATE
    if _consuming_window(sort, analysis) is not None:
        return WINDOW_PARTITIONING  # the sort's range partitioning may serve the window
    beneath = _sort_beneath(sort)
    if beneath is not None and _sorts_by_a_literal(sort) and not _sorts_by_a_literal(sort, index):
        # The last literal key gone, Spark removes the sort beneath it kept for it.
        kept = _sort_cost(beneath, analysis)
        if kept is None or (sort.scope == "partition" and beneath.scope == "global"):
            return SORT_FATE
        before = before + kept
    return Effect.between(before, after)


def _top_k_rekeyed(sort: n.Sort, keys: Ordering, analysis: Analysis) -> Effect | Unknown:
    """An ORDER BY ... LIMIT sorted by `keys` instead: the same sorted top-k - as the
    statement's result, whatever the joins and aggregates beneath (TPC-DS q43, q74, q81:
    measured with broadcast and with sort-merge joins) - unless the keys left all fold to
    literals (then Spark drops the sort: `_top_k_removal`). An aggregate or DISTINCT above may
    stream on its new order (`ReplaceHashWithSortAgg`: fuzz seed 5103, dropping a constant
    first key let `SELECT DISTINCT b` over `ORDER BY id, b LIMIT 10` run as a SortAggregate),
    or stop streaming on it. Other readers of the order: not modelled."""
    limit = _top_k_limit(sort, analysis)
    if limit is None:
        return SORT_FATE
    if all(_folds(key.expr.node, sort.children[0]) for key in keys):
        return _top_k_removal(sort, analysis) or SORT_FATE
    node: n.Node = limit
    consumer = analysis.parent(limit)
    while isinstance(consumer, (n.Project, n.Alias, n.Filter)) and consumer.children[0] is node:
        node, consumer = consumer, analysis.parent(consumer)
    if consumer is None:
        return Effect()  # nothing reads the order Spark reports of the result
    rows = reported(limit, analysis)
    if rows.scope != "global" or rows.keys != tuple(SortKey(item.expr, item.options) for item in sort.keys):
        return _reading_top_k(consumer)
    if isinstance(consumer, n.Aggregate):
        grouped = [key.expr for key in consumer.keys]
    elif isinstance(consumer, n.Distinct) and isinstance(node, n.Project) and not node.passthrough:
        grouped = [Expr.column(c.name) for c in node.columns]
    else:
        return _reading_top_k(consumer)
    streams = strategy_of(grouped, consumer, analysis).streams
    with _reporting(limit, replace(rows, keys=keys), consumer, analysis):
        streams_after = strategy_of(grouped, consumer, analysis).streams
    if streams == streams_after:
        return Effect()
    above = analysis.parent(consumer)
    while isinstance(above, (n.Project, n.Alias, n.Filter)):
        above = analysis.parent(above)
    if isinstance(above, (n.Window, n.Aggregate)) or (isinstance(above, n.Sort) and above.keys[0].options == ASCENDING):
        return STREAMED_ABOVE
    hashed, streamed = ("HashAggregate",), ("SortAggregate",)
    return Effect(hashed, streamed) if streams_after else Effect(streamed, hashed)


@contextmanager
def _reporting(node: n.Node, rows: Reported, consumer: n.Node, analysis: Analysis) -> Iterator[None]:
    """While in it, `node` reports `rows`, and the nodes from it up to `consumer` (through
    first children) what they would report of them."""
    facts = analysis.engine_facts
    chain: list[n.Node] = []
    above = analysis.parent(node)
    while above is not None and above is not consumer:
        chain.append(above)
        above = analysis.parent(above)
    saved = {id(each): facts.get(id(each)) for each in [node, *chain]}
    for each in chain:
        facts.pop(id(each), None)
    facts[id(node)] = rows
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                facts.pop(key, None)
            else:
                facts[key] = value


def _sort_cost(
    sort: n.Sort, analysis: Analysis, keys: Ordering | None = None, without: n.Sort | None = None
) -> Counter[str] | None:
    """The operators Spark runs for the sort (by `keys`, or its own; once the sort `without`
    above it is gone): none when its optimizer removes it (`SortFate`) or its input already
    reports that order (`RemoveRedundantSorts`; a global one also needs the rows range
    partitioned, or in one partition)."""
    fate = analysis.sort_fate(sort) if without is None else _fate(sort, analysis, without)
    parent = analysis.parent(sort)
    while isinstance(parent, n.Project) or (parent is not None and parent is without):
        parent = analysis.parent(parent)
    if fate is None or isinstance(parent, n.Limit):
        return None
    if fate.removed:
        return Counter(Exchange=1) if fate.keeps_exchange else Counter()
    keys = keys if keys is not None else tuple(SortKey(item.expr, item.options) for item in sort.keys)
    below = reported(sort.children[0], analysis)
    if tuple(below.keys[: len(keys)]) == keys and (sort.scope == "partition" or below.scope == "global"):
        return Counter()
    # Rows in one partition (a global window's) need no range exchange to be sorted whole.
    return Counter(Sort=1, Exchange=int(sort.scope == "global" and below.clustered_by != frozenset()))


def _consuming_window(sort: n.Sort, analysis: Analysis) -> n.Window | None:
    """The window that reads the global sort's rows (through renames and filters), which may
    run on the sort's range partitioning."""
    node: n.Node = sort
    parent = analysis.parent(sort)
    while parent is not None and _passes_sorts(parent, node):
        node, parent = parent, analysis.parent(parent)
    if sort.scope != "global" or not isinstance(parent, n.Window) or parent.children[0] is not node:
        return None
    return parent


def stacked(window: n.Window, analysis: Analysis) -> bool:
    """Whether another window reads this one's rows, or feeds them (through renames and
    filters), with a specification written elsewhere: Spark runs adjacent windows of one
    specification as one operator (`CollapseWindow`), which a key dropped from one of them
    alone splits in two (measured: a Window and a Sort more). One PySpark `Window` object
    used by both is one text, which a fix edits for both: no operator more."""
    above = analysis.parent(window)
    while isinstance(above, _BETWEEN_WINDOWS):
        above = analysis.parent(above)
    written = _written(window, analysis)
    return any(isinstance(other, n.Window) and _written(other, analysis) != written
               for other in (_window_below(window), above))


_BETWEEN_WINDOWS = (n.Project, n.Alias, n.Filter)


def _window_below(window: n.Window) -> n.Node:
    below = window.children[0]
    while isinstance(below, _BETWEEN_WINDOWS):
        below = below.children[0]
    return below


def _lowest_of_one_text(window: n.Window, analysis: Analysis) -> n.Window:
    """The first of the windows stacked under this one whose specification is the same text
    (one PySpark `Window` object): a fix edits them all, and the rows they sort are its."""
    below = _window_below(window)
    while isinstance(below, n.Window) and _written(below, analysis) == _written(window, analysis):
        window, below = below, _window_below(below)
    return window


def _written(window: n.Window, analysis: Analysis) -> frozenset:
    return frozenset((f.partition_span, f.order_span) for f in analysis.computed(window))


def _joined_above(node: n.Node, analysis: Analysis) -> bool:
    parent = analysis.parent(node)
    while parent is not None:
        if isinstance(parent, n.Join):
            return True
        parent = analysis.parent(parent)
    return False


def regrouped(node: n.Aggregate, keys: list[Expr], analysis: Analysis) -> Effect | Unknown:
    """Grouping by `keys` (reordered or fewer). Where the rows need the same shuffles, a hash
    aggregate that then streams becomes a sort aggregate (on rows already clustered by the
    keys Spark plans one aggregate, not a partial and a final one), and the plan otherwise
    keeps its operators. Where they do not - rows clustered by a key the aggregate no longer
    has, the columns of a DISTINCT no longer among the keys - an exchange comes or goes, and
    with it the half of the aggregate on each side of it. A key of a type not known: the
    effect whether or not it is floating-point (`_floating`), where both agree."""
    grouped = [key.expr for key in node.keys]
    return _whatever_the_types(_possibly_floating(grouped, node, analysis),
                               partial(_regrouped, node, grouped, keys, analysis))


def _regrouped(node: n.Aggregate, grouped: list[Expr], keys: list[Expr], analysis: Analysis,
               floating: frozenset[Expr]) -> Effect | Unknown:
    """`regrouped` with these keys floating-point."""
    shuffles = [distribution(k, node, analysis) for k in (grouped, keys)]
    before, after = strategy(node, analysis), strategy_of(keys, node, analysis)
    normalized = [bool(floating.intersection(k)) for k in (grouped, keys)]
    if shuffles[0].exchanges == shuffles[1].exchanges:
        if shuffles[1].distinct and not _plain_calls(node) and not shuffles[1].exchanges[-1]:
            return DISTINCT_HALVES  # a kept column's any_value would keep the aggregate's halves apart
        if normalized[0] != normalized[1] and not any(shuffles[0].exchanges):
            if before.streams or after.streams:
                return NORMALIZED_STREAMING
            return _renormalized(node, normalized[0], analysis)
        if before.streams == after.streams:
            return Effect()
        hashing, streaming = Counter(HashAggregate=1), Counter(SortAggregate=1)
        return Effect.between(*((hashing, streaming) if after.streams else (streaming, hashing)))
    costs = [_aggregate_cost(node, s, analysis, f) for s, f in zip(shuffles, normalized)]
    if costs[0] is None or costs[1] is None:
        return AGGREGATE_OPERATOR
    if before.streams or after.streams:
        return RESHUFFLED_STREAMING
    return Effect.between(costs[0], costs[1])


def _floating(keys: Sequence[Expr], node: n.Aggregate | n.Window, analysis: Analysis) -> frozenset[Expr] | None:
    """The floating-point keys among `keys`; None where a type is not known. Spark normalizes
    such a group or partition key (NaN, -0.0: `NormalizeFloatingNumbers`). An aggregate's
    partial half then stays apart from the final one even on rows needing no exchange (fuzz
    seed 5102, measured: a sort aggregate sorts twice, a hash aggregate runs twice); a window
    needs its rows clustered by the normalized value, which no partitioning by the column is."""
    props = analysis.of(node.children[0])
    found = {key: props.type_of(key) for key in keys}
    if any(t is None for t in found.values()):
        return None
    return frozenset(key for key, t in found.items() if t in FLOATING)


def _renormalized(node: n.Aggregate, floating_before: bool, analysis: Analysis) -> Effect | Unknown:
    """A floating-point key gone (or come) from an aggregate on rows needing no exchange: its
    partial half (and a sort aggregate's sort) goes (or comes)."""
    kind = _physical_aggregate(node, analysis)
    if kind is None:
        return AGGREGATE_OPERATOR
    halves = Counter({kind: 1, "Sort": int(kind == "SortAggregate")})
    return Effect.between(halves, Counter()) if floating_before else Effect.between(Counter(), halves)


@dataclass(frozen=True)
class Distribution:
    """How Spark distributes the rows of an aggregate grouped by some keys
    (`EnsureRequirements`: an exchange wherever the rows' partitioning does not satisfy the
    `ClusteredDistribution` of the keys, which a hash partitioning on a subset of them does).
    `exchanges`: for each exchange the plan may need, whether it does - one, or two for a
    DISTINCT (`AggUtils.planAggregateWithOneDistinct`: first by the keys and the DISTINCT
    columns, then by the keys). `leaves`: what the output is clustered by (None: unknown).
    `distinct`: whether the DISTINCT calls are one group Spark plans that way."""

    exchanges: tuple[bool, ...]
    leaves: frozenset[Expr] | None
    distinct: bool = False


def distribution(keys: list[Expr], node: n.Aggregate, analysis: Analysis) -> Distribution:
    rows = reported(node.children[0], analysis)
    grouped = frozenset(keys)
    if node.grouping_sets:
        return Distribution((True,), None)  # rows expanded first: the grouping id is a key too
    columns = _distinct_columns(node)
    if columns is None:
        # Several DISTINCT groups (or one with a FILTER): Spark expands the rows first, then
        # shuffles by the keys, the grouping id and the columns, and again by the keys.
        return Distribution((True, True), grouped)
    if not columns:
        return Distribution((not rows.clusters(grouped),), _clustered(rows, grouped))
    first = not rows.clusters(grouped | columns)
    partitioned = (grouped | columns) if first else rows.clustered_by
    second = partitioned is None or not partitioned <= grouped
    return Distribution((first, second), grouped if second else partitioned, distinct=True)


def _distinct_columns(node: n.Aggregate) -> frozenset[Expr] | None:
    """The columns of the aggregate's DISTINCT calls, when they are one group without a
    FILTER (empty: none); None otherwise."""
    groups = set()
    for call in node.aggregates:
        function = unwrap(call.expr.node)
        if isinstance(function.this, exp.Distinct):
            if function is not call.expr.node:
                return None  # a FILTER, IGNORE NULLS...: Spark expands the rows
            groups.add(frozenset(Expr.of(e) for e in function.this.expressions))
    if len(groups) > 1:
        return None
    return groups.pop() if groups else frozenset()


def _plain_calls(node: n.Aggregate) -> bool:
    """Whether the aggregate computes a function without DISTINCT (which keeps the DISTINCT
    plan's last two aggregates apart even with no exchange between them)."""
    return any(not isinstance(unwrap(call.expr.node).this, exp.Distinct) for call in node.aggregates)


def _aggregate_cost(
    node: n.Aggregate, shuffles: Distribution, analysis: Analysis, floating: bool = False
) -> Counter[str] | None:
    """The exchanges and aggregates (with their sorts) Spark runs for the aggregate: a partial
    and a final aggregate around each exchange, one aggregate where none is needed
    (`CombineAdjacentAggregation`) unless a key is `floating` (`_floating`). None where the
    operator is not known."""
    kind = _physical_aggregate(node, analysis)
    if kind is None or (shuffles.distinct and kind != "HashAggregate"):
        return None
    if shuffles.distinct:
        first, second = shuffles.exchanges
        halves = (1 + first) + (2 if second or _plain_calls(node) else 1)
        return Counter(Exchange=first + second, HashAggregate=halves)
    if len(shuffles.exchanges) != 1:
        return None
    exchange = int(shuffles.exchanges[0])
    halves = 2 if exchange or floating else 1
    cost = Counter({"Exchange": exchange, kind: halves})
    if kind == "SortAggregate":
        cost["Sort"] = halves  # each sort aggregate sorts its input
    return cost


# Aggregates whose buffers are their operand's type (or a count): Spark hashes them where
# every buffer is a type it updates in place (`IN_PLACE_BUFFERS`), and sorts otherwise.
_BUFFERED_AS_OPERAND = (exp.Min, exp.Max, exp.AnyValue, exp.First, exp.Last)
_NUMERIC_BUFFERS = (exp.Sum, exp.Avg)


def _physical_aggregate(node: n.Aggregate, analysis: Analysis) -> str | None:
    """`HashAggregate` or `SortAggregate`: the operator Spark plans for the aggregate's
    functions (`HashAggregateExec.supportsAggregate`); None where not known (an object
    aggregate such as collect_list, a type not known)."""
    props = analysis.of(node.children[0])
    sorts = False
    for call in node.aggregates:
        function = unwrap(call.expr.node)
        if isinstance(function, (exp.Count, exp.CountIf)):
            continue
        if not isinstance(function, _BUFFERED_AS_OPERAND + _NUMERIC_BUFFERS) or isinstance(function.this, exp.Distinct):
            return None
        value_type = types.sql_type(props.type_of(Expr.of(function.this)))
        if value_type is None:
            return None
        if isinstance(function, _NUMERIC_BUFFERS):
            if value_type.family not in ("integer", "decimal", "floating"):
                return None
        elif value_type.family not in IN_PLACE_BUFFERS:
            sorts = True
    return "SortAggregate" if sorts else "HashAggregate"


def window_rekeyed(node: n.Window, function: n.WindowFunction, index: int, analysis: Analysis) -> Effect | Unknown:
    """Dropping the `index`-th key (PARTITION BY, then ORDER BY) of the function, the window's
    only one: its exchange goes where the input is then clustered by fewer partition keys, or
    comes where it no longer is; its sort likewise with the input's order. A partition key of
    a type not known: the effect whether or not it is floating-point, where both agree."""
    if analysis.computed(node) != [function]:
        return _rekeyed_among_others(node, function, index, analysis)
    (partition, order, _), = _window_specs(node, analysis)
    rows = reported(_lowest_of_one_text(node, analysis).children[0], analysis)
    kept = _without_key(partition, order, index)
    above = _ranged_above(node, analysis) if partition and not kept[0] else None
    if above is not None and tuple(SortKey(k.expr, k.options) for k in above.keys) == order[: len(above.keys)]:
        return WINDOW_ORDER_ABOVE
    spared = Counter(Exchange=int(above is not None))
    return _whatever_the_types(
        _possibly_floating(partition, node, analysis),
        lambda floating: Effect.between(_window_cost(rows, partition, order, floating) + spared,
                                        _window_cost(rows, *kept, floating & frozenset(kept[0]))),
    )


def _without_key(partition: tuple[Expr, ...], order: Ordering, index: int) -> tuple[tuple[Expr, ...], Ordering]:
    """A window's PARTITION BY and ORDER BY keys without the `index`-th (counted over both)."""
    if index < len(partition):
        return partition[:index] + partition[index + 1:], order
    at = index - len(partition)
    return partition, order[:at] + order[at + 1:]


def _rekeyed_among_others(node: n.Window, function: n.WindowFunction, index: int, analysis: Analysis
                          ) -> Effect | Unknown:
    """Dropping a key of one of a SELECT's window functions of several specifications. Spark
    runs one Window per specification, stacked in an order of its choosing, each on the
    partitioning and order the one beneath leaves where they fit it. Where no partitioning
    of any of them, before or after, fits another's (no partition set is a subset of another,
    none is empty) nor the rows' own (or a join's beneath), every window shuffles and sorts
    whatever the stacking, and the fix changes only what this one's work is keyed by - unless
    the function shares its specification with another (a fix splits them) or takes
    another's (they merge), or something above may read the top window's order."""
    computed = analysis.computed(node)
    if function not in computed:
        return WINDOW_SPECIFICATIONS

    def spec(f: n.WindowFunction) -> tuple[tuple[Expr, ...], Ordering]:
        return tuple(k.expr for k in f.partition_by), tuple(SortKey(i.expr, i.options) for i in f.order_by)

    partition, order = spec(function)
    kept = _without_key(partition, order, index)
    others = {spec(f) for f in computed if f is not function}
    if (partition, order) in others or kept in others:
        return WINDOW_SPECIFICATIONS
    rows = reported(node.children[0], analysis)
    reused = [c for c in (rows.clustered_by, *rows.joined_by) if c is not None]

    def fitting(sets: list[frozenset[Expr]]) -> bool:
        return any(not a or (i != j and a <= b) for i, a in enumerate(sets) for j, b in enumerate(sets)) or any(
            c <= each for c in reused for each in sets)

    sets = [frozenset(p) for p, _ in others]
    if fitting(sets + [frozenset(partition)]) or fitting(sets + [frozenset(kept[0])]):
        return WINDOW_SPECIFICATIONS
    above = analysis.parent(node)
    while isinstance(above, (*_BETWEEN_WINDOWS, n.Limit)):
        above = analysis.parent(above)
    if above is not None and not (isinstance(above, n.Sort) and above.scope == "global"):
        return WINDOW_SPECIFICATIONS  # it may read the top window's order
    dropped_partition_key = index < len(partition)
    return Effect(lightens=("Exchange",) * dropped_partition_key + ("Sort", "Window"))


def _possibly_floating(keys: Sequence[Expr], node: n.Aggregate | n.Window, analysis: Analysis) -> list[frozenset[Expr]]:
    """Each set the floating-point keys among `keys` may be (`_floating`): the one set where
    every type is known, else one per choice among the keys of unknown type (none: too many
    to try)."""
    props = analysis.of(node.children[0])
    known: set[Expr] = set()
    unknown: list[Expr] = []
    for key in dict.fromkeys(keys):
        found = props.type_of(key)
        if found is None:
            unknown.append(key)
        elif found in FLOATING:
            known.add(key)
    if len(unknown) > _UNKNOWN_TYPES_TRIED:
        return []
    return [frozenset(known).union(chosen) for size in range(len(unknown) + 1)
            for chosen in combinations(unknown, size)]


_UNKNOWN_TYPES_TRIED = 4  # 16 cases at most


def _whatever_the_types(cases: list[frozenset[Expr]], effect_of: Callable[[frozenset[Expr]], Effect | Unknown]
                        ) -> Effect | Unknown:
    """The effect every case of floating-point keys agrees on, or why it is not known."""
    found = list(dict.fromkeys(effect_of(floating) for floating in cases))
    if len(found) == 1:
        return found[0]
    return next((each for each in found if isinstance(each, Unknown)), KEY_TYPE)


def _ranged_above(window: n.Window, analysis: Analysis) -> n.Sort | None:
    """The ORDER BY reading the window's rows (through renames, projections and filters) that
    Spark runs with a range exchange - which it needs no more once the window, without
    partition keys, leaves every row in one partition (fuzz seed 5103, multifile)."""
    above = analysis.parent(window)
    while isinstance(above, _BETWEEN_WINDOWS):
        above = analysis.parent(above)
    if not isinstance(above, n.Sort) or above.scope != "global" or _sort_cost(above, analysis) != Counter(Sort=1, Exchange=1):
        return None
    return above


def _window_cost(
    rows: Reported, partition: tuple[Expr, ...], order: Ordering, floating: frozenset[Expr] = frozenset()
) -> Counter[str]:
    """The exchange and the sort Spark puts beneath a window of this specification over
    `rows`: an exchange unless they are clustered by its partition keys (without any: in one
    partition; never by a `floating` one, which Spark normalizes), a sort unless they are
    sorted by them and its keys (none without either; always with a floating one)."""
    sorts = bool(partition or order) and (bool(floating) or not _fits(rows, partition, order))
    return Counter(Exchange=int(not _window_clusters(rows, partition, floating)), Sort=int(sorts))


def _window_clusters(rows: Reported, partition: tuple[Expr, ...], floating: frozenset[Expr]) -> bool:
    """Whether the rows need no exchange for a window partitioned by `partition`: clustered
    by partition keys Spark does not normalize."""
    return rows.clustered_by is not None and rows.clustered_by <= frozenset(partition) - floating


# --- comparisons and arithmetic ----------------------------------------------------------
#
# How Spark types the two sides of `a = b` (`TypeCoercion` / `AnsiTypeCoercion`: PromoteStrings,
# DecimalPrecision, findTightestCommonType), measured on Spark 4.3's analyzed plans in
# tests/engines/test_spark_facts.py and tests/engines/test_coercion_facts.py:
#
# * numbers: the wider integer; an integer and a decimal as the decimal both fit in (a literal
#   as the decimal of its digits, a column as decimal(10,0) for an int); any float or double
#   makes both doubles;
# * a string and a number: with ANSI mode both become bigints (an integer) or doubles; without
#   it, the string becomes the number's type - either way the string side is cast, so
#   `sn = 1` holds for '1', '01' and ' 1' (without ANSI mode an integer and a float are
#   compared as floats; a decimal's rules against a string are not modelled: no fact);
# * a string and a date, timestamp or boolean: the string is cast to that type;
# * a date and a timestamp: the date becomes the timestamp at its midnight; a timestamp_ntz
#   and a timestamp: the timestamp_ntz is cast.


def comparison(left: Side, right: Side, ansi: bool) -> tuple[SqlType, SqlType] | None:
    """The types Spark compares `left` and `right` as."""
    a, b = left.type, right.type
    if a is None or b is None:
        return None
    if a == b:
        return a, b
    if b.family == "string":
        found = comparison(right, left, ansi)
        return (found[1], found[0]) if found is not None else None
    if a.family == "string":
        if b.family == "integer":
            common = types.BIGINT if ansi else b
        elif b.family == "floating":
            common = types.DOUBLE if ansi else b
        elif b.family == "decimal" and ansi:
            common = types.DOUBLE
        elif b.family in ("date", "timestamp", "timestamp_ntz", "boolean"):
            common = b
        else:
            return None  # without ANSI mode a decimal's rules are not modelled: no fact
        return common, common
    shared = _common_type(left, right, ansi)
    return (shared, shared) if shared is not None else None


def _common_type(left: Side, right: Side, ansi: bool) -> SqlType | None:
    a, b = left.type, right.type
    assert a is not None and b is not None
    kinds = {a.family, b.family}
    if kinds == {"integer"}:
        return a if a.bits >= b.bits else b
    if kinds <= {"integer", "decimal"}:
        da, db = _decimal_side(left), _decimal_side(right)
        return types.wider_decimal(da, db) if da is not None and db is not None else None
    if kinds == {"integer", "floating"} and not ansi:
        return a if a.family == "floating" else b  # a float stays a float
    if kinds <= {"integer", "decimal", "floating"}:
        return types.DOUBLE
    if kinds == {"date", "timestamp"} or kinds == {"timestamp", "timestamp_ntz"}:
        return types.TIMESTAMP
    if kinds == {"date", "timestamp_ntz"}:
        return b if b.family == "timestamp_ntz" else a
    return None


def _decimal_side(side: Side) -> SqlType | None:
    """The decimal Spark reads a side of a decimal comparison as: an integer literal as the
    decimal of its digits, an integer column as the decimal its type needs."""
    value = side.integer_value()
    if value is not None and side.type is not None and side.type.family == "integer":
        return types.decimal(max(len(str(abs(value))), 1))
    return types.as_decimal(side.type) if side.type is not None else None


# --- strings no other type equals --------------------------------------------------------
#
# Spark compares a string with a number, a date, a timestamp or a boolean by casting the
# string (above; an interval, a binary... see `only_a_string_equals`). Its cast parsers are
# lenient: they trim whitespace and control characters; a date is 'yyyy', 'yyyy-m' or
# 'yyyy-mm-dd anything'; a timestamp may be a time alone ('12:00', 'T12'); 'epoch', 'now',
# 'today', 'yesterday' and 'tomorrow' (optionally with a zone) are dates and timestamps; a
# boolean is t/true/y/yes/1 or f/false/n/no/0; a double also NaN, inf, infinity, signed;
# all of them case-insensitive. What none of them accepts is decided conservatively: a
# string that starts with letters that are no word a parse knows ('app.example.com',
# 'eu-west-1'), or one with letters, no digit and no such word at all (without ANSI mode
# '.' and '-.' are the integer 0: a string of signs and points is no string to claim). tests/engines/
# test_untyped_comparisons.py holds each accepted string to Spark's casts and comparisons,
# with ANSI mode and without (the answer is the same: a cast fails, or is NULL).

# The words Spark's casts read as a value ('T' also starts a time: 'T12:00'; an interval
# may start with the word 'interval').
CAST_WORDS = frozenset((
    "t", "true", "y", "yes", "f", "false", "n", "no",  # booleans
    "nan", "inf", "infinity",  # doubles and floats
    "epoch", "now", "today", "yesterday", "tomorrow",  # dates and timestamps
    "interval",  # intervals
))
# What Spark's parsers trim (`Character.isWhitespace`, `isISOControl`) and split a special
# date from its zone at: no less than they do.
_BLANKS = r"[\s\x00-\x1f\x7f-\x9f]"
_TRIMMED = re.compile(f"^{_BLANKS}+|{_BLANKS}+$")
_SPLIT = re.compile(f"{_BLANKS}+")
_LEADING_LETTERS = re.compile("[A-Za-z]+")


def only_a_string_equals(text: str) -> bool:
    """Whether no Spark cast of a string to another type accepts `text`: then a column of
    another type compared with it fails the query (ANSI mode) or matches no row. Casts to
    types a string is never compared as (intervals, arrays, structs, variants: the
    comparison is refused) do not matter; a binary column compares bytes - one value too."""
    trimmed = _TRIMMED.sub("", text)
    if not trimmed:
        return True  # no cast accepts an empty or blank string
    leading = _LEADING_LETTERS.match(trimmed)
    if leading is not None:
        return leading.group().lower() not in CAST_WORDS
    if any(character.isnumeric() for character in trimmed) or not any(c.isalpha() for c in trimmed):
        return False  # a number, or signs and points ('.' is the integer 0 without ANSI mode)
    words = {word.lower().lstrip("+-") for word in _SPLIT.split(trimmed)}
    return not words & CAST_WORDS


def semantics(settings: SparkSettings) -> Semantics:
    """Spark's arithmetic and comparisons under the session's settings: with ANSI mode
    (`spark.sql.ansi.enabled`, on by default since 4.0) an integer or decimal overflow fails
    the query; without it integers wrap around and decimals turn NULL, and so does a string
    a function casts to a number or a date and cannot read (`floor('abc')`)."""
    arithmetic = types.Arithmetic(
        overflow="error" if settings.ansi else "wrap", failed_cast="error" if settings.ansi else "null"
    )
    return Semantics(arithmetic, partial(comparison, ansi=settings.ansi), only_a_string_equals=only_a_string_equals)
