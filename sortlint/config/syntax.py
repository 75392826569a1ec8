"""Grammars for the strings a catalog holds: column types, ordering items, table and column names.

They see text only and raise ``BadText`` with a message for the user; the node reader adds the
file and line. Keeping them free of YAML makes each rule testable on its own and shared by every
front end that declares a table (sortlint.yml, pyproject.toml, dbt ``meta``).
"""

from __future__ import annotations

import difflib
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


_NOT_NULL = re.compile(r"(?:(.*?)\s+)?not\s+null\s*", re.IGNORECASE | re.DOTALL)
_TYPE_EXAMPLE = (
    "expected a type such as int, decimal(10,2) or array<string>, "
    "optionally followed by 'not null'"
)
# The types Spark's DDL parser accepts (`DataType.fromDDL`), by the names it accepts; the
# tests check a sample of accepted and refused spellings against a local Spark.
_NAMED_TYPES = (
    "boolean", "tinyint", "byte", "smallint", "short", "int", "integer", "bigint", "long",
    "float", "real", "double", "string", "binary", "date", "timestamp", "timestamp_ntz",
    "timestamp_ltz", "void", "variant",
)
_DECIMALS = ("decimal", "dec", "numeric")
_SIZED = ("varchar", "char", "character")
_YEAR_MONTH = ("year", "month")
_DAY_TIME = ("day", "hour", "minute", "second")
_MAX_PRECISION = 38
_MAX_TIME_PRECISION = 6
ACCEPTED_TYPES = (
    "boolean, tinyint (byte), smallint (short), int (integer), bigint (long), float (real), "
    "double, decimal(p,s) (dec, numeric), string, varchar(n), char(n) (character), binary, "
    "date, timestamp (timestamp_ltz, timestamp with local time zone), timestamp_ntz "
    "(timestamp without time zone), time(p), interval [year|month|day|hour|minute|second "
    "[to ...]], array<t>, map<k,v>, struct<name:t,...>, void, variant"
)
_KNOWN_WORDS = (*_NAMED_TYPES, *_DECIMALS, *_SIZED, "time", "interval", "array", "map", "struct")
_TYPE_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`|'(?:[^'\\]|\\.)*'|\w+|[<>(),:])|(\S))")


def column_type(text: str) -> tuple[str, bool]:
    """A declared column type → (normalised type, nullable).

    The type is one Spark accepts, written as Spark's DDL writes it (`ACCEPTED_TYPES`),
    then an optional ``not null``. Anything else - a misspelt name such as ``timestmp``, the
    typo ``int not nul`` - is refused with the list of accepted types, never read as a type
    sortlint does not know (which would silently change what it concludes).
    """
    nullable = True
    body = text
    not_null = _NOT_NULL.fullmatch(text)
    if not_null is not None:
        body, nullable = not_null.group(1) or "", False
    tokens = _type_tokens(body.lower())
    if not tokens:
        raise BadText(f"bad column type {text!r}; {_TYPE_EXAMPLE}")
    reader = _TypeReader(tokens)
    try:
        normalised = reader.type()
        if reader.position != len(tokens):
            raise _Unexpected(tokens[reader.position])
    except _Unknown as unknown:
        close = difflib.get_close_matches(unknown.word, _KNOWN_WORDS, n=1)
        within = "" if unknown.word == body.strip().lower() else f" in {text!r}"
        hint = f"; did you mean {close[0]!r}?" if close else ";"
        raise BadText(
            f"unknown column type {unknown.word!r}{within}{hint} the types Spark accepts are "
            f"{ACCEPTED_TYPES}"
        ) from None
    except _Unexpected as unexpected:
        raise BadText(
            f"bad column type {text!r} ({unexpected}); expected a type Spark accepts, optionally "
            f"followed by 'not null': {ACCEPTED_TYPES}"
        ) from None
    return normalised, nullable


def _type_tokens(text: str) -> list[str] | None:
    tokens = []
    for match in _TYPE_TOKEN.finditer(text):
        if match.group(2) is not None:
            return None
        if match.group(1) is not None:
            tokens.append(match.group(1))
    return tokens


class _Unknown(Exception):
    def __init__(self, word: str) -> None:
        self.word = word


class _Unexpected(Exception):
    def __init__(self, found: str | None, expected: str = "") -> None:
        where = f"unexpected {found!r}" if found is not None else "it ends too early"
        super().__init__(f"{where}, expected {expected}" if expected else where)


class _TypeReader:
    """Spark's data type grammar over the tokens of a type; each method returns the
    normalised text of what it read."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.position = 0

    def peek(self, ahead: int = 0) -> str | None:
        index = self.position + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, *expected: str) -> str:
        token = self.peek()
        if token is None or (expected and token not in expected):
            raise _Unexpected(token, " or ".join(repr(e) for e in expected))
        self.position += 1
        return token

    def words(self, *words: str) -> bool:
        """Take `words` if they come next."""
        if tuple(self.tokens[self.position : self.position + len(words)]) != words:
            return False
        self.position += len(words)
        return True

    def number(self, low: int, high: int, what: str) -> int:
        token = self.take()
        if not token.isdigit() or not low <= int(token) <= high:
            raise _Unexpected(token, f"{what} from {low} to {high}")
        return int(token)

    def type(self) -> str:
        word = self.take()
        if word == "timestamp" and self.words("without", "time", "zone"):
            return "timestamp without time zone"
        if word == "timestamp" and self.words("with", "local", "time", "zone"):
            return "timestamp with local time zone"
        if word == "string" and self.words("collate"):
            return f"string collate {self.take()}"
        if word in _NAMED_TYPES:
            return word
        if word in _DECIMALS:
            return word + self.decimal_arguments()
        if word in _SIZED:
            self.take("(")
            length = self.number(0, 2**31 - 1, "a length")
            self.take(")")
            return f"{word}({length})"
        if word == "time":
            if self.peek() != "(":
                return word
            self.take("(")
            precision = self.number(0, _MAX_TIME_PRECISION, "a precision")
            self.take(")")
            return f"time({precision})"
        if word == "interval":
            return self.interval()
        if word == "array":
            self.take("<")
            element = self.type()
            self.take(">")
            return f"array<{element}>"
        if word == "map":
            self.take("<")
            key = self.type()
            self.take(",")
            value = self.type()
            self.take(">")
            return f"map<{key},{value}>"
        if word == "struct":
            return self.struct()
        if re.fullmatch(r"\w+", word):
            raise _Unknown(word)
        raise _Unexpected(word, "a type")

    def decimal_arguments(self) -> str:
        if self.peek() != "(":
            return ""
        self.take("(")
        precision = self.number(1, _MAX_PRECISION, "a precision")
        if self.peek() == ",":
            self.take(",")
            scale = self.number(0, precision, "a scale")
            self.take(")")
            return f"({precision},{scale})"
        self.take(")")
        return f"({precision})"

    def interval(self) -> str:
        first = self.peek()
        if first not in _YEAR_MONTH + _DAY_TIME:
            return "interval"
        self.position += 1
        if not self.words("to"):
            return f"interval {first}"
        family = _YEAR_MONTH if first in _YEAR_MONTH else _DAY_TIME
        later = family[family.index(first) + 1 :]
        if not later:
            raise _Unexpected("to", f"no unit after {first!r}")
        last = self.take(*later)
        return f"interval {first} to {last}"

    def struct(self) -> str:
        self.take("<")
        fields = []
        while self.peek() != ">":
            if fields:
                self.take(",")
            name = self.take()
            if not re.fullmatch(r"\w+|`(?:[^`]|``)*`", name):
                raise _Unexpected(name, "a field name")
            if self.peek() == ":":
                self.take(":")
            field = f"{name}:{self.type()}"
            if self.words("not", "null"):
                field += " not null"
            if self.words("comment"):
                comment = self.take()
                if not comment.startswith("'"):
                    raise _Unexpected(comment, "a quoted comment")
                field += f" comment {comment}"
            fields.append(field)
        self.take(">")
        return f"struct<{','.join(fields)}>"
