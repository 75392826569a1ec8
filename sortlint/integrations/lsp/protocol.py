"""What a check found, in the Language Server Protocol's terms.

sortlint counts lines and columns from 1, columns in characters (code points), lines split
at "\\n"; LSP counts both from 0, columns in the code units the client and server agreed on
(UTF-16 unless the client offers another): a character beyond the Basic Multilingual Plane
(an emoji) is two UTF-16 units. Every position goes through the agreed `PositionCodec`,
on the lines of the text that was checked.

A finding is a Warning with its rule's code and the link to the rule's page, its message
followed, on a line of its own, by what its fix does on Spark (`message`); an error (a
statement that does not parse, a malformed configuration) an Error on its line. A fix with
edits is a quick fix, its title saying when it is unsafe (correct only while a declaration
of the catalog holds); "fix all safe" is the `source.fixAll.sortlint` action.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from sortlint.diagnostics import Applicability, Finding
from sortlint.errors import UserError
from sortlint.report.rule_pages import rule_url

SOURCE = "sortlint"
FIX_ALL = "source.fixAll.sortlint"
FIX_ALL_TITLE = "Fix all safe sortlint findings"


class Lines(list):
    """A text's lines, each one's being ASCII found once (a one-line file of megabytes has
    thousands of findings on its line)."""

    def __init__(self, text: str) -> None:
        super().__init__(text.split("\n"))
        self._ascii: dict[int, bool] = {}

    def ascii(self, index: int) -> bool:
        if index not in self._ascii:
            self._ascii[index] = self[index].isascii()
        return self._ascii[index]


def lines_of(text: str) -> Lines:
    return Lines(text)


def position(lines: Sequence[str], codec: PositionCodec, line: int, column: int) -> types.Position:
    """The LSP position of a 1-based line and column (in characters)."""
    if 0 < line <= len(lines) and column > 0 and isinstance(lines, Lines) and lines.ascii(line - 1):
        # A character of ASCII is one code unit in every encoding: the codec's count, one
        # character at a time, cost ~2 s for the 13,600 findings of a 2 MB file.
        return types.Position(line=line - 1, character=min(column - 1, len(lines[line - 1])))
    return codec.position_to_client_units(lines, types.Position(line=line - 1, character=column - 1))


def finding_diagnostic(finding: Finding, lines: Sequence[str], codec: PositionCodec, down: int = 0) -> types.Diagnostic:
    """The finding's diagnostic, `down` lines below the finding's own lines (see `reused`)."""
    return types.Diagnostic(
        range=types.Range(
            start=position(lines, codec, finding.line + down, finding.column),
            end=position(lines, codec, finding.end_line + down, finding.end_column),
        ),
        message=message(finding),
        severity=types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=types.CodeDescription(href=rule_url(finding.name)),
        source=SOURCE,
    )


def message(finding: Finding) -> str:
    """The finding's message, then its Spark effect on a line of its own, as `check`'s text
    report says it (`= on Spark: ...`): a note with no place of its own, as rust-analyzer
    appends rustc's to a diagnostic's message. Not `relatedInformation`, which needs a
    location, nor `data`, which no editor shows."""
    effect = finding.effect_words
    return finding.message if effect is None else f"{finding.message}\non Spark: {effect}"


# A finding as shown: the finding, its diagnostic, and how many lines below the finding's
# own lines the diagnostic is (a big document's findings moved by an edit keep the finding
# the worker sent before: see `changes`).
Shown = tuple[Finding, types.Diagnostic, int]


def shown(finding: Finding, lines: Lines, codec: PositionCodec) -> Shown:
    return finding, finding_diagnostic(finding, lines, codec), 0


def reused(earlier: Shown, down: int, lines: Lines, codec: PositionCodec) -> Shown:
    """A finding shown before, now `down` lines further down in the text of `lines`: its
    diagnostic moved, when its columns are still right - counted in characters, on lines of
    ASCII before and now (a character beyond the BMP, typed or deleted before it on its line,
    moves it in UTF-16 units) - else made again."""
    finding, diagnostic, was_down = earlier
    below = was_down + down
    first, last = finding.line - 1 + below, finding.end_line - 1 + below
    start, end = diagnostic.range.start, diagnostic.range.end
    if (
        0 <= first <= last < len(lines) and lines.ascii(first) and lines.ascii(last)
        and start.character == min(finding.column - 1, len(lines[first]))
        and end.character == min(finding.end_column - 1, len(lines[last]))
    ):
        if down:  # the diagnostic of before is published no more: moved where it stands
            start.line, end.line = first, last
        return finding, diagnostic, below
    return finding, finding_diagnostic(finding, lines, codec, below), below


class Encoder:
    """A document's diagnostics as JSON, each one's all but its range encoded once.

    A big document is published again at every edit with its 13,600 diagnostics, nearly all
    as they were or only moved: encoding each one afresh (pygls's converter, then `json`)
    took ~0.4 s of an edit. What a diagnostic says besides its range is encoded once - by
    pygls's converter, so that it is what pygls would send - and kept while a publish of
    the document shows it; its range, four numbers, is written each time."""

    def __init__(self, unstructure: Callable[[Any], Any]) -> None:
        self.unstructure = unstructure
        self._rest: dict[tuple, str] = {}  # by what a diagnostic says: that, encoded, without "{"

    def encode(self, diagnostics: Sequence[types.Diagnostic]) -> str:
        """The JSON array of `diagnostics`."""
        before, now = self._rest, dict[tuple, str]()
        parts = []
        for diagnostic in diagnostics:
            if diagnostic.tags or diagnostic.related_information or diagnostic.data is not None:
                parts.append(json.dumps(self.unstructure(diagnostic)))  # none of sortlint's has these
                continue
            href = diagnostic.code_description.href if diagnostic.code_description is not None else None
            key = (diagnostic.message, diagnostic.severity, diagnostic.code, href, diagnostic.source)
            rest = now.get(key) or before.get(key)
            if rest is None:
                fields = self.unstructure(diagnostic)
                del fields["range"]
                rest = json.dumps(fields)[1:]  # a message is required: never "}" alone
            now[key] = rest
            start, end = diagnostic.range.start, diagnostic.range.end
            parts.append(
                f'{{"range":{{"start":{{"line":{start.line},"character":{start.character}}},'
                f'"end":{{"line":{end.line},"character":{end.character}}}}},{rest}'
            )
        self._rest = now
        return f"[{','.join(parts)}]"


def error_diagnostic(error: UserError, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    """An error, over the whole of its line (the first, when it names none)."""
    line = min(error.line or 1, len(lines))
    text = lines[line - 1].rstrip("\r")
    return types.Diagnostic(
        range=types.Range(start=position(lines, codec, line, 1), end=position(lines, codec, line, len(text) + 1)),
        message=error.message,
        severity=types.DiagnosticSeverity.Error,
        code=error.code,
        source=SOURCE,
    )


def fix_action(
    finding: Finding, diagnostic: types.Diagnostic, uri: str, lines: Sequence[str], codec: PositionCodec, down: int = 0
) -> types.CodeAction | None:
    """The quick fix of a finding, when its fix has edits (a fix only shown has none); its
    edits `down` lines below their own lines, as its diagnostic is."""
    fix = finding.fix
    if fix is None or not fix.edits or fix.applicability < Applicability.UNSAFE:
        return None
    safe = fix.applicability is Applicability.SAFE
    edits = [
        types.TextEdit(
            range=types.Range(
                start=position(lines, codec, edit.line + down, edit.column),
                end=position(lines, codec, edit.end_line + down, edit.end_column),
            ),
            new_text=edit.content,
        )
        for edit in fix.edits
    ]
    return types.CodeAction(
        title=f"Fix {finding.code}{'' if safe else ' (unsafe)'}: {fix.message}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(changes={uri: edits}),
        is_preferred=safe,
    )


def replacement(uri: str, before: str, after: str, codec: PositionCodec) -> types.WorkspaceEdit:
    """One edit turning `before` into `after`: the span between what they share at both ends
    (the rest of the buffer, and the cursor in it, stays as it is)."""
    same_start = 0
    limit = min(len(before), len(after))
    while same_start < limit and before[same_start] == after[same_start]:
        same_start += 1
    same_end = 0
    while same_end < limit - same_start and before[-1 - same_end] == after[-1 - same_end]:
        same_end += 1
    lines = lines_of(before)
    edit = types.TextEdit(
        range=types.Range(
            start=_position_at(before, same_start, lines, codec),
            end=_position_at(before, len(before) - same_end, lines, codec),
        ),
        new_text=after[same_start : len(after) - same_end],
    )
    return types.WorkspaceEdit(changes={uri: [edit]})


def _position_at(text: str, offset: int, lines: Sequence[str], codec: PositionCodec) -> types.Position:
    line_start = text.rfind("\n", 0, offset) + 1
    return position(lines, codec, text.count("\n", 0, offset) + 1, offset - line_start + 1)


def overlaps(first: types.Range, second: types.Range) -> bool:
    def key(at: types.Position) -> tuple[int, int]:
        return at.line, at.character

    return key(first.start) <= key(second.end) and key(second.start) <= key(first.end)


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client asked for actions of `kind` (`only` names kinds or their parents:
    "source" asks for "source.fixAll.sortlint")."""
    return only is None or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)
