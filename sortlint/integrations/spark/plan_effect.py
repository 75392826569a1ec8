"""What Spark's planner says a rewrite changes: the operators of a statement's executed physical
plan, counted, and the measured `Effect` of replacing one statement by another.

The plan is the one Spark executes with adaptive query execution off (the plan a finding's
`effect` predicts): AQE re-plans at run time from sizes it measures, so its final plan says
what the data did, not what the statement asks for. Nothing is executed: Spark's physical
planning (with the exchanges and sorts `EnsureRequirements` adds) is enough.

Operators are counted by the name EXPLAIN prints (`SparkPlan.nodeName`: `Sort`, `Exchange`,
`HashAggregate`, ...), so a count reads like the EXPLAIN output a user compares it with.
`BroadcastExchange` and `ReusedExchange` are other names, not an `Exchange`: a fix that keeps
a broadcast join keeps its broadcast, and a reused exchange does no work of its own. Plans of
subqueries (scalar `(SELECT ...)`, `IN (SELECT ...)` once planned as subqueries) count with
the statement's.

PySpark is used only through the objects the caller passes: importing this module loads none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sortlint.diagnostics.effects import OPERATORS, Effect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

AQE = "spark.sql.adaptive.enabled"


@contextmanager
def static_planning(spark: SparkSession) -> Iterator[None]:
    """AQE off for the block (a DataFrame is planned when its plan is first asked for, under
    the settings of that moment), then the session's own value back."""
    before = spark.conf.get(AQE, None)
    spark.conf.set(AQE, "false")
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(AQE)
        else:
            spark.conf.set(AQE, before)


def operator_counts(frame: DataFrame) -> Counter[str]:
    """How many of each of `OPERATORS` the frame's executed physical plan holds. Call it
    inside `static_planning` on a frame whose plan was not asked for before (an adaptive plan
    that is not final yet is counted as AQE would start it, which is the static plan)."""
    plan = frame._jdf.queryExecution().executedPlan()
    return Counter(name for name in _node_names(plan) if name in OPERATORS)


def statement_counts(spark: SparkSession, statement: str) -> Counter[str]:
    """`operator_counts` of one SQL statement (a query; planned, not run)."""
    with static_planning(spark):
        return operator_counts(spark.sql(statement.strip().rstrip(";")))


def measured_effect(spark: SparkSession, before: str, after: str) -> Effect:
    """The effect of replacing SQL statement `before` by `after`, as Spark plans them."""
    return Effect.between(statement_counts(spark, before), statement_counts(spark, after))


# Wrappers whose `children` would hide what they wrap, or whose plan is elsewhere.
_INNER = {
    "AdaptiveSparkPlanExec": lambda plan: [plan.executedPlan()],
    "CommandResultExec": lambda plan: [plan.commandPhysicalPlan()],
}


def _node_names(plan) -> Iterator[str]:
    """Every operator's EXPLAIN name in the plan, its subqueries' plans included."""
    inner = _INNER.get(plan.getClass().getSimpleName())
    if inner is not None:
        for child in inner(plan):
            yield from _node_names(child)
        return
    yield plan.nodeName()
    for nested in (plan.children(), plan.subqueries()):
        items = nested.iterator()
        while items.hasNext():
            yield from _node_names(items.next())
