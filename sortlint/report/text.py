"""The default output: one line per finding, ruff-style, and a summary."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.diagnostics import Applicability, Finding
from sortlint.errors import UserError


def render(
    findings: Sequence[Finding], errors: Sequence[UserError], files: int, unsafe: bool = False
) -> str:
    lines = [f"{path_line(f)}: {f.code}{_fix_mark(f, unsafe)} {f.message} [{f.basis}]" for f in findings]
    lines += [f"error: {error}" for error in errors]
    noun = "finding" if len(findings) == 1 else "findings"
    summary = f"Found {len(findings)} {noun} in {files} file{'s' if files != 1 else ''}."
    if errors:
        summary += f" {len(errors)} error{'s' if len(errors) != 1 else ''}."
    if not findings and not errors:
        summary = f"All checks passed ({files} file{'s' if files != 1 else ''})."
    return "\n".join(lines + [summary]) + "\n"


def path_line(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}"


def _fix_mark(finding: Finding, unsafe: bool) -> str:
    """`[*]` when `--fix` would fix it; `[*unsafe]` when it needs `--unsafe-fixes`."""
    if finding.fix is None or finding.fix.applicability is Applicability.DISPLAY_ONLY:
        return ""
    if finding.fix.applicability is Applicability.SAFE or unsafe:
        return " [*]"
    return " [*unsafe]"


def render_fixes(fixed: int, dropped, remaining: int, diff: bool) -> str:
    lines = [
        f"fix dropped: {path_line(finding)}: {finding.code}: {reason}" for finding, reason in dropped
    ]
    verb = "would be fixed" if diff else "fixed"
    lines.append(f"{fixed} {verb}, {remaining} remaining.")
    return "\n".join(lines) + "\n"
