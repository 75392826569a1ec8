"""`--output-format rdjson`: reviewdog's diagnostic format (`DiagnosticResult`), for
`reviewdog -f=rdjson`. Each fix's edits become suggestions. Columns are counted in UTF-8
bytes, as the format says; ranges end before their end position."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from sortlint.diagnostics import Applicability, Finding
from sortlint.report.rule_pages import HOME, rule_url


def render(findings: Sequence[Finding], texts: Mapping[Path, str], docs: str = HOME) -> str:
    result = {
        "source": {"name": "sortlint", "url": docs},
        "severity": "WARNING",
        "diagnostics": [_diagnostic(f, _Columns(texts[f.path]), docs) for f in findings],
    }
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def _diagnostic(finding: Finding, columns: _Columns, docs: str) -> dict:
    message = finding.message
    diagnostic: dict = {
        "message": message,
        "location": {
            "path": finding.path.as_posix(),
            "range": columns.range(finding.line, finding.column, finding.end_line, finding.end_column),
        },
        "severity": "WARNING",
        "code": {"value": finding.code, "url": rule_url(finding.name, docs)},
    }
    fix = finding.fix
    if fix is not None and fix.edits:
        if fix.applicability is Applicability.UNSAFE:
            diagnostic["message"] = f"{message} (the fix, {fix.message}, is unsafe: it rests on a declaration)"
        diagnostic["suggestions"] = [
            {"range": columns.range(e.line, e.column, e.end_line, e.end_column), "text": e.content}
            for e in fix.edits
        ]
    return diagnostic


class _Columns:
    """Character columns of a file's lines as UTF-8 byte columns."""

    def __init__(self, raw: str) -> None:
        self.lines = raw.split("\n")

    def range(self, line: int, column: int, end_line: int, end_column: int) -> dict:
        return {
            "start": {"line": line, "column": self.column(line, column)},
            "end": {"line": end_line, "column": self.column(end_line, end_column)},
        }

    def column(self, line: int, column: int) -> int:
        if line > len(self.lines):
            return column
        return len(self.lines[line - 1][: column - 1].encode("utf-8")) + 1
