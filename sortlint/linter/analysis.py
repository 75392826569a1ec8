"""One file's analysis: its units, their plans and their findings.

The file is cut into units by the front ends that read it, each unit is built into a plan
by its kind's builder, and each plan is linted. A file that cannot be read or split, or a
statement that does not parse, is reported as an error and the rest is still analysed.

An exception inside a front end, a builder or a rule is sortlint's bug, never a reason to
say nothing: it is reported as an `InternalError` of that file or statement (its line, the
exception, a request to report it; exit code 2), and the rest is still analysed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from sortlint.config import Config
from sortlint.errors import InternalError, UserError, from_recursion
from sortlint.linter.lint import analyse_statement, lint_statement, output_types, stored_rows
from sortlint.linter.results import FileAnalysis, Kept
from sortlint.linter.rules import CODES
from sortlint.linter.suppression import noqa_comments, unknown_codes, unsilenced
from sortlint.plan.grouping import ungrouped_columns
from sortlint.plan.nodes import Opaque, Span
from sortlint.plan.parse import too_deeply_nested
from sortlint.plan.positions import keys_naming_nothing
from sortlint.plan.statement import Statement
from sortlint.plan.tables import TableLookup
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import build, units_of
from sortlint.units import Unit


class StatementTables(TableLookup, Protocol):
    """The tables a file's statements see, which its statements add to as they are read."""

    def register(self, statement: Statement) -> None: ...


def analyse_file(
    path: Path, raw: str, reading: Reading, tables: StatementTables, keep: Kept = Kept.PLANS
) -> FileAnalysis:
    """The file's findings and errors, and its statements as `keep` says. A check that only
    reports lets each plan go once it is linted, so that a file's memory does not grow with
    its statements."""
    config = reading.config
    result = FileAnalysis(path, raw)
    try:
        units = units_of(path, raw, reading)
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
    for unit in units:
        statement = built(unit, tables, config)
        if statement.error is not None:
            result.errors.append(statement.error)
            continue
        try:
            analysis = analyse_statement(unit, statement.root, config)
            statement.output_types = output_types(statement, analysis)
            statement.stored = stored_rows(statement, analysis, tables)
            result.findings.extend(lint_statement(unit, statement.root, config, analysis))
            if keep is not Kept.NOTHING:
                statement.ungrouped = tuple(ungrouped_columns(statement.root))
                statement.keys_naming_nothing = tuple(keys_naming_nothing(statement.root))
        except Exception as error:  # a rule's bug: reported, the other statements are linted
            if from_recursion(error):
                result.errors.append(too_deeply_nested(unit, config.dialect))
            else:
                result.errors.append(InternalError.during(error, "linting statement", path, unit.location(0)[0]))
        # Registered once analysed: a statement reading the table it writes reads what was there
        tables.register(statement)
        if keep is not Kept.NOTHING:
            result.statements.append(statement.without_plan() if keep is Kept.FACTS else statement)
    comments = noqa_comments(path, raw, units, config.dialect)
    result.findings = unsilenced(result.findings, comments)
    result.errors += unknown_codes(path, comments, CODES)
    return result


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
