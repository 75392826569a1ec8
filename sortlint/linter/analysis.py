"""One file's analysis: its units, their plans and their findings.

The file is cut into units by the front ends that read it, each unit is built into a plan
by its kind's builder, and each plan is linted. A file that cannot be read or split, or a
statement that does not parse, is reported as an error and the rest is still analysed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.linter.lint import lint_statement
from sortlint.plan.statement import Statement
from sortlint.plan.tables import TableLookup
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import build, units_of


class StatementTables(TableLookup, Protocol):
    """The tables a file's statements see, which its statements add to as they are read."""

    def register(self, statement: Statement) -> None: ...


@dataclass
class FileAnalysis:
    path: Path
    raw: str
    statements: list[Statement] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)


def analyse_file(path: Path, raw: str, reading: Reading, tables: StatementTables) -> FileAnalysis:
    config = reading.config
    result = FileAnalysis(path, raw)
    try:
        units = units_of(path, raw, reading)
    except UserError as error:
        result.errors.append(error)
        return result
    for unit in units:
        statement = build(unit, tables, config)
        if statement.error is not None:
            result.errors.append(statement.error)
            continue
        tables.register(statement)
        result.statements.append(statement)
        result.findings.extend(lint_statement(unit, statement.root, config))
    return result
