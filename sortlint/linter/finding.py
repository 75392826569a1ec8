"""A finding: one rule's verdict on one clause or key, with where it is and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sortlint.ordering import Basis


@dataclass(frozen=True)
class Edit:
    """Replace raw-file text between two 1-based positions (end exclusive) by `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    start: int = field(default=0, compare=False)  # the same range as raw-file offsets
    end: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Fix:
    applicability: str  # "safe" | "unsafe" | "unavailable" (message says why; no edits)
    message: str
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    path: Path
    line: int
    column: int
    end_line: int
    end_column: int
    basis: Basis
    fix: Fix | None = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple:
        return (str(self.path), self.line, self.column, self.code)
