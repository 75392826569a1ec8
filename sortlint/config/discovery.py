"""Finding and loading the configuration file.

Like ruff and sqlfluff, sortlint walks up from what it checks to the nearest configuration, so
running it from a subdirectory of a repository (or from an editor) sees the repository's catalog.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

import yaml

from sortlint.config import nodes
from sortlint.config.model import Config
from sortlint.config.pyproject import parse_toml, read_pyproject
from sortlint.config.settings import parse_config
from sortlint.errors import ConfigError

# Within one directory the first name present wins; a pyproject.toml only counts when it has a
# [tool.sortlint] table.
YAML_NAMES = ("sortlint.yml", "sortlint.yaml", ".sortlint.yml", ".sortlint.yaml")
PYPROJECT = "pyproject.toml"


def find_config(start_paths: Sequence[Path]) -> Path | None:
    """The nearest configuration above the first checked path (or the working directory).

    Only the first path's directory chain is searched: one run uses one configuration.
    """
    start = Path(start_paths[0]) if start_paths else Path.cwd()
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links: reported when it is checked
        start = Path(os.path.abspath(start))
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        found = _config_in(candidate)
        if found is not None:
            return found
    return None


def _config_in(directory: Path) -> Path | None:
    """The configuration file in `directory`; None also when the folder cannot be read
    (its files are then reported as unreadable, and the search goes on above it)."""
    try:
        for name in YAML_NAMES:
            if (directory / name).is_file():
                return directory / name
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _has_sortlint_table(pyproject):
            return pyproject
    except PermissionError:
        pass
    return None


def _has_sortlint_table(pyproject: Path) -> bool:
    """Whether a pyproject.toml configures sortlint.

    A pyproject.toml that is not valid TOML is somebody else's problem unless it mentions
    sortlint: then it is ours, and the syntax error is reported rather than skipped.
    """
    text = _read(pyproject)
    try:
        data = parse_toml(pyproject, text)
    except ConfigError:
        if "sortlint" in text:
            raise
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "sortlint" in tool


def load_config(
    path: Path | None = None, start_paths: Sequence[Path] = (), rules: Collection[str] = ()
) -> Config:
    """The configuration: ``path`` (``--config``) if given, else the nearest one, else defaults.

    ``root`` is the configuration file's directory (or the working directory without one):
    ``include``/``exclude`` globs are relative to it. ``rules``, the codes of the rules there
    are, are what ``select`` and ``ignore`` are checked against.
    """
    if path is None:
        path = find_config(start_paths)
        if path is None:
            return Config(root=Path.cwd(), path=None)
    path = Path(path)
    if path.is_dir():  # ruff's --config takes a file too; say which one is wanted
        raise ConfigError("is a directory, not a configuration file: name its sortlint.yml or pyproject.toml", path)
    if not path.is_file():
        raise ConfigError("configuration file not found", path)
    return parse_config_text(path, _read(path), rules)


def parse_config_text(path: Path, text: str, rules: Collection[str] = ()) -> Config:
    """The configuration `text` would be if it were the content of `path` (which is only named);
    `rules` as for `load_config`."""
    root = path.parent.resolve()
    if path.suffix == ".toml":
        node = read_pyproject(path, text)
        if node is None:
            raise ConfigError("no [tool.sortlint] table in this file", path)
        return parse_config(node, path, root, "[tool.sortlint]", rules)
    return parse_config(_compose_yaml(path, text), path, root, rules=rules)


def _compose_yaml(path: Path, text: str) -> yaml.Node | None:
    """The document's node tree (not constructed objects: they lose lines and duplicate keys)."""
    try:
        return nodes.compose(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = ", ".join(part for part in (error.context, error.problem) if part)
        line = None if mark is None else mark.line + 1
        raise ConfigError(f"YAML syntax error: {problem or 'invalid YAML'}", path, line) from None
    except yaml.YAMLError as error:
        raise ConfigError(f"YAML syntax error: {error}", path) from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(f"not UTF-8 text: {error.reason} at byte {error.start}", path) from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError(f"cannot read the configuration: {reason}", path) from None
