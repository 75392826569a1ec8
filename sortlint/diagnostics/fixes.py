"""A fix and how far it may be trusted.

`Applicability` is ordered, as ruff's is: a fix `--fix` applies is `SAFE`; one that is right
only while a declared contract holds is `UNSAFE` (applied with `--unsafe-fixes`); one that is
shown but never applied is `DISPLAY_ONLY` (its edit would touch templated text). Each value
*is* the string every output has always printed ("safe", "unsafe", "unavailable"), so
reports and JSON show it as it is, and it compares equal to that string.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from sortlint.diagnostics.edits import Edit


class Applicability(str, Enum):
    DISPLAY_ONLY = "unavailable"
    UNSAFE = "unsafe"
    SAFE = "safe"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    # str's ordering is alphabetical; these are by trust.
    def __lt__(self, other: object) -> bool:
        return self.rank < Applicability(other).rank

    def __le__(self, other: object) -> bool:
        return self.rank <= Applicability(other).rank

    def __gt__(self, other: object) -> bool:
        return self.rank > Applicability(other).rank

    def __ge__(self, other: object) -> bool:
        return self.rank >= Applicability(other).rank

    def __str__(self) -> str:
        return self.value


_RANKS = {Applicability.DISPLAY_ONLY: 0, Applicability.UNSAFE: 1, Applicability.SAFE: 2}


@dataclass(frozen=True)
class Fix:
    """Edits that resolve a finding. A `DISPLAY_ONLY` fix has no edits; its message says why."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...] = ()

    def at_most(self, applicability: Applicability) -> Fix:
        """The same fix, trusted no more than `applicability`."""
        if self.applicability <= applicability:
            return self
        return replace(self, applicability=applicability)
