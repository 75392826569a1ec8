"""Analysing files, and runs of a big file's statements, ahead in worker processes.

A check reads files in path order, and each file sees the views and tables the files before
it created, which a worker cannot know. So every worker analyses its share of the files from
the repository's state before any file was read (the tables of dbt models it reads it
analyses itself, on demand), and sends back a `FileRecord` of each file it analysed, with the
answers the repository gave it. The parent uses a record only where it holds - where the
repository, after the files before it, answers the same - and analyses every other file
again, in order; so the result is the one a sequential check makes, whatever the number of
workers.

A file of many statements is split the same way when it is checked alone (or fixed): each
worker analyses a run of its statements from the tables as they were before the file, and
the parent, reading the file in order, takes a statement's analysis where it holds - it
named no table a statement before it in the file defined, and defines none itself
(`sortlint.linter.results.UnitAnalysis.holds`) - and analyses any other itself.

Only records come back (plans stay in the worker), which is all a check without fixes
reports. Where forking is safe (Linux) workers are forked: they start from the parent's
memory (configuration, catalog, prepared projects) with nothing to import or send.
Elsewhere (macOS, where forking a process that may hold threads is unsafe, and Windows)
they are spawned and sent the workspace's starting state. A worker that fails leaves its
files to the parent.
"""

from __future__ import annotations

import gc
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sortlint.files import release_signals, signals_held
from sortlint.store import Store
from sortlint.workspace.records import FileRecord

if TYPE_CHECKING:
    # multiprocessing is imported where a worker starts: a check the cache answers starts
    # none, and importing it cost such a check about 3% of its instructions.
    from multiprocessing.connection import Connection
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

    from sortlint.linter.analysis import Ahead, AnalyseUnits
    from sortlint.linter.results import UnitAnalysis
    from sortlint.units import Unit
    from sortlint.workspace.check import Workspace

T = TypeVar("T")

# A worker costs a start and a result to unpickle; below this many files per worker the
# parent alone is as quick.
FILES_PER_WORKER = 4
# The same for a run of one file's statements (a statement costs about a millisecond).
STATEMENTS_PER_WORKER = 500


def default_start_method() -> str:
    """How workers start on this platform: forked where that is safe (Linux), spawned
    elsewhere (multiprocessing spawns on every platform it runs on, and forks on every one
    but Windows)."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


def analyse_ahead(
    files: Sequence[Path], workspace: Workspace, jobs: int, start_method: str | None = None
) -> dict[str, FileRecord] | None:
    """Records of the files (and of the models they read), by key, made by `jobs - 1`
    worker processes while this one analyses the first share; files a worker could not
    analyse are missing; None when no worker started (too few files). `start_method`
    ("fork", "spawn", "forkserver") overrides the platform's choice.

    Each share holds files of every depth of the files' lineage (as `Preparation.upstream`
    guesses it), upstream first, and the workers share their records through the cache as
    they make them (a scratch one for this run when the check has none): a model two
    workers' files read is analysed by the first to reach it, and mostly found by the
    other."""
    jobs = min(jobs, len(files) // FILES_PER_WORKER)
    if jobs < 2:
        return None
    import multiprocessing

    method = start_method or default_start_method()
    shares: list[list[Path]] = [[] for _ in range(jobs)]
    for level in lineage_levels(files, workspace.preparation.upstream):
        for share, part in zip(shares, balanced_shares(level, jobs)):
            share += part
    context = multiprocessing.get_context(method)
    if method == "fork":
        # Imported once here, not again in every worker: the analysis, its engines and
        # sqlglot are a third of a small repository's check.
        import sortlint.linter.analysis  # noqa: F401
    with _exchange(workspace.store, bool(workspace.preparation.definers)) as store:
        # A forked worker starts from this process's memory; any other is sent it.
        start = (workspace.reading, workspace.preparation, tuple(files), store)
        workers = []
        for share in shares[1:]:
            workers.append(_started(context, partial(_analyse_share, share, start)))
        found = _analyse_share(shares[0], start)
        for process, receive in workers:
            found.update(_collect(process, receive, {}))
    return found


def statements_ahead(jobs: int, start_method: str | None = None) -> Ahead | None:
    """How a big file's statements are analysed ahead by `jobs - 1` forked workers, or None
    where workers cannot be forked: a spawned one would be sent the whole file, its tokens
    and the repository's tables, which costs about what it saves."""
    if jobs < 2 or (start_method or default_start_method()) != "fork":
        return None
    return partial(_runs_ahead, jobs=jobs)


