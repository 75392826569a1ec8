"""Errors a user can act on: they name the file, the line and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class UserError(Exception):
    """A problem in the user's input. The CLI prints it and exits with code 2."""

    message: str
    path: Path | str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message}"

    def __reduce__(self):
        # An exception pickles its `args`, which the dataclass leaves empty; workers send
        # their errors to the parent.
        return type(self), (self.message, self.path, self.line)


class ConfigError(UserError):
    """The catalog or configuration is malformed."""
