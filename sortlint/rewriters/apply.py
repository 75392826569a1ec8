"""Apply fixes to a file, proving each round before anything is written.

A round applies every fixable finding whose edits do not overlap, then re-reads the new
text: every statement must still parse, every statement's output columns must keep their
names (in order) and, where the analysis knows them, their types; a grouped SELECT may read
no column it did not group by (Spark would refuse it); no GROUP BY or ORDER BY key may name
an aggregate or a literal it did not name before (a rewritten select item that a position
names: Spark refuses an aggregate there, and a literal is no key); and the fixed findings
must be gone.
A finding that appears because of a fix (a sort made redundant by a dropped key) is no
reason to drop it: the next round fixes it in turn. A round that fails is retried one fix
at a time; a fix that fails alone is dropped and reported with its reason. Rounds repeat
until nothing fixable remains (at most `MAX_ROUNDS`, like ruff).

Files are written only once every file's fixes are proved (`write_fixes`).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from sortlint.diagnostics import Applicability, Edit, Finding, apply_edits
from sortlint.errors import UserError
from sortlint.files import NotRestored, WriteError, read_source, unwritable, write_atomically
from sortlint.linter.analysis import FileAnalysis, StatementTables
from sortlint.ordering.types import sql_type
from sortlint.units import file_line_starts

MAX_ROUNDS = 10
Tables = TypeVar("Tables", bound=StatementTables)  # what the file's statements saw
Item = TypeVar("Item")
Reanalyse = Callable[[str, "FileAnalysis | None"], "tuple[FileAnalysis, Tables]"]


@dataclass
class Outcome(Generic[Tables]):
    """What fixing one file did."""

    original: FileAnalysis
    final: FileAnalysis
    tables: Tables
    fixed: list[Finding] = field(default_factory=list)
    dropped: list[tuple[Finding, str]] = field(default_factory=list)
    write_error: WriteError | None = None  # why the fixed text could not be written

    @property
    def changed(self) -> bool:
        return self.final.raw != self.original.raw

    def reported(self) -> Outcome[Tables]:
        """The outcome without its statements' plans, which only the proof needed: what a
        report of many files keeps."""
        return replace(
            self, original=replace(self.original, statements=[]), final=replace(self.final, statements=[])
        )

    @property
    def kept(self) -> FileAnalysis:
        """The analysis of the file as it now is: the fixed one, unless writing it failed."""
        return self.original if self.write_error is not None else self.final


def fixable(finding: Finding, unsafe: bool) -> bool:
    least = Applicability.UNSAFE if unsafe else Applicability.SAFE
    return finding.fix is not None and finding.fix.applicability >= least


def fix_file(analysis: FileAnalysis, tables: Tables, reanalyse: Reanalyse, unsafe: bool) -> Outcome[Tables]:
    outcome = Outcome(analysis, analysis, tables)
    if analysis.errors:
        return outcome  # never rewrite a file that does not parse as it is
    # (statement, code, line, column) of each fix that failed -> the text it failed on, and
    # why: a fix is not tried again on that text, and is again once another fix changed it
    # (a repeated key dropped first may let a constant one go: GROUP BY 1, 2, 3).
    refused: dict[tuple, tuple[str, Finding, str]] = {}
    for _ in range(MAX_ROUNDS):
        current = outcome.final
        places = dict(zip(map(id, current.findings), _places(current, current.findings)))
        candidates = [
            f for f in current.findings
            if fixable(f, unsafe) and refused.get(places[id(f)], ("",))[0] != current.raw
        ]
        if not candidates:
            break
        batch = non_overlapping(candidates)
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
            refused[places[id(finding)]] = (current.raw, finding, single)
    outcome.dropped = [(finding, why) for raw, finding, why in refused.values() if raw == outcome.final.raw]
    return outcome


def non_overlapping(findings: list[Finding]) -> list[Finding]:
    """The findings in order, leaving out each whose edits overlap those of one kept before
    it. The kept edits are disjoint, so sorted by (start, end) their ends grow too: an
    edit overlaps one of them exactly when it overlaps the last that starts before it ends."""
    chosen: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for finding in findings:
        edits = [(edit.start, edit.end) for edit in finding.fix.edits]
        if any(_overlaps_taken(taken, start, end) for start, end in edits):
            continue
        chosen.append(finding)
        for edit in edits:
            bisect.insort(taken, edit)
    return chosen


def _overlaps_taken(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    before = bisect.bisect_left(taken, (end, -1))  # how many start before `end`
    return before > 0 and taken[before - 1][1] > start


def _try(current: FileAnalysis, batch: list[Finding], reanalyse: Reanalyse):
    """The new analysis and tables if the batch's fixes prove out, else why not."""
    edits = [e for f in batch for e in f.fix.edits]
    after, tables = reanalyse(apply_edits(current.raw, edits), current)
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
        ungrouped = _added(old.ungrouped, new.ungrouped)
        if ungrouped:
            return f"statement {index} would read {', '.join(ungrouped)} without grouping by it"
        named = _added(old.keys_naming_nothing, new.keys_naming_nothing)
        if named:
            return f"statement {index}'s {'; '.join(map(str, named))}"
    # A fixed finding remains when its rule still fires in its statement as often as before
    # the fix, and at the place it was (moved by the edits before it): other findings of the
    # rule may shift onto an edit, and new ones may appear elsewhere.
    fixed_signatures = signatures(before, fixed)
    allowed = Counter(signatures(before, before.findings))
    allowed.subtract(fixed_signatures)
    counts = Counter(signatures(after, after.findings))
    after_starts: set[tuple[str, int]] | None = None  # made only when a count asks for it
    for finding, key in zip(fixed, fixed_signatures):
        if counts[key] > allowed[key]:
            after_starts = _starts(after) if after_starts is None else after_starts
            start = _moved(_offset(before.raw, finding), edits)
            if (finding.code, start) in after_starts:
                return f"the fix would leave {finding.code} in statement {key[0] + 1}"
    return None


