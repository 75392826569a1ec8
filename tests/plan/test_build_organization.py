"""ORDER BY / SORT BY / CLUSTER BY / DISTRIBUTE BY / LIMIT: keys resolved as Spark resolves
them, null placement as written or as the target engine defaults, and each clause placed
above the projection when its keys are outputs, below it otherwise."""

from __future__ import annotations

import pytest
from plan_support import build, expected, first, plan

from sortlint.plan.nodes import Sort

EVENTS = "Scan events (event_id, host, time, level, amount, price)"


def sort_keys(sql: str, target: str = "spark") -> list[tuple[str, str, str, int | None]]:
    sort = first(build(sql, target=target).root, Sort)
    return [(str(k.expr), str(k.options), k.text, k.ordinal) for k in sort.keys]


def test_ordinals_and_aliases_refer_to_outputs_and_the_sort_sits_above():
    assert plan("SELECT host, amount AS a FROM events ORDER BY 2 DESC, host") == expected(f"""
        Sort ORDER BY [a DESC NULLS LAST, host ASC NULLS FIRST]
          Project [events.host AS host, events.amount AS a]
            {EVENTS}
    """)
    assert sort_keys("SELECT host, amount AS a FROM events ORDER BY 2 DESC, host") == [
        ("a", "DESC NULLS LAST", "2 DESC", 2),
        ("host", "ASC NULLS FIRST", "host", None),
    ]


def test_an_expression_equal_to_an_output_is_that_output():
    assert sort_keys("SELECT e.host FROM events e ORDER BY e.host") == [
        ("host", "ASC NULLS FIRST", "e.host", None)
    ]
    assert sort_keys("SELECT host AS h FROM events ORDER BY upper(host), h || 'x'") == [
        ("UPPER(h)", "ASC NULLS FIRST", "upper(host)", None),
        ("h || 'x'", "ASC NULLS FIRST", "h || 'x'", None),
    ]


def test_an_output_name_wins_over_an_input_column_of_the_same_name():
    assert plan("SELECT host, amount AS time FROM events ORDER BY time") == expected(f"""
        Sort ORDER BY [time ASC NULLS FIRST]
          Project [events.host AS host, events.amount AS time]
            {EVENTS}
    """)


def test_a_key_that_needs_an_input_column_puts_the_sort_below_the_projection():
    assert plan("SELECT host AS h FROM events ORDER BY time, h") == expected(f"""
        Project [events.host AS h]
          Sort ORDER BY [events.time ASC NULLS FIRST, events.host ASC NULLS FIRST]
            {EVENTS}
    """)


def test_order_by_aggregates_sorts_the_aggregates_output():
    assert plan("""
        SELECT host, count(*) AS n FROM events GROUP BY host
        ORDER BY count(*) DESC, sum(amount)
    """) == expected(f"""
        Project [events.host AS host, COUNT(*) AS n]
          Sort ORDER BY [COUNT(*) DESC NULLS LAST, SUM(events.amount) ASC NULLS FIRST]
            Aggregate keys=[events.host] aggregates=[COUNT(*), SUM(events.amount)]
              {EVENTS}
    """)
    assert plan("SELECT host, count(*) AS n FROM events GROUP BY host ORDER BY n DESC") == expected(f"""
        Sort ORDER BY [n DESC NULLS LAST]
          Project [events.host AS host, COUNT(*) AS n]
            Aggregate keys=[events.host] aggregates=[COUNT(*)]
              {EVENTS}
    """)


@pytest.mark.parametrize(
    ("order", "target", "options"),
    [
        ("a", "spark", ["ASC NULLS FIRST"]),
        ("a DESC", "spark", ["DESC NULLS LAST"]),
        ("a ASC NULLS LAST", "spark", ["ASC NULLS LAST"]),
        ("a DESC NULLS FIRST", "spark", ["DESC NULLS FIRST"]),
        ("a", "datafusion", ["ASC NULLS LAST"]),
        ("a DESC", "datafusion", ["DESC NULLS FIRST"]),
        ("a NULLS FIRST, a DESC NULLS LAST", "datafusion", ["ASC NULLS FIRST", "DESC NULLS LAST"]),
    ],
)
def test_null_placement_as_written_or_the_targets_default(order, target, options):
    keys = sort_keys(f"SELECT amount AS a FROM events ORDER BY {order}", target)
    assert [k[1] for k in keys] == options


