"""What a long step of a run is doing, told to whoever shows the run's progress.

A check's progress is counted in files, but some of its time goes to no file: rendering a
whole dbt project with dbt takes minutes on a large one, while the first file waits. The
code doing such a step says what it is and how far it is (`report`); the progress line
(`sortlint.report.progress`), which the layers doing the work cannot import, listens
(`add_listener`, `listening`). Nothing listens outside a terminal: a report then costs a function call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """`what` is being done, `done` of `total` `units` (a total of 0: not known yet)."""

    what: str
    done: int = 0
    total: int = 0
    units: str = ""


# Told each stage as it goes, and None once it is over.
Listener = Callable[["Stage | None"], None]

_listeners: list[Listener] = []


def add_listener(listener: Listener) -> None:
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    add_listener(listener)
    try:
        yield
    finally:
        remove_listener(listener)


def report(stage: Stage | None) -> None:
    for listener in _listeners:
        listener(stage)
