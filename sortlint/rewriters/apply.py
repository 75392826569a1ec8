"""Apply fixes to a file, proving each round before anything is written.

A round applies every fixable finding whose edits do not overlap, then re-reads the new
text: every statement must still parse, every statement's output columns must keep their
names (in order) and, where the analysis knows them, their types; a grouped SELECT may read
no column it did not group by (Spark would refuse it); and the fixed findings must be gone.
A finding that appears because of a fix (a sort made redundant by a dropped key) is no
reason to drop it: the next round fixes it in turn. A round that fails is retried one fix
at a time; a fix that fails alone is dropped and reported with its reason. Rounds repeat
until nothing fixable remains (at most `MAX_ROUNDS`, like ruff).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from sortlint.diagnostics import Applicability, Edit, Finding, apply_edits, overlaps
from sortlint.linter.analysis import FileAnalysis, StatementTables
from sortlint.ordering.types import sql_type
from sortlint.plan.grouping import ungrouped_columns

MAX_ROUNDS = 10
Tables = TypeVar("Tables", bound=StatementTables)  # what the file's statements saw
Reanalyse = Callable[[str], "tuple[FileAnalysis, Tables]"]


@dataclass
class Outcome(Generic[Tables]):
    """What fixing one file did."""

    original: FileAnalysis
    final: FileAnalysis
    tables: Tables
    fixed: list[Finding] = field(default_factory=list)
    dropped: list[tuple[Finding, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.final.raw != self.original.raw


def fixable(finding: Finding, unsafe: bool) -> bool:
    least = Applicability.UNSAFE if unsafe else Applicability.SAFE
    return finding.fix is not None and finding.fix.applicability >= least


def fix_file(analysis: FileAnalysis, tables: Tables, reanalyse: Reanalyse, unsafe: bool) -> Outcome[Tables]:
    outcome = Outcome(analysis, analysis, tables)
    if analysis.errors:
        return outcome  # never rewrite a file that does not parse as it is
    refused: set[tuple] = set()  # (statement, code, line, column) of fixes that failed
    for _ in range(MAX_ROUNDS):
        current = outcome.final
        candidates = [
            f for f in current.findings if fixable(f, unsafe) and _place(current, f) not in refused
        ]
        if not candidates:
            break
        batch = _non_overlapping(candidates)
        proved = _try(current, batch, reanalyse)
        if isinstance(proved, tuple):
            outcome.final, outcome.tables = proved
            outcome.fixed += batch
            continue
        for finding in batch:  # one at a time, to find the culprit
            single = _try(current, [finding], reanalyse)
            if isinstance(single, tuple):
                outcome.final, outcome.tables = single
                outcome.fixed.append(finding)
                break
            refused.add(_place(current, finding))
            outcome.dropped.append((finding, single))
    return outcome


def _non_overlapping(findings: list[Finding]) -> list[Finding]:
    chosen: list[Finding] = []
    for finding in findings:
        if not any(overlaps(finding.fix.edits, other.fix.edits) for other in chosen):
            chosen.append(finding)
    return chosen


def _try(current: FileAnalysis, batch: list[Finding], reanalyse: Reanalyse):
    """The new analysis and tables if the batch's fixes prove out, else why not."""
    edits = [e for f in batch for e in f.fix.edits]
    after, tables = reanalyse(apply_edits(current.raw, edits))
    reason = proof_failure(current, after, batch, edits)
    return (after, tables) if reason is None else reason


def proof_failure(
    before: FileAnalysis, after: FileAnalysis, fixed: list[Finding], edits: list[Edit]
) -> str | None:
    if after.errors:
        return f"the fixed text does not parse: {after.errors[0]}"
    if len(after.statements) != len(before.statements):
        return "the fix changed the number of statements"
    for index, (old, new) in enumerate(zip(before.statements, after.statements), 1):
        if old.outputs != new.outputs:
            return f"statement {index}'s output columns would change from {list(old.outputs)} to {list(new.outputs)}"
        for name, was, now in zip(old.outputs, old.output_types, new.output_types):
            if not _same_type(was, now):
                return f"statement {index}'s output column {name} would change type from {was} to {now or 'unknown'}"
        ungrouped = Counter(ungrouped_columns(new.root)) - Counter(ungrouped_columns(old.root))
        if ungrouped:
            return f"statement {index} would read {', '.join(ungrouped)} without grouping by it"
    # A fixed finding remains when its rule still fires in its statement as often as before
    # the fix, and at the place it was (moved by the edits before it): other findings of the
    # rule may shift onto an edit, and new ones may appear elsewhere.
    allowed = Counter(signature(before, f) for f in before.findings)
    allowed.subtract(signature(before, f) for f in fixed)
    counts = Counter(signature(after, f) for f in after.findings)
    for finding in fixed:
        key = signature(before, finding)
        if counts[key] > allowed[key] and _remains(finding, before.raw, after, edits):
            return f"the fix would leave {finding.code} in statement {key[0] + 1}"
    return None


def _same_type(before: str | None, after: str | None) -> bool:
    """Whether an output keeps its type: nothing to keep when it was not known."""
    if before is None:
        return True
    if after is None:
        return False
    a, b = sql_type(before), sql_type(after)
    return a == b if a is not None and b is not None else before == after


def _remains(finding: Finding, raw: str, after: FileAnalysis, edits: list[Edit]) -> bool:
    """Whether the fixed text has a finding of the rule where this one was (its start,
    moved by the edits before it)."""
    start = _moved(_offset(raw, finding.line, finding.column), edits)
    text = apply_edits(raw, edits)
    return any(
        other.code == finding.code and _offset(text, other.line, other.column) == start
        for other in after.findings
    )


def _offset(text: str, line: int, column: int) -> int:
    """The offset of a 1-based line and column."""
    position = 0
    for _ in range(line - 1):
        position = text.index("\n", position) + 1
    return position + column - 1


def _moved(offset: int, edits: list[Edit]) -> int:
    """Where `offset` lands once the edits are applied (inside an edit: at its start)."""
    shift = 0
    for e in sorted(edits, key=lambda e: e.start):
        if e.end <= offset and e.start < offset:
            shift += len(e.content) - (e.end - e.start)
        elif e.start <= offset < e.end:
            return e.start + shift
    return offset + shift


def _place(analysis: FileAnalysis, finding: Finding) -> tuple:
    return (*signature(analysis, finding), finding.line, finding.column)


def signature(analysis: FileAnalysis, finding: Finding) -> tuple[int, str]:
    """A finding's identity across an edit: its statement and its rule."""
    index = 0
    for i, statement in enumerate(analysis.statements):
        if statement.unit.location(0)[0] <= finding.line:
            index = i
    return index, finding.code


def write_atomically(path: Path, text: str) -> None:
    """Replace the file's content in one step, keeping its mode (a new file gets the mode
    the umask allows); the text keeps its own newline style and final newline (it was
    read with newline='')."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".sortlint")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
