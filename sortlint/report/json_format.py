"""`--output-format json`: a list of finding objects, as the design specifies, then one
entry per error with the same keys: the error's own code (E001 input, E002 configuration,
E003 write, E999 internal) and kind as `code` and `name`, no columns, basis or fix."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sortlint.diagnostics import Finding, Fix
from sortlint.errors import UserError


def render(findings: Sequence[Finding], errors: Sequence[UserError] = ()) -> str:
    entries = [as_json(f) for f in findings] + [error_json(e) for e in errors]
    return json.dumps(entries, indent=2) + "\n"


def error_json(error: UserError) -> dict:
    return {
        "code": error.code,
        "name": error.kind,
        "message": error.message,
        "path": None if error.path is None else str(error.path),
        "line": error.line,
        "column": None,
        "end_line": None,
        "end_column": None,
        "basis": None,
        "fix": None,
        "effect": None,
        "effect_unknown": None,
    }


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
        "effect": finding.effect.as_json() if finding.effect is not None else None,
        "effect_unknown": finding.effect_unknown,
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
