"""A file's analysis as it can be kept and used again: by the persistent cache, across runs,
and from worker processes, within one.

An analysis is a function of the file's text, the run's configuration, the versions of
sortlint and its parsers, the context its front end gives the file (a dbt project's macros,
property files and configs: `Preparation.context`), the other files its front end read
(`sortlint.files.recording_inputs`), and the answers the repository gave it about the
tables it named (columns, views), which depend on the files checked before it and on the
models it reads. The first four make the record's *key*. The last two are kept in the
record with what they were, and checked again before the record is used: the record holds
only while every file it read reads the same and every table it named is answered the same.
What the file defined for the files after it is kept too, to be registered again.

A record is read by runs from any working directory: every path its messages cite (a
declaration's file, an upstream model's) is kept relative to the project's root
(`sortlint.config.citations`), and `reported` gives the analysis as the run reading it shows
paths. The file's own path, in its findings and errors, is kept as the check named it: the
key holds it, so a record is only read where the file is named alike. A file no path of the
check names, analysed because another file reads what it defines, is named as a check of a
folder from the same working directory names it (`Workspace._define`): a one-file check
takes the records a whole-project check made of its upstream.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config.citations import marked, shown_citations
from sortlint.errors import UserError
from sortlint.files import unchanged_inputs
from sortlint.linter.results import FileAnalysis
from sortlint.plan.tables import Tables, ViewDefinition
from sortlint.store import digest

if TYPE_CHECKING:
    from sortlint.ordering import Properties
    from sortlint.plan.statement import Statement
    from sortlint.workspace.tables import RepositoryTables

RECORDS = "files"  # the store's namespace for records


@dataclass(frozen=True)
class Definition:
    """A view or table a file's statement created or wrote, as the files after it see it."""

    name: str
    view: ViewDefinition | None = None
    columns: tuple[str, ...] = ()
    stored: Properties | None = None

    @classmethod
    def of(cls, statement: Statement) -> Definition | None:
        if statement.view is not None:
            return cls(statement.view.name, view=replace(statement.view, spans=None))
        if statement.defined is not None:
            return cls(statement.defined, columns=statement.created_columns, stored=statement.stored)
        return None

    def register(self, tables: Tables) -> None:
        if self.view is not None:
            tables.register_view(self.view)
        else:
            tables.register_table(self.name, self.columns, self.stored)


@dataclass(frozen=True)
class FileRecord:
    analysis: FileAnalysis  # without plans
    definitions: tuple[Definition, ...] = ()
    reads: tuple[tuple[str, str], ...] = ()  # table name, the digest of its answer
    inputs: tuple[tuple[str, str | None], ...] = ()  # other files read, their digests

    def holds(self, tables: RepositoryTables) -> bool:
        """Whether the analysis is what analysing the file again would give: every file it
        read unchanged, every table it named answered as it was."""
        return unchanged_inputs(dict(self.inputs)) and all(
            answer(tables, name) == recorded for name, recorded in self.reads
        )


def answer(tables: RepositoryTables, name: str) -> str:
    """A digest of what `tables` says of `name`: its columns, the view it is - the view's
    name, columns, file and statement text (so also where a finding citing it points) -
    and what its rows are known to satisfy, with the evidence findings would cite."""
    known = tables.answers.get(name)
    if known is not None:
        return known
    view = tables.defined_view(name)
    seen = None if view is None else (
        view.name, view.columns, str(view.unit.path), view.unit.start, view.unit.text, view.unit.raw
    )
    stored = tables.stored(name)
    found = tables.answers[name] = digest(tables.columns(name), seen, None if stored is None else stored.described)
    return found


def record_key(environment: str, path: Path, raw: str, context: str) -> str:
    return digest(environment, str(path), raw, context)


def reported(analysis: FileAnalysis, root: Path) -> FileAnalysis:
    """A record's analysis as this run shows it, the project at `root`: each path it cites
    made relative to the working directory (a copy: the record is shared, and kept)."""
    if not _cites(analysis):
        return analysis

    def shown(text: str) -> str:
        return shown_citations(text, root)

    findings = [
        replace(f, message=shown(f.message),
                fix=None if f.fix is None else replace(f.fix, message=shown(f.fix.message)))
        for f in analysis.findings
    ]
    errors = [_error(e, shown(e.message)) for e in analysis.errors]
    remarks = [(kind, shown(text)) for kind, text in analysis.remarks]
    return replace(analysis, findings=findings, errors=errors, remarks=remarks)


def _cites(analysis: FileAnalysis) -> bool:
    return any(
        marked(f.message) or (f.fix is not None and marked(f.fix.message)) for f in analysis.findings
    ) or any(marked(e.message) for e in analysis.errors) or any(marked(text) for _, text in analysis.remarks)


def _error(error: UserError, message: str) -> UserError:
    if message == error.message:
        return error
    # A copy, not `dataclasses.replace`: an InternalError's traceback is no field of it.
    changed = copy.copy(error)
    changed.message = message
    return changed
