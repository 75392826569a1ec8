"""One file's analysis: its units, their plans and their findings.

The file is cut into units by the front ends that read it, each unit is built into a plan
by its kind's builder, and each plan is linted. A file that cannot be read or split, or a
statement that does not parse, is reported as an error and the rest is still analysed.

An exception inside a front end, a builder or a rule is sortlint's bug, never a reason to
say nothing: it is reported as an `InternalError` of that file or statement (its line, the
exception, a request to report it; exit code 2), and the rest is still analysed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sortlint.config import Config
from sortlint.errors import InternalError, UserError, from_recursion
from sortlint.linter.lint import analyse_statement, lint_statement, output_types, stored_rows
from sortlint.linter.results import ANY_UNQUALIFIED, FileAnalysis, Kept, UnitAnalysis
from sortlint.linter.rules import CODES
from sortlint.linter.suppression import noqa_comments, unknown_codes, unsilenced
from sortlint.linter.unchanged import Unchanged
from sortlint.plan.grouping import ungrouped_columns
from sortlint.plan.nodes import Opaque, Span
from sortlint.plan.parse import too_deeply_nested
from sortlint.plan.positions import keys_naming_nothing
from sortlint.plan.statement import Statement
from sortlint.plan.tables import TableLookup, ViewDefinition
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import build, units_of
from sortlint.units import Unit

if TYPE_CHECKING:
    from sortlint.ordering import Properties


class StatementTables(TableLookup, Protocol):
    """The tables a file's statements see, which its statements add to as they are read."""

    def register(self, statement: Statement) -> None: ...


# Analyses units [first, last) of the file in order, from the tables as they were before it.
AnalyseUnits = Callable[[int, int], "list[UnitAnalysis | None]"]
# Given a file's units and how to analyse a run of them, analyses some of them ahead (in
# other processes) and yields a lookup of those analyses by unit index, done when it closes.
Ahead = Callable[[Sequence[Unit], AnalyseUnits], AbstractContextManager[Callable[[int], "UnitAnalysis | None"]]]


def analyse_file(
    path: Path, raw: str, reading: Reading, tables: StatementTables, keep: Kept = Kept.PLANS,
    ahead: Ahead | None = None, earlier: FileAnalysis | None = None,
) -> FileAnalysis:
    """The file's findings and errors, and its statements as `keep` says. A check that only
    reports lets each plan go once it is linted, so that a file's memory does not grow with
    its statements.

    `ahead` may have other processes analyse runs of a big file's statements while this one
    goes through them in order: a statement analysed ahead is taken when its analysis holds
    (`UnitAnalysis.holds`), the tables it named asked again here (they must learn of it as if
    it were analysed here); any other is analysed here. Plans do not travel, so nothing is
    analysed ahead when `keep` is `Kept.PLANS`.

    `earlier` is the fixer's analysis of the file before its edits (`Kept.FACTS`): the
    statements no edit touched are taken from it (`sortlint.linter.unchanged`), and a plain
    SQL file is cut into statements again only where the edits are
    (`sortlint.sources.sql.files.resplit_statements`)."""
    config = reading.config
    result = FileAnalysis(path, raw)
    # The earlier text's units, if every one is known: a front end that can cuts again
    # only what an edit touched.
    before = [done.unit for done in earlier.units if done.unit is not None] if earlier is not None and keep is Kept.FACTS else []
    try:
        units = units_of(path, raw, reading, before if earlier is not None and len(before) == len(earlier.units) else ())
    except UserError as error:
        result.errors.append(error)
        return result
    except Exception as error:  # a front end's bug: reported, the other files are checked
        if from_recursion(error):
            result.errors.append(UserError("too deeply nested to analyse", path))
        else:
            result.errors.append(InternalError.during(error, "reading the file", path))
        return result
    result.remarks = list(reading.remarks.get(path, ()))
    unchanged = Unchanged(earlier, units) if earlier is not None and keep is Kept.FACTS else None
    skipped = unchanged.candidates if unchanged is not None else frozenset()
    analyse_ahead = partial(_analyse_units, units, tables, config, keep, skipped)
    defined: set[str] = set()  # what the file's statements defined so far
    with (ahead(units, analyse_ahead) if ahead is not None and keep is not Kept.PLANS else nullcontext(_none)) as found:
        for index, unit in enumerate(units):
            done = unchanged.taken(index, unit) if unchanged is not None else None
            if done is not None:
                _let_go(unit)
            else:
                done = _in_order(unit, found(index), tables, config, keep, defined)
                if unchanged is not None:
                    unchanged.analysed(index, unit, done)
            result.findings.extend(done.findings)
            result.errors.extend(done.errors)
            if keep is Kept.FACTS:
                done.statement = done.statement and done.statement.without_plan()
                result.units.append(done)
            if keep is not Kept.NOTHING and done.statement is not None:
                result.statements.append(done.statement)
    comments = noqa_comments(path, raw, units, config.dialect)
    result.findings = unsilenced(result.findings, comments)
    result.errors += unknown_codes(path, comments, CODES)
    return result


