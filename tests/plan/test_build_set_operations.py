"""UNION / INTERSECT / EXCEPT, with ALL or DISTINCT: a SetOp over the built branches,
named by its first branch."""

from __future__ import annotations

import pytest
from plan_support import build, expected, plan

from sortlint.plan.nodes import SetOp

BRANCHES = """
  Project [events.host AS host]
    Scan events (event_id, host, time, level, amount, price)
  Project [hosts.host AS host]
    Scan hosts (host, region, owner)
"""


@pytest.mark.parametrize(
    ("operator", "header"),
    [
        ("UNION", "SetOp union distinct (host)"),
        ("UNION DISTINCT", "SetOp union distinct (host)"),
        ("UNION ALL", "SetOp union all (host)"),
        ("INTERSECT", "SetOp intersect distinct (host)"),
        ("INTERSECT ALL", "SetOp intersect all (host)"),
        ("EXCEPT", "SetOp except distinct (host)"),
        ("EXCEPT ALL", "SetOp except all (host)"),
        ("MINUS", "SetOp except distinct (host)"),
    ],
)
def test_each_operator_with_all_or_distinct(operator, header):
    sql = f"SELECT host FROM events {operator} SELECT host FROM hosts"
    assert plan(sql) == expected(header + BRANCHES)
    statement = build(sql)
    assert statement.outputs == ("host",)
    assert statement.unit.text[statement.root.span.start : statement.root.span.end] == operator


def test_a_chain_of_one_associative_operator_is_one_node():
    assert plan("""
        SELECT host FROM events UNION ALL SELECT host FROM hosts UNION ALL SELECT 'x' AS host
    """) == expected("""
        SetOp union all (host)
          Project [events.host AS host]
            Scan events (event_id, host, time, level, amount, price)
          Project [hosts.host AS host]
            Scan hosts (host, region, owner)
          Project ['x' AS host]
            Values 1 row
    """)


def test_mixed_operators_and_except_nest():
    statement = build("""
        SELECT host FROM events UNION ALL SELECT host FROM hosts UNION SELECT 'x'
    """)
    assert isinstance(statement.root, SetOp) and statement.root.distinct
    assert isinstance(statement.root.children[0], SetOp) and not statement.root.children[0].distinct
    chain = build("SELECT host FROM events EXCEPT SELECT host FROM hosts EXCEPT SELECT 'x'")
    assert [type(c).__name__ for c in chain.root.children] == ["SetOp", "Project"]


def test_the_output_names_are_the_first_branchs():
    assert build("SELECT host AS h FROM events UNION ALL SELECT region FROM hosts").outputs == ("h",)


def test_union_by_name_is_not_modelled():
    assert plan("SELECT host FROM events UNION ALL BY NAME SELECT host FROM hosts") == expected(
        "Opaque 'a set operation BY NAME'"
    )
