"""Run the rules over one analysed statement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sortlint.config import Config
from sortlint.diagnostics import Finding
from sortlint.engines import Analysis, analyse
from sortlint.linter.context import Context
from sortlint.linter.rules import RULES
from sortlint.ordering import Expr
from sortlint.plan import nodes as n

if TYPE_CHECKING:
    from sortlint.plan.statement import Statement
    from sortlint.units import Unit


def analyse_statement(unit: Unit, root: n.Node, config: Config) -> Analysis:
    return analyse(root, config, lambda span: unit.location(span.start)[0] if span else None)


def lint_statement(unit: Unit, root: n.Node, config: Config, analysis: Analysis | None = None) -> list[Finding]:
    context = Context(unit, root, analysis or analyse_statement(unit, root, config))
    rules = [rule for rule in RULES if config.rule_enabled(rule.code)]
    found: dict[tuple, Finding] = {}
    for node in own_nodes(root):
        for rule in rules:
            for finding in rule.check(node, context):
                # A CTE read twice is built twice: report its clauses once.
                key = (finding.code, finding.line, finding.column, finding.end_line, finding.end_column)
                if key not in found:
                    found[key] = finding
    return sorted(found.values(), key=lambda f: f.sort_key)


def output_types(statement: Statement, analysis: Analysis) -> tuple[str | None, ...]:
    """The type of each output column of the statement, None where it is not known."""
    props = analysis.of(statement.root)
    return tuple(props.type_of(Expr.column(name)) for name in statement.outputs)


def own_nodes(root: n.Node):
    """The statement's own nodes: an inlined view's body is linted where it is defined
    (its spans point into that statement), not at every reader."""
    yield root
    for child in root.children:
        if isinstance(child, n.Alias) and child.origin is not None:
            continue
        yield from own_nodes(child)
