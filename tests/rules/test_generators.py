"""Generators (`explode`, `posexplode`, `stack`, LATERAL VIEW) make many rows of one: the
rules must not take a generated column for a constant, nor a key of the input for a key of
the output (issue 15: `SELECT d FROM (SELECT EXPLODE(ARRAY(3,1,2)) AS d) t ORDER BY d` lost
its ORDER BY as a safe fix, and Spark returns 3, 1, 2 without it)."""

from __future__ import annotations

CATALOG = """
target: {target}
sources:
  events:
    columns:
      event_id: bigint not null
      host: string not null
      time: timestamp not null
      tags: array<string>
    orderings:
      - [host, time]
    unique: [[event_id]]
"""


def test_an_order_by_over_exploded_constants_is_needed(lint):
    assert lint("SELECT d FROM (SELECT EXPLODE(ARRAY(3, 1, 2)) AS d) t ORDER BY d", catalog=CATALOG) == []


def test_group_and_partition_keys_over_a_generated_column_are_not_constant(lint):
    assert lint("""
        SELECT d, count(*) AS n FROM (SELECT EXPLODE(SEQUENCE(1, 5)) AS d) t GROUP BY d;
        SELECT d, count(*) AS n FROM (SELECT stack(2, 'x', 'y') AS d) t GROUP BY d;
        SELECT d, sum(d) OVER (PARTITION BY d) AS s FROM (SELECT EXPLODE(ARRAY(3, 1, 2)) AS d) t;
        SELECT x, count(*) AS n FROM (SELECT 1 AS k) s LATERAL VIEW explode(array(1, 2)) e AS x GROUP BY x;
    """, catalog=CATALOG) == []


def test_a_unique_key_of_the_input_is_not_unique_after_a_generator(lint):
    assert lint("""
        SELECT event_id, tag, count(*) AS n FROM (SELECT event_id, explode(tags) AS tag FROM events) t
        GROUP BY event_id, tag;
        SELECT DISTINCT event_id, tag FROM (SELECT event_id, explode(tags) AS tag FROM events) t
        ORDER BY event_id, tag;
        SELECT event_id, tag, count(*) AS n FROM events LATERAL VIEW explode(tags) x AS tag
        GROUP BY event_id, tag;
    """, catalog=CATALOG) == []


def test_the_input_columns_keep_their_constants(lint):
    assert lint("""
        SELECT host, tag FROM events LATERAL VIEW explode(tags) x AS tag
        WHERE host = 'a'
        ORDER BY host, tag
    """, catalog=CATALOG) == [
        ("SL003", 3, "sort key host is constant: WHERE events.host = 'a' (line 2)"),
    ]


def test_the_input_order_survives_a_generator_on_spark(lint):
    findings = lint("""
        SELECT event_id, tag
        FROM (SELECT event_id, tags FROM events ORDER BY event_id) e
        LATERAL VIEW explode(tags) x AS tag
        ORDER BY event_id;
        SELECT event_id, tag
        FROM (SELECT event_id, tags FROM events ORDER BY event_id) e
        LATERAL VIEW explode(tags) x AS tag
        ORDER BY event_id, tag
    """, catalog=CATALOG)
    assert findings == [
        ("SL001", 4, "ORDER BY [event_id ASC NULLS FIRST] is already satisfied by its input: ORDER BY (line 2)"),
        ("SL002", 6, "ORDER BY has no effect: its rows feed a later ORDER BY (line 8) that overrides it. "
                     "Spark runs this sort: an exchange and a sort"),
    ]


def test_datafusion_is_not_promised_the_order_of_an_unnest(lint):
    # The outer sort is needed; the inner one is then the one without effect.
    assert lint("""
        SELECT event_id, tag
        FROM (SELECT event_id, tags FROM events ORDER BY event_id) e
        LATERAL VIEW explode(tags) x AS tag
        ORDER BY event_id
    """, target="datafusion", catalog=CATALOG) == [
        ("SL002", 2, "ORDER BY has no effect: its rows feed a later ORDER BY (line 4) that overrides it"),
    ]
