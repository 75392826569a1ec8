"""`--output-format junit`: JUnit XML, as CI systems show test results: one test suite per
file with findings, one failing test case per finding, an error case per file that could
not be checked; a clean check is one passing case."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence

from sortlint.errors import UserError
from sortlint.diagnostics import Finding


def render(findings: Sequence[Finding], errors: Sequence[UserError], files: int) -> str:
    root = ET.Element(
        "testsuites", name="sortlint", tests=str(max(1, len(findings) + len(errors))),
        failures=str(len(findings)), errors=str(len(errors)),
    )
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_file[finding.path.as_posix()].append(finding)
    for path, found in by_file.items():
        suite = _suite(root, path, len(found), failures=len(found))
        for finding in found:
            case = ET.SubElement(
                suite, "testcase", name=f"{finding.code} {finding.name} at line {finding.line}, column {finding.column}",
                classname=path, file=path, line=str(finding.line),
            )
            failure = ET.SubElement(case, "failure", message=finding.message, type=finding.code)
            failure.text = f"{path}:{finding.line}:{finding.column}: {finding.code} {finding.message} [{finding.basis}]"
    if errors:
        suite = _suite(root, "errors", len(errors), errors=len(errors))
        for error in errors:
            where = str(error.path) if error.path is not None else "sortlint"
            case = ET.SubElement(suite, "testcase", name=f"check {where}", classname=where)
            ET.SubElement(case, "error", message=str(error), type="error").text = str(error)
    if not findings and not errors:
        suite = _suite(root, "sortlint", 1)
        ET.SubElement(suite, "testcase", name=f"All checks passed ({files} file{'s' if files != 1 else ''})", classname="sortlint")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(root: ET.Element, name: str, tests: int, failures: int = 0, errors: int = 0) -> ET.Element:
    return ET.SubElement(
        root, "testsuite", name=name, tests=str(tests), failures=str(failures), errors=str(errors), skipped="0",
    )
