"""`--output-format json`: a list of finding objects, as the design specifies."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sortlint.diagnostics import Finding, Fix


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
        "fix": fix_json(finding.fix) if finding.fix else None,
    }


def fix_json(fix: Fix) -> dict:
    return {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": [
            {
                "line": e.line,
                "column": e.column,
                "end_line": e.end_line,
                "end_column": e.end_column,
                "content": e.content,
            }
            for e in fix.edits
        ],
    }
