"""Generators - LATERAL VIEW, a generator in a select list, a generator in FROM - become a
`Generate` node under the rows they multiply, and the query reads the generated columns by
the names it gives them or, when it gives none, by the names Spark gives them."""

from __future__ import annotations

import pytest
from plan_support import build, expected, plan

from sortlint.plan.nodes import Opaque, walk

EVENTS = "Scan events (event_id, host, time, level, amount, price)"


def opaque_reasons(sql: str) -> list[str]:
    return [n.reason for n in walk(build(sql).root) if isinstance(n, Opaque)]


def test_a_lateral_view_generates_under_the_view_name():
    assert plan("""
        SELECT e.host, t.tag FROM events e
        LATERAL VIEW explode(split(e.level, ',')) t AS tag WHERE tag = 'x'
    """) == expected("""
        Project [e.host AS host, t.tag AS tag]
          Filter WHERE [t.tag = 'x']
            Generate EXPLODE(SPLIT(e.level, ',')) AS [t.tag]
              Scan events AS e (event_id, host, time, level, amount, price)
    """)


def test_lateral_view_outer_and_posexplode_and_views_without_a_name():
    assert plan("""
        SELECT host, p, x FROM events
        LATERAL VIEW OUTER posexplode(array(1, 2)) AS p, x
    """) == expected(f"""
        Project [events.host AS host, p, x]
          Generate POSEXPLODE(ARRAY(1, 2)) outer AS [p, x]
            {EVENTS}
    """)


def test_several_lateral_views_stack_in_the_written_order():
    assert plan("""
        SELECT a, b FROM events
        LATERAL VIEW explode(array(1, 2)) x AS a
        LATERAL VIEW explode(array(a, 3)) y AS b
    """) == expected(f"""
        Project [x.a AS a, y.b AS b]
          Generate EXPLODE(ARRAY(x.a, 3)) AS [y.b]
            Generate EXPLODE(ARRAY(1, 2)) AS [x.a]
              {EVENTS}
    """)


def test_a_generator_in_the_select_list_runs_after_where():
    assert plan("""
        SELECT host, explode(array(3, 1, 2)) AS d FROM events WHERE host = 'a' ORDER BY d
    """) == expected(f"""
        Sort ORDER BY [d ASC NULLS FIRST]
          Project [events.host AS host, d]
            Generate EXPLODE(ARRAY(3, 1, 2)) AS [d]
              Filter WHERE [events.host = 'a']
                {EVENTS}
    """)


@pytest.mark.parametrize("item, columns", [
    ("explode(array(3, 1, 2))", "[col]"),
    ("explode_outer(sequence(1, 3))", "[col]"),
    ("posexplode(array(3, 1))", "[pos, col]"),
    ("explode(map(1, 'a'))", "[key, value]"),
    ("stack(2, 1, 'a', 2, 'b')", "[col0, col1]"),
    ("stack(3, 1, 2, 3, 4)", "[col0, col1]"),
    ("json_tuple('{}', 'a', 'b')", "[c0, c1]"),
    ("posexplode(array(3, 1)) AS (i, v)", "[i, v]"),
])
def test_the_names_spark_gives_generated_columns(item, columns):
    generate = plan(f"SELECT {item}").splitlines()[1].strip()
    assert generate.endswith(f" AS {columns}"), generate


def test_a_generator_in_from_generates_from_one_row():
    assert plan("SELECT x FROM explode(array(1, 2)) AS e(x)") == expected("""
        Project [e.x AS x]
          Generate EXPLODE(ARRAY(1, 2)) AS [e.x]
            Values 1 row
    """)


def test_what_is_not_modelled_is_opaque():
    assert opaque_reasons("SELECT explode(array(1)) + 1 AS x FROM events") == ["a generator inside an expression"]
    assert opaque_reasons("SELECT explode(array(1)) AS a, explode(array(2)) AS b FROM events") == [
        "two generators in one select list",
    ]
    assert opaque_reasons("SELECT explode(array(1)) AS x, count(*) AS n FROM events GROUP BY 1") == [
        "a generator beside an aggregate or a window",
    ]
    assert opaque_reasons("SELECT explode(level) FROM events") == [
        "the columns of explode(...), named by types not known",
    ]