@contextmanager
def _runs_ahead(
    units: Sequence[Unit], analyse: AnalyseUnits, jobs: int
) -> Iterator[Callable[[int], UnitAnalysis | None]]:
    """Runs of the units after the first share, analysed by forked workers (one per
    `STATEMENTS_PER_WORKER` units, at most `jobs - 1`) while this process goes through the
    first; yields the analysis of a unit by index (None for the first share's, and for a
    worker's that failed), each worker's received when its first unit is asked for.
    Workers still running when it closes are stopped."""
    runs = contiguous_shares([len(unit.text) for unit in units], min(jobs, len(units) // STATEMENTS_PER_WORKER))
    workers = []
    try:
        for first, last in runs[1:]:
            workers.append((first, last, *_started(_forking(), partial(analyse, first, last))))
        yield _Received(workers).analysis
    finally:
        for _, _, process, receive in workers:
            receive.close()
            if process.is_alive():
                process.terminate()
            process.join()


class _Received:
    """The analyses the workers send, received in order as the units are asked for."""

    def __init__(self, workers: list) -> None:
        self.waiting = list(workers)
        self.first, self.analyses = 0, []  # the received run: its first unit, its analyses
        self.end = workers[0][0] if workers else 0  # where the received run ends

    def analysis(self, index: int) -> UnitAnalysis | None:
        while self.waiting and index >= self.end:
            first, last, process, receive = self.waiting.pop(0)
            self.first, self.end = first, last
            self.analyses = _collect(process, receive, [])
        offset = index - self.first
        return self.analyses[offset] if 0 <= offset < len(self.analyses) else None


def contiguous_shares(sizes: Sequence[int], count: int) -> list[tuple[int, int]]:
    """[first, last) of `count` runs of consecutive items, about equal in total size."""
    total = sum(sizes) or 1
    bounds, running, share = [0], 0, 1
    for index, size in enumerate(sizes):
        running += size
        if share < count and running * count >= total * share:
            bounds.append(index + 1)
            share += 1
    bounds.append(len(sizes))
    return [(first, last) for first, last in zip(bounds, bounds[1:]) if first < last]


def lineage_levels(files: Sequence[Path], upstream: Mapping[Path, tuple[Path, ...]]) -> list[list[Path]]:
    """The files by depth in their lineage: those reading no other file first, then those
    reading only files of the levels before, and so on (a cycle is cut where it closes)."""
    depths: dict[Path, int] = {}

    def depth(resolved: Path, visiting: frozenset[Path]) -> int:
        if resolved not in depths:
            above = [depth(u, visiting | {resolved}) for u in upstream.get(resolved, ()) if u not in visiting]
            depths[resolved] = 1 + max(above, default=-1)
        return depths[resolved]

    levels: dict[int, list[Path]] = {}
    for path in files:
        levels.setdefault(depth(path.resolve(), frozenset()), []).append(path)
    return [levels[level] for level in sorted(levels)]


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


@contextmanager
def _exchange(store: Store | None, shared: bool) -> Iterator[Store | None]:
    """Where the workers leave their records for each other: the check's cache, else a
    scratch directory removed when they are done - or nowhere, when no file is `shared`:
    without files that define what others read (dbt models), a worker analyses its own
    share and nothing else, so no other process would read what it left (writing every
    record there cost each process ~15 ms on the 103 TPC-DS files)."""
    if store is not None or not shared:
        yield store
        return
    with tempfile.TemporaryDirectory(prefix="sortlint-") as scratch:
        yield Store(Path(scratch))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _forking() -> BaseContext:
    import multiprocessing

    return multiprocessing.get_context("fork")


def _started(context: BaseContext, work: Callable[[], object]) -> tuple[BaseProcess, Connection]:
    """A worker doing `work` and sending what it makes back, and the end to receive it from.

    It starts with Ctrl-C held back: a SIGINT that lands inside the fork, while Python runs
    its at-fork hooks, is printed and dropped there ("Exception ignored in"), and the check
    would go on to the end. Held, it reaches this process just after, and the worker once it
    lets signals go (the first thing it does).

    What this process holds when it forks is first put out of the cyclic collector's reach
    for good (`gc.freeze`, as the check does with what it imported): a worker's full
    collections would otherwise go over the whole heap it inherited - a big file's tokens,
    the analyses a fixer keeps - copying it page by page as they mark it, and so would this
    process's while the worker runs. What is frozen is still freed when nothing refers to
    it; only cycles among it would stay."""
    receive, send = context.Pipe(duplex=False)
    # A forked worker holds a copy of its pipe's reading end too, which it closes.
    forked = context.get_start_method() == "fork"
    own_end = receive if forked else None
    process = context.Process(target=_work, args=(send, work, own_end), daemon=True)
    if forked:
        gc.freeze()
    with signals_held():
        process.start()
    send.close()
    return process, receive


def _work(send: Connection, work: Callable[[], object], own_end: Connection | None) -> None:
    """A worker: do the work (a share of files, a run of one file's statements), send what
    it made, leave. A failure ends the worker without a word: the parent does the work
    itself, and reports what goes wrong. So does Ctrl-C, which reaches the whole process
    group: the parent says it.

    The worker first lets go the signals it was started with held (see `_started`), then
    closes the copy of the pipe's reading end a fork gave it: while it held one, a parent
    gone (interrupted before it read) left the worker blocked in `send` for ever once the
    pipe was full."""
    try:
        release_signals()
        if own_end is not None:
            own_end.close()
        send.send(work())
    except (Exception, KeyboardInterrupt):
        raise SystemExit(1) from None
    finally:
        send.close()


def _analyse_share(share: Sequence[Path], start: tuple) -> dict[str, FileRecord]:
    """The records of a share's files, made in a workspace of their own from the check's
    starting state (`reading, preparation, files, store`)."""
    from sortlint.workspace.check import Workspace

    workspace = Workspace(*start)
    for path in share:
        workspace.outcome_of(path)
    return workspace.made


def _collect(process: BaseProcess, receive: Connection, nothing: T) -> T:
    """What the worker sent, or `nothing` when it failed."""
    try:
        results = receive.recv()
    except (EOFError, OSError):  # the worker died before it sent anything
        results = nothing
    finally:
        receive.close()
    process.join()
    return results if process.exitcode == 0 else nothing
