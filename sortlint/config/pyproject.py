"""``[tool.sortlint]`` in pyproject.toml, rebuilt as the node tree a YAML file would give.

tomllib returns plain values without positions, but every configuration error must name its
line. So the values are turned into YAML nodes (one validation path for both formats) whose
lines come from scanning the raw text, best effort and deterministically:

* a table defined by its own header (``[tool.sortlint.sources.events]``) is at that header;
* a key is at the first line of the deepest enclosing ``[tool.sortlint...]`` section that
  starts with that key (``key =`` or dotted ``key.sub =``); the further parts of a dotted or
  inline-table path (``columns = { time = ... }``) are searched from there on;
* a string inside an array is at the first line, from its key's line on, that holds the
  quoted string (so an error in a multi-line ``orderings = [...]`` names the right row), and
  an array inside an array is where its first element is;
* when nothing is found, the line of the first header inside the path, else the
  ``[tool.sortlint]`` header.

Header lines are only recognised outside multi-line arrays and inline tables. Multi-line
strings are skipped roughly; this is a locator for messages, never a second parser.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path

import yaml

from sortlint.config import nodes
from sortlint.errors import ConfigError

SECTION = ("tool", "sortlint")
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"

_KEY_PART = r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)'
_HEADER = re.compile(rf"\s*\[\[?\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*\]\]?\s*(?:#.*)?")
_PART = re.compile(_KEY_PART)


def read_pyproject(path: Path, text: str) -> yaml.Node | None:
    """The ``[tool.sortlint]`` table as nodes, or None when the file has none."""
    data = parse_toml(path, text)
    tool = data.get("tool")
    if not isinstance(tool, dict) or "sortlint" not in tool:
        return None
    locate = _Locator.scan(text)
    table = tool["sortlint"]
    if not isinstance(table, dict):
        raise ConfigError("[tool.sortlint] must be a table", path, locate.key_line(()))
    return _to_node(table, (), False, locate, path)


def parse_toml(path: Path, text: str) -> dict:
    """The whole document; a syntax error becomes a ConfigError at the line tomllib reports."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise ConfigError(
                "reading pyproject.toml needs Python 3.11 or the tomli package (pip install tomli)",
                path,
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        where = re.search(r"\s*\(at line (\d+), column \d+\)", message)
        line = int(where.group(1)) if where else None
        if where:
            message = message[: where.start()] + message[where.end() :]
        raise ConfigError(f"invalid TOML: {message}", path, line) from None


def _to_node(
    value: object, keys: tuple[str, ...], in_array: bool, locate: _Locator, path: Path
) -> yaml.Node:
    """One TOML value as a node; ``keys`` is its key path inside ``[tool.sortlint]``."""
    if isinstance(value, dict):
        pairs = []
        for key, child in value.items():
            child_keys = keys + (key,)
            key_node = yaml.ScalarNode(nodes.STR, key, _mark(path, locate.key_line(child_keys)))
            pairs.append((key_node, _to_node(child, child_keys, in_array, locate, path)))
        return yaml.MappingNode(MAP, pairs, _mark(path, locate.key_line(keys)))
    if isinstance(value, list):
        children = [_to_node(item, keys, True, locate, path) for item in value]
        # An array nested in an array (one ordering) is where its first element is.
        line = nodes.line_of(children[0]) if in_array and children else locate.key_line(keys)
        return yaml.SequenceNode(SEQ, children, _mark(path, line))
    if in_array and isinstance(value, str):
        line = locate.string_line(keys, value)
    else:
        line = locate.key_line(keys)
    tag, text = _scalar(value)
    return yaml.ScalarNode(tag, text, _mark(path, line))


def _scalar(value: object) -> tuple[str, str]:
    """A TOML scalar as the (tag, text) a YAML composer would have produced."""
    if isinstance(value, bool):
        return nodes.BOOL, "true" if value else "false"
    if isinstance(value, int):
        return nodes.INT, str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return nodes.FLOAT, ".nan"
        if math.isinf(value):
            return nodes.FLOAT, ".inf" if value > 0 else "-.inf"
        return nodes.FLOAT, repr(value)
    if isinstance(value, (datetime, date, time)):
        return nodes.TIMESTAMP, value.isoformat()
    return nodes.STR, str(value)


def _mark(path: Path, line: int) -> yaml.Mark:
    return yaml.Mark(str(path), 0, line - 1, 0, None, None)


