"""A dbt model's statement: SQL that also defines the model for the models reading it."""

from __future__ import annotations

from sqlglot import exp

from sortlint.config import Config
from sortlint.sources.dbt.project import ModelTable
from sortlint.plan.nodes import Node, Opaque, Span, Write, walk
from sortlint.plan.parse import parse_unit
from sortlint.plan.statement import Statement, build_statement
from sortlint.plan.tables import TableLookup, ViewDefinition
from sortlint.units import Unit


def build_model(unit: Unit, tables: TableLookup, config: Config) -> Statement:
    """The plan of a model's statement: a write of its query into the model's table, which
    also defines the model for later readers - a view of its query under `target:
    datafusion`, a table of its output columns under spark."""
    statement = build_statement(unit, tables, config.dialect, config.target)
    table = unit.payload
    if statement.error is not None or not isinstance(table, ModelTable) or statement.defines is not None:
        return statement
    name = table.name
    if not isinstance(statement.root, (Write, Opaque)):
        # A view or an ephemeral model stores no files: like a CREATE VIEW, it writes no
        # layout (SL301 asks nothing of it)
        kind = "table" if table.stores_files else "view"
        statement.root = Write(children=(statement.root,), span=_first_clause(statement.root),
                               target=name, kind=kind, rows=table.rows, columns=statement.outputs)
    if config.target == "datafusion":
        tree, _ = parse_unit(unit, config.dialect)
        if isinstance(tree, (exp.Query, exp.Values)):
            statement.view = ViewDefinition(name, tree, unit)
            statement.defines = ("view", name)
    elif statement.outputs:
        statement.defines = ("table", name)
    return statement


def _first_clause(root: Node) -> Span | None:
    """Where a model's finding about its whole query points: its first clause."""
    spans = [node.span for node in walk(root) if node.span is not None]
    return min(spans, key=lambda span: span.start) if spans else None
