"""Analysing files ahead in worker processes.

A check reads files in path order, and each file sees the views and tables the files before
it created, which a worker cannot know. So every worker analyses its share of the files from
the repository's state before any file was read, and records, per file, the names it looked
up in the repository and the names it created. `check` keeps a worker's analysis only for a
file that creates nothing and read no name a file before it created: such a file's tables
all came from the catalog and the dbt models known before any file was read, so its
analysis is the one a sequential check makes. Every other file is analysed again, in order,
by the parent.

Only findings and errors come back (plans stay in the worker), which is all a check without
fixes reports. Where forking is safe (Linux) workers are forked: they start from the
parent's memory (configuration, catalog, dbt models) with nothing to import or send.
Elsewhere (macOS, where forking a process that may hold threads is unsafe, and Windows)
they are spawned: each is sent the configuration and the list of files, and rebuilds the
repository's starting state itself. A worker that fails leaves its files to the parent.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from sortlint.errors import UserError
from sortlint.linter.analysis import FileAnalysis, Kept, analyse_file
from sortlint.sources.frontend import Reading
from sortlint.files import read_source
from sortlint.workspace.models import starting_state
from sortlint.workspace.tables import FileTables, RepositoryTables

# A worker costs a start and a result to unpickle; below this many files per worker the
# parent alone is as quick.
FILES_PER_WORKER = 4


@dataclass(frozen=True)
class Ahead:
    """A file's analysis made from the repository's starting state."""

    analysis: FileAnalysis  # without its statements
    created: frozenset[str]
    read: frozenset[str]

    def independent_of(self, created_before: set[str]) -> bool:
        """Whether a sequential check, after files that created `created_before`, would
        make the same analysis (and leave the repository as it was)."""
        return not self.created and self.read.isdisjoint(created_before)


def default_start_method() -> str | None:
    """How workers start on this platform: forked where that is safe (Linux), spawned
    elsewhere; None where neither is possible."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods:
        return "fork"
    return "spawn" if "spawn" in methods else None


def analyse_ahead(
    files: Sequence[Path],
    reading: Reading,
    repository: RepositoryTables,
    jobs: int,
    start_method: str | None = None,
) -> dict[Path, Ahead]:
    """Analyses of the files, made by `jobs` processes (this one included); files a worker
    could not analyse are missing. `start_method` ("fork", "spawn", "forkserver") overrides
    the platform's choice."""
    jobs = min(jobs, len(files) // FILES_PER_WORKER)
    method = start_method or default_start_method()
    if jobs < 2 or method is None:
        return {}
    shares = balanced_shares(files, jobs)
    context = multiprocessing.get_context(method)
    # A forked worker shares the parent's starting state; any other is sent what it needs
    # to rebuild it.
    state = repository if method == "fork" else None
    workers = []
    for share in shares[1:]:
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_work, args=(send, share, reading, state, tuple(files)), daemon=True)
        process.start()
        send.close()
        workers.append((process, receive))
    found = dict(_analyse_share(shares[0], reading, repository))
    for process, receive in workers:
        found.update(_collect(process, receive))
    return found


def balanced_shares(files: Sequence[Path], count: int) -> list[list[Path]]:
    """`count` shares of about equal size in bytes: largest files first, each to the share
    with the fewest bytes so far."""
    shares: list[list[Path]] = [[] for _ in range(count)]
    loads = [0] * count
    sizes = {path: _size(path) for path in files}
    for path in sorted(files, key=sizes.__getitem__, reverse=True):
        lightest = loads.index(min(loads))
        shares[lightest].append(path)
        loads[lightest] += sizes[path]
    return shares


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _analyse_share(share: Sequence[Path], reading: Reading, repository: RepositoryTables) -> list[tuple[Path, Ahead]]:
    made = []
    for path in share:
        try:
            raw = read_source(path)
        except UserError:
            continue  # reported when the parent reads the file
        tables = FileTables(repository)
        analysis = analyse_file(path, raw, reading, tables, Kept.NOTHING)
        made.append((path, Ahead(analysis, frozenset(tables.created), frozenset(tables.read))))
    return made


def _work(
    send: Connection, share: Sequence[Path], reading: Reading, state: RepositoryTables | None, files: Sequence[Path]
) -> None:
    """A worker: analyse the share, send the analyses, leave. A failure ends the worker
    without a word: the parent analyses its files itself, and reports what goes wrong. So
    does Ctrl-C, which reaches the whole process group: the parent says it."""
    try:
        repository = state if state is not None else starting_state(files, reading.config)
        send.send(_analyse_share(share, reading, repository))
    except (Exception, KeyboardInterrupt):
        raise SystemExit(1) from None
    finally:
        send.close()


def _collect(process: multiprocessing.process.BaseProcess, receive: Connection) -> list[tuple[Path, Ahead]]:
    try:
        results = receive.recv()
    except (EOFError, OSError):  # the worker died before it sent anything
        results = []
    finally:
        receive.close()
    process.join()
    return results if process.exitcode == 0 else []