@dataclass(frozen=True)
class _Header:
    keys: tuple[str, ...]
    line: int  # 1-based; 0 for the implicit root table before any header
    end: int  # 1-based line of the next header, or one past the last line


@dataclass(frozen=True)
class _Locator:
    """Where keys and strings of ``[tool.sortlint]`` are written in the raw text."""

    lines: tuple[str, ...]
    headers: tuple[_Header, ...]

    @staticmethod
    def scan(text: str) -> _Locator:
        lines = tuple(text.splitlines())
        found: list[tuple[tuple[str, ...], int]] = [((), 0)]
        depth = 0
        in_long_string = False
        for number, line in enumerate(lines, start=1):
            if depth == 0 and not in_long_string:
                header = _HEADER.fullmatch(line)
                if header is not None:
                    found.append((_dotted(header.group(1)), number))
                    continue
            depth, in_long_string = _nesting(line, depth, in_long_string)
        ends = [line for _, line in found[1:]] + [len(lines) + 1]
        headers = tuple(_Header(keys, line, end) for (keys, line), end in zip(found, ends))
        return _Locator(lines, headers)

    def key_line(self, keys: tuple[str, ...]) -> int:
        """The line of a key path inside ``[tool.sortlint]`` (see the module docstring)."""
        full = SECTION + keys
        for header in self.headers:
            if header.keys == full:
                return header.line
        enclosing = max(
            (h for h in self.headers if full[: len(h.keys)] == h.keys),
            key=lambda h: len(h.keys),
        )
        found = self._search_keys(enclosing, full[len(enclosing.keys) :])
        if found is not None:
            return found
        deeper = [h.line for h in self.headers if h.keys[: len(full)] == full]
        if deeper:
            return min(deeper)
        own = [h.line for h in self.headers if h.keys[:2] == SECTION]
        return min(own) if own else max(enclosing.line, 1)

    def string_line(self, keys: tuple[str, ...], value: str) -> int:
        """The line of a string in the array at ``keys``: its first quoted occurrence from there."""
        start = self.key_line(keys)
        end = next((h.end for h in self.headers if h.line <= start < h.end), len(self.lines) + 1)
        quoted = (f'"{value}"', f"'{value}'")
        for number in range(start, end):
            if any(q in self.lines[number - 1] for q in quoted):
                return number
        return start

    def _search_keys(self, header: _Header, rest: tuple[str, ...]) -> int | None:
        """Find ``rest[0]`` starting a line of the section, then each later part after it."""
        line, column = header.line + 1, 0
        for index, key in enumerate(rest):
            part = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*[=.]"
            pattern = re.compile(rf"^\s*{part}" if index == 0 else rf"(?:^|[\s{{,.]){part}")
            hit = self._find(pattern, line, column, header.end, anchored=index == 0)
            if hit is None:
                return None if index == 0 else line
            line, column = hit
        return line

    def _find(
        self, pattern: re.Pattern[str], line: int, column: int, end: int, anchored: bool
    ) -> tuple[int, int] | None:
        """The first match at or after (line, column) before line ``end``: (its line, its end)."""
        for number in range(line, end):
            text = self.lines[number - 1]
            start = column if number == line else 0
            match = pattern.match(text) if anchored else pattern.search(text, start)
            if match is not None:
                return number, match.end()
        return None


def _dotted(text: str) -> tuple[str, ...]:
    """``tool."sortlint".sources`` → ("tool", "sortlint", "sources")."""
    return tuple(_unquote_key(part) for part in _PART.findall(text))


def _unquote_key(part: str) -> str:
    if part.startswith('"'):
        return part[1:-1].encode().decode("unicode_escape") if "\\" in part else part[1:-1]
    if part.startswith("'"):
        return part[1:-1]
    return part


def _nesting(line: str, depth: int, in_long_string: bool) -> tuple[int, bool]:
    """Bracket depth after this line, ignoring brackets in strings and comments (roughly)."""
    index = 0
    while index < len(line):
        if line.startswith(('"""', "'''"), index):
            in_long_string = not in_long_string
            index += 3
            continue
        char = line[index]
        if in_long_string:
            index += 1
            continue
        if char == "#":
            break
        if char in "\"'":
            closing = line.find(char, index + 1)
            while char == '"' and closing > 0 and line[closing - 1] == "\\":
                closing = line.find(char, closing + 1)
            index = len(line) if closing < 0 else closing + 1
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(depth - 1, 0)
        index += 1
    return depth, in_long_string
