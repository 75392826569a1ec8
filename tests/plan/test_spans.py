"""Spans are exact: slicing the unit's text with a node's span gives the clause or key as
written, whatever the line breaks, comments and parentheses around it."""

from __future__ import annotations

from pathlib import Path

from plan_support import build, first, text
from sqlglot import exp

from sortlint.plan.nodes import (
    Aggregate, Alias, Distinct, Filter, Join, Limit, Project, Repartition, Scan, SetOp, Sort,
    Subquery, Values, Window, Write, walk,
)
from sortlint.plan.parse import parse_unit
from sortlint.units import Unit


def spans_of(statement, kind):
    return [text(statement, n.span) for n in walk(statement.root) if isinstance(n, kind)]


def test_order_by_clause_and_keys_over_lines_comments_and_parentheses():
    statement = build("""
        SELECT host, amount AS a, date_trunc('hour', time) AS hour
        FROM events
        ORDER BY
          (a + amount) DESC NULLS FIRST,   -- first key
          /* second */ date_trunc('hour', time),
          2 desc nulls last
          , ((host)) ASC
        LIMIT 5
    """)
    sort = first(statement.root, Sort)
    assert text(statement, sort.span) == (
        "ORDER BY\n"
        "  (a + amount) DESC NULLS FIRST,   -- first key\n"
        "  /* second */ date_trunc('hour', time),\n"
        "  2 desc nulls last\n"
        "  , ((host)) ASC"
    )
    assert [text(statement, k.span) for k in sort.keys] == [
        "(a + amount) DESC NULLS FIRST",
        "date_trunc('hour', time)",
        "2 desc nulls last",
        "((host)) ASC",
    ]
    assert [k.text for k in sort.keys] == [text(statement, k.span) for k in sort.keys]
    assert [k.ordinal for k in sort.keys] == [None, None, 2, None]
    assert [str(k.expr) for k in sort.keys] == ["a + a", "hour", "a", "host"]  # amount is a
    assert text(statement, first(statement.root, Limit).span) == "LIMIT 5"


def test_group_by_clause_and_keys():
    statement = build("""
        SELECT host, date_trunc('hour', time) AS hour, count(*)
        FROM events
        GROUP BY
          host,  -- the host
          date_trunc('hour', time)
        HAVING count(*) > 1
    """)
    aggregate = first(statement.root, Aggregate)
    assert text(statement, aggregate.span) == (
        "GROUP BY\n  host,  -- the host\n  date_trunc('hour', time)"
    )
    assert [(text(statement, k.span), k.text) for k in aggregate.keys] == [
        ("host", "host"),
        ("date_trunc('hour', time)", "date_trunc('hour', time)"),
    ]
    having = first(statement.root, Filter)
    assert text(statement, having.span) == "HAVING count(*) > 1"


def test_group_by_ordinal_keeps_the_ordinal_as_written():
    statement = build("SELECT host, count(*) FROM events GROUP BY 1")
    key = first(statement.root, Aggregate).keys[0]
    assert (text(statement, key.span), key.text, key.ordinal) == ("1", "1", 1)


def test_an_aggregate_without_group_by_points_at_its_first_call():
    statement = build("SELECT max(time), count(*) FROM events")
    assert text(statement, first(statement.root, Aggregate).span) == "max(time)"


