"""What a select item holds, in one walk: the same calls as the walks of their own."""

from __future__ import annotations

import pytest
import sqlglot

from sortlint.plan.aggregates import aggregate_calls, window_calls
from sortlint.plan.contents import contents
from sortlint.plan.generators import contains_generator


def item(sql: str):
    return sqlglot.parse_one(f"SELECT {sql} FROM t", read="spark").expressions[0]


def test_calls_windows_and_queries_of_an_item():
    node = item(
        "sum(sum(x)) OVER (PARTITION BY max(y)) + count(*) FILTER (WHERE z) + (SELECT min(w) FROM u)"
    )
    held = contents(node)
    assert [c.sql("spark") for c in held.aggregates] == ["SUM(x)", "MAX(y)", "COUNT(*) FILTER(WHERE z)"]
    assert [w.this.sql("spark") for w in held.windows] == ["SUM(SUM(x))"]
    assert (held.generator, held.queries) == (False, True)


def test_a_generator_inside_an_expression_not_one_inside_a_subquery():
    assert contents(item("size(explode(a)) + 1")).generator
    held = contents(item("(SELECT explode(a) FROM u) + 1"))
    assert (held.generator, held.queries) == (False, True)


def test_nothing_held_by_a_column():
    held = contents(item("a"))
    assert (held.aggregates, held.windows, held.generator, held.queries) == ((), (), False, False)


@pytest.mark.parametrize(
    "sql",
    ["a + 1", "count(*) + max(b) OVER (ORDER BY c)", "explode(a)", "EXISTS (SELECT 1 FROM u)",
     "(SELECT max(x) FROM u)", "CASE WHEN a IN (SELECT b FROM u) THEN sum(c) END",
     "transform(a, x -> x + max(b))", "first(a) IGNORE NULLS OVER (PARTITION BY b)"],
)
def test_the_same_as_each_walk_of_its_own(sql):
    node = item(sql)
    node = node.this if isinstance(node, sqlglot.exp.Alias) else node
    held = contents(node)
    assert list(held.aggregates) == list(aggregate_calls(node))
    assert list(held.windows) == list(window_calls(node))
    assert held.generator == contains_generator(node)
    assert held.queries == any(isinstance(n, sqlglot.exp.Query) for n in node.walk())


def test_a_query_itself_is_one():
    query = sqlglot.parse_one("SELECT (SELECT 1) AS x", read="spark").expressions[0].this
    assert contents(query).queries
