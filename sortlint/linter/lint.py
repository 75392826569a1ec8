"""Run the rules over one analysed statement."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from sortlint.config import Config
from sortlint.config.model import Location, rule_selected
from sortlint.diagnostics import Applicability, Finding
from sortlint.engines import Analysis, Place, analyse
from sortlint.engines.stored import rows_written
from sortlint.linter.context import Context
from sortlint.linter.rules import Rule
from sortlint.linter.rules import rules as all_rules
from sortlint.ordering import Expr, Properties
from sortlint.plan import nodes as n

if TYPE_CHECKING:
    from sortlint.plan.statement import Statement
    from sortlint.plan.tables import TableLookup
    from sortlint.units import Unit


def analyse_statement(unit: Unit, root: n.Node, config: Config) -> Analysis:
    def place_of(span: n.Span | None) -> Place | None:
        if span is None:
            return None
        written_in = span.unit or unit
        line = written_in.location(span.start)[0]
        if written_in.path == unit.path:
            return Place(line, f"line {line}")
        return Place(line, str(Location(written_in.path, line)), elsewhere=True)

    return analyse(root, config, place_of)


def lint_statement(unit: Unit, root: n.Node, config: Config, analysis: Analysis | None = None) -> list[Finding]:
    context = Context(unit, root, analysis or analyse_statement(unit, root, config))
    rules = enabled_rules(config.select, config.ignore)
    # A CTE read twice is built twice, one copy under each reader: its clauses are reported
    # once, and only what holds in every copy (a sort that one reader's join ignores may be
    # what the other reader's collect_list relies on).
    copies: Counter[tuple] = Counter()
    found: dict[tuple, tuple[list[Finding], tuple]] = {}  # each finding in every copy, with its clause
    for node in own_nodes(root, unit):
        clause = _clause(node)
        copies[clause] += 1
        for rule in rules[type(node)]:
            for finding in rule.check(node, context):
                key = (finding.code, finding.line, finding.column, finding.end_line, finding.end_column)
                found.setdefault(key, ([], clause))[0].append(finding)
    reported = [_in_every_copy(made) for made, clause in found.values() if len(made) >= copies[clause]]
    if config.ignore_noop:
        # What the model does not know (no effect) is kept: leaving it out would be a guess.
        reported = [f for f in reported if f.effect is None or not f.effect.noop]
    caveat = getattr(unit.offsets, "caveat", None)
    if caveat:
        # The rendering the findings rest on may not be the one the warehouse runs: they
        # say so, and their fixes are applied only when asked for unsafe ones.
        reported = [
            replace(
                f,
                message=f"{f.message} [{caveat}]",
                fix=f.fix.at_most(Applicability.UNSAFE) if f.fix is not None else None,
            )
            for f in reported
        ]
    return sorted(reported, key=lambda f: f.sort_key)


def _in_every_copy(made: list[Finding]) -> Finding:
    """The one finding of a clause built in several copies (a CTE under each reader, a window
    specification under each function using it). Its fix edits the clause once, so it changes
    every copy's plan: the effect is the one copy's that changes operators (a CTE's sort that
    Spark drops under one reader's join and runs, with its exchange, under another's UNION ALL:
    tests/engines/test_spark_effects_hidden.py), unknown where two do - Spark shuffles an input
    two copies share once (`ReusedExchange`: a sorted CTE read by two UNION ALL branches alike
    saves one exchange and two sorts), and stacked windows share their sorts - or where one
    copy's is unknown. The message is a changing copy's, so that it says what Spark runs
    (not "Spark removes this sort itself" above an effect that saves a sort). The least
    trusted copy's fix is the fix."""
    if len(made) == 1:
        return made[0]
    changing = [f for f in made if f.effect is None or not f.effect.none]
    shown = changing[0] if changing else made[0]
    effect, unknown = (None, SHARED_COPIES) if len(changing) > 1 else (shown.effect, shown.effect_unknown)
    fixes = [f.fix for f in made]
    fix = None if any(f is None for f in fixes) else min(
        (f for f in fixes if f is not None), key=lambda f: f.applicability.rank)
    return replace(shown, effect=effect, effect_unknown=unknown, fix=fix)


SHARED_COPIES = ("depends on which exchanges and sorts the copies of this clause (one for each reader "
                 "or function) share in Spark's plan (not modelled)")


@lru_cache(maxsize=16)
def enabled_rules(select: tuple[str, ...], ignore: tuple[str, ...]) -> RulesByNode:
    """The rules a configuration's `select` and `ignore` turn on: the same for every
    statement it checks."""
    return RulesByNode(rule for rule in all_rules() if rule_selected(rule.code, select, ignore))


class RulesByNode(dict[type, tuple[Rule, ...]]):
    """Enabled rules by the type of plan node they look at, worked out for each type the
    first time a plan has one: most nodes interest no rule, and calling every rule on every
    node showed in profiles."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        super().__init__()
        self.rules = tuple(rules)

    def __missing__(self, kind: type) -> tuple[Rule, ...]:
        found = self[kind] = tuple(rule for rule in self.rules if issubclass(kind, rule.node))
        return found


def _clause(node: n.Node) -> tuple:
    """What identifies the clause a node was built from, the same in every copy of a CTE."""
    span = node.span
    if span is None:
        return (id(node),)
    return (type(node).__name__, span.start, span.end, id(span.unit))


def output_types(statement: Statement, analysis: Analysis) -> tuple[str | None, ...]:
    """The type of each output column of the statement, None where it is not known."""
    props = analysis.of(statement.root)
    return tuple(props.type_of(Expr.column(name)) for name in statement.outputs)


def stored_rows(statement: Statement, analysis: Analysis, tables: TableLookup) -> Properties | None:
    """What the rows of the table the statement writes satisfy after it (None: nothing known
    or no table written): see `sortlint.engines.stored`."""
    write = statement.root
    if not isinstance(write, n.Write) or statement.defined != write.target:
        return None
    previous = tables.stored(write.target) if write.rows == "append" else None
    return rows_written(write, statement.outputs, analysis, previous, str(Location(statement.unit.path)))


def own_nodes(root: n.Node, unit: Unit | None = None):
    """The statement's own nodes: an inlined view's body (a called function's) is linted
    where it is defined, not at every reader - but what the statement hands it (an Alias
    whose origin is the statement's unit again) is the statement's. In pre-order, without
    recursion (a plan is as deep as its chain of CTEs)."""
    stack: list[tuple[n.Node, bool]] = [(root, True)]  # a node, and whether it is own
    while stack:
        node, own = stack.pop()
        if own:
            yield node
            # below an own node, all but a foreign Alias
            below = [(child, not (isinstance(child, n.Alias) and child.origin is not None
                                  and child.origin is not unit)) for child in node.children]
        else:
            # below a foreign one, only the Aliases handed back
            below = [(child, unit is not None and isinstance(child, n.Alias) and child.origin is unit)
                     for child in node.children]
        stack.extend(reversed(below))
