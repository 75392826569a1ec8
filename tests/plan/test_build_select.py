"""A SELECT block becomes Scan -> Filter -> Aggregate -> Filter(HAVING) -> Window -> Project
-> Distinct -> Limit, with every expression resolved against its scope."""

from __future__ import annotations

from plan_support import build, expected, plan

from sortlint.plan.render import render

EVENTS = "Scan events (event_id, host, time, level, amount, price)"


def test_columns_are_qualified_by_their_table_and_where_splits_on_and():
    assert plan(
        "SELECT host, level FROM events WHERE level = 'error' AND (amount > 1 AND price < 2)"
    ) == expected(f"""
        Project [events.host AS host, events.level AS level]
          Filter WHERE [events.level = 'error', events.amount > 1, events.price < 2]
            {EVENTS}
    """)


def test_a_disjunction_is_one_conjunct():
    assert plan("SELECT host FROM events WHERE level = 'a' OR amount > 1") == expected(f"""
        Project [events.host AS host]
          Filter WHERE [events.level = 'a' OR events.amount > 1]
            {EVENTS}
    """)


def test_an_alias_qualifies_and_expressions_are_normalised():
    assert plan(
        "SELECT E.Host, date_trunc('hour', e.TIME) AS Hour FROM events AS e"
    ) == expected(f"""
        Project [e.host AS Host, DATE_TRUNC('HOUR', e.time) AS Hour]
          {EVENTS.replace('events', 'events AS e', 1)}
    """)
    assert build("SELECT E.Host, e.time AS Hour FROM events AS e").outputs == ("Host", "Hour")


def test_aggregates_of_select_list_having_and_order_by_with_order_sensitivity():
    assert plan("""
        SELECT host, count(*) AS n, sum(amount) total, first(time), collect_list(level),
               collect_set(level)
        FROM events GROUP BY host HAVING n > 1 AND sum(price) > 0 ORDER BY max(time)
    """) == expected(f"""
        Project [events.host AS host, COUNT(*) AS n, SUM(events.amount) AS total, FIRST(events.time) AS first(time), COLLECT_LIST(events.level) AS collect_list(level), COLLECT_SET(events.level) AS collect_set(level)]
          Sort ORDER BY [MAX(events.time) ASC NULLS FIRST]
            Filter HAVING [COUNT(*) > 1, SUM(events.price) > 0]
              Aggregate keys=[events.host] aggregates=[COUNT(*), SUM(events.amount), FIRST(events.time) (order-sensitive), COLLECT_LIST(events.level) (order-sensitive), COLLECT_SET(events.level), SUM(events.price), MAX(events.time)]
                {EVENTS}
    """)


def test_an_aggregate_without_group_by_has_no_keys():
    assert plan("SELECT count(*) FROM events") == expected(f"""
        Project [COUNT(*) AS count(1)]
          Aggregate keys=[] aggregates=[COUNT(*)]
            {EVENTS}
    """)


def test_group_by_ordinal_and_select_alias():
    statement = build(
        "SELECT host, date_trunc('hour', time) AS hour, count(*) FROM events GROUP BY 1, hour"
    )
    aggregate = statement.root.child
    assert [(str(k.expr), k.text, k.ordinal) for k in aggregate.keys] == [
        ("events.host", "1", 1),
        ("DATE_TRUNC('HOUR', events.time)", "hour", None),
    ]


def test_group_by_a_name_that_is_both_an_input_column_and_an_alias_reads_the_column():
    assert plan("SELECT host AS level, count(*) FROM events GROUP BY level") == expected(f"""
        Project [events.host AS level, COUNT(*) AS count(1)]
          Aggregate keys=[events.level] aggregates=[COUNT(*)]
            {EVENTS}
    """)


def test_group_by_an_alias_a_table_of_unknown_columns_might_also_have_stays_as_written():
    aggregate = build("SELECT x AS h, count(*) FROM mystery GROUP BY h").root.child
    assert [str(k.expr) for k in aggregate.keys] == ["mystery.h"]


