"""Which files to check: the paths given, filtered by the config's include/exclude globs
(relative to the config's directory) and by `.gitignore` when inside a git work tree."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from sortlint.config import Config
from sortlint.errors import UserError

from sortlint.sources.frontends import SUFFIXES


def discover(paths: Sequence[Path], config: Config) -> list[Path]:
    """Every file to check, sorted, each once. A path that does not exist is an error."""
    found: set[Path] = set()
    for path in paths:
        if not path.exists():
            raise UserError("no such file or directory", path)
        if path.is_file():
            found.add(path)  # named explicitly: checked whatever the globs say
            continue
        found.update(
            file
            for file in path.rglob("*")
            if file.is_file() and file.suffix in SUFFIXES and _selected(file, config)
        )
    return sorted(found - set(_git_ignored(sorted(found))))


def _selected(file: Path, config: Config) -> bool:
    relative = _relative(file, config.root)
    hidden = any(part.startswith(".") for part in relative.split("/")[:-1])
    return not hidden and _matches(relative, config.include) and not _matches(relative, config.exclude)


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


def _git_ignored(files: list[Path]) -> list[Path]:
    try:
        result = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="\0".join(str(f.resolve()) for f in files),
            capture_output=True,
            text=True,
            cwd=files[0].parent,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError, IndexError):
        return []
    if result.returncode not in (0, 1):  # 128: not inside a git work tree
        return []
    ignored = {Path(p) for p in result.stdout.split("\0") if p}
    return [f for f in files if f.resolve() in ignored]