def _added(before: tuple[Item, ...], after: tuple[Item, ...]) -> Counter[Item]:
    """What `after` holds more of than `before` (nothing, at once, for the same tuples: most
    statements of a long file, whose comparison otherwise cost a third of the proof)."""
    return Counter() if after == before else Counter(after) - Counter(before)


def _same_type(before: str | None, after: str | None) -> bool:
    """Whether an output keeps its type: nothing to keep when it was not known."""
    if before is None:
        return True
    if after is None:
        return False
    a, b = sql_type(before), sql_type(after)
    return a == b if a is not None and b is not None else before == after


def _starts(analysis: FileAnalysis) -> set[tuple[str, int]]:
    """(rule, offset where it starts) of every finding."""
    return {(f.code, _offset(analysis.raw, f)) for f in analysis.findings}


def _offset(raw: str, finding: Finding) -> int:
    """The offset in `raw` where the finding starts (its line and column are 1-based)."""
    return file_line_starts(raw)[finding.line - 1] + finding.column - 1


def _moved(offset: int, edits: list[Edit]) -> int:
    """Where `offset` lands once the edits are applied (inside an edit: at its start)."""
    shift = 0
    for e in sorted(edits, key=lambda e: e.start):
        if e.end <= offset and e.start < offset:
            shift += len(e.content) - (e.end - e.start)
        elif e.start <= offset < e.end:
            return e.start + shift
    return offset + shift


def _places(analysis: FileAnalysis, findings: list[Finding]) -> list[tuple]:
    return [(*signature, f.line, f.column) for signature, f in zip(signatures(analysis, findings), findings)]


def signatures(analysis: FileAnalysis, findings: list[Finding]) -> list[tuple[int, str]]:
    """Each finding's identity across an edit: its statement (the last that starts at or
    before it - on a line of many statements too) and its rule."""
    starts = [statement.unit.raw_offset(0) for statement in analysis.statements]
    return [(max(bisect.bisect_right(starts, _offset(analysis.raw, f)) - 1, 0), f.code) for f in findings]


def write_fixes(outcomes: list[Outcome]) -> None:
    """Write every changed file, each atomically (`sortlint.files.write_atomically`). A file
    that cannot be written - read-only, changed since it was read, a failed write (a
    read-only folder, a full disk) - keeps its old text and gets its `write_error` (which
    names the copy of its old text in the one case it could not be kept: a hard-linked file
    whose old text could not be written back); the other files are still written."""
    for outcome in outcomes:
        if not outcome.changed:
            continue
        path = outcome.original.path
        try:
            reason = unwritable(path)
            if reason is None and read_source(path) != outcome.original.raw:
                reason = "the file changed while it was checked; run sortlint again"
        except UserError as error:
            reason = error.message
        if reason is None:
            try:
                write_atomically(path, outcome.final.raw)
                continue
            except NotRestored as error:
                outcome.write_error = WriteError(
                    f"half-written: cannot write it ({error.strerror}), nor write its old text back; "
                    f"the old text is kept in {error.filename}", path,
                )
                continue
            except OSError as error:
                reason = f"cannot write it: {error.strerror or error}"
        outcome.write_error = WriteError(f"not fixed, the file is as it was: {reason}", path)
