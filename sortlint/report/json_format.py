"""`--output-format json`: a list of finding objects, as the design specifies."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from sortlint.linter.finding import Finding


def render(findings: Sequence[Finding]) -> str:
    return json.dumps([as_json(f) for f in findings], indent=2) + "\n"


def as_json(finding: Finding) -> dict:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "path": str(finding.path),
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "basis": finding.basis,
        "fix": asdict(finding.fix) if finding.fix else None,
    }
