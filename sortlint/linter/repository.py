"""Check a set of files: read, split, build, analyse and lint every statement.

Files are taken in path order and statements in file order, so a view is known to every
statement after the one that creates it. A file that cannot be read or split, or a
statement that does not parse, is reported as an error and the rest is still checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sortlint.config import Config
from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.linter.lint import lint_statement
from sortlint.plan.statement import Statement
from sortlint.plan.tables import Tables, ViewDefinition
from sortlint.sources.dbt import project as dbt
from sortlint.sources.discovery import discover
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import build, units_of


class RepositoryTables:
    """The tables a query can name: the catalog's (matched as `Config.source` matches
    names, so `events` finds `db.events`), and the views and tables statements created."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.created = Tables()

    def columns(self, table: str) -> tuple[str, ...] | None:
        created = self.created.columns(table)
        if created is not None:
            return created
        source = self.config.source(table)
        return tuple(c.name for c in source.columns) or None if source else None

    def view(self, table: str) -> ViewDefinition | None:
        return self.created.view(table)


class FileTables:
    """What one file's statements see: the repository's tables, plus what the file
    itself creates. Kept apart so a file can be analysed again (to prove a fix) from
    the same starting point."""

    def __init__(self, repository: RepositoryTables) -> None:
        self.repository = repository
        self.local = Tables()
        self.creators: list[Statement] = []
        # The names the file asked the repository about: what it read from files before it.
        self.read: set[str] = set()

    def columns(self, table: str) -> tuple[str, ...] | None:
        local = self.local.columns(table)
        if local is not None:
            return local
        self.read.add(table.lower())
        return self.repository.columns(table)

    def view(self, table: str) -> ViewDefinition | None:
        local = self.local.view(table)
        if local is not None:
            return local
        self.read.add(table.lower())
        return self.repository.view(table)

    @property
    def created(self) -> set[str]:
        """The names of the views and tables the file creates for the files after it."""
        names = set()
        for statement in self.creators:
            if statement.view is not None:
                names.add(statement.view.name.lower())
            elif statement.defines is not None:
                names.add(statement.defines[1].lower())
        return names

    def register(self, statement: Statement) -> None:
        register(self.local, statement)
        self.creators.append(statement)

    def commit(self) -> None:
        """Make what the file created visible to the files after it."""
        for statement in self.creators:
            register(self.repository.created, statement)


def register(tables: Tables, statement: Statement) -> None:
    if statement.view is not None:
        tables.register_view(statement.view)
    elif statement.defines is not None:
        tables.register_table(statement.defines[1], statement.outputs)


@dataclass
class FileAnalysis:
    path: Path
    raw: str
    statements: list[Statement] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)


def analyse_file(path: Path, raw: str, reading: Reading, tables: FileTables) -> FileAnalysis:
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


@dataclass
class Result:
    files: list[FileAnalysis] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    config: Config | None = None  # the config the files were checked with (dbt meta merged)

    @property
    def findings(self) -> list[Finding]:
        return [finding for file in self.files for finding in file.findings]

    @property
    def all_errors(self) -> list[UserError]:
        return self.errors + [error for file in self.files for error in file.errors]


def check(paths: Sequence[Path], config: Config, on_file=None, jobs: int = 1) -> Result:
    """Analyse every file. `on_file(analysis, tables, reanalyse)` may replace a file's
    analysis (the fixer does); `reanalyse(text)` analyses new text from the same start.

    With `jobs` > 1 and no `on_file`, worker processes analyse files ahead (see
    `sortlint.linter.workers`); the analyses they made carry findings and errors but not
    plans (`statements` is empty). Findings and errors are those of a sequential check."""
    result = Result()
    files = discover(paths, config)
    # dbt projects among the files: their YAML's declarations join the catalog, and every
    # model is known before any file is read (a file may come before the models it reads).
    config = dbt.with_declarations(files, config)
    result.config = config
    repository = RepositoryTables(config)
    dbt.register_models(files, config, repository)
    reading = Reading(config)
    ahead = {}
    if on_file is None and jobs > 1:
        from sortlint.linter.workers import analyse_ahead

        ahead = analyse_ahead(files, reading, repository, jobs)
    created: set[str] = set()  # by the files checked so far
    for path in files:
        early = ahead.get(path)
        if early is not None and early.independent_of(created):
            result.files.append(early.analysis)
            continue
        try:
            raw = read_text(path)
        except UserError as error:
            result.errors.append(error)
            continue

        def reanalyse(text: str, path: Path = path) -> tuple[FileAnalysis, FileTables]:
            tables = FileTables(repository)
            return analyse_file(path, text, reading, tables), tables

        analysis, tables = reanalyse(raw)
        if on_file is not None:
            analysis, tables = on_file(analysis, tables, reanalyse)
        tables.commit()
        created |= tables.created
        result.files.append(analysis)
    return result


def read_text(path: Path) -> str:
    """The file's text with its newlines as they are (CRLF kept)."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise UserError(f"not UTF-8 text: {error.reason} at byte {error.start}", path) from None
    except OSError as error:
        raise UserError(f"cannot read: {error.strerror}", path) from None
