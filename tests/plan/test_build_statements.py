"""Statements: queries, writes, view definitions read by later statements, statements that
are not queries, and SQL that does not parse - none of which may raise."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import CATALOG, build, expected, plan, unit

from sortlint.plan.nodes import Alias, Opaque, Sort, walk
from sortlint.plan.render import render
from sortlint.plan.statement import build_statement, build_statements
from sortlint.plan.tables import Tables
from sortlint.sources.sql.files import split_statements

EVENTS = "Scan events (event_id, host, time, level, amount, price)"


def test_insert_select_writes_the_query():
    statement = build("INSERT OVERWRITE TABLE db.Out SELECT host FROM events ORDER BY host")
    assert render(statement.root) == expected(f"""
        Write insert db.out
          Sort ORDER BY [host ASC NULLS FIRST]
            Project [events.host AS host]
              {EVENTS}
    """)
    assert statement.outputs == ("host",)
    assert statement.defines is None
    assert statement.unit.text[statement.root.span.start : statement.root.span.end] == (
        "INSERT OVERWRITE TABLE db.Out"
    )


def test_insert_with_ctes_before_it_and_insert_values():
    assert plan("WITH c AS (SELECT host FROM events) INSERT INTO out SELECT * FROM c") == expected(f"""
        Write insert out
          Project [c.host AS host]
            Alias c (host)
              Project [events.host AS host]
                {EVENTS}
    """)
    assert plan("INSERT INTO out VALUES (1, 2), (3, 4)") == expected("""
        Write insert out
          Values 2 rows (col1, col2)
    """)


def test_create_table_as_select_defines_a_table():
    statement = build("CREATE TABLE t2 USING parquet AS SELECT host AS h FROM events")
    assert render(statement.root) == expected(f"""
        Write table t2
          Project [events.host AS h]
            {EVENTS}
    """)
    assert statement.defines == ("table", "t2")
    assert statement.outputs == ("h",)


def test_a_later_statement_reads_a_created_table_with_its_columns():
    raw = "CREATE TABLE t2 AS SELECT host AS h FROM events;\nSELECT h FROM t2 x"
    _, reader = build_statements(split_statements(Path("q.sql"), raw, "spark"), Tables(CATALOG),
                                 "spark", "spark")
    assert render(reader.root) == expected("""
        Project [x.h AS h]
          Scan t2 AS x (h)
    """)


def test_a_view_is_inlined_where_a_later_statement_reads_it():
    raw = (
        "CREATE OR REPLACE TEMP VIEW recent AS\n"
        "SELECT host, time FROM events ORDER BY time;\n"
        "SELECT host FROM recent r WHERE host = 'a'"
    )
    units = split_statements(Path("views.sql"), raw, "spark")
    tables = Tables(CATALOG)
    create, reader = build_statements(units, tables, "spark", "spark")
    assert create.defines == ("view", "recent")
    assert create.view is not None and create.view.unit is units[0]
    assert tables.view("recent") is create.view
    assert render(reader.root) == expected(f"""
        Project [r.host AS host]
          Filter WHERE [r.host = 'a']
            Alias r (host, time) (view)
              Sort ORDER BY [time ASC NULLS FIRST]
                Project [events.host AS host, events.time AS time]
                  {EVENTS}
    """)
    # Spans below the inlined view point into the view's own statement.
    alias = next(n for n in walk(reader.root) if isinstance(n, Alias))
    assert alias.origin is units[0]
    sort = next(n for n in walk(reader.root) if isinstance(n, Sort))
    assert units[0].text[sort.span.start : sort.span.end] == "ORDER BY time"
    assert units[0].location(sort.span.start) == (2, 31)


def test_a_view_column_list_renames_its_outputs():
    tables = Tables(CATALOG)
    create = build_statement(unit("CREATE VIEW v (h, t) AS SELECT host, time FROM events"),
                             tables, "spark", "spark")
    assert create.outputs == ("h", "t")
    tables.register_view(create.view)
    reader = build("SELECT h FROM v", tables)
    assert all(node.span is not None for node in walk(reader.root))
    assert plan("SELECT h FROM v", tables) == expected(f"""
        Project [v.h AS h]
          Alias v (h, t) (view)
            Project [host AS h, time AS t]
              Project [events.host AS host, events.time AS time]
                {EVENTS}
    """)


def test_a_view_that_reads_itself_is_not_inlined_forever():
    raw = "CREATE VIEW v AS SELECT host FROM events;\nCREATE OR REPLACE VIEW v AS SELECT * FROM v;\nSELECT * FROM v"
    *_, last = build_statements(split_statements(Path("q.sql"), raw, "spark"), Tables(CATALOG),
                                "spark", "spark")
    assert any(isinstance(n, Opaque) and n.reason == "view v reads itself" for n in walk(last.root))


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SET spark.sql.shuffle.partitions = 10", "SET statement is not a query"),
        ("USE analytics", "USE statement is not a query"),
        ("DROP TABLE t", "DROP statement is not a query"),
        ("CREATE TABLE t (a INT) USING parquet", "CREATE TABLE without a query"),
        ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "MERGE statement is not a query"),
        ("CACHE TABLE x AS SELECT 1", "CACHE statement is not a query"),
        ("ANALYZE TABLE t COMPUTE STATISTICS", "ANALYZE statement is not a query"),
        ("DELETE FROM t WHERE a = 1", "DELETE statement is not a query"),
        ("INSERT OVERWRITE DIRECTORY '/tmp/x' SELECT 1", "an INSERT without a query"),
    ],
)
def test_statements_that_are_not_queries_are_opaque(sql, reason):
    statement = build(sql)
    assert statement.error is None
    assert isinstance(statement.root, Opaque) and statement.root.reason == reason
    assert statement.outputs == ()
    assert statement.root.span is not None


def test_sql_that_does_not_parse_is_an_error_at_the_raw_line():
    raw = "SELECT 1;\n\n-- the bad one:\nSELECT a,\n  b\nFROM t\nWHERE a = = 1;\nSELECT 2"
    units = split_statements(Path("bad.sql"), raw, "spark")
    statements = [build_statement(u, Tables(), "spark", "spark") for u in units]
    assert [s.error is None for s in statements] == [True, False, True]
    error = statements[1].error
    assert error.path == Path("bad.sql")
    assert error.line == 7
    assert error.message.startswith("cannot parse SQL: ")
    assert isinstance(statements[1].root, Opaque)


def test_a_crlf_file_builds_with_exact_spans_and_error_lines():
    raw = "SELECT host\r\nFROM events\r\nORDER BY\r\n  time DESC;\r\n\r\nSELECT (\r\n  1;\r\n"
    good, bad = split_statements(Path("crlf.sql"), raw, "spark")
    statement = build_statement(good, Tables(CATALOG), "spark", "spark")
    sort = next(n for n in walk(statement.root) if isinstance(n, Sort))
    assert good.text[sort.span.start : sort.span.end] == "ORDER BY\r\n  time DESC"
    assert good.location(sort.keys[0].span.start) == (4, 3)
    error = build_statement(bad, Tables(), "spark", "spark").error
    assert error is not None and error.line == 7
