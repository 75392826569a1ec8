"""Checking an editor's open documents as they are, saved or not.

A *project* is the files one configuration file governs (`find_config`, or `--config` for
every file). Its open documents are checked together, in one run, with the text of every
open buffer standing in for its file (`sortlint.files.standing_in`): a model edited in
another buffer, not yet saved, is what its readers read. The run uses the project's
configuration and catalog, and its persistent cache: what the cache says of a file is used
only while the file, what it read and the tables it named are as they were (see
`sortlint.workspace.check`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sortlint.config import Config, find_config
from sortlint.errors import ConfigError, InternalError, UserError, each_error
from sortlint.files import standing_in
from sortlint.linter.results import FileAnalysis, Kept
from sortlint.store import Store


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
    found.files = {file.path.resolve(): file for file in result.files}
    found.add_errors(result.all_errors)
    found.messages += [f"{path}: skipped: {reason}" for path, reason in result.skipped]
    found.messages += store.problems if store is not None else []
    for kind, text in dict.fromkeys(remark for file in result.files for remark in file.remarks):
        (found.warnings if kind == "warning" else found.messages).append(text)
    return found


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
