"""What the builder does not model becomes Opaque - the statement, or only the part of the
query it concerns - and nothing, however odd, makes it raise."""

from __future__ import annotations

import pytest
from plan_support import build, expected, plan

from sortlint.plan.nodes import Opaque, walk
from sortlint.plan.render import render

EVENTS = "Scan events (event_id, host, time, level, amount, price)"


def opaque_reasons(sql: str) -> list[str]:
    return [n.reason for n in walk(build(sql).root) if isinstance(n, Opaque)]


def test_a_lateral_view_whose_columns_are_not_known_forgets_below_but_its_columns_resolve():
    # explode of a column: `col`, or `key` and `value` for a map - a type not known here.
    assert plan("""
        SELECT e.host, t.tag FROM events e
        LATERAL VIEW explode(e.level) t WHERE tag = 'x'
    """) == expected("""
        Project [e.host AS host, t.tag AS tag]
          Filter WHERE [t.tag = 'x']
            Opaque 'LATERAL VIEW: the columns of explode(...), named by types not known'
              Scan events AS e (event_id, host, time, level, amount, price)
    """)
    assert opaque_reasons("SELECT * FROM events LATERAL VIEW my_udtf(level) t AS x") == [
        "LATERAL VIEW: my_udtf(...) is not a generator",
    ]


def test_tablesample_keeps_the_columns_it_does_not_change():
    assert plan("SELECT host FROM events TABLESAMPLE (10 PERCENT)") == expected(f"""
        Project [events.host AS host]
          Opaque 'TABLESAMPLE' (event_id, host, time, level, amount, price)
            {EVENTS}
    """)


def test_pivot_and_unpivot():
    assert plan("""
        SELECT * FROM (SELECT host, level, amount FROM events)
        PIVOT (sum(amount) FOR level IN ('a', 'b'))
    """) == expected(f"""
        Project [] -.*
          Opaque 'PIVOT'
            Alias - (host, level, amount)
              Project [events.host AS host, events.level AS level, events.amount AS amount]
                {EVENTS}
    """)
    assert opaque_reasons("SELECT * FROM hosts UNPIVOT (v FOR k IN (region, owner))") == ["UNPIVOT"]


def test_table_valued_functions_with_the_columns_their_alias_lists():
    assert plan("SELECT id FROM range(10) AS r(id)") == expected("""
        Project [r.id AS id]
          Opaque 'table-valued function range' (id)
    """)
    assert opaque_reasons("SELECT * FROM inline(array(struct(1, 2)))") == [
        "the columns of inline(...), named by types not known",
    ]


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT TRANSFORM(host) USING 'cat' AS (h) FROM events", "TRANSFORM ... USING"),
        ("SELECT host, rank() OVER w FROM events", "a window named in no WINDOW clause of its SELECT"),
        ("SELECT host, rank() OVER w FROM events WINDOW w AS (v), v AS (w)",
         "the named WINDOW w: defined nowhere, or in a cycle"),
        ("SELECT host, rank() OVER (w ORDER BY time) FROM events WINDOW w AS (ORDER BY host)",
         "a named WINDOW whose PARTITION BY, ORDER BY or frame is written twice"),
        ("SELECT sum(amount) OVER (w ORDER BY time) FROM events "
         "WINDOW w AS (PARTITION BY host ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
         "a named WINDOW with a frame, extended"),
        ("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT * FROM r",
         "WITH RECURSIVE"),
        ("SELECT * FROM events e JOIN LATERAL (SELECT * FROM hosts h WHERE h.host = e.host) x",
         "LATERAL subquery"),
        ("SELECT * EXCEPT (host) FROM events", "* with EXCEPT / REPLACE"),
        ("SELECT host FROM events UNION ALL BY NAME SELECT host FROM hosts",
         "a set operation BY NAME"),
        ("SELECT x.* FROM events", "x.* of a relation that is not in FROM"),
        ("SELECT * FROM mystery GROUP BY 3", "GROUP BY 3 over outputs that are not known"),
    ],
)
def test_unsupported_constructs(sql, reason):
    assert reason in opaque_reasons(sql)


