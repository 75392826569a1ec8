"""Fingerprints: a finding's identity across runs, for tools that track findings over time
(code-scanning alerts, merge-request comments, quality reports).

A fingerprint hashes the rule's code, the file's path and the flagged text with its
whitespace normalised, so it survives lines moving and code being re-indented around the
finding; identical triples in one file are told apart by their occurrence index (the first
`ORDER BY x` of a file, the second, ...). It changes when the flagged text itself changes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath

from sortlint.diagnostics.findings import Finding


def fingerprint(finding: Finding, raw_text: str, occurrence: int = 0) -> str:
    """The finding's fingerprint; `raw_text` is its file's text, `occurrence` how many
    findings of the same rule and flagged text come before it in that file."""
    parts = (finding.code, PurePath(finding.path).as_posix(), flagged_text(finding, raw_text), str(occurrence))
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def fingerprints(findings: Sequence[Finding], raw_text_of: Callable[[Path], str]) -> list[str]:
    """The fingerprint of each finding, occurrence indexes counted in report order."""
    seen: Counter[tuple[str, str, str]] = Counter()
    texts: dict[Path, str] = {}
    made = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        if finding.path not in texts:
            texts[finding.path] = raw_text_of(finding.path)
        raw = texts[finding.path]
        triple = (finding.code, PurePath(finding.path).as_posix(), flagged_text(finding, raw))
        made.append((finding, fingerprint(finding, raw, seen[triple])))
        seen[triple] += 1
    by_identity = {id(finding): value for finding, value in made}
    return [by_identity[id(finding)] for finding in findings]


def flagged_text(finding: Finding, raw_text: str) -> str:
    """The text between the finding's start and end, its whitespace runs made one space."""
    lines = raw_text.split("\n")
    if not 1 <= finding.line <= len(lines):
        return ""
    end_line = min(max(finding.end_line, finding.line), len(lines))
    first = lines[finding.line - 1]
    if end_line == finding.line:
        text = first[finding.column - 1 : finding.end_column - 1]
    else:
        middle = lines[finding.line : end_line - 1]
        text = "\n".join([first[finding.column - 1 :], *middle, lines[end_line - 1][: finding.end_column - 1]])
    return " ".join(text.split())
