"""Analysing files ahead in forked worker processes.

A check reads files in path order, and each file sees the views and tables the files before
it created, which a worker cannot know. So every worker analyses its share of the files from
the repository's state before any file was read, and records, per file, the names it looked
up in the repository and the names it created. `check` keeps a worker's analysis only for a
file that creates nothing and read no name a file before it created: such a file's tables
all came from the catalog and the dbt models known before any file was read, so its
analysis is the one a sequential check makes. Every other file is analysed again, in order,
by the parent.

Only findings and errors come back (plans stay in the worker), which is all a check without
fixes reports. Workers are forked, so they start from the parent's memory (configuration,
catalog, dbt models) with nothing to import or send; where there is no fork, or a worker
fails, the parent analyses the files itself.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.errors import UserError

if TYPE_CHECKING:
    from sortlint.linter.repository import FileAnalysis, RepositoryTables
    from sortlint.sources.frontend import Reading

# A worker costs a fork and a result to unpickle; below this many files per worker the
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


def analyse_ahead(files: Sequence[Path], reading: Reading, repository: RepositoryTables, jobs: int) -> dict[Path, Ahead]:
    """Analyses of the files, made by `jobs` processes (this one included); files a worker
    could not analyse are missing."""
    jobs = min(jobs, len(files) // FILES_PER_WORKER)
    if jobs < 2 or not hasattr(os, "fork"):
        return {}
    shares = balanced_shares(files, jobs)
    children = [_fork(share, reading, repository) for share in shares[1:]]
    found = dict(_analyse_share(shares[0], reading, repository))
    for child in children:
        found.update(_collect(*child))
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
    from sortlint.linter.repository import FileTables, analyse_file, read_text

    made = []
    for path in share:
        try:
            raw = read_text(path)
        except UserError:
            continue  # reported when the parent reads the file
        tables = FileTables(repository)
        analysis = analyse_file(path, raw, reading, tables)
        analysis = replace(analysis, statements=[])
        made.append((path, Ahead(analysis, frozenset(tables.created), frozenset(tables.read))))
    return made


def _fork(share: Sequence[Path], reading: Reading, repository: RepositoryTables) -> tuple[int, int]:
    """Start a worker on `share`: its process id and the pipe its results come through."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        os.close(read_end)
        status = 1
        try:
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(_analyse_share(share, reading, repository), out, pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            # Leave without running the parent's exit handlers or flushing its buffers.
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(pid: int, read_end: int) -> list[tuple[Path, Ahead]]:
    with os.fdopen(read_end, "rb") as results:
        data = results.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return []
    try:
        return pickle.loads(data)
    except Exception:  # a truncated result: the parent analyses those files itself
        return []
