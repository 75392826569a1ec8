"""Work the builder does once and reuses: a CTE's plan, a view's span lookups, a file's
tokens. What is built must be exactly what building afresh gives."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from plan_support import CATALOG, build

from sortlint.plan.nodes import Alias, walk
from sortlint.plan.render import render
from sortlint.plan.statement import build_statement, build_statements
from sortlint.plan.tables import Tables
from sortlint.sources.sql.files import split_statements


def test_a_cte_read_twice_is_two_subtrees_of_distinct_nodes():
    statement = build("""
        WITH hourly AS (SELECT host, count(*) AS n FROM events GROUP BY host ORDER BY host)
        SELECT a.host, a.n, b.n FROM hourly a JOIN hourly b ON a.host = b.host
    """)
    first, second = [node for node in walk(statement.root) if isinstance(node, Alias)]
    assert (first.alias, second.alias) == ("a", "b")
    assert render(first.child) == render(second.child)
    assert [n.span for n in walk(first.child)] == [n.span for n in walk(second.child)]
    ids = [id(n) for n in walk(statement.root)]
    assert len(ids) == len(set(ids))  # a plan is a tree: facts about nodes go by identity


def test_a_cte_reading_another_cte_is_copied_with_it():
    statement = build("""
        WITH base AS (SELECT host, time FROM events ORDER BY time),
             latest AS (SELECT host, max(time) AS t FROM base GROUP BY host)
        SELECT * FROM latest x JOIN latest y USING (host) JOIN base z USING (host)
    """)
    ids = [id(n) for n in walk(statement.root)]
    assert len(ids) == len(set(ids))
    assert render(statement.root).count("Scan events") == 3


SCRIPT = """\
-- a view, then a statement that reads it
CREATE OR REPLACE TEMP VIEW recent AS
SELECT host, time FROM events ORDER BY time;

SELECT host, count(*) AS n FROM recent GROUP BY host ORDER BY host;
"""


def described(statement) -> list[tuple]:
    return [(n.label, n.span, getattr(n, "origin", None)) for n in walk(statement.root)]


def test_a_view_is_inlined_with_the_span_lookups_of_its_own_statement():
    path = Path("views.sql")
    shared = build_statements(split_statements(path, SCRIPT, "spark"), Tables(CATALOG), "spark", "spark")
    assert shared[0].view is not None and shared[0].view.spans is not None

    # The same, with the view's lookups made again from its text.
    tables = Tables(CATALOG)
    tables.register_view(dataclasses.replace(shared[0].view, spans=None))
    afresh = build_statement(split_statements(path, SCRIPT, "spark")[1], tables, "spark", "spark")
    assert render(shared[1].root) == render(afresh.root)
    assert described(shared[1]) == described(afresh)


def test_a_unit_parsed_twice_gives_the_same_plan():
    (unit,) = split_statements(Path("q.sql"), "-- c\nSELECT host FROM events ORDER BY host", "spark")
    first = build_statement(unit, Tables(CATALOG), "spark", "spark")  # takes the file's tokens
    second = build_statement(unit, Tables(CATALOG), "spark", "spark")  # tokenizes the text
    assert render(first.root) == render(second.root)
    assert [n.span for n in walk(first.root)] == [n.span for n in walk(second.root)]
