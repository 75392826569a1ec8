"""Checking an editor's open documents as they are, saved or not.

A *project* is the files one configuration file governs (`find_config`, or `--config` for
every file). A document is checked with the text of every open buffer standing in for its
file (`sortlint.files.standing_in`): a model edited in another buffer, not yet saved, is
what its readers read. The run uses the project's configuration and catalog, and its
persistent cache: what the cache says of a file is used only while the file, what it read
and the tables it named are as they were (see `sortlint.workspace.check`). A big document
is checked without the cache, from its analysis before, statement by statement
(`check_big_document`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config import Config, find_config
from sortlint.errors import ConfigError, InternalError, UserError, each_error
from sortlint.files import recording_inputs, standing_in, unchanged_inputs
from sortlint.integrations.lsp.changes import Changes
from sortlint.linter.results import FileAnalysis, Kept
from sortlint.sources.registry import SUFFIXES
from sortlint.store import Store
from sortlint.workspace.records import answer

if TYPE_CHECKING:
    from sortlint.workspace.check import Result
    from sortlint.workspace.tables import FileTables, RepositoryTables


@dataclass(frozen=True)
class Settings:
    """How the command line asked for files to be checked."""

    configure: Callable[[Sequence[Path]], Config]  # the configuration of files (raises ConfigError)
    store_for: Callable[[Config], "Store | None"]  # the persistent cache of a configuration's project
    config_path: Path | None = None  # `--config`: one configuration for every file

    def project_of(self, path: Path) -> Path | None:
        """The configuration file governing `path` (None: no configuration, the defaults)."""
        if self.config_path is not None:
            return self.config_path.resolve()
        try:
            return find_config([path])
        except ConfigError as error:  # a pyproject.toml that mentions sortlint but does not parse
            return Path(error.path).resolve() if error.path is not None else None


@dataclass
class ProjectCheck:
    """What checking a project's open documents found."""

    files: dict[Path, FileAnalysis] = field(default_factory=dict)  # by resolved path: the documents checked
    errors: dict[Path, list[UserError]] = field(default_factory=dict)  # by resolved path: a document's, the configuration's
    messages: list[str] = field(default_factory=list)  # what no file shows: notes, skipped documents, cache problems
    warnings: list[str] = field(default_factory=list)  # what the configuration should correct
    incremental: bool = False  # the statements no edit touched were taken from the check before
    # A big document's findings, as changes to those its worker sent before (its analysis
    # then has none): see `changes`.
    changes: Changes | None = None

    def add_errors(self, errors: Sequence[UserError]) -> None:
        for error in errors:
            if error.path is None:
                self.messages.append(str(error))
            else:
                self.errors.setdefault(Path(error.path).resolve(), []).append(error)


def check_documents(
    documents: Sequence[Path], project: Path | None, buffers: Mapping[Path, str], settings: Settings
) -> ProjectCheck:
    """Check a project's open `documents` (absolute paths), every open buffer's text standing
    in for its file. With no document, only the configuration is read (its errors shown)."""
    found = ProjectCheck()
    starts = list(documents) or ([project] if project is not None else [])
    if not starts:
        return found
    from sortlint.workspace.check import check

    with standing_in(_encoded(buffers)):
        try:
            config = settings.configure(starts)
            store = settings.store_for(config)
            result = check(documents, config, store=store)
        except UserError as error:
            found.add_errors(each_error(error))
            return found
        except Exception as error:  # sortlint's own bug: said, and the server goes on
            found.add_errors([InternalError.during(error, "checking the open files")])
            return found
    return _found(found, result, store)


def _found(found: ProjectCheck, result: Result, store: Store | None) -> ProjectCheck:
    # Without its text and its statements: the server has the text, and a check's result
    # travels back from its process pickled (a 2 MB file's text, its units' facts).
    found.files = {file.path.resolve(): replace(file, raw="", units=[]) for file in result.files}
    found.add_errors(result.all_errors)
    found.messages += [f"{path}: skipped: {reason}" for path, reason in result.skipped]
    found.messages += store.problems if store is not None else []
    for kind, text in dict.fromkeys(remark for file in result.files for remark in file.remarks):
        (found.warnings if kind == "warning" else found.messages).append(text)
    return found


