"""Paths a message cites (a declaration's file, an upstream model's), as people read them and
as the persistent cache keeps them.

A message is text, made once when a file is analysed, and a record of the analysis is read
again by later runs, from any working directory (an upstream model's record is the same
whichever file's check reads it, and from wherever). A path written there as the run that
made the record showed it (relative to its working directory) would be wrong from anywhere
else. So while a record is made (`portable_citations`), a cited
path is written as a mark holding the path relative to the project's root, and the run that
reports the record turns each mark into the path as it shows paths (`shown_citations`):
relative to its own working directory when the file lies below it, as a run without the
cache would write it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

# Control characters no path or SQL text a message quotes holds: where a mark starts, where
# it ends.
_START, _END = "\x1e", "\x1f"
_MARK = re.compile(f"{_START}([^{_END}]*){_END}")

_root: ContextVar[Path | None] = ContextVar("sortlint_citations_root", default=None)


def shown_path(path: Path) -> Path:
    """A path as people read it in messages: relative to the working directory when the
    file lies below it."""
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd())
        except ValueError:
            pass
    return path


@contextlib.contextmanager
def portable_citations(root: Path) -> Iterator[None]:
    """Cite paths, in what is made inside, as marks relative to `root` (the project's)."""
    token = _root.set(root)
    try:
        yield
    finally:
        _root.reset(token)


def cited(path: Path) -> str:
    """`path` as a message cites it: shown (`shown_path`), or marked while a record is made."""
    root = _root.get()
    if root is None:
        return str(shown_path(path))
    return f"{_START}{_from_root(path, root)}{_END}"


def _from_root(path: Path, root: Path) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return str(absolute)  # outside the project: it is where it is, whoever asks


def marked(text: str) -> bool:
    return _START in text


def as_read(text: str) -> str:
    """`text` as this run will show it, marks or not: what orders texts that cite paths, so
    that a message lists them as a run without the cache would."""
    root = _root.get()
    return text if root is None else shown_citations(text, root)


def shown_citations(text: str, root: Path) -> str:
    """`text` with each mark (`cited`) made the path this run shows, the project at `root`."""
    if not marked(text):
        return text
    return _MARK.sub(lambda match: str(shown_path(root / match.group(1))), text)
