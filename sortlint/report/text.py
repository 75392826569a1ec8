"""The text report, in one of two forms, as ruff writes them: `concise`, one line per
finding (the default in pipes and CI logs), and `full`, each finding with the source lines it
points at, a marker under its span and its fix (the default on a terminal); then a summary,
and a line for each pattern of findings with no runtime effect that repeats across files
(`report.noise`). Either may be coloured (`report.colors`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from sortlint.diagnostics import Applicability, Finding
from sortlint.errors import UserError
from sortlint.report.colors import PLAIN, Palette
from sortlint.report.fixed_lines import changed_lines
from sortlint.report.noise import grouped, no_runtime_effect
from sortlint.units import file_line_starts


def render(
    findings: Sequence[Finding],
    errors: Sequence[UserError],
    files: int,
    unsafe: bool = False,
    texts: Mapping[Path, str] | None = None,
    sources: Mapping[Path, str] | None = None,
    palette: Palette = PLAIN,
) -> str:
    """With `texts` (each file's raw text), every fix is shown under its finding; with
    `sources` (the same), the full form: each finding with its source lines. The errors are
    counted in the summary; each is said on stderr, not here. `files` (those checked) is
    said only when nothing was found."""
    lines = []
    for f in findings:
        # The full form says every effect under the finding; a line of the concise form says
        # only that there is none, so lines of findings that save work read as they did.
        noop = " (no runtime effect)" if sources is None and no_runtime_effect(f) else ""
        lines.append(
            f"{palette.paint('path', path_line(f))}: {palette.paint('code', f.code)}"
            f"{_fix_mark(f, unsafe)} {f.message} {palette.paint('basis', f'[{f.basis}]{noop}')}"
        )
        if sources is not None:
            lines += snippet(f, sources[f.path], unsafe, palette)
        if texts is not None and f.fix is not None:
            lines += fix_preview(f, texts[f.path])
    noun = "finding" if len(findings) == 1 else "findings"
    # The files the findings are in, not the files checked: "40 findings in 21 files" of a
    # check where 3 files were clean sent users looking for findings in all 21.
    where = len({f.path for f in findings})
    summary = f"Found {len(findings)} {noun}"
    summary += f" in {where} file{'s' if where != 1 else ''}." if where else "."
    if errors:
        summary += f" {len(errors)} error{'s' if len(errors) != 1 else ''}."
    if not findings and not errors:
        summary = f"All checks passed ({files} file{'s' if files != 1 else ''})."
    return "\n".join(lines + [summary] + grouped(findings)) + "\n"


def path_line(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}"


def _fix_mark(finding: Finding, unsafe: bool) -> str:
    """`[*]` when `--fix` would fix it; `[*unsafe]` when it needs `--unsafe-fixes`."""
    if finding.fix is None or finding.fix.applicability is Applicability.DISPLAY_ONLY:
        return ""
    if finding.fix.applicability is Applicability.SAFE or unsafe:
        return " [*]"
    return " [*unsafe]"


def snippet(finding: Finding, raw: str, unsafe: bool, palette: Palette) -> list[str]:
    """The lines a finding points at, numbered, a marker under its span, and its fix: what it
    does and whether `--fix` applies it."""
    starts = file_line_starts(raw)
    width = len(str(finding.end_line))
    bar = palette.paint("gutter", f"{'':>{width}} |")
    lines = [bar]
    for number in range(finding.line, min(finding.end_line, len(starts)) + 1):
        start = starts[number - 1]
        end = starts[number] if number < len(starts) else len(raw)
        text = raw[start:end].rstrip("\r\n")
        first = finding.column if number == finding.line else 1
        last = finding.end_column if number == finding.end_line else len(text) + 1
        marks = max(last - first, 1)
        lines.append(f"{palette.paint('gutter', f'{number:>{width}} |')} {text}")
        lines.append(f"{bar} {' ' * (first - 1)}{palette.paint('marker', '^' * marks)}")
    effect = finding.effect_words
    if effect is not None or finding.fix is not None:
        lines.append(bar)
    if effect is not None:
        lines.append(palette.paint("help", f"{'':>{width}} = on Spark: {effect}"))
    if finding.fix is not None:
        lines.append(palette.paint("help", f"{'':>{width}} = {_applicability(finding, unsafe)}: "
                                           f"{finding.fix.message}"))
    return lines + [""]


def _applicability(finding: Finding, unsafe: bool) -> str:
    fix = finding.fix
    assert fix is not None
    if fix.applicability is Applicability.DISPLAY_ONLY:
        return "no fix"
    if fix.applicability is Applicability.SAFE:
        return "safe fix (--fix)"
    return "unsafe fix (--unsafe-fixes)" if not unsafe else "unsafe fix (--fix --unsafe-fixes)"


def fix_preview(finding: Finding, raw: str) -> list[str]:
    """The fix under its finding: what it does and the lines it changes, diff-style."""
    fix = finding.fix
    lines = [f"  fix ({fix.applicability}): {fix.message}"]
    if fix.edits:
        change = changed_lines(raw, fix.edits)
        width = len(str(change.last))
        lines += [f"    {n:>{width}} - {text}" for n, text in enumerate(change.before, change.first)]
        lines += [f"    {'':>{width}} + {text}" for text in change.after]
    return lines


def render_fixed(fixed: Sequence[Finding]) -> str:
    """What `--fix --show-fixes` fixed, per file and rule, as ruff lists it."""
    if not fixed:
        return ""
    noun = "finding" if len(fixed) == 1 else "findings"
    lines = [f"Fixed {len(fixed)} {noun}:"]
    by_file: dict[str, Counter] = {}
    for finding in fixed:
        by_file.setdefault(str(finding.path), Counter())[(finding.code, finding.name)] += 1
    for path, counts in sorted(by_file.items()):
        lines.append(f"- {path}:")
        lines += [f"    {count} × {code} ({name})" for (code, name), count in sorted(counts.items())]
    return "\n".join(lines) + "\n"


def render_fixes(fixed: int, dropped, remaining: int, diff: bool) -> str:
    lines = [
        f"fix dropped: {path_line(finding)}: {finding.code}: {reason}" for finding, reason in dropped
    ]
    verb = "would be fixed" if diff else "fixed"
    lines.append(f"{fixed} {verb}, {remaining} remaining.")
    return "\n".join(lines) + "\n"