def test_window_spans():
    statement = build("""
        SELECT row_number() OVER (
                 PARTITION BY host, (level)
                 ORDER BY time DESC NULLS LAST, amount
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rn,
               sum(amount) OVER () AS total
        FROM events
    """)
    window = first(statement.root, Window)
    numbered, total = window.functions
    assert text(statement, numbered.span) == (
        "OVER (\n"
        "         PARTITION BY host, (level)\n"
        "         ORDER BY time DESC NULLS LAST, amount\n"
        "         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    )
    assert text(statement, numbered.partition_span) == "PARTITION BY host, (level)"
    assert text(statement, numbered.order_span) == "ORDER BY time DESC NULLS LAST, amount"
    assert [text(statement, k.span) for k in numbered.partition_by] == ["host", "(level)"]
    assert [text(statement, k.span) for k in numbered.order_by] == ["time DESC NULLS LAST", "amount"]
    assert [str(k.options) for k in numbered.order_by] == ["DESC NULLS LAST", "ASC NULLS FIRST"]
    assert text(statement, total.span) == "OVER ()"
    assert total.partition_span is None and total.order_span is None
    assert text(statement, window.span).startswith("row_number() OVER (")


def test_where_filter_and_select_items():
    statement = build("""
        SELECT e.host,
               date_trunc('hour', e.time) AS hour,
               (SELECT max(region) FROM hosts) AS r
        FROM events e
        WHERE e.level = 'error'  -- errors
          AND e.amount > 1
    """)
    project = statement.root
    assert text(statement, project.span) == (
        "SELECT e.host,\n"
        "       date_trunc('hour', e.time) AS hour,\n"
        "       (SELECT max(region) FROM hosts) AS r"
    )
    assert [text(statement, c.span) for c in project.columns] == [
        "e.host",
        "date_trunc('hour', e.time) AS hour",
        "(SELECT max(region) FROM hosts) AS r",
    ]
    assert spans_of(statement, Subquery) == ["(SELECT max(region) FROM hosts)"]
    assert spans_of(statement, Filter) == ["WHERE e.level = 'error'  -- errors\n  AND e.amount > 1"]
    assert spans_of(statement, Scan)[0] == "events e"


def test_relations_and_joins():
    statement = build("""
        SELECT s.host FROM (SELECT host FROM events) AS s
        LEFT JOIN hosts h ON s.host = h.host
          AND h.region IS NOT NULL
        , orders
        CROSS JOIN customers c
    """)
    assert spans_of(statement, Join) == [
        "CROSS JOIN customers c",
        ", orders",
        "LEFT JOIN hosts h ON s.host = h.host\n  AND h.region IS NOT NULL",
    ]
    assert spans_of(statement, Alias) == ["(SELECT host FROM events) AS s"]
    assert spans_of(statement, Scan) == ["events", "hosts h", "orders", "customers c"]


def test_distinct_set_operations_repartition_values_and_writes():
    statement = build("""
        INSERT INTO out
        SELECT DISTINCT host FROM events
        UNION ALL
        SELECT host FROM hosts DISTRIBUTE BY host
    """)
    assert spans_of(statement, Write) == ["INSERT INTO out"]
    assert spans_of(statement, SetOp) == ["UNION ALL"]
    assert spans_of(statement, Distinct) == ["DISTINCT"]
    assert spans_of(statement, Repartition) == ["DISTRIBUTE BY host"]
    assert spans_of(statement, Project)[0] == "SELECT DISTINCT host"
    rows = build("SELECT * FROM VALUES (1), (2) AS t(x)")
    assert spans_of(rows, Values) == ["VALUES (1), (2) AS t(x)"]


def test_a_hint_is_one_token_and_positions_inside_it_are_ignored():
    statement = build("SELECT /*+ REPARTITION(8, host) */ host FROM events ORDER BY host")
    assert spans_of(statement, Repartition) == ["/*+ REPARTITION(8, host) */"]
    assert spans_of(statement, Project) == ["SELECT /*+ REPARTITION(8, host) */ host"]
    assert spans_of(statement, Sort) == ["ORDER BY host"]


def test_every_node_has_a_span():
    statement = build("""
        WITH c AS (SELECT host, count(*) AS n FROM events GROUP BY host)
        SELECT host, n, rank() OVER (ORDER BY n DESC) AS r
        FROM c JOIN hosts USING (host)
        WHERE n > (SELECT avg(n) FROM c)
        ORDER BY r LIMIT 3
    """)
    assert all(node.span is not None for node in walk(statement.root))


def test_reading_a_select_lists_span_leaves_the_tree_as_parsed():
    """The span of a select list is read from its items' leaves; the items stay the
    Select's (a node wrapped around them for the asking would take them as its own)."""
    sql = "SELECT a, (b + 1) AS c FROM t"
    unit = Unit(path=Path("q.sql"), text=sql, start=0, raw=sql)
    tree, spans = parse_unit(unit, "spark")
    [select] = list(tree.find_all(exp.Select))
    clause = spans.select_list(select)
    assert unit.text[clause.span.start : clause.span.end] == "SELECT a, (b + 1) AS c"
    assert [unit.text[s.start : s.end] for s in clause.items] == ["a", "(b + 1) AS c"]
    assert all(item.parent is select for item in select.expressions)
