"""A finding: one rule's verdict on one clause or key, with where it is and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sortlint.diagnostics.effects import Effect, unknown_words
from sortlint.diagnostics.fixes import Fix

# What a conclusion rests on: the query alone, a declaration of the catalog, or the code of
# another file (an upstream model, a table another statement wrote), which may change.
Basis = Literal["query", "declared", "upstream"]


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
    # What the fix changes in Spark's executed plan, as the Spark model predicts it; None
    # where the model does not know (`effect_unknown` says why), and for every other target.
    effect: Effect | None = field(default=None, compare=False)
    effect_unknown: str | None = field(default=None, compare=False)

    @property
    def effect_words(self) -> str | None:
        """What the fix does on Spark in a few words, known or not (None: another target)."""
        if self.effect is not None:
            return self.effect.words()
        return unknown_words(self.effect_unknown) if self.effect_unknown is not None else None

    @property
    def sort_key(self) -> tuple:
        return (str(self.path), self.line, self.column, self.code)
