"""`--output-format gitlab`: a GitLab Code Quality report (the Code Climate issue subset
GitLab reads), shown in merge requests when a job uploads it as
`artifacts:reports:codequality`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from sortlint.diagnostics import Finding, fingerprints


def render(findings: Sequence[Finding], texts: Mapping[Path, str]) -> str:
    issues = [_issue(f, print_) for f, print_ in zip(findings, fingerprints(findings, texts.__getitem__))]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def _issue(finding: Finding, fingerprint: str) -> dict:
    return {
        "description": f"{finding.code} {finding.name}: {finding.message}",
        "check_name": finding.code,
        "fingerprint": fingerprint,
        "severity": "minor",
        "categories": ["Performance"],
        "location": {
            "path": finding.path.as_posix(),
            "lines": {"begin": finding.line, "end": finding.end_line},
        },
    }
