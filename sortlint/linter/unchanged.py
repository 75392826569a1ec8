"""What the analysis of a fixed file takes from the analysis of the file before the fix.

A fix edits a few statements; proving it analyses the whole file again. A statement no edit
touched, seen from the tables as they were, is analysed to what it was: so its earlier
analysis is taken, moved to where the statement now stands. It holds when

* its text is the same, cut from the file as it is (a `.sql` file's statement, whose offsets
  move with it: not a template's or a Python string's);
* the tables are as they were: every statement before it that defines a view or a table (or
  did) is unchanged too - an edited `CREATE VIEW` changes what its readers see;
* no line moved before it: a message cites the lines of clauses before it in the file (a
  view's WHERE), which a fix removing a line would move;
* it defines nothing itself, nor switches the database (its statement is analysed again to
  register what it changes).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import replace

from sortlint.diagnostics import Edit, Finding
from sortlint.linter.results import FileAnalysis, UnitAnalysis
from sortlint.units import Unit, file_line_starts


class Unchanged:
    """The units of the earlier analysis, gone through in order with the new ones."""

    def __init__(self, earlier: FileAnalysis, units: Sequence[Unit]) -> None:
        self.before = earlier.units if len(earlier.units) == len(units) else []
        # The units whose earlier analysis may be taken, if the ones before them allow: the
        # same statement, defining nothing.
        self.candidates = frozenset(
            index for index, (old, unit) in enumerate(zip(self.before, units))
            if not old.changes_names and _same(old.unit, unit)
        )
        self.same_tables = True  # the statements so far left the tables as they were
        self.same_lines = True  # and start on the lines they started on

    def taken(self, index: int, unit: Unit) -> UnitAnalysis | None:
        """The unit's earlier analysis, moved to where it now stands, if it holds."""
        old = self.before[index] if self.before else None
        if old is None or old.unit is None or not _movable(unit):
            self.same_lines = False
            return None
        was_at, now_at = old.unit.location(0), unit.location(0)
        self.same_lines = self.same_lines and was_at[0] == now_at[0]
        if not (self.same_lines and self.same_tables and index in self.candidates):
            return None
        return _moved(old, old.unit, unit, same_place=was_at == now_at)

    def analysed(self, index: int, unit: Unit, done: UnitAnalysis) -> None:
        """A unit analysed afresh: the tables after it are as they were only if it defines
        nothing and did not, or is the same statement seen from the same tables."""
        old = self.before[index] if self.before else None
        if old is None:
            self.same_tables = False
        elif done.changes_names or old.changes_names:
            self.same_tables = self.same_tables and _same(old.unit, unit)


def _movable(unit: Unit) -> bool:
    """Whether the unit's text is cut verbatim from its file, so positions in it move by the
    distance its start moved."""
    return unit.offsets is None and unit.payload is None


def _same(old: Unit | None, unit: Unit) -> bool:
    return old is not None and _movable(old) and _movable(unit) and old.kind == unit.kind and old.text == unit.text


def _moved(old: UnitAnalysis, was: Unit, unit: Unit, same_place: bool) -> UnitAnalysis:
    """The analysis of `was` for the same text at `unit`: its positions moved with it (its
    errors' lines, and the lines its messages cite, are those of before: none moved).
    `same_place`: it starts on the line and column it started on."""
    statement = None
    if old.statement is not None:
        statement = copy(old.statement)  # a shallow copy: `replace` costs 5 times more, per statement
        statement.unit = unit
    shift = unit.start - was.start
    if same_place:
        # Its first line starts where it did, and it on it (a file of thousands of
        # statements edited on one line: nearly all of them): every line and column in it
        # is as it was, and only the fixes' offsets move.
        findings = old.findings if not shift else [_shifted(finding, shift) for finding in old.findings]
        return UnitAnalysis(statement, list(findings), list(old.errors), unit=unit)
    starts = file_line_starts(was.raw)

    def moved(line: int, column: int) -> tuple[int, int]:
        return unit.location(starts[line - 1] + column - 1 - was.start)

    def moved_edit(edit: Edit) -> Edit:
        (line, column), (end_line, end_column) = moved(edit.line, edit.column), moved(edit.end_line, edit.end_column)
        return replace(edit, line=line, column=column, end_line=end_line, end_column=end_column,
                       start=edit.start + shift, end=edit.end + shift)

    def moved_finding(finding: Finding) -> Finding:
        (line, column), (end_line, end_column) = moved(finding.line, finding.column), moved(finding.end_line, finding.end_column)
        fix = finding.fix
        if fix is not None:
            fix = replace(fix, edits=tuple(map(moved_edit, fix.edits)))
        return replace(finding, line=line, column=column, end_line=end_line, end_column=end_column, fix=fix)

    return UnitAnalysis(statement, [moved_finding(f) for f in old.findings], list(old.errors), unit=unit)


def _shifted(finding: Finding, shift: int) -> Finding:
    """The finding with its fix's offsets moved by `shift` (its lines and columns stay)."""
    fix = finding.fix
    if fix is None or not fix.edits:
        return finding
    edits = tuple(replace(edit, start=edit.start + shift, end=edit.end + shift) for edit in fix.edits)
    return replace(finding, fix=replace(fix, edits=edits))
