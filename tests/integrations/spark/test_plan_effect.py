"""Specification: `plan_effect` counts the operators of a statement's executed plan (AQE off)
as EXPLAIN names them, and a rewrite's measured effect is the difference of two such counts."""

from __future__ import annotations

from collections import Counter

import pytest

from sortlint.diagnostics.effects import Effect
from sortlint.integrations.spark.plan_effect import AQE, measured_effect, statement_counts
from spark_support import NEEDS_SPARK, spark  # noqa: F401  (the session fixture)

pytestmark = NEEDS_SPARK


@pytest.fixture(scope="module")
def events(spark):  # noqa: F811
    # Four input partitions: a GROUP BY or window needs an exchange, as on real data.
    spark.range(0, 400, 1, 4).selectExpr(
        "id % 7 AS k", "cast(id % 3 AS string) AS kind", "id AS v"
    ).createOrReplaceTempView("events")
    yield "events"
    spark.catalog.dropTempView("events")


@pytest.mark.parametrize(
    ("statement", "counts"),
    [
        ("SELECT k, count(*) FROM events GROUP BY k ORDER BY k",
         {"Exchange": 2, "HashAggregate": 2, "Sort": 1}),
        # The inner ORDER BY is removed by Spark's optimizer: no sort is planned for it.
        ("SELECT k, count(*) FROM (SELECT * FROM events ORDER BY v) GROUP BY k",
         {"Exchange": 1, "HashAggregate": 2}),
        # first() over a string has no fixed-width buffer: a sort aggregate, sorted twice.
        ("SELECT k, first(kind) FROM events GROUP BY k",
         {"Exchange": 1, "SortAggregate": 2, "Sort": 2}),
        ("SELECT k, collect_list(v) FROM events GROUP BY k",
         {"Exchange": 1, "ObjectHashAggregate": 2}),
        ("SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) FROM events",
         {"Exchange": 1, "Sort": 1, "Window": 1}),
        ("SELECT * FROM events ORDER BY v LIMIT 5", {"TakeOrderedAndProject": 1}),
        # A scalar subquery's plan counts with the statement's.
        ("SELECT k, (SELECT max(v) FROM events) FROM events ORDER BY k",
         {"Exchange": 2, "Sort": 1, "HashAggregate": 2}),
    ],
)
def test_counts_are_the_executed_plans_operators(spark, events, statement, counts):  # noqa: F811
    assert statement_counts(spark, statement) == Counter(counts)


def test_counts_are_planned_with_aqe_off_and_leave_the_session_setting(spark, events):  # noqa: F811
    spark.conf.set(AQE, "true")
    try:
        assert statement_counts(spark, "SELECT k, count(*) FROM events GROUP BY k") == Counter(
            {"Exchange": 1, "HashAggregate": 2})
        assert spark.conf.get(AQE) == "true"
    finally:
        spark.conf.set(AQE, "false")


def test_measured_effect_of_any_value_over_a_string_key(spark, events):  # noqa: F811
    # Issue 32's case: dropping a constant string key for any_value() trades the hash
    # aggregates for sort aggregates and two more sorts.
    before = "SELECT kind, k, count(*) FROM events GROUP BY kind, k ORDER BY k, kind"
    after = "SELECT any_value(kind) AS kind, k, count(*) FROM events GROUP BY k ORDER BY k"
    assert measured_effect(spark, before, after) == Effect(
        removes=("HashAggregate", "HashAggregate"),
        adds=("Sort", "Sort", "SortAggregate", "SortAggregate"),
    )


def test_measured_effect_of_a_removed_sort(spark, events):  # noqa: F811
    before = "SELECT k, v FROM (SELECT k, v FROM events ORDER BY k) ORDER BY v"
    after = "SELECT k, v FROM (SELECT k, v FROM events) ORDER BY v"
    assert measured_effect(spark, before, after) == Effect()


def test_a_sort_aggregate_is_worse_by_the_sorts_it_needs(spark, events):  # noqa: F811
    # `Effect.worse`, measured on both sides of the line. Issue 32's any_value over a string:
    # the hash aggregates become sort aggregates that need two sorts more - worse.
    before = "SELECT kind, k, count(*) FROM events GROUP BY kind, k ORDER BY k, kind"
    after = "SELECT any_value(kind) AS kind, k, count(*) FROM events GROUP BY k ORDER BY k"
    assert measured_effect(spark, before, after).worse() == ("Sort", "Sort")
    # SL101's fix: the keys in the order the rows already have, the hash aggregate streams as
    # a sort aggregate over them, no sort added - no worse.
    ranked = "(SELECT k, v, rank() OVER (PARTITION BY k ORDER BY v) AS r FROM events) w"
    streamed = measured_effect(
        spark, f"SELECT v, k, max(r) FROM {ranked} GROUP BY v, k", f"SELECT k, v, max(r) FROM {ranked} GROUP BY k, v"
    )
    assert streamed == Effect(removes=("HashAggregate",), adds=("SortAggregate",))
    assert streamed.worse() == ()
    # An object-hash aggregate in place of a hash aggregate: worse (it sorts and spills under
    # memory pressure).
    objects = measured_effect(
        spark, "SELECT k, max(v) FROM events GROUP BY k", "SELECT k, collect_list(v) FROM events GROUP BY k"
    )
    assert objects.worse() == ("ObjectHashAggregate", "ObjectHashAggregate")
