"""A finding's effect on Spark's plan: measured as the difference of two plans' operator
counts, and said in a few words."""

from __future__ import annotations

from collections import Counter

import pytest

from sortlint.diagnostics import Effect


def test_an_effect_is_the_difference_of_two_plans_operator_counts():
    before = Counter({"Sort": 3, "Exchange": 2, "HashAggregate": 2})
    after = Counter({"Sort": 1, "Exchange": 2, "SortAggregate": 1})
    assert Effect.between(before, after) == Effect(
        removes=("HashAggregate", "HashAggregate", "Sort", "Sort"), adds=("SortAggregate",)
    )
    assert Effect.between(before, before) == Effect()


@pytest.mark.parametrize(("effect", "words"), [
    (Effect(), "no runtime effect"),
    (Effect(removes=("Exchange", "Sort")), "saves an exchange and a sort"),
    (Effect(removes=("Sort",)), "saves a sort"),
    (Effect(removes=("Exchange", "Exchange", "Sort", "Sort")), "saves 2 exchanges and 2 sorts"),
    (Effect(removes=("HashAggregate",), adds=("SortAggregate",)), "runs a sort aggregate in place of a hash aggregate"),
    (Effect(adds=("Exchange",)), "adds an exchange"),
    (Effect(lightens=("Exchange", "Sort")), "same plan: an exchange and a sort by fewer keys"),
    (Effect(lightens=("HashAggregate",)), "same plan: a hash aggregate by fewer keys"),
    (Effect(lightens=("Sort", "Window")), "same plan: a sort and a window by fewer keys"),
])
def test_an_effect_in_a_few_words(effect, words):
    assert effect.words() == words


def test_a_fix_that_adds_a_sort_an_exchange_or_an_object_aggregate_makes_the_plan_worse():
    assert Effect(adds=("Exchange",)).worsens == "it would add an exchange to Spark's plan"
    assert Effect(removes=("HashAggregate",), adds=("ObjectHashAggregate", "Sort")).worsens == (
        "it would add a sort and an object hash aggregate to Spark's plan"
    )
    assert Effect(removes=("HashAggregate",), adds=("SortAggregate",)).worsens is None  # it streams
    assert Effect().worsens is None


@pytest.mark.parametrize(("effect", "worse"), [
    # SL101's fix: a hash aggregate streams as a sort aggregate over rows already sorted.
    (Effect(removes=("HashAggregate",), adds=("SortAggregate",)), ()),
    # Issue 32's any_value over a string: the sort aggregates need two sorts more.
    (Effect(removes=("HashAggregate", "HashAggregate"), adds=("Sort", "Sort", "SortAggregate", "SortAggregate")),
     ("Sort", "Sort")),
    (Effect(removes=("HashAggregate",), adds=("ObjectHashAggregate",)), ("ObjectHashAggregate",)),
    (Effect(removes=("Sort",), adds=("Exchange",)), ("Exchange",)),
    (Effect(removes=("Exchange", "Sort")), ()),
    (Effect(lightens=("Sort",)), ()),
])
def test_worse_is_a_sort_an_exchange_or_an_object_aggregate_more(effect, worse):
    assert effect.worse() == worse
    assert (effect.worsens is None) == (not worse)


def test_a_plan_that_keeps_its_operators_by_fewer_keys_is_no_noop():
    lighter = Effect(lightens=("Sort",))
    assert lighter.none and not lighter.noop
    assert Effect().none and Effect().noop
    assert lighter.as_json() == {"removes": [], "adds": [], "lightens": ["Sort"]}
    # A measured plan's operator counts cannot show it: effects compare without it.
    assert lighter == Effect()
