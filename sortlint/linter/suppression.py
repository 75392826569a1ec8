"""`-- noqa` comments: `-- noqa` silences every rule on its line, `-- noqa: SL001,SL003`
the codes listed. `# noqa` works the same on Python lines."""

from __future__ import annotations

import re

from sortlint.diagnostics import Finding

NOQA = re.compile(r"(?:--|#)\s*noqa(?::\s*(?P<codes>[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*))?", re.I)


def suppressed(finding: Finding, raw_lines: list[str]) -> bool:
    if not 0 < finding.line <= len(raw_lines):
        return False
    match = NOQA.search(raw_lines[finding.line - 1])
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or finding.code in {c.strip().upper() for c in codes.split(",")}
