"""Name resolution: qualify only what is certain, or what only one relation could hold."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from sortlint.plan.scope import Scope, Source, columns_of, qualify

EVENTS = Source("e", ("host", "time"), complete=True)
HOSTS = Source("h", ("host", "region"), complete=True)
MYSTERY = Source("m")


def resolved(sql: str, scope: Scope) -> str:
    return qualify(sqlglot.parse_one(sql, read="spark"), scope).sql("spark")


def test_a_known_column_of_exactly_one_relation():
    scope = Scope((EVENTS, HOSTS))
    assert resolved("time + 1", scope) == "e.time + 1"
    assert resolved("region", scope) == "h.region"
    assert resolved("host", scope) == "host"  # both have it


def test_a_relation_of_unknown_columns_may_have_any():
    assert resolved("region", Scope((EVENTS, MYSTERY))) == "m.region"
    assert resolved("host", Scope((EVENTS, MYSTERY))) == "e.host"
    assert resolved("x", Scope((MYSTERY, Source("n")))) == "x"
    assert resolved("x", Scope((MYSTERY,))) == "m.x"


def test_qualified_references_are_folded_and_kept_only_for_known_qualifiers():
    scope = Scope((EVENTS,))
    assert resolved("E.Time", scope) == "e.time"
    assert resolved("s.field", scope) == "s.field"  # not a relation here: a struct, say


def test_correlated_references_reach_the_outer_scope():
    inner = Scope((HOSTS,), outer=Scope((EVENTS,)))
    assert resolved("time", inner) == "e.time"
    assert resolved("e.host = h.host", inner) == "e.host = h.host"
    assert resolved("region", inner) == "h.region"


def test_using_columns_read_the_side_spark_reads():
    scope = Scope((EVENTS, HOSTS), merged=(("host", "e"),))
    assert resolved("host", scope) == "e.host"
    full = Scope((EVENTS, HOSTS), merged=(("host", ""),))
    assert resolved("host", full) == "host"


def test_subqueries_and_lambda_parameters_are_left_alone():
    scope = Scope((EVENTS,))
    assert resolved("transform(arr, time -> time + 1)", scope).endswith("time -> time + 1)")
    node = sqlglot.parse_one("host IN (SELECT host FROM t)", read="spark")
    assert [c.sql() for c in columns_of(node)] == ["host"]


def test_a_substitute_keeps_its_precedence_and_comments_are_dropped():
    scope = Scope((EVENTS,))
    node = sqlglot.parse_one("b * 2 /* twice */", read="spark")
    substitute = sqlglot.parse_one("e.time + 1", read="spark")  # substitutes come resolved
    out = qualify(node, scope, lambda c: substitute if c.name == "b" else None)
    assert out.sql("spark") == "(e.time + 1) * 2"
    assert isinstance(qualify(exp.column("time"), scope), exp.Column)
