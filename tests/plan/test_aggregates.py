"""Which calls aggregate, and which care about the order of their input."""

from __future__ import annotations

import pytest
import sqlglot

from sortlint.plan.aggregates import aggregate_calls, arithmetic, is_aggregate, order_sensitive, window_calls


def item(sql: str):
    return sqlglot.parse_one(f"SELECT {sql} FROM t", read="spark").expressions[0]


@pytest.mark.parametrize(
    "call",
    ["first(x)", "last(x)", "first_value(x)", "last_value(x)", "collect_list(x)", "array_agg(x)",
     "string_agg(x, ',')", "listagg(x)", "min_by(x, y)", "max_by(x, y)", "any_value(x)", "mode(x)",
     "percentile_approx(x, 0.5)", "histogram_numeric(x, 3)", "first(x) IGNORE NULLS",
     "my_udaf(x)"],
)
def test_order_sensitive(call):
    assert order_sensitive(item(call))


@pytest.mark.parametrize(
    "call",
    ["count(*)", "count(DISTINCT x)", "count_if(x)", "min(x)", "max(x)", "sum(x)", "avg(x)",
     "stddev(x)", "collect_set(x)", "approx_count_distinct(x)", "bool_and(x)", "every(x)",
     "bit_or(x)", "percentile(x, 0.5)", "sum(x) FILTER (WHERE y > 0)"],
)
def test_order_insensitive(call):
    assert is_aggregate(item(call).this if "FILTER" in call else item(call))
    assert not order_sensitive(item(call))


def test_floating_point_arithmetic_is_marked():
    assert arithmetic(item("sum(x)")) and arithmetic(item("avg(x)"))
    assert not arithmetic(item("count(x)")) and not arithmetic(item("max(x)"))


def test_window_only_functions_are_not_aggregates():
    for call in ("row_number()", "rank()", "dense_rank()", "lag(x)", "lead(x)", "ntile(2)"):
        assert not is_aggregate(item(call))


def test_calls_in_an_expression_skip_window_functions_and_subqueries():
    node = item(
        "sum(sum(x)) OVER (PARTITION BY max(y)) + count(*) FILTER (WHERE z) + (SELECT min(w) FROM u)"
    )
    assert [c.sql("spark") for c in aggregate_calls(node)] == [
        "SUM(x)", "MAX(y)", "COUNT(*) FILTER(WHERE z)",
    ]
    assert [w.this.sql("spark") for w in window_calls(node)] == ["SUM(SUM(x))"]
