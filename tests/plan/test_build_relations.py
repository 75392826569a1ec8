"""FROM: tables, joins of every kind, subqueries, CTEs and inline rows, each read under its
qualifier."""

from __future__ import annotations

import pytest
from plan_support import build, expected, first, plan

from sortlint.plan.nodes import Join
from sortlint.plan.render import render

EVENTS = "Scan events AS e (event_id, host, time, level, amount, price)"
HOSTS = "Scan hosts AS h (host, region, owner)"


def test_on_equalities_left_input_first_and_the_rest_residual():
    assert plan("""
        SELECT e.host, h.region FROM events e
        JOIN hosts h ON h.host = e.host AND h.region <> 'x' AND e.amount > h.owner
    """) == expected(f"""
        Project [e.host AS host, h.region AS region]
          Join inner [e.host = h.host] residual [h.region <> 'x', e.amount > h.owner]
            {EVENTS}
            {HOSTS}
    """)


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ("JOIN", "inner"),
        ("INNER JOIN", "inner"),
        ("LEFT JOIN", "left"),
        ("LEFT OUTER JOIN", "left"),
        ("RIGHT OUTER JOIN", "right"),
        ("FULL OUTER JOIN", "full"),
        ("FULL JOIN", "full"),
        ("LEFT SEMI JOIN", "semi"),
        ("SEMI JOIN", "semi"),
        ("LEFT ANTI JOIN", "anti"),
        ("ANTI JOIN", "anti"),
    ],
)
def test_join_kinds(written, kind):
    join = first(build(f"SELECT e.time FROM events e {written} hosts h ON e.host = h.host").root, Join)
    assert join.kind == kind
    assert [(str(a), str(b)) for a, b in join.equalities] == [("e.host", "h.host")]


def test_cross_joins_and_comma_joins_have_no_condition_and_where_applies_above():
    assert plan("SELECT e.time FROM events e CROSS JOIN hosts h") == expected(f"""
        Project [e.time AS time]
          Join cross
            {EVENTS}
            {HOSTS}
    """)
    assert plan("SELECT e.time, h.region FROM events e, hosts h WHERE e.host = h.host") == expected(f"""
        Project [e.time AS time, h.region AS region]
          Filter WHERE [e.host = h.host]
            Join cross
              {EVENTS}
              {HOSTS}
    """)


def test_semi_and_anti_joins_show_only_their_left_side():
    statement = build("SELECT * FROM events e LEFT SEMI JOIN hosts h ON e.host = h.host")
    assert statement.outputs == ("event_id", "host", "time", "level", "amount", "price")


def test_right_semi_and_anti_joins_are_built_with_their_sides_swapped():
    """`l RIGHT SEMI JOIN r` (DataFusion's SQL) returns r's rows: built as `r SEMI JOIN l`,
    r first, and `*` reads r's columns (it was once built as a left semi join)."""
    for written, kind in (("RIGHT SEMI JOIN", "semi"), ("RIGHT ANTI JOIN", "anti")):
        statement = build(f"SELECT * FROM events e {written} hosts h ON e.host = h.host")
        assert statement.outputs == ("host", "region", "owner"), written
        assert plan(f"SELECT * FROM events e {written} hosts h ON e.host = h.host") == expected(f"""
            Project [h.host AS host, h.region AS region, h.owner AS owner]
              Join {kind} [h.host = e.host]
                {HOSTS}
                {EVENTS}
        """)
    using = first(build("SELECT host FROM events RIGHT SEMI JOIN hosts USING (host)").root, Join)
    assert [(str(a), str(b)) for a, b in using.equalities] == [("hosts.host", "events.host")]


def test_using_becomes_equalities_and_the_shared_column_reads_the_preserved_side():
    assert plan("SELECT host, region FROM events JOIN hosts USING (host)") == expected("""
        Project [events.host AS host, hosts.region AS region]
          Join inner [events.host = hosts.host]
            Scan events (event_id, host, time, level, amount, price)
            Scan hosts (host, region, owner)
    """)
    right = build("SELECT host FROM events RIGHT JOIN hosts USING (host)").root
    assert str(right.columns[0].expr) == "hosts.host"
    full = build("SELECT host FROM events FULL JOIN hosts USING (host)").root
    assert str(full.columns[0].expr) == "host"  # coalesce of both sides: stays as written


def test_natural_join_shares_the_common_columns_and_star_lists_them_once_first():
    statement = build("SELECT * FROM orders NATURAL JOIN customers")
    join = first(statement.root, Join)
    assert join.kind == "inner"
    assert [(str(a), str(b)) for a, b in join.equalities] == [
        ("orders.customer_id", "customers.customer_id")
    ]
    assert statement.outputs == ("customer_id", "order_id", "created_at", "amount", "name", "region")
    using = build("SELECT * FROM orders o JOIN customers c USING (customer_id)")
    assert using.outputs == statement.outputs


def test_a_parenthesised_join_is_a_join():
    assert plan("SELECT h.region FROM (events e JOIN hosts h ON e.host = h.host)") == expected(f"""
        Project [h.region AS region]
          Join inner [e.host = h.host]
            {EVENTS}
            {HOSTS}
    """)


