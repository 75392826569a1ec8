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

if TYPE_CHECKING:
    from sortlint.plan.statement import Statement


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


class Kept(Enum):
    """What a file's analysis keeps of its statements besides their findings."""

    NOTHING = "nothing"  # a check that reports: each plan goes once it is linted
    FACTS = "facts"  # what the fixer's proof compares (`Statement.without_plan`)
    PLANS = "plans"  # the whole plans (explain shows them)
