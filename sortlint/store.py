"""The persistent cache's storage: values by key, on disk, shared by runs and processes.

A value is pickled into `<directory>/<namespace>/<key>.pickle`. Keys are digests of
everything the value depends on (the caller's business, see `digest`), so an entry is never
updated, only written once and read; a different input is a different key. Writes go to a
temporary file beside the entry and are renamed over it, so a reader sees a whole entry or
none, whatever runs at the same time. Only a regular file is renamed over: anything else
where an entry goes (a device, a pipe) is left as it is, and the value is not cached.

The cache only ever makes a run faster. An entry that cannot be read - truncated, garbage,
written by another version of a pickled class, unreadable - is a miss; a directory that
cannot be written is used read-only. Either way the run goes on and `problems` says so once,
for the caller to note; nothing here raises.

The directory holds a `.gitignore` of `*`, so that a cache inside a work tree is never
committed, and a `CACHEDIR.TAG`, so that backup tools skip it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from pathlib import Path

import sortlint
from sortlint.files import NotRegularFile, regular_status

DIRECTORY_NAME = ".sortlint_cache"
ENVIRONMENT_VARIABLE = "SORTLINT_CACHE_DIR"
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# sortlint's cache: safe to delete\n"


def digest(*parts: object) -> str:
    """A key for `parts`: bytes as they are, anything else by its `repr`, each delimited so
    that ("ab", "c") and ("a", "bc") differ."""
    hashed = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode("utf-8", "surrogatepass")
        hashed.update(len(data).to_bytes(8, "little"))
        hashed.update(data)
    return hashed.hexdigest()


class Store:
    """The cache in one directory, created on the first write."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.problems: list[str] = []
        self._writable = True

    def get(self, namespace: str, key: str) -> object | None:
        path = self.directory / namespace / f"{key}.pickle"
        try:
            with open(path, "rb") as handle:
                return pickle.load(handle)
        except (FileNotFoundError, NotADirectoryError):  # no such entry
            return None
        except Exception as error:  # whatever a damaged entry raises, it is only a miss
            self._problem(f"ignored an unreadable cache entry {path} ({type(error).__name__})")
            return None

    def has(self, namespace: str, key: str) -> bool:
        """Whether an entry was written (it may still be unreadable)."""
        return (self.directory / namespace / f"{key}.pickle").is_file()

    def put(self, namespace: str, key: str, value: object) -> None:
        if not self._writable:
            return
        folder = self.directory / namespace
        try:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # a value that does not pickle is not cached
            self._problem(f"cannot cache a value ({type(error).__name__}: {error})")
            return
        entry = folder / f"{key}.pickle"
        try:
            self._prepare()
            folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{key}.", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                regular_status(entry)
                os.replace(temporary, entry)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except NotRegularFile:
            self._problem(f"left alone a cache entry that is not a regular file: {entry}")
        except OSError as error:
            self._writable = False
            self._problem(f"cannot write the cache in {self.directory} ({error.strerror or error}); "
                          "running without it")

    def _prepare(self) -> None:
        if (self.directory / ".gitignore").is_file():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "CACHEDIR.TAG").write_text(_TAG, encoding="utf-8")
        (self.directory / ".gitignore").write_text("*\n", encoding="utf-8")

    def _problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)


def sortlint_digest() -> str:
    """sortlint's own files, by each one's size and time of change: an edited checkout is
    another version (a release is told apart by its version too). Every cached value is
    keyed by it."""
    package = os.path.dirname(os.path.abspath(sortlint.__file__))
    stamps: list[tuple[str, int, int]] = []
    # Read with `os.scandir`, not `Path.rglob`: every check computes this, and pathlib's walk
    # (with a stat of each compiled file it then skips) cost ~15 ms of a run's start.
    folders = [""]
    while folders:
        relative = folders.pop()
        with os.scandir(os.path.join(package, relative)) as entries:
            for entry in entries:
                name = os.path.join(relative, entry.name)
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        folders.append(name)
                elif entry.is_file():
                    status = entry.stat()
                    stamps.append((name, status.st_size, status.st_mtime_ns))
    return digest(sortlint.__version__, sorted(stamps))


def disabled_by_environment() -> bool:
    """`SORTLINT_CACHE_DIR=off` (or `0`, `none`) turns the cache off, as it turns off the cache
    of dbt's renderings: it is no folder's name."""
    return os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower() in ("0", "off", "none")


def cache_directory(given: Path | None, config_root: Path) -> Path:
    """Where the cache lives: `--cache-dir`, else $SORTLINT_CACHE_DIR, else
    `.sortlint_cache` beside the configuration (the project's root)."""
    if given is not None:
        return given
    from_environment = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if from_environment:
        return Path(from_environment)
    return config_root / DIRECTORY_NAME


def clear(directory: Path) -> bool:
    """Remove the cache; False when there was none. Only a directory sortlint made (it holds
    the tag file) is removed, so a mistyped `--cache-dir` never deletes anything else."""
    if not (directory / "CACHEDIR.TAG").is_file():
        return False
    shutil.rmtree(directory)
    return True
