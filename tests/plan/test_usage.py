"""Which window functions the engine computes (sortlint/plan/usage.py): those whose value
something above reads, through every projection. The others are pruned with their sorts."""

from __future__ import annotations

import pytest

from plan_support import build
from sortlint.plan import nodes as n
from sortlint.plan.usage import read_window_functions


def read(sql: str) -> list[bool]:
    """For each window function of the plan, in plan order: whether its value is read."""
    root = build(sql).root
    found = read_window_functions(root)
    return [id(f) in found for node in n.walk(root) if isinstance(node, n.Window) for f in node.functions]


@pytest.mark.parametrize(
    ("sql", "computed"),
    [
        ("SELECT host, rank() OVER (ORDER BY time) AS r FROM events", [True]),
        # Selected by a subquery nobody reads that column of: pruned (issue 10 case 6).
        ("SELECT s.host FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s", [False]),
        ("SELECT s.r FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s", [True]),
        ("SELECT s.host FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s WHERE s.r = 1", [True]),
        ("SELECT host FROM events QUALIFY rank() OVER (ORDER BY time) = 1", [True]),
        ("SELECT * FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s", [True]),
        ("SELECT count(*) FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s", [False]),
        ("SELECT DISTINCT s.host FROM (SELECT host, rank() OVER (ORDER BY time) AS r FROM events) s", [False]),
        # One of two: only the read one is computed.
        ("SELECT s.a FROM (SELECT rank() OVER (ORDER BY time) AS a, rank() OVER (ORDER BY host) AS b "
         "FROM events) s", [True, False]),
        # Through a chain of CTEs and a join whose other side has no window.
        ("WITH w AS (SELECT host, rank() OVER (ORDER BY time) AS r FROM events), a AS (SELECT * FROM w), "
         "b AS (SELECT r, host FROM a) SELECT b.r FROM b JOIN hosts h ON b.host = h.host", [True]),
        ("WITH w AS (SELECT host, rank() OVER (ORDER BY time) AS r FROM events), a AS (SELECT * FROM w), "
         "b AS (SELECT r, host FROM a) SELECT b.host FROM b JOIN hosts h ON b.host = h.host", [False]),
        # Inside a predicate's subquery: not known to be read.
        ("SELECT host FROM events WHERE host IN (SELECT max(host) OVER () FROM hosts)", [False]),
    ],
)
def test_a_window_is_computed_when_its_value_reaches_the_result(sql, computed):
    assert read(sql) == computed