def _in_order(
    unit: Unit, ahead: UnitAnalysis | None, tables: StatementTables, config: Config, keep: Kept, defined: set[str]
) -> UnitAnalysis:
    """The unit's analysis where it stands in its file: the one made `ahead` if it holds,
    else one made here, its statement registered for those after it (once analysed: a
    statement reading the table it writes reads what was there)."""
    if ahead is not None and ahead.holds(defined):
        _take(unit, ahead, tables)
        return ahead
    done = analyse_unit(unit, tables, config, keep)
    done.unit = unit
    if done.statement is not None:
        tables.register(done.statement)
    if done.defines is not None:
        defined.add(done.defines.lower())
    if done.switches_database:
        defined.add(ANY_UNQUALIFIED)
    return done


def _none(index: int) -> None:
    return None


def analyse_unit(unit: Unit, tables: TableLookup, config: Config, keep: Kept) -> UnitAnalysis:
    """The unit's statement, built and analysed, its findings and errors; no statement when
    it does not parse."""
    statement = built(unit, tables, config)
    if statement.error is not None:
        return UnitAnalysis(None, errors=[statement.error])
    done = UnitAnalysis(statement, defines=statement.defined, switches_database=statement.switches_database)
    try:
        analysis = analyse_statement(unit, statement.root, config)
        statement.output_types = output_types(statement, analysis)
        statement.stored = stored_rows(statement, analysis, tables)
        done.findings = lint_statement(unit, statement.root, config, analysis)
        if keep is not Kept.NOTHING:
            statement.ungrouped = tuple(ungrouped_columns(statement.root))
            statement.keys_naming_nothing = tuple(keys_naming_nothing(statement.root))
    except Exception as error:  # a rule's bug: reported, the other statements are linted
        if from_recursion(error):
            done.errors.append(too_deeply_nested(unit, config.dialect))
        else:
            done.errors.append(InternalError.during(error, "linting statement", unit.path, unit.location(0)[0]))
    return done


def _analyse_units(
    units: Sequence[Unit], tables: StatementTables, config: Config, keep: Kept, skipped: frozenset[int],
    first: int, last: int,
) -> list[UnitAnalysis | None]:
    """Units [first, last) analysed in order from `tables` as they are, each with the tables
    it named, ready to be sent to the process that reads the file in order: without plans
    or units (a unit holds the whole file's text; the receiver has its own). The `skipped`
    ones (which define nothing) are left to that process: None."""
    handed: list[UnitAnalysis | None] = []
    for index in range(first, last):
        if index in skipped:
            handed.append(None)
            continue
        unit, naming = units[index], Naming(tables)
        done = analyse_unit(unit, naming, config, keep)
        statement = done.statement
        if statement is not None:
            tables.register(statement)
            done.statement = replace(statement.without_plan(), unit=_stand_in(unit), view=None) if keep is not Kept.NOTHING else None
        done.named = frozenset(naming.named)
        handed.append(done)
    return handed


def _stand_in(unit: Unit) -> Unit:
    """What a statement sent to the process reading the file in order holds in place of its
    unit (which holds the whole file's text and its tokens): that process has its own."""
    return Unit(path=unit.path, text="", start=unit.start, raw="", kind=unit.kind)


def _take(unit: Unit, done: UnitAnalysis, tables: TableLookup) -> None:
    """Take a unit's analysis made ahead: its tables are asked again here (so that `tables`
    knows the file read them, and defines on demand what it would have for the unit), and
    its unit is its own again."""
    for name in sorted(done.named):
        tables.columns(name)  # any question tells them as much
    done.unit = unit
    if done.statement is not None:
        done.statement.unit = unit  # made for this process (unpickled): its own to change
    _let_go(unit)


def _let_go(unit: Unit) -> None:
    """Free the tokens of a unit analysed elsewhere, which no parser here will take."""
    if unit.tokens is not None:
        unit.tokens.release()


class Naming:
    """A `TableLookup` that notes the tables asked about."""

    def __init__(self, tables: TableLookup) -> None:
        self.tables = tables
        self.named: set[str] = set()

    def columns(self, table: str) -> tuple[str, ...] | None:
        self.named.add(table.lower())
        return self.tables.columns(table)

    def view(self, table: str) -> ViewDefinition | None:
        self.named.add(table.lower())
        return self.tables.view(table)

    def stored(self, table: str) -> Properties | None:
        self.named.add(table.lower())
        return self.tables.stored(table)


def built(unit: Unit, tables: TableLookup, config: Config) -> Statement:
    """The unit's plan, made by the builder of its kind; an exception inside the builder is
    the statement's error."""
    try:
        return build(unit, tables, config)
    except Exception as error:  # a builder's bug: reported, the other statements are built
        if from_recursion(error):
            failure: UserError = too_deeply_nested(unit, config.dialect)
            reason = "too deeply nested"
        else:
            failure = InternalError.during(error, "building statement", unit.path, unit.location(0)[0])
            reason = "internal error"
        return Statement(unit, Opaque(span=Span(0, len(unit.text)), reason=reason), error=failure)
