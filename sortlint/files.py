"""The files sortlint reads and writes: how their text is decoded, and how one is replaced.

Source files are UTF-8, with or without a byte-order mark: the mark is not part of the text
a front end sees (line 1, column 1 is the first character after it) and a rewritten file
keeps it. Newlines are kept as they are (CRLF stays CRLF).

A file is replaced atomically: the new text goes to a temporary file beside it, which takes
the old file's mode (and owner, where permitted) and is then renamed over it. Through a
symbolic link the file it names is replaced, so the link stays a link. A file with several
hard links is rewritten in place instead, as ruff does, so that every link sees the new text
(a rename would give one name a new file and leave the others the old one): its old bytes
are first copied beside it and synced, and written back if the new text cannot be written
whole; the copy is removed once the new text is synced. Until the replacement completes,
SIGINT, SIGTERM and SIGHUP wait (where the platform can hold them back): an interruption
lands before or after a file's replacement, never inside it, and no temporary file is left
behind, whatever fails.

Only a regular file is ever renamed over: a device, a pipe or a folder in its place is left
as it is. A report (`write_output`) is written into anything else in place, as a shell's `>`
writes it - a device, a pipe, `/dev/stdout` - and so is a path through an open descriptor
(`/dev/stdout`, `/dev/fd/N`) even when it names a regular file, which its holder keeps open.

A temporary file's name holds the process that wrote it (`.NAME.PID.XXXX.sortlint`): only
SIGKILL (or a power cut) leaves one behind, and a later run walking its folder removes it
once that process is gone (`remove_if_stale`). The copy of a hard-linked file's old text
(`.NAME.PID.XXXX.sortlint-old`) is never removed by another run: left behind, it may be all
that is left of that text.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sortlint.errors import UserError

BOM = codecs.BOM_UTF8
TEMPORARY_SUFFIX = ".sortlint"
OLD_TEXT_SUFFIX = ".sortlint-old"
_TEMPORARY = re.compile(r"\..+\.(?P<pid>[0-9]+)\.[^.]+" + re.escape(TEMPORARY_SUFFIX))
# A leftover temporary file whose writer's pid is not running here is removed only once it is
# this old: a writer in another pid namespace (a container sharing the folder) is invisible,
# and holds its temporary file for far less.
STALE_AFTER = 60.0
# A path through one of these folders names an open descriptor: its holder keeps the file it
# names open, so it is written in place, never replaced.
_DESCRIPTOR_FOLDER = re.compile(r"/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd")
# Seconds to pause inside each replacement, after the new text is written and before the
# rename, so that a test can interrupt a real `--fix` at a known point.
PAUSE = "SORTLINT_DEBUG_PAUSE"
_HELD_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class WriteError(UserError):
    """A file could not be written; it is as it was."""

    code = "E003"
    kind = "write-error"


def read_source(path: Path) -> str:
    """A source file's text: UTF-8, a byte-order mark dropped, newlines as they are; the
    text standing in for it, while one does (`standing_in`)."""
    try:
        data = read_bytes(path)
    except OSError as error:
        note_input(path, None)
        raise UserError(f"cannot read: {error.strerror or error}", path) from None
    note_input(path, data)
    return decode_source(data, path)


def read_bytes(path: Path) -> bytes:
    """A file's bytes, or those of the text standing in for it (`standing_in`); an OSError
    says why the file cannot be read."""
    data = _stand_ins.get(path.resolve()) if _stand_ins else None
    if data is None:
        with open(path, "rb") as handle:
            data = handle.read()
    return data


# Texts read in place of files (by resolved path) while a check runs: standard input, an
# editor's unsaved buffer.
_stand_ins: dict[Path, bytes] = {}


@contextmanager
def standing_in(texts: dict[Path, bytes]) -> Iterator[None]:
    """While the block runs, `read_source` of each path gives its text instead of the file's
    (which need not exist)."""
    resolved = {path.resolve(): data for path, data in texts.items()}
    _stand_ins.update(resolved)
    try:
        yield
    finally:
        for path in resolved:
            _stand_ins.pop(path, None)


def stands_in(path: Path) -> bool:
    """Whether a text stands in for the file at `path` (`standing_in`)."""
    return bool(_stand_ins) and path.resolve() in _stand_ins


# The files read while each analysis on the stack ran: path -> their bytes' digest (None:
# unreadable). A file's cached results hold only while every file it read is as it was.
_recorded: list[dict[str, str | None]] = []


@contextmanager
def recording_inputs() -> Iterator[dict[str, str | None]]:
    """Record what `read_source` and `note_input` read until the block ends; an analysis
    started inside the block records its own (the enclosing one depends on what that
    analysis defines, not on what it read)."""
    _recorded.append({})
    try:
        yield _recorded[-1]
    finally:
        _recorded.pop()


def note_input(path: Path, data: bytes | None) -> None:
    """The analysis running now read `data` from `path` (None: could not)."""
    if _recorded:
        _recorded[-1][str(Path(path).resolve())] = None if data is None else input_digest(data)


def input_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


# What a recorded path reads as when it is a folder (one looked for and missing then, whose
# appearing changes what is found in it).
FOLDER = "folder"


def unchanged_inputs(inputs: dict[str, str | None]) -> bool:
    """Whether every recorded path still reads as it did: a file by its bytes (those of the
    text standing in for it, while one does); a path recorded as missing (None) is still
    missing, neither a file nor a folder."""
    for path, recorded in inputs.items():
        try:
            now: str | None = input_digest(read_bytes(Path(path)))
        except IsADirectoryError:
            now = FOLDER
        except OSError:
            now = None
        if now != recorded:
            return False
    return True


def decode_source(data: bytes, path: Path | str) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise UserError("UTF-16 or UTF-32 text (it starts with that byte-order mark); save it as UTF-8", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        offset = error.start + (len(BOM) if data.startswith(BOM) else 0)
        line = data.count(b"\n", 0, offset) + 1
        raise UserError(f"not UTF-8 text: {error.reason} at byte {offset}", path, line) from None


def has_bom(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(BOM)) == BOM
    except OSError:
        return False


class NotRestored(OSError):
    """The new text could not be written whole, and the old text could not be written back
    either: the file is half-written, and its old text is kept in `filename`."""


def write_output(path: Path, text: str) -> None:
    """Write a report to `path`: a regular file (or none yet) is replaced atomically
    (`write_atomically`); anything else, and a path through an open descriptor, is written
    in place (a regular file there is appended to). An OSError says why it could not be
    written."""
    if not _written_in_place(path):
        write_atomically(path, text)
        return
    # No signal is held back here: a pipe's open waits for its reader, as long as it takes.
    # Appended, not truncated: a file behind a descriptor keeps what its holder wrote.
    with open(os.open(path, os.O_WRONLY | os.O_APPEND), "wb") as out:
        out.write(text.encode("utf-8"))


def _written_in_place(path: Path) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return True
    except OSError:
        pass  # to be created, or the replacement says why it cannot be
    name = os.path.abspath(path)
    for _ in range(40):  # as many links as the kernel follows
        if _DESCRIPTOR_FOLDER.fullmatch(os.path.realpath(os.path.dirname(name))):
            return True
        try:
            name = os.path.join(os.path.dirname(name), os.readlink(name))
        except OSError:
            return False
    return False


class NotRegularFile(FileExistsError):
    """Something other than a regular file is where one is to be replaced."""


def regular_status(path: Path | str) -> os.stat_result | None:
    """The status of the regular file at `path` (through links), None when nothing is
    there; a `NotRegularFile` when something else is, which a rename must not replace."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(status.st_mode):
        raise NotRegularFile(errno.EEXIST, "not a regular file", str(path))
    return status


