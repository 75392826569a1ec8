"""Which files the configuration selects: its include/exclude globs, read as gitignore reads
them, relative to the configuration's directory."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path


def selected(
    file: Path, root: Path, include: Iterable[str], exclude: Iterable[str], resolved: Path | None = None
) -> bool:
    """Whether the globs select `file`: matched by an include, by no exclude, and not inside
    a hidden directory. `resolved` is the file's resolved path, when known."""
    relative = _relative(file, root, resolved)
    hidden = any(part.startswith(".") for part in relative.split("/")[:-1])
    return not hidden and _matches(relative, include) and not _matches(relative, exclude)


def excluded(file: Path, root: Path, exclude: Iterable[str], resolved: Path | None = None) -> bool:
    """Whether an exclude glob matches `file` (what a file named on the command line is
    held to: the include globs choose among the files of a folder, not among named ones).
    `resolved` is the file's resolved path, when known."""
    return _matches(_relative(file, root, resolved), exclude)


def excludes_folder(folder: Path, root: Path, exclude: Iterable[str]) -> bool:
    """Whether nothing inside `folder` can be selected: it is hidden, or an exclude glob
    that ends in `**` matches everything below it. Such a folder is not even listed, so an
    unreadable one (`target/` of another user) is no error."""
    relative = _relative(folder, root)
    if relative != "." and any(part.startswith(".") for part in relative.split("/")):
        return True
    return any(p.endswith("**") and _glob(p).fullmatch(relative + "/") for p in exclude)


def _relative(file: Path, root: Path, resolved: Path | None = None) -> str:
    """The path relative to `root` when it lies below it, else absolute (so a sibling
    folder's `..` never reads as a hidden folder)."""
    absolute = _absolute(file) if resolved is None else resolved
    try:
        return absolute.relative_to(_absolute_root(root)).as_posix()
    except ValueError:
        return absolute.as_posix()


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop: as written
        return Path(os.path.abspath(path))


@lru_cache(maxsize=16)
def _absolute_root(root: Path) -> Path:
    """The configuration's folder, resolved once per process (every file is placed in it)."""
    return _absolute(root)


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(_glob(pattern).fullmatch(relative) for pattern in patterns)


@lru_cache(maxsize=None)
def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as gitignore reads it: `**/` is any number of directories (none too), `**`
    anything, `*` and `?` stay within one path component."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))