def test_rollup_cube_and_grouping_sets_mark_the_aggregate():
    for group in ("ROLLUP (region, host)", "CUBE (region, host)",
                  "GROUPING SETS ((region, host), (region), ())", "region, host WITH ROLLUP"):
        assert plan(f"SELECT region, host, count(*) FROM hosts GROUP BY {group}") == expected("""
            Project [hosts.region AS region, hosts.host AS host, COUNT(*) AS count(1)]
              Aggregate keys=[hosts.region, hosts.host] aggregates=[COUNT(*)] grouping sets
                Scan hosts (host, region, owner)
        """), group


def test_all_window_functions_of_a_block_share_one_window_node():
    statement = build("""
        SELECT host,
               row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn,
               sum(amount) OVER (ORDER BY time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS running,
               row_number() OVER (PARTITION BY host ORDER BY time DESC) AS again
        FROM events
    """)
    assert statement.outputs == ("host", "rn", "running", "again")
    window = statement.root.child
    assert window.label == "Window"
    first, second = window.functions
    assert str(first.expr) == "ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time DESC)"
    assert first.ranking and not second.ranking
    assert [str(k.expr) for k in first.partition_by] == ["events.host"]
    assert [(str(k.expr), str(k.options)) for k in first.order_by] == [
        ("events.time", "DESC NULLS LAST")
    ]
    assert str(second.expr) == (
        "SUM(events.amount) OVER (ORDER BY events.time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
    )


def test_a_named_window_is_written_out_at_each_window_that_names_it():
    statement = build("""
        SELECT host,
               row_number() OVER w AS rn,
               sum(amount) OVER (w2 ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS running
        FROM events
        WINDOW w AS (PARTITION BY host ORDER BY time DESC), w2 AS (w)
        ORDER BY rn
    """)
    assert render(statement.root) == expected(f"""
        Sort ORDER BY [rn ASC NULLS FIRST]
          Project [events.host AS host, ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time DESC) AS rn, SUM(events.amount) OVER (PARTITION BY events.host ORDER BY events.time DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS running]
            Window ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time DESC) (ranking), SUM(events.amount) OVER (PARTITION BY events.host ORDER BY events.time DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
              {EVENTS}
    """)
    first, second = statement.root.child.child.functions
    # The keys are the WINDOW clause's: no span, so no fix edits a clause other windows share.
    assert [k.span for k in (*first.partition_by, *first.order_by, *second.order_by)] == [None, None, None]
    assert statement.unit.text[first.span.start:first.span.end] == "OVER w"
    assert statement.outputs == ("host", "rn", "running")


def test_a_window_over_an_aggregate_sits_above_it_and_reads_its_expressions():
    assert plan(
        "SELECT host, rank() OVER (ORDER BY count(*) DESC) AS r FROM events GROUP BY host"
    ) == expected(f"""
        Project [events.host AS host, RANK() OVER (ORDER BY COUNT(*) DESC) AS r]
          Window RANK() OVER (ORDER BY COUNT(*) DESC) (ranking)
            Aggregate keys=[events.host] aggregates=[COUNT(*)]
              {EVENTS}
    """)


def test_qualify_filters_after_the_windows():
    assert plan("""
        SELECT host, row_number() OVER (PARTITION BY host ORDER BY time) AS rn
        FROM events QUALIFY rn = 1
    """) == expected(f"""
        Project [events.host AS host, ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time) AS rn]
          Filter QUALIFY [ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time) = 1]
            Window ROW_NUMBER() OVER (PARTITION BY events.host ORDER BY events.time) (ranking)
              {EVENTS}
    """)


def test_distinct_and_limit():
    assert plan("SELECT DISTINCT host FROM events LIMIT 10 OFFSET 20") == expected(f"""
        Limit 10 OFFSET 20
          Distinct
            Project [events.host AS host]
              {EVENTS}
    """)