def write_atomically(path: Path, text: str) -> None:
    """Replace the file `path` names (a link's target) by `text` in UTF-8, keeping its mode,
    owner where permitted, and byte-order mark; a new file gets the mode the umask allows;
    a file with several hard links is rewritten in place. An OSError says why nothing was
    written (a `NotRestored`, that the file is half-written)."""
    target = Path(os.path.realpath(path))
    status = regular_status(target)
    data = (BOM if status is not None and has_bom(target) else b"") + text.encode("utf-8")
    with signals_held():
        if status is not None and status.st_nlink > 1:
            _rewrite_in_place(target, data)
            return
        temporary: str | None = None
        try:
            handle, temporary = _temporary_beside(target)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            _take_over(temporary, status)
            _pause()
            os.replace(temporary, target)
        except BaseException:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            raise


def _temporary_beside(target: Path, suffix: str = TEMPORARY_SUFFIX) -> tuple[int, str]:
    _remove_stale_beside(target)
    return tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=suffix)


def _remove_stale_beside(target: Path) -> None:
    """A file named on the command line is fixed without its folder being walked: the
    folder's leftovers go before the first of its files gets a new temporary file."""
    if target.parent in _swept:
        return
    _swept.add(target.parent)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        remove_if_stale(target.parent / name)


