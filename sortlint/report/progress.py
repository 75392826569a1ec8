"""A progress line on a terminal's stderr for a long check: files done of all, rewritten in
place, shown only once the run has taken a while (a quick run prints nothing) and cleared at
the end. Never in a pipe or a CI log (`CI` set): what they keep must not hold it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

SHOWN_AFTER = 2.0  # seconds: a run quicker than this shows no progress at all
WIDTH = 30  # characters of the bar


class ProgressLine:
    def __init__(self, stream: TextIO, after: float = SHOWN_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.after, self.clock = stream, after, clock
        self.started = clock()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if total <= 0 or self.clock() - self.started < self.after:
            return
        filled = WIDTH * done // total
        self.stream.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total} files")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")  # the line is gone: what follows starts clean
            self.stream.flush()


def progress_line(stream: TextIO, environment: Mapping[str, str]) -> ProgressLine | None:
    """A progress line for `stream` when it is a terminal outside CI, else None."""
    if not stream.isatty() or environment.get("CI"):
        return None
    return ProgressLine(stream)
