"""Grammars for the strings a catalog holds: column types, ordering items, table and column names.

They see text only and raise ``BadText`` with a message for the user; the node reader adds the
file and line. Keeping them free of YAML makes each rule testable on its own and shared by every
front end that declares a table (sortlint.yml, pyproject.toml, dbt ``meta``).
"""

from __future__ import annotations

import re


class BadText(ValueError):
    """The text does not fit its grammar; ``str(error)`` is the message for the user."""


_QUOTED = r"`(?:[^`]|``)+`"
_PART = rf"(?:{_QUOTED}|\w+)"
_TABLE = re.compile(rf"\s*({_PART})(?:\s*\.\s*({_PART}))?(?:\s*\.\s*({_PART}))?\s*")
_PLAIN = re.compile(r"\w+")


def unquote(text: str) -> str:
    """A backtick-quoted identifier's content (two backticks stand for one), else the text."""
    if len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        return text[1:-1].replace("``", "`")
    return text


def column_name(text: str) -> str:
    """A column name as stored: unquoted and lower-cased (Spark resolves case-insensitively)."""
    name = unquote(text.strip()).lower()
    if not name:
        raise BadText("empty column name")
    return name


def table_parts(text: str) -> tuple[str, ...]:
    """``name``, ``db.name`` or ``catalog.db.name``, each part unquoted and lower-cased."""
    match = _TABLE.fullmatch(text)
    if match is None:
        raise BadText(
            f"bad table name {text!r}; expected name, db.name or catalog.db.name "
            "(quote unusual parts with backticks)"
        )
    return tuple(unquote(part).lower() for part in match.groups() if part is not None)


def table_name(text: str) -> str:
    """The canonical spelling of a table name: lower-cased parts joined by dots.

    A part that is not a plain word keeps its backticks, so the dots stay unambiguous.
    """
    return ".".join(
        part if _PLAIN.fullmatch(part) else "`" + part.replace("`", "``") + "`"
        for part in table_parts(text)
    )


_ITEM = re.compile(rf"\s*({_QUOTED}|[^\s`]+)(.*)", re.DOTALL)


def ordering_item(text: str) -> tuple[str, bool, bool | None]:
    """``col [asc|desc] [nulls first|nulls last]`` → (column, descending, nulls_first or None).

    None means the placement was not written; the caller applies the target's default.
    """
    match = _ITEM.fullmatch(text)
    if match is None:
        raise BadText("empty ordering item; expected a column name, e.g. 'time desc'")
    raw_column, rest = match.groups()
    if not raw_column.startswith("`") and not _PLAIN.fullmatch(raw_column):
        raise BadText(
            f"bad column name {raw_column!r} in ordering item {text!r}; expected a column name "
            "(quote unusual names with backticks)"
        )
    words = rest.lower().split()
    descending = False
    if words and words[0] in ("asc", "desc"):
        descending = words.pop(0) == "desc"
    elif words and words[0] != "nulls":
        raise BadText(
            f"bad direction {words[0]!r} in ordering item {text!r}; expected asc or desc"
        )
    if not words:
        return column_name(raw_column), descending, None
    if len(words) != 2 or words[0] != "nulls" or words[1] not in ("first", "last"):
        raise BadText(
            f"bad null placement {' '.join(words)!r} in ordering item {text!r}; "
            "expected nulls first or nulls last"
        )
    return column_name(raw_column), descending, words[1] == "first"


_NOT_NULL = re.compile(r"(.*?)\s+not\s+null\s*", re.IGNORECASE | re.DOTALL)
_HEAD = re.compile(r"\s*(\w+(?:\s+\w+)*)\s*(.*)", re.DOTALL)
_UNIT = r"(?:year|month|day|hour|minute|second)"
_MULTI_WORD_TYPES = re.compile(
    rf"interval {_UNIT}(?: to {_UNIT})?"
    r"|double precision|(?:char|character) varying"
    r"|(?:timestamp|time) with(?:out)?(?: local)? time zone"
)
_TYPE_EXAMPLE = (
    "expected a type such as int, decimal(10,2) or array<string>, "
    "optionally followed by 'not null'"
)


def column_type(text: str) -> tuple[str, bool]:
    """A declared column type → (normalised type, nullable).

    The shape is checked, not the type name (targets name types differently): one word, or a
    known multi-word type (``interval day to second``, ``double precision``...), then at most
    one balanced ``(...)`` or ``<...>`` group, then an optional ``not null``. Anything else,
    such as the typo ``int not nul``, is refused rather than read as a strange type name.
    """
    nullable = True
    body = text
    not_null = _NOT_NULL.fullmatch(text)
    if not_null is not None:
        body, nullable = not_null.group(1), False
    head = _HEAD.fullmatch(body.lower())
    if head is None:
        raise BadText(f"bad column type {text!r}; {_TYPE_EXAMPLE}")
    words, group = " ".join(head.group(1).split()), head.group(2).strip()
    if " " in words and not _MULTI_WORD_TYPES.fullmatch(words):
        raise BadText(f"bad column type {text!r}; {_TYPE_EXAMPLE}")
    if group and not _balanced_group(group):
        raise BadText(f"bad column type {text!r}; {_TYPE_EXAMPLE}")
    return words + _normalise_group(group), nullable


_CLOSING = {"(": ")", "<": ">"}


def _balanced_group(text: str) -> bool:
    """Whether the text is exactly one bracketed group, ``(...)`` or ``<...>``, properly nested."""
    if text[0] not in _CLOSING:
        return False
    stack: list[str] = []
    for index, char in enumerate(text):
        if char in _CLOSING:
            stack.append(_CLOSING[char])
        elif char in ")>":
            if not stack or stack.pop() != char:
                return False
            if not stack and index != len(text) - 1:
                return False
    return not stack


def _normalise_group(text: str) -> str:
    """One space between words, none around punctuation.

    ``< a : int , b : string >`` becomes ``<a:int,b:string>``.
    """
    collapsed = " ".join(text.split())
    return re.sub(r"\s*([(),<>:])\s*", r"\1", collapsed)