_swept: set[Path] = set()  # the folders `_remove_stale_beside` has looked through


def remove_if_stale(path: Path) -> bool:
    """Remove `path` if it is a temporary file a `--fix` killed while replacing a file left
    behind: named by `_temporary_beside`, its writer not running, and older than
    `STALE_AFTER`. Whether it was removed."""
    match = _TEMPORARY.fullmatch(path.name)
    if match is None:
        return False
    try:
        status = os.lstat(path)
        if not stat.S_ISREG(status.st_mode) or _running(int(match["pid"])):
            return False
        if time.time() - status.st_mtime < STALE_AFTER:
            return False
        os.unlink(path)
    except OSError:
        return False
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's
        return True
    except (ProcessLookupError, OverflowError):
        return False
    return pid > 0  # 0 is this process group, not a process


def _rewrite_in_place(target: Path, data: bytes) -> None:
    """Write `data` over the file itself (its inode, mode and owner stay), its old bytes kept
    in a synced copy beside it until the new ones are synced, and written back on failure."""
    handle = os.open(target, os.O_RDWR)
    copy_name: str | None = None
    try:
        with open(handle, "rb", buffering=0, closefd=False) as reading:
            old = reading.read()
        copy, copy_name = _temporary_beside(target, OLD_TEXT_SUFFIX)
        try:
            _overwrite(copy, old)
        finally:
            os.close(copy)
        try:
            _overwrite(handle, data)
            _pause()
        except BaseException:
            try:
                _overwrite(handle, old)
            except OSError as error:
                kept, copy_name = copy_name, None  # all that is left of the old text: it stays
                raise NotRestored(error.errno, error.strerror, kept) from None
            raise
    finally:
        os.close(handle)
        if copy_name is not None:
            Path(copy_name).unlink(missing_ok=True)


def _overwrite(handle: int, data: bytes) -> None:
    """Make the open file hold exactly `data`, on disk when this returns."""
    os.lseek(handle, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]
    os.ftruncate(handle, len(data))
    os.fsync(handle)


def _take_over(temporary: str, status: os.stat_result | None) -> None:
    """Give the new file the old one's mode and, where permitted, its owner and group."""
    if status is None:
        os.chmod(temporary, 0o666 & ~_umask())
        return
    if hasattr(os, "chown"):
        for owner, group in ((status.st_uid, status.st_gid), (-1, status.st_gid)):
            try:
                os.chown(temporary, owner, group)
                break
            except OSError:
                continue
    os.chmod(temporary, status.st_mode & 0o7777)


def unwritable(path: Path) -> str | None:
    """Why `--fix` must leave the file alone even though it could replace it: the file is
    read-only (a rename would replace it regardless, as root could write to it anyway)."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except OSError as error:
        return error.strerror or str(error)
    if not stat.S_ISREG(mode):
        return "not a regular file"
    if not mode & 0o222:
        return "the file is read-only"
    if not os.access(target, os.W_OK):
        return "no permission to write the file"
    return None


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back until the block ends (then they are delivered).
    A process forked inside the block starts with them held: it lets them go with
    `release_signals`."""
    if not _can_hold_signals():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def release_signals() -> None:
    """Deliver SIGINT, SIGTERM and SIGHUP again (those that came meanwhile, now)."""
    if _can_hold_signals():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD_SIGNALS)


def _can_hold_signals() -> bool:
    return hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()


def _pause() -> None:
    seconds = os.environ.get(PAUSE)
    if seconds:
        time.sleep(float(seconds))


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
