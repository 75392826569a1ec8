"""`sortlint coverage`: how much of a repository sortlint understands - files, statements,
statements that parse (or render), statements analysed without an opaque node, plan nodes
and opaque nodes by reason, findings per rule - so that what is not analysed is seen, not
silently skipped.

A statement's plan counts its own nodes (an inlined view's or called function's body counts
where it is defined). A unit that stands for code sortlint does not analyse (SQL built at
run time, a template file not found) is a statement with one opaque node. Reasons are
grouped by their words, without the names in them: "a DataFrame from elsewhere (df)" and
"... (events)" are one reason.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sortlint.diagnostics import Finding
from sortlint.linter.lint import own_nodes
from sortlint.plan import nodes as n


@dataclass
class Coverage:
    files: int = 0
    # Files read that hold nothing sortlint analyses (a Python file with no Spark job or DAG
    # SQL): checked, and named here, so that a job sortlint did not recognise is seen.
    nothing_to_analyse: list[str] = field(default_factory=list)
    statements: int = 0
    errors: int = 0  # statements (or files) that do not parse or render
    clean: int = 0  # statements analysed without an opaque node
    nodes: int = 0
    opaque: Counter = field(default_factory=Counter)  # reason -> opaque nodes
    kinds: Counter = field(default_factory=Counter)  # unit kind -> statements
    findings: Counter = field(default_factory=Counter)  # rule code -> findings

    @property
    def parsed(self) -> int:
        return self.statements - self.errors

    def as_dict(self) -> dict:
        return {
            "files": self.files, "files_with_nothing_to_analyse": sorted(self.nothing_to_analyse),
            "statements": self.statements, "parsed": self.parsed,
            "analysed_without_opaque": self.clean, "nodes": self.nodes,
            "opaque_nodes": sum(self.opaque.values()), "errors": self.errors,
            "statements_by_kind": dict(sorted(self.kinds.items())),
            "opaque_by_reason": dict(self.opaque.most_common()),
            "findings_by_rule": dict(sorted(self.findings.items())),
        }


    def add(self, file) -> None:
        """Count the statements of one file's analysis (a `FileAnalysis` with its plans)."""
        if not file.statements and not file.errors:
            self.nothing_to_analyse.append(str(file.path))
        for statement in file.statements:
            self.statements += 1
            self.kinds[statement.unit.kind] += 1
            opaque = 0
            for node in own_nodes(statement.root, statement.unit):
                self.nodes += 1
                if isinstance(node, n.Opaque):
                    opaque += 1
                    self.opaque[reason_group(node.reason)] += 1
            self.clean += opaque == 0

    def close(self, files: int, findings: Sequence[Finding], errors: Sequence) -> Coverage:
        """Add what the whole check found: its files, findings and errors (a statement
        that does not parse or render is one of them)."""
        self.files = files
        self.errors = len(errors)
        self.statements += len(errors)
        self.findings.update(f.code for f in findings)
        return self


def coverage(files: Sequence, findings: Sequence[Finding], errors: Sequence) -> Coverage:
    """The coverage of a check's files (`FileAnalysis`, with their plans), findings and errors."""
    result = Coverage()
    for file in files:
        result.add(file)
    return result.close(len(files), findings, errors)


_NAMED = re.compile(r"\s*\([^()]*\)|`[^`]*`|(?<!\w)'[^']*'|\"[^\"]*\"")


def reason_group(reason: str) -> str:
    """The reason without the names and details in it."""
    grouped, previous = reason, None
    while grouped != previous:  # innermost parentheses first
        previous, grouped = grouped, _NAMED.sub("", grouped)
    grouped = re.sub(r"\bthe parameter \w+ of [\w<>.]+", "a parameter of a function", grouped)
    grouped = re.sub(r"\d+", "N", grouped)
    return re.sub(r"\s+", " ", grouped).strip() or reason


def render_text(report: Coverage) -> str:
    def share(part: int, whole: int) -> str:
        return f"  ({100 * part / whole:.0f}%)" if whole else ""

    opaque = sum(report.opaque.values())
    lines = [
        f"files                            {report.files:>7}",
        *([f"  with nothing to analyse        {len(report.nothing_to_analyse):>7}"
           f"{share(len(report.nothing_to_analyse), report.files)}"] if report.nothing_to_analyse else []),
        f"statements                       {report.statements:>7}",
        f"  parsed or rendered             {report.parsed:>7}{share(report.parsed, report.statements)}",
        f"  analysed without an opaque node{report.clean:>7}{share(report.clean, report.statements)}",
        f"plan nodes                       {report.nodes:>7}",
        f"  opaque                         {opaque:>7}{share(opaque, report.nodes)}",
    ]
    if report.kinds:
        lines.append("statements by kind: " + ", ".join(f"{kind} {count}" for kind, count in sorted(report.kinds.items())))
    if report.opaque:
        lines.append("opaque nodes by reason:")
        width = len(str(max(report.opaque.values())))
        lines += [f"  {count:>{width}}  {reason}" for reason, count in report.opaque.most_common()]
    if report.findings:
        lines.append("findings by rule: " + ", ".join(f"{code} {count}" for code, count in sorted(report.findings.items())))
    if report.nothing_to_analyse:
        lines.append("files with nothing to analyse: " + ", ".join(sorted(report.nothing_to_analyse)))
    return "\n".join(lines) + "\n"


def render_json(report: Coverage) -> str:
    return json.dumps(report.as_dict(), indent=2) + "\n"
