"""Check a set of files: read, split, build, analyse and lint every statement.

Files are taken in path order and statements in file order, so a view is known to every
statement after the one that creates it. A file that cannot be read or split, or a
statement that does not parse, is reported as an error and the rest is still checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sortlint.config import Config
from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.linter.analysis import FileAnalysis, Kept, analyse_file
from sortlint.sources.dbt.project import with_declarations
from sortlint.sources.frontend import Reading
from sortlint.files import read_source
from sortlint.workspace.discovery import discover
from sortlint.workspace.models import starting_state
from sortlint.workspace.tables import FileTables
from sortlint.workspace.workers import Ahead, analyse_ahead

Reanalyse = Callable[[str], "tuple[FileAnalysis, FileTables]"]
# (analysis, tables, reanalyse) -> the analysis and tables to keep for the file (the fixer's).
OnFile = Callable[[FileAnalysis, FileTables, Reanalyse], "tuple[FileAnalysis, FileTables]"]


@dataclass
class Result:
    files: list[FileAnalysis] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    config: Config | None = None  # the config the files were checked with (dbt meta merged)
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # named paths not checked, why

    @property
    def findings(self) -> list[Finding]:
        return [finding for file in self.files for finding in file.findings]

    @property
    def all_errors(self) -> list[UserError]:
        return self.errors + [error for file in self.files for error in file.errors]


def check(
    paths: Sequence[Path],
    config: Config,
    on_file: OnFile | None = None,
    jobs: int = 1,
    start_method: str | None = None,
    force_exclude: bool = True,
    plans: bool = False,
    on_file_sees: Kept = Kept.PLANS,
) -> Result:
    """Analyse every file. `on_file(analysis, tables, reanalyse)` may replace a file's
    analysis (the fixer does); `reanalyse(text)` analyses new text from the same start.

    With `jobs` > 1 and no `on_file`, worker processes analyse files ahead (see
    `sortlint.workspace.workers`; `start_method` forces how they start); the analyses they
    made carry findings and errors but not plans (`statements` is empty). Findings and
    errors are those of a sequential check. `force_exclude=False` checks every file named
    in `paths` whatever the exclude globs and `.gitignore` say.

    The analyses keep their statements' plans only with `plans` (explain shows them) or for
    an `on_file`, which sees as much of each statement as `on_file_sees` says (the fixer
    proves its fixes with `Kept.FACTS`); a check that reports lets each plan go once it is
    linted."""
    discovery = discover(paths, config, force_exclude)
    result = Result(errors=discovery.errors, skipped=discovery.skipped)
    files = discovery.files
    # dbt projects among the files: their YAML's declarations join the catalog, and every
    # model is known before any file is read (a file may come before the models it reads).
    config = with_declarations(files, config)
    result.config = config
    repository = starting_state(files, config)
    reading = Reading(config)
    ahead: dict[Path, Ahead] = {}
    if on_file is None and jobs > 1:
        ahead = analyse_ahead(files, reading, repository, jobs, start_method)
    keep = Kept.PLANS if plans else on_file_sees if on_file is not None else Kept.NOTHING
    created: set[str] = set()  # by the files checked so far
    for path in files:
        early = ahead.get(path)
        if early is not None and early.independent_of(created):
            result.files.append(early.analysis)
            continue
        try:
            raw = read_source(path)
        except UserError as error:
            result.errors.append(error)
            continue

        def reanalyse(text: str, path: Path = path) -> tuple[FileAnalysis, FileTables]:
            tables = FileTables(repository)
            return analyse_file(path, text, reading, tables, keep), tables

        analysis, tables = reanalyse(raw)
        if on_file is not None:
            analysis, tables = on_file(analysis, tables, reanalyse)
        tables.commit()
        created |= tables.created
        result.files.append(analysis if plans else replace(analysis, statements=[]))
    return result
