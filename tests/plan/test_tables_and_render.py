"""The in-memory table lookup and the plan printer."""

from __future__ import annotations

import sqlglot
from plan_support import build, expected, unit

from sortlint.plan.nodes import Limit, Opaque, Scan
from sortlint.plan.render import render
from sortlint.plan.tables import Tables, ViewDefinition


def test_tables_fold_names_and_keep_the_catalog_over_created_tables():
    tables = Tables({"DB.Events": ("Host", "TIME"), "opaque": None})
    assert tables.columns("db.events") == ("host", "time")
    assert tables.columns("opaque") is None and tables.columns("missing") is None
    tables.register_table("db.events", ("x",))
    tables.register_table("made", ("A", "b"))
    assert tables.columns("db.events") == ("host", "time")
    assert tables.columns("MADE") == ("a", "b")


def test_views_register_and_replace():
    tables = Tables()
    first = ViewDefinition("v", sqlglot.parse_one("SELECT 1"), unit("SELECT 1"))
    second = ViewDefinition("v", sqlglot.parse_one("SELECT 2"), unit("SELECT 2"))
    tables.register_view(first)
    tables.register_view(second)
    assert tables.view("V") is second


def test_render_one_node_per_line_with_key_fields():
    assert render(build("""
        SELECT host, count(*) AS n FROM events e WHERE level = 'x' GROUP BY host
        ORDER BY n DESC LIMIT 3
    """).root) == expected("""
        Limit 3
          Sort ORDER BY [n DESC NULLS LAST]
            Project [e.host AS host, COUNT(*) AS n]
              Aggregate keys=[e.host] aggregates=[COUNT(*)]
                Filter WHERE [e.level = 'x']
                  Scan events AS e (event_id, host, time, level, amount, price)
    """)
    assert render(Limit(children=(Opaque(reason="why", columns=("a",)),), offset=2)) == expected("""
        Limit OFFSET 2
          Opaque 'why' (a)
    """)
    assert render(Scan(table="t", alias="t"), indent="") == "Scan t"
