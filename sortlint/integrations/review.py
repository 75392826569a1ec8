"""What a review says, whichever platform it goes to.

A review comments on each finding on the lines a change touched: the rule, the message
with its evidence, a link to the rule's page, and the fix as a suggestion block. A summary
counts the findings per rule, says how many have a fix and how to apply them locally, and
lists the findings no comment could be placed on (their lines are not in the diff the
platform shows).

Every comment carries a hidden marker with its finding's fingerprint, so a later run on
the same pull request recognises what it already said: it comments only on new findings,
and edits its comments on findings that are gone to say so.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sortlint.errors import UserError
from sortlint.integrations.git_changes import Changes
from sortlint.integrations.suggestions import Placement, placement
from sortlint.integrations.unified_diff import ShownLines
from sortlint.diagnostics import Applicability, Finding, fingerprints
from sortlint.report.rule_pages import HOME, rule_url

MARKER = re.compile(r"<!-- sortlint:finding ([0-9a-f]+)( resolved)? -->")
SUMMARY_MARKER = "<!-- sortlint:summary -->"


@dataclass(frozen=True)
class ReviewFinding:
    finding: Finding  # its path relative to the repository's root
    fingerprint: str
    placement: Placement
    docs: str = HOME  # the documentation site its rule's page is linked in

    @property
    def rule_link(self) -> str:
        return rule_url(self.finding.name, self.docs)

    @property
    def path(self) -> str:
        return self.finding.path.as_posix()

    @property
    def fixable(self) -> bool:
        return fixable(self.finding)


def fixable(finding: Finding) -> bool:
    return finding.fix is not None and bool(finding.fix.edits)


def review_findings(
    changed: Sequence[Finding], findings: Sequence[Finding], texts: Mapping[Path, str], changes: Changes,
    docs: str = HOME,
) -> list[ReviewFinding]:
    """The `changed` findings as a review shows them, named by their path in the
    repository. Their fingerprints are counted among all the check's `findings`, so that
    a finding keeps its fingerprint whichever others the change touches."""
    inside = [f for f in findings if changes.relative(f.path) is not None]
    named = [replace(f, path=Path(changes.relative(f.path))) for f in inside]
    raw_of = {n.path: texts[f.path] for f, n in zip(inside, named)}
    prints = dict(zip(map(id, inside), fingerprints(named, raw_of.__getitem__)))
    by_id = dict(zip(map(id, inside), named))
    return [
        ReviewFinding(by_id[id(f)], prints[id(f)], placement(by_id[id(f)], texts[f.path]), docs)
        for f in changed
        if id(f) in by_id
    ]


@dataclass(frozen=True)
class Posted:
    """A comment an earlier run posted: `ref` is what the platform needs to edit it."""

    ref: object
    fingerprint: str
    resolved: bool
    body: str


@dataclass(frozen=True)
class Earlier:
    comments: tuple[Posted, ...] = ()
    summarised: frozenset[str] = frozenset()  # fingerprints earlier summaries listed


def earlier(comments: Iterable[tuple[object, str]], summaries: Iterable[str]) -> Earlier:
    """What earlier runs left: their comments (`(ref, body)` of every comment on the pull
    request; others' comments have no marker) and the findings their summaries listed."""
    posted = []
    for ref, body in comments:
        match = MARKER.search(body or "")
        if match and SUMMARY_MARKER not in body:
            posted.append(Posted(ref, match.group(1), bool(match.group(2)), body))
    listed = {
        match.group(1)
        for body in summaries
        if body and SUMMARY_MARKER in body
        for match in MARKER.finditer(body)
    }
    return Earlier(tuple(posted), frozenset(listed))


@dataclass(frozen=True)
class Plan:
    findings: tuple[ReviewFinding, ...]  # every finding in the changed statements
    comments: tuple[ReviewFinding, ...]  # new ones, on lines the diff shows
    summarised: tuple[ReviewFinding, ...]  # new ones the diff does not show
    resolved: tuple[Posted, ...]  # earlier comments whose finding is gone

    @property
    def new(self) -> bool:
        return bool(self.comments or self.summarised)

    def in_summary(self, refused: Iterable[ReviewFinding]) -> Plan:
        """The plan with the comments the platform refused listed in the summary instead."""
        moved = {id(f) for f in refused}
        listed = moved | {id(f) for f in self.summarised}
        return replace(
            self,
            comments=tuple(f for f in self.comments if id(f) not in moved),
            summarised=tuple(f for f in self.findings if id(f) in listed),
        )


def plan(findings: Sequence[ReviewFinding], shown: Callable[[ReviewFinding], bool], before: Earlier = Earlier()) -> Plan:
    active = {p.fingerprint for p in before.comments if not p.resolved}
    current = {f.fingerprint for f in findings}
    new = [f for f in findings if f.fingerprint not in active and f.fingerprint not in before.summarised]
    gone = tuple(p for p in before.comments if not p.resolved and p.fingerprint not in current)
    return Plan(
        tuple(findings),
        tuple(f for f in new if shown(f)),
        tuple(f for f in new if not shown(f)),
        gone,
    )


def shown_by(diff: Mapping[str, ShownLines]) -> Callable[[ReviewFinding], bool]:
    """Whether a comment on a finding covers only lines the diff shows (by new path)."""

    def shown(reviewed: ReviewFinding) -> bool:
        lines = diff.get(reviewed.path)
        return lines is not None and all(lines.shows(line) for line in reviewed.placement.lines)

    return shown


def check_reviewable(reviewed: Sequence[ReviewFinding], changes: Changes, head: str) -> None:
    """A review's lines are those of the work tree: it must hold the reviewed commit, and
    the commented files as committed. A dry run is refused alike, so that it never shows a
    comment the review would not post."""
    if head != changes.head:
        raise UserError(
            f"the work tree is at commit {changes.head[:12]}, not at the reviewed head "
            f"{head[:12]}: check out the head commit of the change (for a pull request on "
            "GitHub Actions: actions/checkout with `ref: ${{ github.event.pull_request.head.sha }}`)"
        )
    dirty = sorted({r.path for r in reviewed} & changes.uncommitted)
    if dirty:
        raise UserError(
            f"{', '.join(dirty)}: not as committed in {head[:12]}; the review would point at "
            "lines the commit does not have: commit or stash first"
        )


def comment_body(reviewed: ReviewFinding, block: str | None) -> str:
    """A comment on one finding; `block` is its fix as the platform's suggestion block."""
    finding = reviewed.finding
    parts = [f"**[{finding.code} {finding.name}]({reviewed.rule_link})**: {finding.message} (basis: {finding.basis})"]
    if finding.effect_words is not None:
        parts.append(f"On Spark: {finding.effect_words}.")
    fix = finding.fix
    if fix is not None and fix.edits:
        if fix.applicability is Applicability.UNSAFE:
            parts.append(
                f"Fix, **unsafe**: {fix.message}. It rests on a declaration the engine does not "
                "enforce (named above): apply it only while the table really is stored that way."
            )
        else:
            parts.append(f"Fix: {fix.message}.")
        if block is not None:
            parts.append(block)
    elif fix is not None:
        parts.append(f"No automatic fix: {fix.message}.")
    parts.append(_marker(reviewed.fingerprint))
    return "\n\n".join(parts)


def resolved_body(posted: Posted, head: str) -> str:
    """An earlier comment, edited to say its finding is gone (its suggestion dropped)."""
    first = posted.body.split("\n\n", 1)[0]
    return "\n\n".join(
        (
            f"Resolved: sortlint no longer reports this as of {head[:12]}.",
            f"~~{first}~~",
            _marker(posted.fingerprint, resolved=True),
        )
    )


def summary_body(plan: Plan, platform: str, errors: Sequence[UserError] = ()) -> str:
    """The review's summary: counts per rule, the fixes and how to apply them, and the
    findings no comment could be placed on."""
    findings = plan.findings
    noun = "finding" if len(findings) == 1 else "findings"
    lines = [SUMMARY_MARKER, f"**sortlint** found {len(findings)} {noun} in the statements this change touches."]
    if findings:
        lines += ["", "| Rule | Findings | With a fix |", "| --- | ---: | ---: |"]
        counts = Counter((f.finding.code, f.finding.name) for f in findings)
        fixes = Counter((f.finding.code, f.finding.name) for f in findings if f.fixable)
        links = {f.finding.code: f.rule_link for f in findings}
        for (code, name), count in sorted(counts.items()):
            lines.append(f"| [{code} {name}]({links[code]}) | {count} | {fixes[(code, name)]} |")
    fixable_findings = [f for f in findings if f.fixable]
    if fixable_findings:
        unsafe = sum(1 for f in fixable_findings if f.finding.fix.applicability is Applicability.UNSAFE)
        paths = sorted({f.path for f in fixable_findings})
        command = "sortlint check --fix " + " ".join(map(shlex.quote, paths))  # to be pasted into a shell
        lines += [
            "",
            f"{len(fixable_findings)} {'has' if len(fixable_findings) == 1 else 'have'} a fix: apply the "
            f"suggestions, or run `{command}` locally"
            + (
                f" (add `--unsafe-fixes` for the {unsafe} that rest{'s' if unsafe == 1 else ''} on a "
                "declaration the engine does not enforce)."
                if unsafe
                else "."
            ),
        ]
    if plan.summarised:
        lines += ["", f"Not on a line of the diff {platform} shows:"]
        for reviewed in plan.summarised:
            finding = reviewed.finding
            lines.append(
                f"- `{reviewed.path}:{finding.line}` **{finding.code} {finding.name}**: "
                f"{finding.message} {_marker(reviewed.fingerprint)}"
            )
    if errors:
        lines += ["", "sortlint could not check everything:"]
        lines += [f"- {error}" for error in errors]
    return "\n".join(lines)


def counted(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _marker(fingerprint: str, resolved: bool = False) -> str:
    return f"<!-- sortlint:finding {fingerprint}{' resolved' if resolved else ''} -->"
