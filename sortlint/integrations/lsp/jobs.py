"""Running a check in a process of its own, which can be killed.

A check of a 2 MB file takes tens of seconds, and a dbt template may render forever: run
on a thread, a check could be neither interrupted when a newer change made it pointless nor
stopped when the editor says `exit`, and checks could only take turns, since what a check
reads (`sortlint.files.standing_in`, `recording_inputs`) is the process's. So each check
runs in a process forked from the server: it starts from the server's memory (the analysis
imported once, by `preload`), checks, sends its result back and ends; one no longer wanted
is killed, whatever it is doing. Checks of different documents run side by side.

Where forking is unsafe (macOS, Windows: see `sortlint.workspace.workers`), checks run one
at a time on a thread, as before: one no longer wanted is left to finish, its result
dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from sortlint.collector import collector_paused

T = TypeVar("T")

_running: set[BaseProcess] = set()
_waiting = ThreadPoolExecutor(thread_name_prefix="sortlint-wait")  # each blocks on a child's pipe
_in_turn = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sortlint-check")  # where forking is unsafe


class Killed(Exception):
    """The check's process ended before sending its result."""


def forking() -> bool:
    from sortlint.workspace.workers import default_start_method

    return default_start_method() == "fork"


def preload() -> None:
    """Import what a check runs, once, so that a forked check does not import it again."""
    import sortlint.linter.analysis  # noqa: F401
    import sortlint.rewriters.apply  # noqa: F401
    import sortlint.workspace.check  # noqa: F401


async def run(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a process of its own; cancelling the caller kills it."""
    loop = asyncio.get_running_loop()
    if not forking():
        return await loop.run_in_executor(_in_turn, function, *args)
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sending, function, args, receiving), daemon=True, name="sortlint-check")
    process.start()
    sending.close()
    _running.add(process)
    try:
        ok, value = await loop.run_in_executor(_waiting, _receive, receiving)
    finally:
        _end(process)
        receiving.close()
    if not ok:
        raise RuntimeError(value)
    return value


class Worker:
    """A process of its own that checks one document, again and again, and keeps what it
    needs to check the next text of it faster (`checking.check_big_document`'s earlier
    analysis): killing it at every change would throw that away. A check no longer wanted
    is interrupted instead - a signal raises `Interrupted` in it, wherever it is, and it
    answers that it stopped - and the process is killed only when it does not answer
    within `GRACE` seconds (a template rendering forever in C), or when it is ended."""

    GRACE = 5.0

    def __init__(self, serve: Callable[[Any, Any], tuple[Any, Any]]) -> None:
        # serve(request, state) -> (answer, state), run in the worker.
        self.serve = serve
        self.process: BaseProcess | None = None
        self.connection: Connection | None = None
        self.lock = asyncio.Lock()

    async def ask(self, request: Any) -> Any:
        """The answer to `request`; cancelling the caller interrupts the worker."""
        loop = asyncio.get_running_loop()
        async with self.lock:
            if self.process is None or not self.process.is_alive():
                self._start()
            assert self.connection is not None and self.process is not None
            connection, process = self.connection, self.process
            connection.send(request)
            answer = loop.run_in_executor(_waiting, _receive, connection)
            try:
                ok, value = await asyncio.shield(answer)
            except asyncio.CancelledError:
                if process.pid is not None:
                    with contextlib.suppress(ProcessLookupError):  # it just died: its pipe says so
                        os.kill(process.pid, signal.SIGUSR1)
                try:  # its answer, whatever it is, must be read before the next request is sent
                    await asyncio.wait_for(answer, self.GRACE)
                except BaseException:
                    self.end()
                raise
            except Killed:
                self.end()
                raise
        if not ok:
            raise RuntimeError(value)
        return value

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe()
        process = context.Process(target=_work, args=(theirs, self.serve, ours), daemon=True, name="sortlint-worker")
        process.start()
        theirs.close()
        self.process, self.connection = process, ours
        _running.add(process)

    def end(self) -> None:
        if self.process is not None:
            _end(self.process)
        if self.connection is not None:
            self.connection.close()
        self.process = self.connection = None


class Interrupted(BaseException):
    """Raised in a worker by the signal that says its check is no longer wanted; not an
    Exception, so that no `except Exception` in the analysis takes it for an error."""


_busy = False  # whether the worker is checking (else the signal finds nothing to interrupt)


def _interrupt(signum: int, frame: Any) -> None:
    if _busy:
        raise Interrupted


def _work(connection: Connection, serve: Callable[[Any, Any], tuple[Any, Any]], server_end: Connection) -> None:
    global _busy
    server_end.close()  # see `_child`
    signal.signal(signal.SIGUSR1, _interrupt)
    state = None
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):  # the server is gone
            return
        try:
            _busy = True
            answer, state = serve(request, state)
            _busy = False
            outcome = (True, answer)
        except Interrupted:
            outcome = (True, None)  # state is as the last check that ended left it
        except BaseException:
            outcome = (False, traceback.format_exc())
        finally:
            _busy = False
        try:
            connection.send(outcome)
        except Exception:  # an answer that does not pickle is sortlint's bug: said as one
            connection.send((False, traceback.format_exc()))
        # What the next check keeps from this one (a big document's analysis, hundreds of
        # thousands of objects) is set apart from the collector: its passes during the next
        # check go over what that check makes, not over it again and again (half of a
        # one-line edit's check of a 2 MB file). What this check dropped is collected now,
        # the answer sent. (Not paused during a check: the plans a check lets go are cycles,
        # which would pile up.)
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def kill_all() -> None:
    """Kill every check still running (the server is ending)."""
    for process in list(_running):
        _end(process)


def _end(process: BaseProcess) -> None:
    if process.is_alive():
        process.kill()
    process.join()
    _running.discard(process)


def _receive(receiving: Connection) -> tuple[bool, Any]:
    try:
        with collector_paused():
            return receiving.recv()
    except (EOFError, OSError):  # killed, or the pipe closed under it
        raise Killed from None


def _child(sending: Connection, function: Callable[..., Any], args: tuple[Any, ...], server_end: Connection) -> None:
    # The server's end of the pipe, inherited: held open here, it would keep a result
    # bigger than the pipe's buffer from ever being sent once the server is gone (killed),
    # the child blocked for ever, holding the server's standard output open, and the
    # client waiting for it to close.
    server_end.close()
    try:
        outcome = (True, function(*args))
    except BaseException:
        outcome = (False, traceback.format_exc())
    try:
        sending.send(outcome)
    except Exception:  # a result that does not pickle is sortlint's bug: said as one
        sending.send((False, traceback.format_exc()))
