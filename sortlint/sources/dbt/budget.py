"""What one rendering of a template may cost: a template runs code of its own, which may
never end (`{% for i in range(100000) %}{% for j in range(100000) %}...`) or produce
gigabytes, and a check - or the language server's long-lived process - must go on past it.

Time: a watching thread (one per process, idle between renderings) raises `RenderTimedOut`
in the rendering thread once that thread has computed for the budget's seconds (CPython's
asynchronous exceptions: it lands between two bytecodes of whatever Python code runs there -
the template's loops, a macro, sqlfluff's tracer, dbt's compiler). That works on any thread,
so nothing has to run in a process of its own, and no rendering is left running after it.
One C call is not interrupted until it returns (`'x' * 10**10` fails on its own, as a
MemoryError).

Output: Jinja joins a template's output with its environment's `concat`; `concat` here counts
what it joins, and raises `RenderTooBig` past the budget. A macro's output is counted where
it joins the template's (its own growth is bounded by the time).

Both are BaseExceptions: a template's `except Exception` (sqlfluff's, dbt's) does not take
them for the template's own error.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sortlint.errors import UserError


class OverBudget(BaseException):
    """A rendering went past its budget."""


class RenderTimedOut(OverBudget):
    pass


class RenderTooBig(OverBudget):
    pass


_limits = threading.local()  # max_bytes: the output budget of the rendering on this thread


class _Budget:
    """One rendering's time budget, as the watcher sees it."""

    def __init__(self, thread: int, seconds: float) -> None:
        self.thread = thread
        self.seconds = seconds
        self.spent = _clock(thread)
        self.fired = False


class _Watcher:
    """The one thread that watches every rendering's time budget. A thread of its own per
    rendering cost a thread start and two switches to it per model (issue 31: most of a 10%
    slower cold check of a 1,200-model project on two busy cores); this one sleeps until the
    earliest moment a budget can run out, so a project's renderings, each far within its
    budget, wake it about once per budget's seconds."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._budgets: set[_Budget] = set()
        self._wakes_at = float("inf")  # monotonic time the watcher is asleep until
        self._thread: threading.Thread | None = None

    def start(self, budget: _Budget) -> None:
        with self._changed:
            self._budgets.add(budget)
            if self._thread is None:  # first use, or after a fork (threads do not survive it)
                self._thread = threading.Thread(target=self._watch, name="sortlint-render-budget",
                                                daemon=True)
                self._thread.start()
            # A thread's computing time grows no faster than the clock on the wall, so the
            # budget cannot run out before `seconds` from now: wake the watcher only if it
            # sleeps past that.
            if time.monotonic() + budget.seconds < self._wakes_at:
                self._changed.notify()

    def end(self, budget: _Budget) -> None:
        with self._changed:
            self._budgets.discard(budget)
            if budget.fired:  # raised as the block ended: not delivered yet, so never
                _raise_in(budget.thread, None)

    def _watch(self) -> None:
        with self._changed:
            while True:
                left = float("inf")
                for budget in list(self._budgets):
                    remaining = budget.seconds - budget.spent()
                    if remaining <= 0:
                        budget.fired = True
                        self._budgets.discard(budget)
                        _raise_in(budget.thread, RenderTimedOut)
                    else:
                        left = min(left, remaining)
                wait = None if left == float("inf") else max(left, 0.01)
                self._wakes_at = time.monotonic() + (float("inf") if wait is None else wait)
                self._changed.wait(wait)

    def forked(self) -> None:
        """In a forked child: the parent's watcher thread is not there."""
        self._changed = threading.Condition()
        self._budgets = set()
        self._wakes_at = float("inf")
        self._thread = None


_watcher = _Watcher()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_watcher.forked)


@contextmanager
def limited(seconds: float, max_bytes: int) -> Iterator[None]:
    """Within the block, this thread's rendering raises `RenderTimedOut` once it has
    computed for `seconds` - the thread's own CPU time where the platform tells it, so
    that neither a busy machine nor waiting for a database (dbt starting Spark for a model
    that asks it) counts - and a template whose output passes `max_bytes` raises
    `RenderTooBig`."""
    budget = _Budget(threading.get_ident(), seconds)
    outer = getattr(_limits, "max_bytes", None)
    _limits.max_bytes = max_bytes
    try:
        _watcher.start(budget)
        try:
            yield
        finally:
            _watcher.end(budget)
    finally:
        _limits.max_bytes = outer


def _clock(thread: int) -> Callable[[], float]:
    """Seconds the thread has computed since now (wall-clock seconds where the platform
    cannot tell)."""
    try:
        clock = time.pthread_getcpuclockid(thread)
        start = time.clock_gettime(clock)
        return lambda: time.clock_gettime(clock) - start
    except (AttributeError, OSError):
        start = time.monotonic()
        return lambda: time.monotonic() - start


def concat(pieces: Iterable[str]) -> str:
    """A Jinja environment's `concat`, counting the output against the thread's budget."""
    limit = getattr(_limits, "max_bytes", None)
    if limit is None:
        return "".join(pieces)
    kept = []
    size = 0
    for piece in pieces:
        size += len(piece) if piece.isascii() else len(piece.encode("utf-8", "replace"))
        if size > limit:
            raise RenderTooBig
        kept.append(piece)
    return "".join(kept)


def _raise_in(thread: int, exception: type[BaseException] | None) -> None:
    """Raise `exception` in the thread as soon as it runs Python code; None withdraws one
    not raised yet."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exception) if exception is not None else None)


class TookTooLong(UserError):
    lasting = False  # computing time varies with the machine: the next run may finish it


def error(over: OverBudget, path: Path, seconds: float, max_bytes: int) -> UserError:
    """The file's error, at its first line: where the rendering was is not known."""
    if isinstance(over, RenderTimedOut):
        return TookTooLong(f"rendering took longer than {seconds} s; a template that never ends? "
                           f"(sortlint.yml's `dbt: {{render_timeout: ...}}` sets the limit)", path, 1)
    return UserError(f"rendering produced more than {max_bytes} bytes (sortlint.yml's "
                     f"`dbt: {{render_max_bytes: ...}}` sets the limit)", path, 1)
