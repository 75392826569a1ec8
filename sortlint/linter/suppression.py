"""`noqa` comments: `-- noqa` silences every rule on its line, `-- noqa: SL001,SL003` the
codes listed. `# noqa` works the same on Python lines.

Only comments count, as the tokens tell them apart from code: `WHERE message = '-- noqa'`
is a string, and silences nothing. In a SQL file a comment is what lies outside every token
of its statements; in a Python file it is a Python comment, or a SQL comment inside the
string that holds a statement (outside that statement's tokens). A listed code that looks
like sortlint's (`SL...`) but names no rule is an error of its line; other tools' codes
(`E501`, `LT01`) are left to them.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlglot.errors import SqlglotError

from sortlint.config.settings import unknown_rule_code
from sortlint.diagnostics import Finding
from sortlint.errors import UserError
from sortlint.plan import tokens as sql_tokens
from sortlint.units import Unit, file_line_starts, raw_location

NOQA = re.compile(r"(?:--|#)\s*noqa(?::\s*(?P<codes>[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*))?", re.I)
OURS = "SL"
SQL_KINDS = frozenset({"sql", "dbt_model"})  # units whose text is SQL the dialect tokenizes


@dataclass(frozen=True)
class Noqa:
    """A noqa comment: its line, and the codes it lists (None: every rule)."""

    line: int
    codes: frozenset[str] | None

    def silences(self, finding: Finding) -> bool:
        return finding.line == self.line and (self.codes is None or finding.code in self.codes)


def noqa_comments(path: Path, raw: str, units: Sequence[Unit], dialect: str) -> list[Noqa]:
    """The file's noqa comments. The file is tokenized again only when it has units (a
    file without has nothing to silence) and its text holds something that looks like one."""
    candidates = list(NOQA.finditer(raw)) if units else []
    if not candidates:
        return []
    python = _python_tokens(raw) if path.suffix == ".py" else None
    # In a SQL file, whether a candidate is a comment is up to the statement around it
    # alone: one `-- noqa` in a file of thousands of statements tokenizes that one, not all.
    sql = _Ranges(_sql_tokens(units if python is not None else _around(units, candidates), dialect))
    starts = file_line_starts(raw)
    found = []
    for match in candidates:
        if _in_comment(match, sql, python):
            codes = match.group("codes")
            listed = None if codes is None else frozenset(c.strip().upper() for c in codes.split(","))
            found.append(Noqa(raw_location(starts, match.start())[0], listed))
    return found


def unsilenced(findings: Iterable[Finding], comments: Sequence[Noqa]) -> list[Finding]:
    by_line: dict[int, list[Noqa]] = {}
    for comment in comments:
        by_line.setdefault(comment.line, []).append(comment)
    return [f for f in findings if not any(c.silences(f) for c in by_line.get(f.line, ()))]


def unknown_codes(path: Path, comments: Sequence[Noqa], rules: Sequence[str]) -> list[UserError]:
    """An error for each listed code that looks like sortlint's and is no rule's code."""
    errors = []
    for comment in comments:
        for code in sorted(comment.codes or ()):
            if code.startswith(OURS) and code not in rules:
                problem = unknown_rule_code(code, rules, "in a noqa comment") or (
                    f"{code!r} in a noqa comment is not a rule's whole code (the rules are {', '.join(rules)})"
                )
                errors.append(UserError(problem, path, comment.line))
    return errors


class _Ranges:
    """Sorted, non-overlapping [start, end) ranges of the raw file."""

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        merged: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        self.starts = [start for start, _ in merged]
        self.ranges = merged

    def containing(self, offset: int) -> tuple[int, int] | None:
        index = bisect.bisect_right(self.starts, offset) - 1
        if index >= 0 and offset < self.ranges[index][1]:
            return self.ranges[index]
        return None

    def any_within(self, start: int, end: int) -> bool:
        index = bisect.bisect_left(self.starts, start)
        return index < len(self.starts) and self.starts[index] < end


@dataclass(frozen=True)
class _PythonTokens:
    comments: _Ranges
    code: _Ranges  # every other token (strings among them)


def _in_comment(match: re.Match[str], sql: _Ranges, python: _PythonTokens | None) -> bool:
    offset = match.start()
    if python is None:  # a SQL file: outside its statements' tokens is comment or space
        return sql.containing(offset) is None
    if python.comments.containing(offset) is not None:
        return True
    holder = python.code.containing(offset)
    # A SQL comment inside the string that holds a statement (the statement's tokens lie in
    # the same string).
    return (
        match.group().startswith("--")
        and holder is not None
        and sql.containing(offset) is None
        and sql.any_within(*holder)
    )


def _around(units: Sequence[Unit], candidates: Sequence[re.Match[str]]) -> list[Unit]:
    """The units whose tokens may cover a candidate: those cut verbatim from the file whose
    text holds one, and every other (a template's tokens map back to anywhere in it)."""
    offsets = sorted(match.start() for match in candidates)
    around = []
    for unit in units:
        if unit.offsets is None and unit.payload is None:
            first = bisect.bisect_left(offsets, unit.start)
            if first == len(offsets) or offsets[first] >= unit.start + len(unit.text):
                continue
        around.append(unit)
    return around


def _sql_tokens(units: Sequence[Unit], dialect: str) -> Iterable[tuple[int, int]]:
    """The raw ranges of the SQL units' tokens (and of the VALUES rows they leave out)."""
    for unit in units:
        if unit.kind not in SQL_KINDS:
            continue
        try:
            tokens, elided = sql_tokens.tokenize(unit.text, dialect)
        except SqlglotError:  # the statement is reported as unreadable: all of it is code
            yield unit.raw_offset(0), unit.raw_offset(len(unit.text))
            continue
        for token in tokens:
            yield unit.raw_offset(token.start), unit.raw_offset(token.end) + 1
        for rows in elided:
            yield unit.raw_offset(rows.start), unit.raw_offset(rows.end)


def _python_tokens(raw: str) -> _PythonTokens:
    starts = file_line_starts(raw)
    comments, code = [], []
    try:
        for token in tokenize.generate_tokens(io.StringIO(raw).readline):
            if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                continue
            (first_line, first_column), (last_line, last_column) = token.start, token.end
            span = (starts[first_line - 1] + first_column, starts[last_line - 1] + last_column)
            (comments if token.type == tokenize.COMMENT else code).append(span)
    except (tokenize.TokenError, SyntaxError, IndexError):
        return _PythonTokens(_Ranges(()), _Ranges(()))  # not Python: no comment is known
    return _PythonTokens(_Ranges(comments), _Ranges(code))
