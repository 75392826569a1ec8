"""Building plans from SQL text, for specifications written as SQL -> rendered plan.

Imported by the test modules of this directory (`from plan_support import ...`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from sortlint.plan.nodes import Node, Span, walk
from sortlint.plan.render import render
from sortlint.plan.statement import Statement, build_statement
from sortlint.plan.tables import Tables
from sortlint.units import Unit

CATALOG: dict[str, tuple[str, ...] | None] = {
    "events": ("event_id", "host", "time", "level", "amount", "price"),
    "hosts": ("host", "region", "owner"),
    "orders": ("order_id", "customer_id", "created_at", "amount"),
    "customers": ("customer_id", "name", "region"),
}


def unit(sql: str, path: str = "query.sql") -> Unit:
    text = textwrap.dedent(sql).strip()
    return Unit(Path(path), text, 0, text)


def build(sql: str, tables: Tables | None = None, target: str = "spark") -> Statement:
    return build_statement(unit(sql), tables or Tables(CATALOG), "spark", target)


def plan(sql: str, tables: Tables | None = None, target: str = "spark") -> str:
    """The rendered plan of one statement (which must build without error)."""
    statement = build(sql, tables, target)
    assert statement.error is None, statement.error
    return render(statement.root)


def expected(tree: str) -> str:
    return textwrap.dedent(tree).strip("\n")


def first(root: Node, kind: type) -> Node:
    return next(node for node in walk(root) if isinstance(node, kind))


def text(statement: Statement, span: Span | None) -> str | None:
    return None if span is None else statement.unit.text[span.start : span.end]