def test_star_expands_when_the_columns_are_known():
    assert plan("SELECT h.*, e.time FROM hosts h JOIN events e ON h.host = e.host") == expected("""
        Project [h.host AS host, h.region AS region, h.owner AS owner, e.time AS time]
          Join inner [h.host = e.host]
            Scan hosts AS h (host, region, owner)
            Scan events AS e (event_id, host, time, level, amount, price)
    """)


def test_star_over_unknown_columns_passes_them_through():
    statement = build("SELECT *, amount * 2 AS double FROM mystery m")
    assert render(statement.root) == expected("""
        Project [m.amount * 2 AS double] m.*
          Scan mystery AS m
    """)
    assert statement.root.passthrough == ("m",)
    assert statement.outputs == ()


def test_select_without_from_reads_one_row():
    assert plan("SELECT 1 AS one, 'x'") == expected("""
        Project [1 AS one, 'x' AS x]
          Values 1 row
    """)


def test_a_later_select_item_may_use_an_earlier_alias():
    assert plan("SELECT a + 1 AS b, b * 2 AS c FROM (SELECT amount AS a FROM events) s") == expected(f"""
        Project [s.a + 1 AS b, (s.a + 1) * 2 AS c]
          Alias s (a)
            Project [events.amount AS a]
              {EVENTS}
    """)


def test_an_earlier_alias_only_where_no_relation_has_the_name_and_after_its_item():
    assert plan("""
        SELECT a AS b, s.b, b + 1 AS c, x AS a, a * 2 AS d
        FROM (SELECT amount AS a, 1 AS b FROM events) s
    """) == expected(f"""
        Project [s.a AS b, s.b AS b, s.b + 1 AS c, x AS a, s.a * 2 AS d]
          Alias s (a, b)
            Project [events.amount AS a, 1 AS b]
              {EVENTS}
    """)
    assert plan("SELECT amount AS x, x + 1 AS y, upper(host) AS h, concat(h, x) AS z FROM events") == expected(f"""
        Project [events.amount AS x, events.amount + 1 AS y, UPPER(events.host) AS h, CONCAT(UPPER(events.host), events.amount) AS z]
          {EVENTS}
    """)


def test_predicate_subqueries_are_subquery_children_of_the_filter():
    assert plan("""
        SELECT host FROM events
        WHERE amount > (SELECT avg(amount) FROM events)
          AND host IN (SELECT host FROM hosts WHERE region = 'eu')
          AND EXISTS (SELECT 1 FROM hosts h WHERE h.host = events.host)
    """) == expected(f"""
        Project [events.host AS host]
          Filter WHERE [events.amount > (SELECT AVG(amount) FROM events), events.host IN (SELECT host FROM hosts WHERE region = 'eu'), EXISTS(SELECT 1 FROM hosts AS h WHERE h.host = events.host)]
            {EVENTS}
            Subquery
              Project [AVG(events.amount) AS avg(amount)]
                Aggregate keys=[] aggregates=[AVG(events.amount)]
                  {EVENTS}
            Subquery
              Project [hosts.host AS host]
                Filter WHERE [hosts.region = 'eu']
                  Scan hosts (host, region, owner)
            Subquery
              Project [1]
                Filter WHERE [h.host = events.host]
                  Scan hosts AS h (host, region, owner)
    """)


def test_scalar_subqueries_of_the_select_list_are_subquery_children_of_the_project():
    assert plan("""
        SELECT host, (SELECT max(region) FROM hosts h WHERE h.host = e.host) AS region
        FROM events e
    """) == expected("""
        Project [e.host AS host, (SELECT MAX(region) FROM hosts AS h WHERE h.host = e.host) AS region]
          Scan events AS e (event_id, host, time, level, amount, price)
          Subquery
            Project [MAX(h.region) AS max(region)]
              Aggregate keys=[] aggregates=[MAX(h.region)]
                Filter WHERE [h.host = e.host]
                  Scan hosts AS h (host, region, owner)
    """)


def test_repartition_hints_move_rows_between_partitions():
    assert plan("SELECT /*+ REPARTITION(8, host) */ host FROM events") == expected(f"""
        Repartition REPARTITION hint [host]
          Project [events.host AS host]
            {EVENTS}
    """)