def test_order_by_a_window_output():
    assert plan("""
        SELECT host, row_number() OVER (ORDER BY time) AS rn FROM events ORDER BY rn
    """) == expected(f"""
        Sort ORDER BY [rn ASC NULLS FIRST]
          Project [events.host AS host, ROW_NUMBER() OVER (ORDER BY events.time) AS rn]
            Window ROW_NUMBER() OVER (ORDER BY events.time) (ranking)
              {EVENTS}
    """)


def test_distinct_then_sort_then_limit():
    assert plan("SELECT DISTINCT host FROM events ORDER BY host DESC LIMIT 5") == expected(f"""
        Limit 5
          Sort ORDER BY [host DESC NULLS LAST]
            Distinct
              Project [events.host AS host]
                {EVENTS}
    """)


def test_offset_without_limit():
    assert plan("SELECT host FROM events ORDER BY host OFFSET 5") == expected(f"""
        Limit OFFSET 5
          Sort ORDER BY [host ASC NULLS FIRST]
            Project [events.host AS host]
              {EVENTS}
    """)


def test_sort_by_sorts_each_partition():
    assert plan("SELECT host, time FROM events SORT BY host, time DESC") == expected(f"""
        Sort SORT BY [host ASC NULLS FIRST, time DESC NULLS LAST] (partition)
          Project [events.host AS host, events.time AS time]
            {EVENTS}
    """)


def test_distribute_by_repartitions_before_sort_by():
    assert plan("SELECT host, time FROM events DISTRIBUTE BY host SORT BY time") == expected(f"""
        Sort SORT BY [time ASC NULLS FIRST] (partition)
          Repartition DISTRIBUTE BY [host]
            Project [events.host AS host, events.time AS time]
              {EVENTS}
    """)
    assert plan("SELECT host, time FROM events DISTRIBUTE BY level") == expected(f"""
        Project [events.host AS host, events.time AS time]
          Repartition DISTRIBUTE BY [events.level]
            {EVENTS}
    """)


def test_cluster_by_is_distribute_by_and_sort_by_on_the_same_keys():
    assert plan("SELECT host, time FROM events CLUSTER BY host, time") == expected(f"""
        Sort CLUSTER BY [host ASC NULLS FIRST, time ASC NULLS FIRST] (partition)
          Repartition CLUSTER BY [host, time]
            Project [events.host AS host, events.time AS time]
              {EVENTS}
    """)


def test_an_ordinal_over_outputs_that_are_not_known_is_not_guessed():
    assert plan("SELECT * FROM mystery ORDER BY 2") == expected("""
        Opaque 'ordinal 2 over outputs that are not known'
          Scan mystery
    """)


def test_order_by_and_limit_of_a_set_operation_go_above_it():
    assert plan("""
        SELECT host FROM events UNION ALL SELECT host FROM hosts ORDER BY host DESC LIMIT 3
    """) == expected(f"""
        Limit 3
          Sort ORDER BY [host DESC NULLS LAST]
            SetOp union all (host)
              Project [events.host AS host]
                {EVENTS}
              Project [hosts.host AS host]
                Scan hosts (host, region, owner)
    """)


def test_a_parenthesised_branch_keeps_its_own_order_and_limit():
    assert plan("""
        (SELECT host FROM events ORDER BY time LIMIT 1) UNION (SELECT host FROM hosts) ORDER BY 1
    """) == expected(f"""
        Sort ORDER BY [host ASC NULLS FIRST]
          SetOp union distinct (host)
            Limit 1
              Project [events.host AS host]
                Sort ORDER BY [events.time ASC NULLS FIRST]
                  {EVENTS}
            Project [hosts.host AS host]
              Scan hosts (host, region, owner)
    """)


def test_a_set_operation_sorted_on_a_column_it_does_not_output_is_not_understood():
    assert plan("SELECT host FROM events UNION SELECT host FROM hosts ORDER BY time") == expected(f"""
        Opaque 'a sort key that is not an output of a DISTINCT or set operation' (host)
          SetOp union distinct (host)
            Project [events.host AS host]
              {EVENTS}
            Project [hosts.host AS host]
              Scan hosts (host, region, owner)
    """)
