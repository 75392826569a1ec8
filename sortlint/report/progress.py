"""A progress line on a terminal's stderr for a long check: files done of all, rewritten in
place, shown only once the run has taken a while (a quick run prints nothing) and cleared at
the end. Never in a pipe or a CI log (`CI` set): what they keep must not hold it.

While a step that is no file's takes the time (`sortlint.stages`: rendering a dbt project
with dbt), the line says what it is and how far it is instead, then counts files again."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

from sortlint import stages

SHOWN_AFTER = 2.0  # seconds: a run quicker than this shows no progress at all
WIDTH = 30  # characters of the bar


class ProgressLine:
    """Listens to the run's stages from its making until `close`."""

    def __init__(self, stream: TextIO, after: float = SHOWN_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.after, self.clock = stream, after, clock
        self.started = clock()
        self.drawn = False
        self.line = ""  # drawn last
        self.files: tuple[int, int] | None = None
        self.stage: stages.Stage | None = None
        stages.add_listener(self.on_stage)

    def __call__(self, done: int, total: int) -> None:
        self.files = (done, total)
        if self.stage is None:
            self._draw(done, total, f"{done}/{total} files")

    def on_stage(self, stage: stages.Stage | None) -> None:
        self.stage = stage
        if stage is None:
            if self.files is not None:
                self(*self.files)
        elif stage.total > 0:
            self._draw(stage.done, stage.total, f"{stage.what}: {stage.done}/{stage.total} {stage.units}")
        else:
            self._draw(0, 1, stage.what)

    def _draw(self, done: int, total: int, text: str) -> None:
        if total <= 0 or self.clock() - self.started < self.after:
            return
        filled = WIDTH * done // total
        line = f"[{'#' * filled}{'.' * (WIDTH - filled)}] {text}"
        if line == self.line:
            return  # a stage is told again and again while it is where it was
        # What is left of a longer line before (a stage's) is erased.
        self.stream.write(f"\r{line}{'' if len(line) >= len(self.line) else chr(27) + '[K'}")
        self.stream.flush()
        self.drawn, self.line = True, line

    def close(self) -> None:
        stages.remove_listener(self.on_stage)
        if self.drawn:
            self.stream.write("\r\x1b[K")  # the line is gone: what follows starts clean
            self.stream.flush()


def progress_line(stream: TextIO, environment: Mapping[str, str]) -> ProgressLine | None:
    """A progress line for `stream` when it is a terminal outside CI, else None."""
    if not stream.isatty() or environment.get("CI"):
        return None
    return ProgressLine(stream)
