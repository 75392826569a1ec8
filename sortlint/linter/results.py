"""What one file's analysis found, apart from how it was made (`sortlint.linter.analysis`):
light to import, so that results kept in the cache are read back without loading the
analysis, the engines or sqlglot."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.plan.tables import qualified

if TYPE_CHECKING:
    from sortlint.plan.statement import Statement
    from sortlint.units import Unit


@dataclass
class FileAnalysis:
    path: Path
    raw: str
    statements: list[Statement] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    # What the user should know of how the file was read: (kind, text), a "note" (a
    # renderer's fallback, and why) or a "warning" (a layout declared on a view)
    remarks: list[tuple[str, str]] = field(default_factory=list)
    # Each unit's analysis, kept for the fixer (`Kept.FACTS`): the analysis of the fixed
    # text takes those of the statements no fix touched (`sortlint.linter.unchanged`).
    units: list[UnitAnalysis] = field(default_factory=list)


@dataclass
class UnitAnalysis:
    """One unit's statement (as the check keeps it), findings (before `noqa` comments are
    applied) and errors. When a worker analysed it ahead, also the tables it named and what
    it defines, which say whether the analysis holds where the unit stands in its file;
    `unit` is set where the file is read in order."""

    statement: Statement | None
    findings: list[Finding] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    named: frozenset[str] = frozenset()
    defines: str | None = None
    unit: Unit | None = None
    switches_database: bool = False  # a `USE`: see `Statement.switches_database`

    @property
    def changes_names(self) -> bool:
        """Whether it changes what names mean to the statements after it: it defines a view
        or a table, or switches the database (its statement must be registered)."""
        return self.defines is not None or self.switches_database

    def holds(self, defined_before: set[str]) -> bool:
        """Whether the unit's analysis from the tables as they were before its file is the
        one in order: it named no table its file's statements before it defined (after a
        `USE`, `ANY_UNQUALIFIED` among them, no table without a database), and it changes
        no name itself (its statement would be registered for those after it)."""
        if ANY_UNQUALIFIED in defined_before and not all(map(qualified, self.named)):
            return False
        return not self.changes_names and self.named.isdisjoint(defined_before)


# Among the names a file's statements defined so far: a `USE` (every name without a database
# now names another table).
ANY_UNQUALIFIED = ""


class Kept(Enum):
    """What a file's analysis keeps of its statements besides their findings."""

    NOTHING = "nothing"  # a check that reports: each plan goes once it is linted
    FACTS = "facts"  # what the fixer's proof compares (`Statement.without_plan`)
    PLANS = "plans"  # the whole plans (explain shows them)
