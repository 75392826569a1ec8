"""`--statistics`: how many findings each rule made and how many of them `--fix` would fix,
as ruff counts them: an unsafe fix counts as fixable only with `--unsafe-fixes`; without it,
it is a hidden fix that option would enable."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from sortlint.diagnostics import Applicability, Finding


def counts(findings: Sequence[Finding], unsafe: bool) -> list[dict]:
    """One entry per rule that fired, most findings first."""
    total = Counter((f.code, f.name) for f in findings)
    fixable = Counter((f.code, f.name) for f in findings if _applies(f, unsafe))
    hidden = Counter((f.code, f.name) for f in findings if not _applies(f, unsafe) and _applies(f, True))
    ordered = sorted(total.items(), key=lambda item: (-item[1], item[0]))
    return [
        {"code": code, "name": name, "count": count, "fixable": fixable[(code, name)],
         "hidden_unsafe_fixes": hidden[(code, name)]}
        for (code, name), count in ordered
    ]


def _applies(finding: Finding, unsafe: bool) -> bool:
    """Whether `--fix` (with `--unsafe-fixes` when `unsafe`) would apply the finding's fix."""
    least = Applicability.UNSAFE if unsafe else Applicability.SAFE
    fix = finding.fix
    return fix is not None and bool(fix.edits) and fix.applicability >= least


def render_text(findings: Sequence[Finding], unsafe: bool) -> str:
    """A row per rule - `[*]` when `--fix` fixes all its findings, `[-]` some, `[ ]` none -
    then ruff's summary of what `--fix` and `--unsafe-fixes` would fix."""
    rows = counts(findings, unsafe)
    width = max((len(str(row["count"])) for row in rows), default=1)
    lines = []
    for row in rows:
        mark = "[*]" if row["fixable"] == row["count"] else "[-]" if row["fixable"] else "[ ]"
        lines.append(f"{row['count']:>{width}}  {row['code']}  {mark} {row['name']}")
    lines.append(f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''}.")
    fixable = sum(row["fixable"] for row in rows)
    hidden = sum(row["hidden_unsafe_fixes"] for row in rows)
    enabled = f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the `--unsafe-fixes` option"
    if fixable and hidden:
        lines.append(f"[*] {fixable} fixable with the `--fix` option ({enabled}).")
    elif fixable:
        lines.append(f"[*] {fixable} fixable with the `--fix` option.")
    elif hidden:
        lines.append(f"No fixes available ({enabled}).")
    return "\n".join(lines) + "\n"


def render_json(findings: Sequence[Finding], unsafe: bool) -> str:
    return json.dumps(counts(findings, unsafe), indent=2) + "\n"
