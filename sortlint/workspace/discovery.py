"""Which files to check - the paths given, filtered by the config's include/exclude globs
(relative to the config's directory) and by `.gitignore` when inside a git work tree - and
their text."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.sources.registry import SUFFIXES


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
            if file.is_file() and file.suffix in SUFFIXES and config.selects(file)
        )
    return sorted(found - set(_git_ignored(sorted(found))))


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


def read_text(path: Path) -> str:
    """The file's text with its newlines as they are (CRLF kept)."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise UserError(f"not UTF-8 text: {error.reason} at byte {error.start}", path) from None
    except OSError as error:
        raise UserError(f"cannot read: {error.strerror}", path) from None