def test_an_opaque_select_keeps_its_from_clause_below_it():
    assert plan("SELECT host, rank() OVER (ORDER BY host) AS r FROM events GROUP BY ALL") == expected(f"""
        Opaque 'GROUP BY ALL of a window function' (host, r)
          {EVENTS}
    """)


ODD_SQL = [
    "SELECT",
    "SELECT 1 +",
    "SELECT * FROM",
    ")",
    "FROM events SELECT host",
    "SELECT a FROM t ORDER",
    "SELECT a, FROM t",
    "SELECT transform(arr, x -> x + 1) AS y, s.a.b, m['k'], arr[0] FROM t",
    "SELECT CASE WHEN a THEN b ELSE c END, CAST(a AS DECIMAL(10, 2)), INTERVAL 1 DAY FROM t",
    "SELECT * FROM t WHERE a IN (1, 2) AND b BETWEEN 1 AND 2 AND c IS NOT NULL AND d LIKE 'x%'",
    "SELECT sum(a) OVER (ORDER BY b RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) FROM t",
    "SELECT 1 FROM (SELECT 1) GROUP BY 1 HAVING count(*) > 0 ORDER BY 1",
    "SELECT ((((((((((1))))))))))",
    "SELECT `weird name`, \"double quoted\" FROM `db`.`tbl` AS `t`",
    "SELECT a FROM t t1, t t2 WHERE t1.a = t2.a",
    "SELECT a FROM t ORDER BY NULL, TRUE, 'x'",
    "SELECT max(a) FILTER (WHERE b > 1) OVER (PARTITION BY c) FROM t",
    "SELECT first(a) IGNORE NULLS OVER (ORDER BY b) FROM t",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM t",
    "SELECT a FROM t WHERE EXISTS (SELECT * FROM u WHERE u.x = t.x AND u.y IN (SELECT y FROM v))",
    "SELECT (SELECT (SELECT 1)) AS deep",
    "SELECT * FROM (SELECT * FROM (SELECT * FROM t) a) b ORDER BY 1",
    "SELECT a FROM t CLUSTER BY a LIMIT 1",
    "SELECT a FROM t SORT BY a DISTRIBUTE BY a",
    "SELECT 1 UNION SELECT 2 UNION ALL SELECT 3 INTERSECT SELECT 4 EXCEPT SELECT 5",
    "(SELECT 1) UNION ALL ((SELECT 2) UNION (SELECT 3)) ORDER BY 1 DESC LIMIT 1",
    "VALUES 1, 2, 3",
    "SELECT * FROM VALUES (1) t",
    "INSERT INTO t (a, b) SELECT 1, 2",
    "INSERT INTO t PARTITION (p = 1) SELECT a FROM u",
    "CREATE TABLE t PARTITIONED BY (p) AS SELECT 1 AS a, 2 AS p",
    "CREATE VIEW IF NOT EXISTS v COMMENT 'x' AS SELECT 1",
    "DESCRIBE t",
    "SHOW TABLES",
    "MSCK REPAIR TABLE t",
    "ALTER TABLE t ADD COLUMNS (c INT)",
    "SELECT a FROM t GROUP BY GROUPING SETS ((a), ()) ORDER BY GROUPING(a)",
    "SELECT a AS b FROM t GROUP BY b HAVING b > 1 ORDER BY b",
    "SELECT t.* FROM t JOIN u USING (a) NATURAL JOIN v",
    "SELECT a FROM t LIMIT ALL",
    "SELECT /*+ BROADCAST(u), COALESCE(1) */ a FROM t JOIN u ON t.a = u.a",
    "SELECT a FROM t WHERE a = ANY (SELECT b FROM u)",
    "SELECT any(a), some(b), every(c) FROM t",
    "SELECT a FROM t ORDER BY a NULLS LAST LIMIT 10 OFFSET 5",
]


@pytest.mark.parametrize("sql", ODD_SQL)
def test_nothing_raises(sql):
    statement = build(sql)
    assert statement.error is not None or render(statement.root)
    assert not any(
        isinstance(n, Opaque) and n.reason.startswith("internal error") for n in walk(statement.root)
    )
