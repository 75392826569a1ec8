"""Check a set of files: read, split, build, analyse and lint every statement.

Files are taken in path order and statements in file order, so a view is known to every
statement of its file after the one that creates it. A file that cannot be read or split,
or a statement that does not parse, is reported as an error and the rest is still checked.

Before any file is read, each front end prepares (`sources.registry.prepare`): a dbt
project's declarations join the catalog, and the tables of its models and of the project's
other files are known by name with the file that defines them (`Preparation.definers`). A
file naming such a table has its definer analysed first, on demand, so checking one file
analyses only it and what it reads, and what a file sees of other files does not depend on
which files are checked or in what order; every file is analysed once per run. A view or
table no file defines alone (two files write it) is known only by its declarations.

A file's analysis is kept as a `FileRecord` (see `sortlint.workspace.records`): in the
persistent cache (`store`) for later runs, and from the worker processes that analyse
files ahead. A record is used only where it holds - every input it read unchanged, every
table it named answered as it was - else the file is analysed again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config import Config
from sortlint.config.citations import portable_citations, shown_path
from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.files import read_source, recording_inputs
from sortlint.linter.results import FileAnalysis, Kept
from sortlint.sources.registry import Preparation, Reading, prepare
from sortlint.store import Store, digest, sortlint_digest
from sortlint.workspace.discovery import ProjectFiles, discover
from sortlint.workspace.records import RECORDS, Definition, FileRecord, answer, record_key, reported
from sortlint.workspace.tables import FileTables, RepositoryTables

if TYPE_CHECKING:
    from sortlint.linter.analysis import Ahead

# (new text of the file, the analysis of its text before, if any) -> its analysis and tables
Reanalyse = Callable[[str, "FileAnalysis | None"], "tuple[FileAnalysis, FileTables]"]
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
    store: Store | None = None,
    on_file_sees: Kept = Kept.PLANS,
    progress: Callable[[int, int], None] | None = None,
    earlier: Callable[[Path, RepositoryTables], FileAnalysis | None] | None = None,
) -> Result:
    """Analyse every file. `on_file(analysis, tables, reanalyse)` may replace a file's
    analysis (the fixer does); `reanalyse(text, earlier)` analyses new text from the same
    start, taking from `earlier` (the analysis of the text it was made from, or None) what
    no change touched.

    With `jobs` > 1, worker processes analyse files ahead - or, when there are too few files
    to share (or an `on_file` takes them one by one), runs of a big file's statements (see
    `sortlint.workspace.workers`; `start_method` forces how they start). `store` is the
    persistent cache, read and written by a check that reports (a fixer's analyses and
    `plans` are always made afresh). `force_exclude=False` checks every file named in
    `paths` whatever the exclude globs and `.gitignore` say.

    The analyses keep their statements' plans only with `plans` (explain shows them) or for
    an `on_file`, which sees as much of each statement as `on_file_sees` says (the fixer
    proves its fixes with `Kept.FACTS`); a check that reports lets each plan go once it is
    linted. `progress(done, total)` hears of each file done.

    `earlier(resolved path, repository)` gives, for a file an `on_file` sees, an analysis
    of an earlier text of it (`Kept.FACTS`) that still holds, the tables it named answered
    as they were (or None): what no change touched is taken from it, as `reanalyse` does
    (the language server's edits)."""
    discovery = discover(paths, config, force_exclude)
    result = Result(errors=discovery.errors, skipped=discovery.skipped)
    files = discovery.files
    resolved = [discovery.resolved[path] for path in files]
    reading = Reading(config, store=store, project_files=ProjectFiles(config, tuple(resolved)))
    preparation = prepare(files, reading)
    result.config = reading.config
    fresh = plans or on_file is not None
    keep = Kept.PLANS if plans else on_file_sees
    workspace = Workspace(reading, preparation, files, None if fresh else store, portable=not fresh,
                          resolved=resolved)
    if jobs > 1:
        from sortlint.workspace import workers  # multiprocessing: not for one process

        uncached = [] if fresh else [path for path in files if not workspace.in_store(path)]
        found = workers.analyse_ahead(uncached, workspace, jobs, start_method)
        if found is None:
            workspace.ahead = workers.statements_ahead(jobs, start_method)
        else:
            workspace.candidates.update(found)
    for done, path in enumerate(files, 1):
        if progress is not None:
            progress(done - 1, len(files))
        if not fresh:
            outcome = workspace.outcome_of(path)
            if outcome is not None:
                result.errors += outcome.read_errors
                if outcome.record is not None:
                    result.files.append(reported(outcome.record.analysis, reading.config.root))
            continue
        try:
            raw = read_source(path)
        except UserError as error:
            result.errors.append(error)
            continue

        def reanalyse(text: str, earlier: FileAnalysis | None, path: Path = path) -> tuple[FileAnalysis, FileTables]:
            from sortlint.linter.analysis import analyse_file

            tables = FileTables(workspace.repository)
            return analyse_file(path, text, reading, tables, keep, workspace.ahead, earlier), tables

        before = earlier(workspace.resolved(path), workspace.repository) if earlier is not None and on_file is not None else None
        analysis, tables = reanalyse(raw, before)
        if on_file is not None:
            analysis, tables = on_file(analysis, tables, reanalyse)
        workspace.publish(path, map(Definition.of, tables.creators))
        workspace.finished(path)
        result.files.append(analysis if plans else replace(analysis, statements=[]))
    result.errors += workspace.definer_errors
    return result


@dataclass(frozen=True)
class Outcome:
    """What became of one file: its record, or the errors that kept it from being read."""

    record: FileRecord | None
    read_errors: tuple[UserError, ...] = ()


class Workspace:
    """The repository during one check: its tables, the files analysed so far, and where
    analyses may be taken from (records made by workers, the persistent cache)."""

    def __init__(self, reading: Reading, preparation: Preparation, files: Sequence[Path],
                 store: Store | None, portable: bool = True, resolved: Sequence[Path] | None = None) -> None:
        """`resolved` holds each file's resolved path, when known (discovery found them)."""
        self.reading = reading
        # Whether records cite paths as marks (`sortlint.workspace.records`): not where the
        # analyses go to an `on_file` or keep their plans - they are never kept, and what
        # sees them (the fixer, explain) is shown them as they are.
        self.portable = portable
        self.preparation = preparation
        self.store = store
        self.repository = RepositoryTables(reading.config, self._define)
        self.environment = digest(sortlint_digest(), repr(reading.config))
        self._resolved = (dict(zip(files, resolved)) if resolved is not None
                          else {path: path.resolve() for path in files})
        self.given = {resolved: path for path, resolved in self._resolved.items()}  # as the check names them
        self.candidates: dict[str, FileRecord] = {}  # by key: records made by workers
        self.made: dict[str, FileRecord] = {}  # by key: records this process made
        self.outcomes: dict[Path, Outcome] = {}  # by resolved path
        self.busy: set[Path] = set()
        self._sources: dict[Path, tuple[str, str]] = {}
        # How runs of a big file's statements are analysed ahead by other processes, if at
        # all (when the files are not: see `sortlint.workspace.workers`).
        self.ahead: Ahead | None = None
        # The errors of files no path of the check names, which could not be read (or
        # rendered, or parsed) when another file read a table they define: errors of the
        # run, or what they define would be missing without a word.
        self.definer_errors: list[UserError] = []

    def outcome_of(self, path: Path) -> Outcome | None:
        """The file's analysis, made once per run (None while it is being made: a cycle);
        what it defines is registered."""
        resolved = self.resolved(path)
        if resolved in self.outcomes:
            return self.outcomes[resolved]
        if resolved in self.busy:
            return None
        self.busy.add(resolved)
        try:
            outcome = self._outcome(path)
        finally:
            self.busy.discard(resolved)
        self.outcomes[resolved] = outcome
        return outcome

    def finished(self, path: Path) -> None:
        """The check analysed the file itself (a fixer's analysis): it is not analysed again
        when another file reads what it defines."""
        self.outcomes[self.resolved(path)] = Outcome(None)

    def resolved(self, path: Path) -> Path:
        if path not in self._resolved:
            self._resolved[path] = path.resolve()
        return self._resolved[path]

    def in_store(self, path: Path) -> bool:
        """Whether the cache has a record of the file as it is now (which may or may not
        hold): such a file is left to this process, it costs no worker."""
        if self.store is None:
            return False
        try:
            _, key = self._source(path)
        except UserError:
            return False
        return self.store.has(RECORDS, key)

    def _source(self, path: Path) -> tuple[str, str]:
        """The file's text and its record's key, read once per run."""
        if path not in self._sources:
            raw = read_source(path)
            self._sources[path] = raw, self._key(path, raw)
        return self._sources[path]

    def _key(self, path: Path, raw: str) -> str:
        return record_key(self.environment, path, raw, self.preparation.context(self.resolved(path), raw))

    def _outcome(self, path: Path) -> Outcome:
        try:
            raw, key = self._source(path)
        except UserError as error:
            return Outcome(None, (error,))
        record = self._kept(key)
        if record is None:
            record = self.made[key] = self.analyse(path, raw)
            if self.store is not None and all(error.lasting for error in record.analysis.errors):
                # keyed anew: analysing it may have shown its context depends on more than
                # was known (the models a dbt model's rendering resolved)
                self.store.put(RECORDS, self._key(path, raw), record)
        self.publish(path, record.definitions)
        return Outcome(record)

    def _kept(self, key: str) -> FileRecord | None:
        """A record of the file as it is that still holds: a worker's, else the cache's."""
        for made in (lambda: self.candidates.get(key), lambda: self._stored(key)):
            record = made()
            if record is not None and record.holds(self.repository):
                return record
        return None

    def _stored(self, key: str) -> FileRecord | None:
        found = self.store.get(RECORDS, key) if self.store is not None else None
        return found if isinstance(found, FileRecord) else None

    def analyse(self, path: Path, raw: str) -> FileRecord:
        from sortlint.linter.analysis import analyse_file  # not needed by a run the cache answers

        tables = FileTables(self.repository)
        # Made to be read from anywhere (see `sortlint.workspace.records`), and so are the
        # definitions whose facts the files after it cite.
        citing = portable_citations(self.reading.config.root) if self.portable else nullcontext()
        with recording_inputs() as inputs, citing:
            analysis = analyse_file(path, raw, self.reading, tables, Kept.NOTHING, self.ahead)
        inputs.pop(str(path.resolve()), None)  # the file itself is in the key
        definitions = tuple(d for d in map(Definition.of, tables.creators) if d is not None)
        reads = tuple((name, answer(self.repository, name)) for name in sorted(tables.read))
        return FileRecord(analysis, definitions, reads, tuple(sorted(inputs.items())))

    def publish(self, path: Path, definitions: Iterable[Definition | None]) -> None:
        """Make what the file defines known to the other files: each view or table of which
        it is the definer (a name two files write is known by its declarations only)."""
        resolved = self.resolved(path)
        for definition in definitions:
            if definition is None:
                continue
            definer = self.preparation.definers.get(definition.name.lower())
            if definer is not None and self.resolved(definer) == resolved:
                definition.register(self.repository.created)
                self.repository.answers.clear()

    def _define(self, name: str) -> None:
        """A statement named `name`, which a file the front ends know defines: analyse it."""
        path = self.preparation.definers.get(name)
        if path is None:
            return
        resolved = self.resolved(path)
        known = resolved in self.outcomes
        # Named as the check's paths name it, else as a walk of a folder from here names it
        # (relative to the working directory, `shown_path`): the record key holds the name, so
        # a one-file check finds the records of its upstream that a whole-project run made.
        outcome = self.outcome_of(self.given.get(resolved) or shown_path(resolved))
        if outcome is None or known or resolved in self.given:
            return  # a checked file's own errors are reported as it is checked
        analysed = outcome.record.analysis.errors if outcome.record is not None else []
        self.definer_errors += [
            replace(error, path=shown_path(Path(error.path)) if error.path is not None else None,
                    message=f"{error.message} (it defines {name}, which a checked file reads)")
            for error in (*outcome.read_errors, *analysed)
        ]