def test_a_subquery_in_from_is_read_under_its_alias():
    assert plan("""
        SELECT s.host, n FROM (SELECT host, count(*) AS n FROM events GROUP BY host) AS s
        WHERE s.n > 1
    """) == expected("""
        Project [s.host AS host, s.n AS n]
          Filter WHERE [s.n > 1]
            Alias s (host, n)
              Project [events.host AS host, COUNT(*) AS n]
                Aggregate keys=[events.host] aggregates=[COUNT(*)]
                  Scan events (event_id, host, time, level, amount, price)
    """)


def test_a_column_list_renames_a_subquerys_outputs():
    assert plan("SELECT s.x FROM (SELECT host, time FROM events) s (x, y)") == expected("""
        Project [s.x AS x]
          Alias s (x, y)
            Project [host AS x, time AS y]
              Project [events.host AS host, events.time AS time]
                Scan events (event_id, host, time, level, amount, price)
    """)


def test_chained_ctes_are_inlined_where_they_are_read():
    assert plan("""
        WITH a AS (SELECT host, time FROM events),
             b AS (SELECT host FROM a WHERE time > 0)
        SELECT * FROM b
    """) == expected("""
        Project [b.host AS host]
          Alias b (host)
            Project [a.host AS host]
              Filter WHERE [a.time > 0]
                Alias a (host, time)
                  Project [events.host AS host, events.time AS time]
                    Scan events (event_id, host, time, level, amount, price)
    """)


def test_a_cte_read_twice_is_built_twice():
    assert plan("""
        WITH a AS (SELECT host FROM events)
        SELECT x.host FROM a x JOIN a y ON x.host = y.host
    """) == expected("""
        Project [x.host AS host]
          Join inner [x.host = y.host]
            Alias x (host)
              Project [events.host AS host]
                Scan events (event_id, host, time, level, amount, price)
            Alias y (host)
              Project [events.host AS host]
                Scan events (event_id, host, time, level, amount, price)
    """)


def test_a_long_chain_of_ctes_is_built_without_nesting_the_builds():
    # Each CTE read where the next is defined: built where read, the 150 builds nested one
    # in another and ran out of Python's recursion limit (issue 31).
    ctes = ["c0 AS (SELECT host, time FROM events)"] + [
        f"c{i} AS (SELECT host, time FROM c{i - 1} WHERE time > {i})" for i in range(1, 150)
    ]
    root = build(f"WITH {', '.join(ctes)} SELECT a.host FROM c149 a JOIN c0 b USING (host)").root
    lines = render(root).splitlines()
    assert lines[:4] == [
        "Project [a.host AS host]",
        "  Join inner [a.host = b.host]",
        "    Alias a (host, time)",
        "      Project [c148.host AS host, c148.time AS time]",
    ]
    assert sum(line.lstrip().startswith("Alias ") for line in lines) == 151
    assert sum(line.lstrip().startswith("Scan events") for line in lines) == 2
    assert "Opaque" not in render(root)


def test_a_cte_with_a_column_list_and_a_cte_shadowing_a_table():
    assert plan("WITH c (h, t) AS (SELECT host, time FROM events) SELECT h FROM c") == expected("""
        Project [c.h AS h]
          Alias c (h, t)
            Project [host AS h, time AS t]
              Project [events.host AS host, events.time AS time]
                Scan events (event_id, host, time, level, amount, price)
    """)
    assert plan("WITH events AS (SELECT 1 AS one) SELECT * FROM events") == expected("""
        Project [events.one AS one]
          Alias events (one)
            Project [1 AS one]
              Values 1 row
    """)


def test_a_cte_sees_only_the_ctes_defined_before_it():
    assert plan("""
        WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS one)
        SELECT * FROM a
    """) == expected("""
        Project [] a.*
          Alias a
            Project [] b.*
              Scan b
    """)


def test_inline_rows_in_from():
    assert plan("SELECT id FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)") == expected("""
        Project [t.id AS id]
          Alias t (id, name)
            Values 2 rows (id, name)
    """)


def test_unqualified_columns_resolve_when_exactly_one_relation_can_have_them():
    # `host` is known to be in events and `region` can only come from mystery.
    assert plan("SELECT host, region FROM events, mystery") == expected("""
        Project [events.host AS host, mystery.region AS region]
          Join cross
            Scan events (event_id, host, time, level, amount, price)
            Scan mystery
    """)
    # Both relations may have `x`: it stays as written, and matches nothing.
    assert plan("SELECT x FROM mystery, other") == expected("""
        Project [x]
          Join cross
            Scan mystery
            Scan other
    """)
    # Both relations have `host`.
    assert plan("SELECT host FROM events e JOIN hosts h ON e.host = h.host") == expected(f"""
        Project [host]
          Join inner [e.host = h.host]
            {EVENTS}
            {HOSTS}
    """)


def test_a_table_without_alias_is_qualified_by_the_last_part_of_its_name():
    scan = build("SELECT amount FROM Prod.Sales").root.child
    assert (scan.table, scan.alias) == ("prod.sales", "sales")
    assert str(build("SELECT amount FROM Prod.Sales").root.columns[0].expr) == "sales.amount"
