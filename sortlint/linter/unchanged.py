"""What the analysis of an edited file takes from the analysis of the file before the edit.

A fix (or a language server's edit) changes a few statements; analysing the new text
analyses the whole file again. A statement no edit touched, seen from the tables as they
were, is analysed to what it was: so its earlier analysis is taken, moved to where the
statement now stands. The statements of the two texts are paired from both ends - the
first with the first, the last with the last, as long as their texts are the same - so an
edit that adds or removes statements leaves those around it paired (with as many on each
side, they are paired one for one). It holds when

* its text is the same, cut from the file as it is (a `.sql` file's statement, whose offsets
  move with it: not a template's or a Python string's);
* the tables are as they were: every statement before it that defines a view or a table (or
  did, or is new, or is gone) is unchanged too - an edited `CREATE VIEW` changes what its
  readers see;
* the lines its messages cite are where they were: a message cites the lines of clauses
  (`WHERE host = 'x' (line 4)`, its own or a view's before it in the file), which an edit
  adding or removing a line before them moves. So once a line moved, a statement is taken
  only if no message of it names a line (nor is it an error, whose message may quote the
  parser's line); its own findings move with it;
* it defines nothing itself, nor switches the database (its statement is analysed again to
  register what it changes).

A finding's Spark effect (`Finding.effect`) holds with the rest of it: it is read from the
plan of the finding's own statement - its text and the tables it reads, both as they were -
under the configuration's Spark settings, which no statement of the file changes (a
language server's earlier analysis holds only under the same configuration:
`sortlint.integrations.lsp.checking.Earlier`). Moving a finding keeps its effect.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from copy import copy
from dataclasses import replace

from sortlint.diagnostics import Edit, Finding
from sortlint.linter.results import FileAnalysis, UnitAnalysis
from sortlint.units import Unit, file_line_starts


# What a message says when it cites a line ("(line 4)", the parser's "Line 4, Col: 2"): a
# statement whose messages say it anywhere is not moved to other lines, but analysed again.
CITES_LINE = re.compile(r"\blines?\b", re.IGNORECASE)


class Unchanged:
    """The units of the earlier analysis, gone through in order with the new ones."""

    def __init__(self, earlier: FileAnalysis, units: Sequence[Unit]) -> None:
        old = earlier.units
        if len(old) == len(units):
            self.before: list[UnitAnalysis | None] = list(old)
            gone: Sequence[UnitAnalysis] = ()
            self.first_new = len(units)
        else:
            limit = min(len(old), len(units))
            head = 0
            while head < limit and _same(old[head].unit, units[head]):
                head += 1
            tail = 0
            while tail < limit - head and _same(old[-1 - tail].unit, units[-1 - tail]):
                tail += 1
            self.before = [*old[:head], *[None] * (len(units) - head - tail), *old[len(old) - tail :]]
            gone = old[head : len(old) - tail]
            self.first_new = head
        # A statement gone that defined something: the tables after where it stood differ.
        self.gone_defined = any(done.changes_names for done in gone)
        # The units whose earlier analysis may be taken, if the ones before them allow: the
        # same statement, defining nothing.
        self.candidates = frozenset(
            index for index, (done, unit) in enumerate(zip(self.before, units))
            if done is not None and not done.changes_names and _same(done.unit, unit)
        )
        self.same_tables = True  # the statements so far left the tables as they were
        self.same_lines = True  # and start on the lines they started on

    def taken(self, index: int, unit: Unit) -> UnitAnalysis | None:
        """The unit's earlier analysis, moved to where it now stands, if it holds."""
        if index == self.first_new and self.gone_defined:
            self.same_tables = False
        old = self.before[index]
        if old is None or old.unit is None or not _movable(unit):
            self.same_lines = False
            return None
        was_at, now_at = old.unit.location(0), unit.location(0)
        self.same_lines = self.same_lines and was_at[0] == now_at[0]
        if not (self.same_tables and index in self.candidates):
            return None
        if not self.same_lines and not _cites_no_line(old):
            return None
        return _moved(old, old.unit, unit, was_at, now_at)

    def analysed(self, index: int, unit: Unit, done: UnitAnalysis) -> None:
        """A unit analysed afresh: the tables after it are as they were only if it defines
        nothing and did not, or is the same statement seen from the same tables."""
        old = self.before[index]
        if old is None:
            self.same_tables = self.same_tables and not done.changes_names
        elif done.changes_names or old.changes_names:
            self.same_tables = self.same_tables and _same(old.unit, unit)


def _cites_no_line(done: UnitAnalysis) -> bool:
    """Whether nothing the unit's analysis says names a line (so it may move to others)."""
    return not done.errors and not any(
        CITES_LINE.search(finding.message) or (finding.fix is not None and CITES_LINE.search(finding.fix.message))
        for finding in done.findings
    )


def _movable(unit: Unit) -> bool:
    """Whether the unit's text is cut verbatim from its file, so positions in it move by the
    distance its start moved."""
    return unit.offsets is None and unit.payload is None


def _same(old: Unit | None, unit: Unit) -> bool:
    return old is not None and _movable(old) and _movable(unit) and old.kind == unit.kind and old.text == unit.text


def _moved(old: UnitAnalysis, was: Unit, unit: Unit, was_at: tuple[int, int], now_at: tuple[int, int]) -> UnitAnalysis:
    """The analysis of `was` for the same text at `unit`: its positions moved with it (its
    errors' lines, and the lines its messages cite, are those of before: it has none, or
    no line moved). `was_at`, `now_at`: the line and column it started at, and starts at."""
    statement = None
    if old.statement is not None:
        statement = copy(old.statement)  # a shallow copy: `replace` costs 5 times more, per statement
        statement.unit = unit
    shift = unit.start - was.start
    if was_at[1] == now_at[1]:
        # It starts on the column it started on (a file of thousands of statements, one a
        # line, edited on one line: every one of them): every column in it is as it was,
        # and its lines are as many lines down as its first (none, for the statements
        # before the edit and, when the edit moved no line, after it).
        lines = now_at[0] - was_at[0]
        findings = old.findings if not shift else [_shifted(finding, shift, lines) for finding in old.findings]
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


def _shifted(finding: Finding, shift: int, lines: int) -> Finding:
    """The finding with its fix's offsets moved by `shift`, and its lines `lines` down (its
    columns stay)."""
    fix = finding.fix
    if fix is not None and fix.edits:
        edits = tuple(
            replace(edit, start=edit.start + shift, end=edit.end + shift,
                    line=edit.line + lines, end_line=edit.end_line + lines)
            for edit in fix.edits
        )
        fix = replace(fix, edits=edits)
    elif not lines:
        return finding
    return replace(finding, line=finding.line + lines, end_line=finding.end_line + lines, fix=fix)