@dataclass(frozen=True)
class Earlier:
    """A big document's last analysis, statement by statement (`Kept.FACTS`), and what it
    depends on besides the document's text - as a cache record does
    (`sortlint.workspace.records.FileRecord`)."""

    analysis: FileAnalysis
    config: str  # the configuration's repr, catalog included
    reads: tuple[tuple[str, str], ...]  # each table its statements named, the digest of its answer
    inputs: tuple[tuple[str, str | None], ...]  # the files read that are no source (which matter through `reads`)

    def holds(self, repository: RepositoryTables) -> bool:
        return (
            repr(repository.config) == self.config
            and unchanged_inputs(dict(self.inputs))
            and all(answer(repository, name) == recorded for name, recorded in self.reads)
        )


def check_big_document(
    document: Path, project: Path | None, buffers: Mapping[Path, str], settings: Settings, earlier: Earlier | None
) -> tuple[ProjectCheck, Earlier | None]:
    """Check one document as `check_documents` does, taking from `earlier` - while it holds
    - each statement no edit touched (`sortlint.linter.unchanged`): a one-line edit of a
    file of thousands of statements analyses the statement edited, not the file. The cache
    is neither read nor written (its records are whole files). Also what to take from next
    time."""
    from sortlint.workspace.check import check

    found = ProjectCheck()
    resolved = document.resolve()
    taken: list[Earlier] = []  # the earlier analysis, if it held
    kept: list[tuple[FileAnalysis, tuple[tuple[str, str], ...]]] = []

    def before(path: Path, repository: RepositoryTables) -> FileAnalysis | None:
        if path != resolved or earlier is None or not earlier.holds(repository):
            return None
        taken.append(earlier)
        return earlier.analysis

    def keep(analysis: FileAnalysis, tables: FileTables, reanalyse):
        # A statement taken from before asked nothing of the tables this time: what it asked
        # then, answered the same (it held), is still what it depends on.
        reads = dict(taken[0].reads) if taken else {}
        reads.update((name, answer(tables.repository, name)) for name in sorted(tables.read))
        kept.append((analysis, tuple(sorted(reads.items()))))
        return analysis, tables

    with standing_in(_encoded(buffers)):
        try:
            config = settings.configure([document])
            with recording_inputs() as inputs:
                result = check([document], config, on_file=keep, on_file_sees=Kept.FACTS, earlier=before)
        except UserError as error:
            found.add_errors(each_error(error))
            return found, None
        except Exception as error:  # sortlint's own bug: said, and the server goes on
            found.add_errors([InternalError.during(error, "checking the open files")])
            return found, None
    found.incremental = bool(taken)
    after = None
    if kept and result.config is not None:
        others = tuple(sorted((path, digest) for path, digest in inputs.items() if Path(path).suffix not in SUFFIXES))
        after = Earlier(kept[0][0], repr(result.config), kept[0][1], others)
    return _found(found, result, None), after


def fix_safely(document: Path, buffers: Mapping[Path, str], settings: Settings) -> str | None:
    """The document's text with every safe fix applied, each proved as `check --fix` proves
    it; None when nothing would change (or the document cannot be checked)."""
    from sortlint.rewriters.apply import fix_file
    from sortlint.workspace.check import check

    fixed: list[str] = []

    def fix(analysis, tables, reanalyse):
        outcome = fix_file(analysis, tables, reanalyse, unsafe=False)
        if outcome.changed:
            fixed.append(outcome.final.raw)
        return outcome.final, outcome.tables

    with standing_in(_encoded(buffers)):
        try:
            config = settings.configure([document])
            check([document], config, on_file=fix, on_file_sees=Kept.FACTS)
        except UserError:
            return None  # the diagnostics say why
    return fixed[0] if fixed else None


def _encoded(buffers: Mapping[Path, str]) -> dict[Path, bytes]:
    return {path: text.encode("utf-8", "surrogatepass") for path, text in buffers.items()}
