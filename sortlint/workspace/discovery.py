"""Which files to check - the paths given, filtered by the config's include/exclude globs
(relative to the config's directory) and by `.gitignore` when inside a git work tree - and
their text.

Nothing is skipped in silence. A path that cannot be read - missing, a broken symbolic link
or a loop of them, a folder that cannot be listed, a file that is not a regular file - is an
error with its path (the rest is still checked). A file named on the command line is what a
pre-commit hook passes: the exclude globs and `.gitignore` apply to it too, and skipping it
is noted; `force_exclude=False` checks every named file.

A file is checked once however many names reach it - a symbolic link to it, a hard link, a
folder that holds it and a link to it - under the name met first (the command line's order,
then a folder's sorted walk): `--fix` writes it once.

A walk removes the temporary files of a `--fix` killed while it wrote (SIGKILL) that it
meets, once their writer is gone (`sortlint.files.remove_if_stale`); none is ever a source.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.files import TEMPORARY_SUFFIX, remove_if_stale, stands_in
from sortlint.sources.registry import SUFFIXES


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # named paths, and why
    resolved: dict[Path, Path] = field(default_factory=dict, repr=False)  # of each file found


def discover(
    paths: Sequence[Path], config: Config, force_exclude: bool = True, skip: Callable[[Path], bool] | None = None
) -> Discovery:
    """Every file to check, sorted, each once; what could not be read; what was skipped.
    Folders `skip` says yes to are not listed."""
    found = Discovery()
    named: set[Path] = set()
    chosen: dict[object, Path] = {}  # (device, inode) -> the name it was met by first

    def choose(file: Path) -> bool:
        return chosen.setdefault(_identity(file), file) == file

    folders: dict[str, str] = {}  # a named file's folder, resolved
    for path in paths:
        problem = _unreadable(path)
        if problem is not None:
            found.errors.append(UserError(problem, path))
        elif path.is_dir():
            if force_exclude and config.excludes_folder(path):
                found.skipped.append((path, "excluded by the configuration"))
            else:
                for file, resolved in _walk(path, config, found.errors, skip):
                    choose(file)
                    found.resolved[file] = resolved
        elif path.suffix not in SUFFIXES:
            found.skipped.append((path, f"not a kind of file sortlint reads ({', '.join(SUFFIXES)})"))
        else:
            resolved = _resolved(path, folders)
            if force_exclude and config.excludes(path, resolved):
                found.skipped.append((path, "excluded by the configuration (--no-force-exclude checks it)"))
            elif choose(path):
                named.add(path)
                found.resolved[path] = resolved
    files = set(chosen.values())
    ignored = set(_git_ignored(sorted(files), found.resolved))
    for path in sorted(named & ignored):
        if force_exclude:
            found.skipped.append((path, "ignored by git (--no-force-exclude checks it)"))
        else:
            ignored.discard(path)
    found.files = sorted(files - ignored)
    return found


def _resolved(file: Path, folders: dict[str, str]) -> Path:
    """A named file's resolved path, its folder resolved once (`folders`), as a walk resolves
    a folder's files: resolving each file whole (an `lstat` of every part of its path, and
    once per use) was nearly a third of what a check the cache answers did besides importing."""
    if os.path.islink(file):
        return file.resolve()
    folder = os.path.dirname(file) or "."
    if folder not in folders:
        folders[folder] = os.path.realpath(folder)
    return Path(folders[folder], file.name)


def _identity(file: Path) -> object:
    """What one file is, whatever its name: its device and inode (through links); a file
    gone since it was found is its own name, and reading it will say it is gone."""
    try:
        status = os.stat(file)
    except OSError:
        return file
    return status.st_dev, status.st_ino


@dataclass(frozen=True)
class ProjectFiles:
    """`Reading.project_files`: what a check of the configuration's folder reads, and the
    checked files (`checked`, resolved); only these without a configuration file."""

    config: Config
    checked: tuple[Path, ...]

    def __call__(self, skip: Callable[[Path], bool]) -> list[Path]:
        """The files, resolved (each once, whatever names reach it)."""
        checked = set(self.checked)
        if self.config.path is None or skip(self.config.root):
            return sorted(checked)
        walked = discover([self.config.root], self.config, skip=skip)
        return sorted({*(walked.resolved.get(file) or file.resolve() for file in walked.files), *checked})


def _walk(
    folder: Path, config: Config, errors: list[UserError], skip: Callable[[Path], bool] | None = None
) -> list[tuple[Path, Path]]:
    """The selected files below `folder`, each with its resolved path. Folders nothing can
    be selected in, and those `skip` says yes to, are not listed; symbolic links to folders
    are not followed (a link to a file is)."""
    files = []

    def unreadable_folder(error: OSError) -> None:
        errors.append(UserError(f"cannot read the folder: {error.strerror or error}", error.filename or folder))

    for directory, subdirectories, names in os.walk(folder, onerror=unreadable_folder):
        base = Path(directory)
        real = Path(os.path.realpath(directory))  # a file's own, unless it is a link: resolved once
        subdirectories[:] = sorted(
            d for d in subdirectories
            if not config.excludes_folder(base / d) and (skip is None or not skip(base / d))
        )
        for name in sorted(names):
            # The suffix of the name, not of a Path: most files of a project are no source,
            # and making a Path of each was most of a walk's time.
            suffix = os.path.splitext(name)[1]
            if suffix not in SUFFIXES:
                if suffix == TEMPORARY_SUFFIX:
                    remove_if_stale(base / name)
                continue
            file = base / name
            link = os.path.islink(file)
            if not config.selects(file, None if link else real / name):
                continue
            problem = _unreadable(file)  # a loop of links among them
            if problem is None:
                files.append((file, file.resolve() if link else real / name))
            else:
                errors.append(UserError(problem, file))
    return files


def _unreadable(path: Path) -> str | None:
    """Why the path cannot be checked, or None: it exists (through its links) and is a
    folder or a regular file (a pipe or a device would block or never end), or a text
    stands in for it (standard input)."""
    if stands_in(path):
        return None
    try:
        status = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a loop of symbolic links"
        if error.errno == errno.ENOENT and os.path.islink(path):
            return f"a broken symbolic link (to {os.readlink(path)})"
        if error.errno == errno.ENOENT:
            return "no such file or directory"
        return f"cannot read: {error.strerror or error}"
    if stat.S_ISDIR(status.st_mode) or stat.S_ISREG(status.st_mode):
        return None
    return "not a regular file or a folder"


def _git_ignored(files: list[Path], known: dict[Path, Path]) -> list[Path]:
    """The files git ignores; `known` has their resolved paths."""
    resolved = [known[f] for f in files]
    try:
        result = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="\0".join(map(str, resolved)),
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
    return [f for f, real in zip(files, resolved) if real in ignored]

