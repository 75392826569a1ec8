"""What a macro or an f-string field in SQL text is analysed as: a placeholder.

SQL written in a Python string or an Airflow template holds pieces whose value is known only
at run time: `{{ ds }}`, `{params.table}`. Each becomes text the SQL parser reads and no fix
may edit (the caller marks it opaque), chosen by where it stands (`SqlScanner`):

* inside a SQL string, a quoted name or a comment: kept as written (`'{{ ds }}'` is a
  constant string, which it is at run time);
* glued to a name (`events_{{ ds_nodash }}`): a bare word made of the expression
  (`events_ds_nodash`);
* elsewhere: a quoted identifier of the expression (`` `{{ params.table }}` ``): an unknown
  table or column, of which nothing is known and nothing is concluded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol


class FieldSource(Protocol):
    """An f-string field as `sortlint.sources.python.strings.Field` describes it."""

    source: str  # `{expr}` as written
    before: str  # the string's value before it
    raw_end: int  # the raw offset after it


@dataclass(frozen=True)
class FormatSource:
    """A field of `str.format` / `%` formatting, seen as a `FieldSource` of its template: its
    text, the formatted text before it, and where it ends in the template."""

    source: str
    before: str
    raw_end: int


def placeholder(source: str, inner: str, state: str, before: str, after: str, dialect: str) -> str:
    """The text `source` (a macro, `inner` its expression) is analysed as, where the SQL
    scanner is in `state` and the characters around it are `before` and `after`."""
    if state in ("'", '"', "`"):
        return source if state not in source and "\\" not in source and "\n" not in source else _word(inner)
    if state == "--":
        return source if "\n" not in source and "\r" not in source else _word(inner)
    if state == "/*":
        return source if "*/" not in source else _word(inner)
    if _is_word(before) or _is_word(after):
        return _word(inner)
    from sqlglot import exp

    return exp.to_identifier(source, quoted=True).sql(dialect=dialect)


def field_placeholder(info: FieldSource, raw: str, dialect: str) -> str:
    """The placeholder of an f-string field of unknown value inside SQL."""
    state = SqlScanner(info.before).state_at(len(info.before))
    before = info.before[-1:] if info.before else ""
    after = raw[info.raw_end] if info.raw_end < len(raw) else ""
    return placeholder(info.source, info.source[1:-1], state, before, after, dialect)


def _word(inner: str) -> str:
    word = re.sub(r"\W+", "_", inner).strip("_") or "macro"
    return f"_{word}" if word[0].isdigit() else word


def _is_word(char: str) -> bool:
    return bool(char) and (char.isalnum() or char == "_")


class SqlScanner:
    """Where a position of SQL text is: in code, a quoted string (`'`, `"`), a quoted name
    (`` ` ``), a line comment (`--`) or a block comment (`/*`). Jinja tags are skipped whole:
    Jinja reads them before SQL does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.state = "code"

    def state_at(self, target: int) -> str:
        text, i, state = self.text, self.position, self.state
        while i < target:
            if text.startswith(("{{", "{%", "{#"), i):
                close = {"{{": "}}", "{%": "%}", "{#": "#}"}[text[i : i + 2]]
                end = tag_end(text, i + 2, close, text[i + 1] != "#")
                i = end if end > 0 else len(text)
                continue
            char = text[i]
            if state == "code":
                if char in "'\"`":
                    state = char
                elif text.startswith("--", i):
                    state, i = "--", i + 1
                elif text.startswith("/*", i):
                    state, i = "/*", i + 1
            elif state in "'\"":
                if char == "\\":
                    i += 1
                elif char == state:
                    if text.startswith(state, i + 1) and i + 1 < target:
                        i += 1
                    else:
                        state = "code"
            elif state == "`":
                if char == "`":
                    state = "code"
            elif state == "--":
                if char == "\n":
                    state = "code"
            elif state == "/*" and text.startswith("*/", i):
                state, i = "code", i + 1
            i += 1
        self.position, self.state = max(i, target), state
        return state


def tag_end(text: str, position: int, close: str, strings: bool) -> int:
    """The offset after the Jinja tag's `close`, skipping Jinja string literals inside an
    expression; -1 when the tag is not closed."""
    while position < len(text):
        char = text[position]
        if strings and char in "'\"":
            end = text.find(char, position + 1)
            if end < 0:
                return -1
            position = end + 1
            continue
        if text.startswith(close, position):
            return position + len(close)
        position += 1
    return -1
