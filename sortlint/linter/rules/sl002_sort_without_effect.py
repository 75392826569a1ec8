"""SL002 sort-without-effect

## What it does
Reports a sort (with no LIMIT or OFFSET after it) whose consumer throws the order away: a
join, an aggregate of order-insensitive functions, a set operation, DISTINCT, a shuffle,
a window that sorts its rows by its own keys, a later sort that overrides it, a subquery
used in a predicate, or a write that sorts the rows itself (a bucketed table). With two
sorts of the same rows it is the inner one that is reported: the outer one is the order
the query guarantees.

It stays quiet for a sort that feeds any other write (it shapes the written files), a
window that runs on the order it gives, an order-sensitive aggregate (`first`, `last`,
`collect_list`, and `sum`/`avg` of floating-point or untyped values, whose rounding depends
on the order of addition), or the final result.

A sort under a window can still decide the window's ties. A window sorts its rows by its
PARTITION BY and ORDER BY keys; rows equal on all of them are tied, and by Spark's semantics
their order is not guaranteed - as Spark runs, it is the order the window's shuffle reads
them in, which the sort beneath gives. A function that reads the order among ties
(`row_number`, `ntile`, `lag` / `lead`, `first` / `last`, `first_value` / `last_value`,
`nth_value`, `collect_list`, any aggregate over a ROWS frame, a floating-point sum) gets its
value from the sort by accident of execution, and the message says so; the fix moves the
sort's remaining keys (those the window's keys do not already hold) into the window's ORDER
BY as tie-breakers - `ORDER BY CASE ... END, v` - and removes the sort. No tie is decided by
the sort, and the plain removal stays, when the window's keys tell every row apart (they
cover a unique key) or hold every key of the sort (`PARTITION BY u, d ORDER BY v` over
`ORDER BY u, d, v`), and for functions that give tied rows one value (`rank`, `dense_rank`,
`percent_rank`, `cume_dist`, an order-insensitive aggregate over a RANGE frame or the whole
partition). Aggregates that read their group's order (`first`, `last`, `collect_list`) are
not reported at all.

## Why it matters
The sort is paid for and its work is discarded by the next operator - or it is not paid
for at all, and only misleads the reader. Under `target: spark` the message says which:
"Spark removes this sort itself" where Spark's optimizer drops it (`EliminateSorts`: under
another sort, a join, an order-insensitive aggregate, DISTINCT, INTERSECT / EXCEPT, a
predicate subquery, a keyed repartition, a bucketed write), "Spark runs this sort: a
shuffle of every row and a sort" where it does not (under UNION ALL, a window, a round
robin repartition, an aggregate Spark does not know to ignore order), and "Spark never runs
it" where its rows come from a part of the query Spark plans as empty (a condition
that can never hold: `WHERE k = 0 AND k > 3`, `WHERE 1 = 0`, `LIMIT 0`).

An `ORDER BY k` under a window partitioned by `k` leaves its rows range partitioned by `k`,
and the window - and an aggregate or join on `k` above it - runs on that partitioning with
no exchange of its own. Without the sort the window brings a hash exchange by `k`, which
they run on just the same: the removal saves the sort and adds no exchange (measured on
Spark 4.3, with and without adaptive execution; a join on `k` even loses an exchange, since
a range-partitioned side never matches the other side's hash partitioning).

## Example
```sql
SELECT o.id, c.name
FROM (SELECT * FROM orders ORDER BY created_at) o   -- SL002: a join does not keep order
JOIN customers c ON o.customer_id = c.id
```

```sql
SELECT u, d, v, row_number() OVER (PARTITION BY u, d ORDER BY CASE WHEN channel = 'organic' THEN 100 ELSE 1 END) AS n
FROM (SELECT * FROM visits ORDER BY u, d, v) t   -- SL002: the sort decides which v is 1
```
Measured on Spark 4.3 with 600 groups of tied rows: row 1 is each group's earliest tied `v`
in all 600 with the sort, in 239 without it. The fix writes `ORDER BY CASE ... END, v` and
removes the sort.

## Fix safety
Removing the sort is safe: the consumer's result does not depend on the order of its
input, whatever the tables hold (unsafe where that rests on a declared unique key, or on a
key another file's code makes unique).
Breaking a window's ties is safe for an ORDER BY: it writes down the order the sort gave
them (unsafe for a SORT BY, which orders each partition alone: ties spread over several
reached the window in an order its keys do not write down). It is
offered only where it is exact - for functions whose frame is rows (`row_number`, `ntile`,
`lag`, `lead`, an explicit ROWS frame: a key more in a RANGE frame's ORDER BY would narrow
the frame), for a window of one specification (of several, Spark chooses which sort the ties
pass through last), and for keys that are columns the window can name; otherwise the
finding has no fix.

Effect on Spark (the finding's `effect`): where Spark removes the sort itself, none ("no
runtime effect"); where it runs it, the sort and its range exchange - or only the sort under
a window that runs on the sort's range partitioning (the window then brings its own hash
exchange); a sort a bucketed write drops leaves its exchange, which the fix saves. None is
predicted where a join sits above such a window (its sides must share a partitioning).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from sqlglot import exp

from sortlint.diagnostics import Applicability, Finding
from sortlint.engines import spark
from sortlint.linter.context import Context
from sortlint.linter.rules.sl001_unnecessary_sort import unnecessary
from sortlint.ordering import Evidence, Expr, Properties
from sortlint.ordering.monotonicity import FLOATING
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import arithmetic, order_sensitive, unwrap
from sortlint.sources.frontend import WrittenKey

CODE = "SL002"
NAME = "sort-without-effect"
NODE = n.Sort  # the plan nodes `check` is called with

# Sorts whose removal leaves everything else as it is (DataFrame calls included).
REMOVABLE = ("ORDER BY", "SORT BY", "orderBy", "sort", "sortWithinPartitions")

DISCARDS = {
    n.Join: "a join, which does not keep the order of its inputs",
    n.SetOp: "a set operation, which does not keep the order of its inputs",
    n.Distinct: "DISTINCT, which does not keep the order of its input",
    n.Repartition: "a repartition, which shuffles rows",
    n.Subquery: "a subquery predicate, which does not depend on row order",
}

# Window functions whose value depends only on the ORDER BY values: tied rows get one value.
TIE_BLIND = (exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist)
# Window functions whose frame is rows, whatever is written: more ORDER BY keys only break
# ties. (An aggregate's default frame, RANGE, includes the current row's ties: a key more
# would change it.)
ROW_FRAMED = (exp.RowNumber, exp.Ntile, exp.Lag, exp.Lead)


@dataclass(frozen=True)
class OpenTies:
    """A window function that reads the order of rows its PARTITION BY and ORDER BY leave
    tied, and the sort's keys that decide it among them (as the window reads them; None
    where one is not a column the window can name)."""

    function: n.WindowFunction
    tie_breakers: list[WrittenKey | None]


def check(node: n.Sort, context: Context) -> Iterator[Finding]:
    if node.span is None:
        return
    consumer = context.consumer(node)
    reason = _discarded_by(consumer, node, context)
    if reason is None:
        return
    message = f"{node.clause} has no effect: its rows feed {reason}"
    fix = None
    prediction = context.predicted(partial(spark.removing_sort, node))
    effect = prediction.effect
    if isinstance(consumer, n.Window):
        ties, evidence = _open_ties(consumer, node, context)
        if ties:
            message += ". " + _ties_text(ties)
            if node.clause in REMOVABLE:
                fix = _break_ties(consumer, node, ties, context)
        elif node.clause in REMOVABLE:
            fix = context.fix(
                f"remove the {node.clause}", lambda: context.fixes.remove_sort(context, node), evidence, effect
            )
    elif node.clause in REMOVABLE:  # CLUSTER BY also distributes rows
        fix = context.fix(f"remove the {node.clause}", lambda: context.fixes.remove_sort(context, node), (), effect)
    fate = context.analysis.sort_fate(node)
    if prediction.because is not None:
        message += f". {prediction.because}"
    elif fate is not None:
        message += f". {fate.text}"
    yield context.finding(CODE, NAME, node.span, message, (), fix, prediction)


def _ties_text(ties: list[OpenTies]) -> str:
    names = ", ".join(dict.fromkeys(_function_name(t.function) for t in ties))
    return (
        f"But the window leaves ties open for {names} (its PARTITION BY and ORDER BY do not "
        "tell every row apart), and this sort decides them only by accident of execution: "
        "without it other rows may win"
    )


def _function_name(function: n.WindowFunction) -> str:
    # As Spark spells it (sqlglot's own names differ: collect_list is its ArrayAgg).
    call = unwrap(function.expr.node.this).sql(dialect="spark")
    return f"{call.split('(')[0].lower()}()"


def _break_ties(window: n.Window, sort: n.Sort, ties: list[OpenTies], context: Context):
    """Move the sort's keys into each window function's ORDER BY as tie-breakers, then
    remove the sort: the order among ties is then the window's own. Only for a window of
    one specification (of several, Spark chooses which sorts last and decides the ties)
    whose tied functions are row-framed, and keys the window can name."""
    specs = {
        (tuple(k.expr for k in f.partition_by), tuple((i.expr, i.options) for i in f.order_by))
        for f in context.analysis.computed(window)
    }
    keys = [k for t in ties for k in t.tie_breakers]
    if len(specs) != 1 or None in keys or not all(_row_framed(t.function) for t in ties):
        return None
    written = ", ".join(dict.fromkeys(k.column for k in keys if k is not None))

    def edits():
        result = []
        for t in ties:
            appended = context.fixes.break_window_ties(
                context, window, t.function, [k for k in t.tie_breakers if k is not None]
            )
            if appended is None:
                return None
            result += appended
        removed = context.fixes.remove_sort(context, sort)
        return result + removed if removed is not None else None

    fix = context.fix(f"order the window by {written} to break its ties, and remove the {sort.clause}", edits)
    if fix is not None and sort.scope != "global":
        # A SORT BY orders each of its partitions only: ties spread over several came to
        # the window in partition order, which the keys do not write down.
        return fix.at_most(Applicability.UNSAFE)
    return fix


def _open_ties(window: n.Window, sort: n.Sort, context: Context) -> tuple[list[OpenTies], frozenset[Evidence]]:
    """The window's functions whose ties the sort decides, and what the others' total
    order rests on (a unique key the window's keys cover)."""
    rows = context.input_of(window)
    read = [_as_read_by(window, sort, item.expr, context) for item in sort.keys]
    ties: list[OpenTies] = []
    evidence: set[Evidence] = set()
    for function in context.analysis.computed(window):
        if not _reads_order_among_ties(function, rows):
            continue
        tied_on = {k.expr for k in function.partition_by} | {i.expr for i in function.order_by}
        unique = rows.unique_within(tied_on)
        if unique is not None:
            evidence |= unique
            continue
        # Among tied rows the window's keys are equal: the sort's other keys order them.
        deciding = [
            (expr, item) for expr, item in zip(read, sort.keys) if expr is None or expr not in tied_on
        ]
        if deciding:
            ties.append(OpenTies(function, [
                WrittenKey(expr.column_name, item.options) if expr is not None and expr.column_name else None
                for expr, item in deciding
            ]))
    return ties, frozenset(evidence)


def _reads_order_among_ties(function: n.WindowFunction, rows: Properties) -> bool:
    """Whether the function's value for a row can change with the order of rows its window
    leaves tied: anything but a rank, or an order-insensitive aggregate over a RANGE frame
    (the default: ties are in the frame together) or the whole partition."""
    window = function.expr.node
    call = unwrap(window.this)
    if isinstance(call, TIE_BLIND):
        return False
    operands = (Expr.of(arg) for arg in [call.this, *call.expressions] if isinstance(arg, exp.Expression))
    if _depends_on_order(call, (rows.type_of(operand) for operand in operands)):
        return True
    if isinstance(call, ROW_FRAMED):
        return True
    spec = window.args.get("spec")
    if spec is None or str(spec.args.get("kind", "")).upper() != "ROWS":
        return False
    return not (spec.args.get("start") == "UNBOUNDED" and spec.args.get("end") == "UNBOUNDED")


def _row_framed(function: n.WindowFunction) -> bool:
    window = function.expr.node
    spec = window.args.get("spec")
    return isinstance(unwrap(window.this), ROW_FRAMED) or (
        spec is not None and str(spec.args.get("kind", "")).upper() == "ROWS"
    )


def _as_read_by(window: n.Window, sort: n.Sort, key: Expr, context: Context) -> Expr | None:
    """The sort key as the window reads it, when it is a column passed on by name through
    the projections and subquery names between them."""
    node, parent = sort, context.parent(sort)
    while parent is not window:
        if parent is None or parent.children[0] is not node or not key.is_column:
            return None
        if isinstance(parent, n.Project):
            names = [c.name for c in parent.columns if c.expr == key]
            listed = {c.name.lower() for c in parent.columns}
            if len(names) == 1 and sum(c.name.lower() == names[0].lower() for c in parent.columns) == 1:
                key = Expr.column(names[0])
            elif key.node.table in parent.passthrough and key.column_name not in listed:
                key = Expr.column(key.column_name or "")
            else:
                return None
        elif isinstance(parent, n.Alias):
            if key.node.table or (parent.columns and key.column_name not in parent.columns):
                return None
            key = Expr.column(key.column_name or "", parent.alias)
        elif not isinstance(parent, n.Filter):
            return None  # a generator's columns could take the key's name
        node, parent = parent, context.parent(parent)
    return key


def _depends_on_order(call: exp.Expression, types: Iterable[str | None]) -> bool:
    """Order-sensitive functions, and sums or averages of floating-point values (their
    addition is not associative, as Spark's own EliminateSorts assumes) or of values whose
    type is not known (`types`: the operands')."""
    if order_sensitive(call):
        return True
    if not arithmetic(call):
        return False
    return any(t is None or t in FLOATING for t in types)


def _discarded_by(consumer: n.Node | None, sort: n.Sort, context: Context) -> str | None:
    if consumer is None:
        return None
    for kind, reason in DISCARDS.items():
        if isinstance(consumer, kind):
            return reason
    if isinstance(consumer, n.Window) and context.analysis.window_resorts(consumer):
        return "a window, which shuffles and sorts its rows by its own keys"
    if isinstance(consumer, n.Write):
        fate = context.analysis.sort_fate(sort)
        if fate is not None and fate.removed and not fate.keys_fold:
            return f"a write into {consumer.target}, which sorts the rows itself"
        return None
    if isinstance(consumer, n.Aggregate):
        rows = context.input_of(consumer)
        if any(
            _depends_on_order(call.expr.node, (rows.type_of(operand) for operand in call.expr.children))
            for call in consumer.aggregates
        ):
            return None
        return "an aggregate whose functions do not depend on row order"
    if isinstance(consumer, n.Sort) and consumer.scope == "global":
        # A later sort satisfied by this one is itself the unnecessary one (SL001).
        if unnecessary(consumer, context) is None:
            return f"a later {consumer.clause} (line {context.line_of(consumer.span)}) that overrides it"
    return None
