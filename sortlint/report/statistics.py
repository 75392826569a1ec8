"""`--statistics`: how many findings each rule made and how many of them a fix could
remove, as ruff prints them."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from sortlint.diagnostics import Finding


def counts(findings: Sequence[Finding]) -> list[dict]:
    """One entry per rule that fired, most findings first."""
    total = Counter((f.code, f.name) for f in findings)
    fixable = Counter((f.code, f.name) for f in findings if f.fix is not None and f.fix.edits)
    ordered = sorted(total.items(), key=lambda item: (-item[1], item[0]))
    return [{"code": code, "name": name, "count": count, "fixable": fixable[(code, name)]} for (code, name), count in ordered]


def render_text(findings: Sequence[Finding]) -> str:
    rows = counts(findings)
    width = max((len(str(row["count"])) for row in rows), default=1)
    lines = []
    for row in rows:
        mark = "[*]" if row["fixable"] == row["count"] else "[-]" if row["fixable"] else "[ ]"
        lines.append(f"{row['count']:>{width}}  {row['code']}  {mark} {row['name']}")
    fixable = sum(row["fixable"] for row in rows)
    lines.append(f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''}; {fixable} with a fix ([*] all, [-] some).")
    return "\n".join(lines) + "\n"


def render_json(findings: Sequence[Finding]) -> str:
    return json.dumps(counts(findings), indent=2) + "\n"
