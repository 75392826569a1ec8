"""The findings a change is responsible for: those in a statement with a changed line.

A change can make a sort unnecessary without touching it (a new `WHERE host = ...` above
an old `ORDER BY host, time`), so a finding counts as changed when any line of its
statement (the unit its front end cut out: a SQL statement, a dbt model, a DataFrame
pipeline) was added or modified. Every file is still checked, so what unchanged files
create (a view, a dbt model) is known; only the report is limited.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from sortlint.config import Config
from sortlint.integrations.git_changes import Changes
from sortlint.diagnostics import Finding
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import units_of


def changed_findings(files: Iterable, changes: Changes, config: Config) -> list[Finding]:
    """The findings of the checked `files` (a check's analyses: path, raw text, findings)
    whose statement has a line `changes` added or modified."""
    kept = []
    reading = Reading(config)
    for file in files:
        added = changes.added(file.path)
        if not added or not file.findings:
            continue
        statements = list(statement_lines(file.path, file.raw, reading))
        for finding in file.findings:
            # Innermost: a query inside a DataFrame pipeline (`spark.sql(...)`) is its own.
            lines = min(
                (span for span in statements if finding.line in span),
                key=len,
                default=range(finding.line, max(finding.line, finding.end_line) + 1),
            )
            if any(line in added for line in lines):
                kept.append(finding)
    return kept


def statement_lines(path: Path, raw: str, reading: Reading) -> Iterator[range]:
    """The raw lines of each statement of a file, first to last."""
    for unit in units_of(path, raw, reading):
        yield range(unit.location(0)[0], unit.location(len(unit.text))[0] + 1)
