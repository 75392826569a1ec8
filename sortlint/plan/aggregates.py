"""Which calls aggregate, which are window-only, and which care about the order of their input.

`order_sensitive` decides whether a sort below an aggregate can matter to its result, so a
wrong "insensitive" would let a rule remove a sort that changes results. The list of
insensitive functions is therefore a whitelist; anything else, including an aggregate this
module does not know, is sensitive. `collect_set` is insensitive: it returns a set, whose
element order Spark leaves unspecified whatever the input order. `any_value`, `first`,
`last`, `min_by`/`max_by` (ties), `mode` (ties), approximate percentiles and histograms
(their sketches depend on arrival order) are sensitive.

Sums and averages are insensitive as functions but not as floating-point arithmetic:
`arithmetic` marks them so a rule can ask for the column type, as Spark's own
`EliminateSorts` does (it keeps a sort below a sum of doubles).
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank)
WINDOW_ONLY = (
    *RANKING, exp.CumeDist, exp.PercentRank, exp.Ntile, exp.Lag, exp.Lead, exp.NthValue,
)
ARITHMETIC = frozenset((
    exp.Sum, exp.Avg, exp.Stddev, exp.StddevPop, exp.StddevSamp, exp.Variance,
    exp.VariancePop, exp.Kurtosis, exp.Skewness, exp.Corr, exp.CovarPop, exp.CovarSamp,
    exp.RegrAvgx, exp.RegrAvgy, exp.RegrIntercept, exp.RegrR2, exp.RegrSlope, exp.RegrSxx,
    exp.RegrSxy, exp.RegrSyy,
))
ORDER_INSENSITIVE = frozenset((
    *ARITHMETIC, exp.Count, exp.CountIf, exp.Min, exp.Max, exp.RegrCount, exp.BitwiseAndAgg,
    exp.BitwiseOrAgg, exp.BitwiseXorAgg, exp.LogicalAnd, exp.LogicalOr, exp.ApproxDistinct,
    exp.ArrayUniqueAgg, exp.Grouping, exp.GroupingId, exp.Quantile, exp.Median,
))
# Spark aggregates sqlglot reads as plain function calls, by whether their order matters.
ANONYMOUS_AGGREGATES = {
    "every": False, "some": False, "bool_and": False, "bool_or": False, "try_sum": False,
    "try_avg": False, "std": False, "histogram_numeric": True, "count_min_sketch": True,
    "hll_sketch_agg": True, "hll_union_agg": True, "bitmap_construct_agg": False,
    "bitmap_or_agg": False,
}
# Functions that need an ORDER BY in their window, whatever else it holds.
NEEDS_ORDER = (
    exp.RowNumber, exp.Rank, exp.DenseRank, exp.Lag, exp.Lead, exp.NthValue, exp.Ntile,
    exp.PercentRank, exp.CumeDist, exp.FirstValue, exp.LastValue,
)
# Wrappers that belong to the call they wrap: `f(x) FILTER (WHERE ...)`, `f(x) IGNORE NULLS`.
CALL_WRAPPERS = (exp.Filter, exp.IgnoreNulls, exp.RespectNulls, exp.WithinGroup)


def is_aggregate(node: exp.Expression) -> bool:
    """An aggregate function call (not one that exists only as a window function)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in ANONYMOUS_AGGREGATES
    if isinstance(node, exp.Any):
        return not isinstance(node.this, exp.Query)  # Spark's any(x) is bool_or
    return isinstance(node, exp.AggFunc) and not isinstance(node, WINDOW_ONLY)


def order_sensitive(node: exp.Expression) -> bool:
    function = unwrap(node)
    if isinstance(function, exp.Anonymous):
        return ANONYMOUS_AGGREGATES.get(function.name.lower(), True)
    if isinstance(function, exp.Any):
        return False
    return type(function) not in ORDER_INSENSITIVE  # exact: ApproxQuantile is a Quantile


def arithmetic(node: exp.Expression) -> bool:
    return type(unwrap(node)) in ARITHMETIC


def is_ranking(node: exp.Expression) -> bool:
    return isinstance(unwrap(node), RANKING)


def unwrap(node: exp.Expression) -> exp.Expression:
    """The function inside FILTER / IGNORE NULLS / WITHIN GROUP wrappers."""
    while isinstance(node, CALL_WRAPPERS):
        node = node.this
    return node


def wrapped(node: exp.Expression) -> exp.Expression:
    """The whole call: the function with the wrappers written around it."""
    while isinstance(node.parent, CALL_WRAPPERS) and node.arg_key == "this":
        node = node.parent
    return node


def aggregate_calls(node: exp.Expression) -> Iterator[exp.Expression]:
    """Aggregate calls in an expression, wrappers included, outside nested queries; the
    function of a window is not one, but aggregates in its arguments and keys are."""
    for sub in walk_outside_queries(node):
        if is_aggregate_call(sub):
            yield wrapped(sub)


def window_calls(node: exp.Expression) -> Iterator[exp.Window]:
    for sub in walk_outside_queries(node):
        if isinstance(sub, exp.Window):
            yield sub


def is_aggregate_call(node: exp.Expression) -> bool:
    """An aggregate function that `aggregate_calls` counts: not the function of a window."""
    return is_aggregate(node) and not _is_window_function(node)


def _is_window_function(node: exp.Expression) -> bool:
    call = wrapped(node)
    return isinstance(call.parent, exp.Window) and call.arg_key == "this"


def walk_outside_queries(node: exp.Expression) -> Iterator[exp.Expression]:
    """Pre-order, in the order the arguments are written: `node`, the nodes below it, and
    the queries nested in it, without entering those."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is node or not isinstance(current, exp.Query):
            stack.extend(current.iter_expressions(reverse=True))


def needs_order(window: exp.Window) -> bool:
    """Whether a window cannot lose its last ORDER BY key: its function needs an order, or it
    has a frame (which an ORDER BY bounds)."""
    return isinstance(window.this, NEEDS_ORDER) or window.args.get("spec") is not None
