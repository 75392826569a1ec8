"""`--output-format sarif`: a SARIF 2.1.0 log, as GitHub code scanning and other tools
read it.

The driver lists every rule (id, name, short and full description, its page); each result
names its rule, where it is, a fingerprint that stays the same across runs and line moves
(`partialFingerprints`), and its fix as replacements when there is one. Columns count
characters (`columnKind: unicodeCodePoints`), as sortlint's do. Errors are the run's tool
execution notifications, and make it unsuccessful.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path

from sortlint import __version__
from sortlint.errors import UserError
from sortlint.diagnostics import Applicability, Edit, Finding, Fix, fingerprints
from sortlint.linter.rules import Rule, rules
from sortlint.report.rule_pages import HOME, rule_url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "sortlint/v1"
ROOT = "%SRCROOT%"


def render(
    findings: Sequence[Finding], errors: Sequence[UserError], texts: Mapping[Path, str], docs: str = HOME
) -> str:
    index = {rule.code: number for number, rule in enumerate(rules())}
    run = {
        "tool": {
            "driver": {
                "name": "sortlint",
                "version": __version__,
                "informationUri": docs,
                "rules": [_rule(rule, docs) for rule in rules()],
            }
        },
        "originalUriBaseIds": {ROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [
            _result(f, index[f.code], print_) for f, print_ in zip(findings, fingerprints(findings, texts.__getitem__))
        ],
        "invocations": [
            {
                "executionSuccessful": not errors,
                "toolExecutionNotifications": [_notification(error) for error in errors],
            }
        ],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(rule: Rule, docs: str) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": section(rule.doc, "What it does")},
        "help": {"text": rule.doc.strip(), "markdown": rule.doc.strip()},
        "helpUri": rule_url(rule.name, docs),
        "defaultConfiguration": {"level": "warning"},
    }


def section(doc: str, title: str) -> str:
    """The text of a rule page's `## title` section, on one line per paragraph."""
    after = doc.split(f"## {title}", 1)[-1].split("\n## ", 1)[0]
    return "\n\n".join(" ".join(p.split()) for p in after.strip().split("\n\n"))


def _result(finding: Finding, rule_index: int, fingerprint: str) -> dict:
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(finding.path),
                    "region": _region(finding.line, finding.column, finding.end_line, finding.end_column),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {"basis": finding.basis},
    }
    if finding.effect is not None:
        result["properties"]["effect"] = {**finding.effect.as_json(), "text": finding.effect.words()}
    elif finding.effect_unknown is not None:
        result["properties"]["effect_unknown"] = finding.effect_unknown
    if finding.fix is not None and finding.fix.edits:
        result["fixes"] = [_fix(finding.fix, finding.path)]
    return result


def _fix(fix: Fix, path: Path) -> dict:
    return {
        "description": {
            "text": fix.message if fix.applicability is Applicability.SAFE else f"{fix.message} ({fix.applicability})"
        },
        "artifactChanges": [
            {"artifactLocation": _artifact(path), "replacements": [_replacement(edit) for edit in fix.edits]}
        ],
        "properties": {"applicability": fix.applicability},
    }


def _replacement(edit: Edit) -> dict:
    return {
        "deletedRegion": _region(edit.line, edit.column, edit.end_line, edit.end_column),
        "insertedContent": {"text": edit.content},
    }


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _artifact(path: Path) -> dict:
    """A path under the current directory is relative to the source root (`%SRCROOT%`,
    where code scanning puts the checkout); any other is an absolute file URI."""
    here = Path.cwd()
    absolute = Path(os.path.normpath(here / path))
    try:
        relative = absolute.relative_to(here)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": urllib.parse.quote(relative.as_posix()), "uriBaseId": ROOT}


def _notification(error: UserError) -> dict:
    notification: dict = {"level": "error", "message": {"text": str(error)}}
    if error.path is not None:
        location: dict = {"artifactLocation": _artifact(Path(error.path))}
        if error.line:
            location["region"] = {"startLine": error.line}
        notification["locations"] = [{"physicalLocation": location}]
    return notification
