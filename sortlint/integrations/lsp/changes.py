"""A big document's findings, sent from its worker as what changed since the ones sent before.

A one-line edit of a file of 20,000 statements changes the findings of the statement edited;
the others are those of the check before - the same, or as many lines down as the lines the
edit added. Sending them all again at every edit (pickled, unpickled, turned into
diagnostics) cost more than the check. So the worker sends how the new findings differ from
the last it sent: how many at the start are the same, the ones in between, how many at the
end are the same moved some lines down (`Changes`); the server takes the rest from its own
last ones, their diagnostics with them (`protocol.reused`).

Both ends must hold the same last findings: each answer is numbered by the request that
asked for it, a request says the number of the last answer the server took in, and the
worker sends changes only from that one - else (an answer the server dropped, a worker
started again) all the findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sortlint.diagnostics import Finding


@dataclass(frozen=True)
class Changes:
    """The findings of a check, given those of the answer before: its first `kept`, then
    `middle`, then its last `moved`, each `down` lines further down."""

    kept: int
    middle: list[Finding]
    moved: int
    down: int


def changes(before: Sequence[Finding], after: Sequence[Finding]) -> Changes:
    """How `after` differs from `before` (the findings of the answer before), in what
    an editor is shown of them: a fix's offsets, which only a fix applied here reads, are
    left out."""
    limit = min(len(before), len(after))
    kept = 0
    while kept < limit and (before[kept] is after[kept] or _shown(before[kept], 0) == _shown(after[kept], 0)):
        kept += 1
    down = after[-1].line - before[-1].line if kept < limit else 0
    moved = 0
    while moved < limit - kept and _shown(before[-1 - moved], down) == _shown(after[-1 - moved], 0):
        moved += 1
    return Changes(kept, list(after[kept : len(after) - moved]), moved, down)


def _shown(finding: Finding, down: int) -> tuple:
    """What an editor is shown of a finding `down` lines further down: its place, its
    message, its Spark effect (a statement analysed again may keep its findings' messages
    and change their effects: a view it reads was edited), its fix's edits. The effect as
    it is, not in words (which cost more than the rest), with what it lightens, which two
    effects compare without."""
    effect = finding.effect
    fix = finding.fix
    edits = None if fix is None else (fix.applicability, fix.message, tuple(
        (edit.line + down, edit.column, edit.end_line + down, edit.end_column, edit.content) for edit in fix.edits
    ))
    return (finding.line + down, finding.column, finding.end_line + down, finding.end_column,
            finding.code, finding.name, finding.message, finding.basis, edits,
            effect, effect.lightens if effect is not None else None, finding.effect_unknown)
