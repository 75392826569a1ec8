"""A small reader over composed YAML nodes, so that every error names its file and line.

PyYAML's constructed objects forget where they came from and silently keep the last of two equal
keys; the composed node tree keeps every key with its mark. The section parsers read nodes only
through these helpers, whether the nodes came from a YAML file, from a pyproject.toml (built by
``sortlint.config.pyproject``) or, later, from a dbt ``meta`` block.

Convention: an optional key whose value is null counts as not given (``sources:`` with every
entry commented out is an empty catalog, not an error).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from sortlint.errors import ConfigError

NULL = "tag:yaml.org,2002:null"
STR = "tag:yaml.org,2002:str"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"

# libyaml's parser where PyYAML was built with it (the wheels are): an order of magnitude
# faster than the pure-Python one on a large project's property files, with the same nodes.
SAFE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose(text: str) -> yaml.Node | None:
    """The node tree of one YAML document."""
    try:
        return yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError:
        return yaml.compose(text, Loader=yaml.SafeLoader)  # raises it with PyYAML's words


def load(text: str) -> object:
    """The objects of one YAML document (safe tags only)."""
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError:
        return yaml.load(text, Loader=yaml.SafeLoader)  # raises it with PyYAML's words


@dataclass(frozen=True)
class Entry:
    """One key of a mapping.

    Errors about the key point at ``key_node``; errors about the value at ``value``.
    """

    key: str
    key_node: yaml.Node
    value: yaml.Node


def line_of(node: yaml.Node) -> int | None:
    """The node's 1-based line (YAML marks count from 0)."""
    mark = node.start_mark
    return None if mark is None else mark.line + 1


def fail(message: str, node: yaml.Node, path: Path | None) -> NoReturn:
    """Raise the error for this node."""
    raise ConfigError(message, path, line_of(node))


def is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == NULL


def describe(node: yaml.Node) -> str:
    """What the user wrote, in words, for 'must be X, got Y' messages."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return {
        NULL: "null",
        STR: f"the string {node.value!r}",
        BOOL: f"the boolean {node.value}",
        INT: f"the integer {node.value}",
        FLOAT: f"the number {node.value}",
        TIMESTAMP: f"the date {node.value}",
    }.get(node.tag, f"a value tagged {node.tag}")


def entries(node: yaml.Node, path: Path | None, what: str) -> tuple[Entry, ...]:
    """A mapping's entries in order; refuses non-mappings, non-scalar keys and duplicate keys."""
    if not isinstance(node, yaml.MappingNode):
        fail(f"{what} must be a mapping, got {describe(node)}", node, path)
    seen: dict[str, yaml.Node] = {}
    result = []
    for key_node, value_node in node.value:
        if key_node.tag == MERGE:
            fail("YAML merge keys (<<) are not supported; repeat the keys instead", key_node, path)
        if not isinstance(key_node, yaml.ScalarNode):
            fail(f"keys of {what} must be names, got {describe(key_node)}", key_node, path)
        key = key_node.value
        if key in seen:
            first = line_of(seen[key])
            fail(f"duplicate key {key!r} in {what} (first at line {first})", key_node, path)
        seen[key] = key_node
        result.append(Entry(key, key_node, value_node))
    return tuple(result)


def fields(
    node: yaml.Node, path: Path | None, what: str, allowed: Iterable[str]
) -> dict[str, Entry]:
    """A mapping of settings: only the allowed keys, null values dropped (null = not given)."""
    allowed = tuple(allowed)
    result = {}
    for entry in entries(node, path, what):
        if entry.key not in allowed:
            close = difflib.get_close_matches(entry.key, allowed, n=1) if len(allowed) > 1 else []
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            listed = ", ".join(sorted(allowed))
            fail(
                f"unknown key {entry.key!r} in {what}{hint}; allowed keys: {listed}",
                entry.key_node,
                path,
            )
        if not is_null(entry.value):
            result[entry.key] = entry
    return result


def items(node: yaml.Node, path: Path | None, what: str) -> tuple[yaml.Node, ...]:
    """A list's item nodes; refuses anything but a list."""
    if not isinstance(node, yaml.SequenceNode):
        fail(f"{what} must be a list, got {describe(node)}", node, path)
    return tuple(node.value)


def scalar(node: yaml.Node, path: Path | None, what: str) -> object:
    """A plain value: str, int, float, bool or None. Dates stay as the text the user wrote."""
    if not isinstance(node, yaml.ScalarNode):
        fail(f"{what} must be a single value, got {describe(node)}", node, path)
    if node.tag in (STR, TIMESTAMP):
        return node.value
    if node.tag not in (NULL, BOOL, INT, FLOAT):
        fail(f"{what} must be a string, number, boolean or null, got {describe(node)}", node, path)
    try:
        return SafeConstructor().construct_object(node)
    except ConstructorError as error:
        fail(f"bad value for {what}: {error.problem}", node, path)


def string(node: yaml.Node, path: Path | None, what: str) -> str:
    """A string value, refusing numbers and booleans (``target: 3`` is a mistake, not a name)."""
    if not isinstance(node, yaml.ScalarNode) or node.tag != STR:
        fail(f"{what} must be a string, got {describe(node)}", node, path)
    return node.value


def strings(node: yaml.Node, path: Path | None, what: str) -> tuple[str, ...]:
    """A list of non-empty strings."""
    result = []
    for item in items(node, path, what):
        value = string(item, path, f"each item of {what}")
        if not value.strip():
            fail(f"empty string in {what}", item, path)
        result.append(value)
    return tuple(result)


def boolean(node: yaml.Node, path: Path | None, what: str) -> bool:
    if not isinstance(node, yaml.ScalarNode) or node.tag != BOOL:
        fail(f"{what} must be true or false, got {describe(node)}", node, path)
    return bool(SafeConstructor().construct_object(node))


def positive_integer(node: yaml.Node, path: Path | None, what: str) -> int:
    """A whole number of at least 1 (a count), refusing booleans, floats and strings."""
    value = SafeConstructor().construct_object(node) if isinstance(node, yaml.ScalarNode) and node.tag == INT else None
    if not isinstance(value, int) or value < 1:
        fail(f"{what} must be a positive integer, got {describe(node)}", node, path)
    return value


def name(node: yaml.Node, path: Path | None, what: str) -> str:
    """The text of a scalar used as a name, whatever YAML resolved it to.

    YAML 1.1 reads a bare ``on`` or ``yes`` as a boolean; as a column name it is still ``on``.
    """
    if not isinstance(node, yaml.ScalarNode) or is_null(node):
        fail(f"{what} must be a name, got {describe(node)}", node, path)
    return node.value
