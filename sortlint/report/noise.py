"""Findings whose fix changes nothing Spark runs (`Effect.noop`): how a report says so, and the
patterns they repeat across files, each counted in one line (as ruff's statistics count a
rule) so that a reader sees the noise at once and how to leave it out."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.diagnostics import Finding

# A pattern is grouped when it repeats in this many files: below that a reader judges each
# line, above it the lines are one decision (keep the pattern, or --ignore-noop).
GROUPED_FROM_FILES = 5


def no_runtime_effect(finding: Finding) -> bool:
    """Whether the model predicts that the fix changes nothing Spark runs (`Effect.noop`: a
    fix that keeps the plan but sorts or hashes by fewer keys saves work, and is not noise);
    a finding whose effect the model does not know is not said to have none."""
    return finding.effect is not None and finding.effect.noop


def pattern(finding: Finding) -> str:
    """What a finding claims, without the evidence that follows its first ': ' ("group key
    region is constant"): the words findings of one kind repeat from file to file."""
    return finding.message.split(": ", 1)[0]


def grouped(findings: Sequence[Finding]) -> list[str]:
    """One line per pattern of findings with no runtime effect that repeats in
    GROUPED_FROM_FILES files or more, the most findings first."""
    by_pattern: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        if no_runtime_effect(finding):
            by_pattern.setdefault((finding.code, pattern(finding)), []).append(finding)
    lines = []
    for (code, claim), found in sorted(by_pattern.items(), key=lambda item: (-len(item[1]), item[0])):
        files = len({f.path for f in found})
        if files >= GROUPED_FROM_FILES:
            lines.append(f"{len(found)} findings {code} '{claim}' in {files} files have no runtime effect on "
                         f"Spark: --ignore-noop leaves them out.")
    return lines
