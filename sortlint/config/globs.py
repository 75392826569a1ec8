"""Which files the configuration selects: its include/exclude globs, read as gitignore reads
them, relative to the configuration's directory."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path


def selected(file: Path, root: Path, include: Iterable[str], exclude: Iterable[str]) -> bool:
    """Whether the globs select `file`: matched by an include, by no exclude, and not inside
    a hidden directory."""
    relative = _relative(file, root)
    hidden = any(part.startswith(".") for part in relative.split("/")[:-1])
    return not hidden and _matches(relative, include) and not _matches(relative, exclude)


def _relative(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return file.as_posix()


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
