"""Run the rules over one analysed statement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sortlint.config import Config
from sortlint.diagnostics import Finding
from sortlint.engines import Analysis, analyse
from sortlint.linter.context import Context
from sortlint.linter.rules import RULES
from sortlint.plan import nodes as n

if TYPE_CHECKING:
    from sortlint.units import Unit


def analyse_statement(unit: Unit, root: n.Node, config: Config) -> Analysis:
    return analyse(root, config, lambda span: unit.location(span.start)[0] if span else None)


def lint_statement(unit: Unit, root: n.Node, config: Config) -> list[Finding]:
    context = Context(unit, root, analyse_statement(unit, root, config))
    rules = [rule for rule in RULES if config.rule_enabled(rule.code)]
    found: dict[tuple, Finding] = {}
    for node in own_nodes(root, unit):
        for rule in rules:
            for finding in rule.check(node, context):
                # A CTE read twice is built twice: report its clauses once.
                key = (finding.code, finding.line, finding.column, finding.end_line, finding.end_column)
                if key not in found:
                    found[key] = finding
    return sorted(found.values(), key=lambda f: f.sort_key)


def own_nodes(root: n.Node, unit: Unit | None = None):
    """The statement's own nodes: an inlined view's body (a called function's) is linted
    where it is defined, not at every reader - but what the statement hands it (an Alias
    whose origin is the statement's unit again) is the statement's."""
    yield root
    for child in root.children:
        if isinstance(child, n.Alias) and child.origin is not None and child.origin is not unit:
            yield from _handed_back(child, unit)
            continue
        yield from own_nodes(child, unit)


def _handed_back(node: n.Node, unit: Unit | None):
    """Below a foreign Alias, the statement's own parts."""
    for child in node.children:
        if unit is not None and isinstance(child, n.Alias) and child.origin is unit:
            yield from own_nodes(child, unit)
        else:
            yield from _handed_back(child, unit)
