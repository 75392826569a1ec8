"""Running `sortlint` as a real process, as a pre-commit hook or a CI step runs it, and the
faults the reliability tests put it under: no permission to read or write, a full disk,
signals.

Root reads and writes every file whatever its mode. So that a test run as root still meets
a permission error, a root child process gives up the two capabilities that grant it
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) before sortlint starts: dropped from the bounding
set, they are gone after exec. A disk is made full both ways the platform allows: a small
tmpfs where this process may mount one (root on Linux), and a file size limit
(RLIMIT_FSIZE), under which a write past the limit fails with EFBIG instead of ENOSPC - the
same failure to sortlint.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout whose `sortlint` is tested
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SORTLINT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.update(extra)
    return env


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "sortlint", *args]


def run(args: list[str], cwd: Path, *, setup: Callable[[], None] | None = None,
        env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        command(*args), cwd=cwd, env=env or environment(), capture_output=True, text=True,
        timeout=timeout, preexec_fn=setup,
    )


def start(args: list[str], cwd: Path, env: dict[str, str] | None = None, **options) -> subprocess.Popen:
    return subprocess.Popen(command(*args), cwd=cwd, env=env or environment(), text=True, **options)


def without_root_file_access() -> None:
    """preexec_fn: as root, give up reading and writing files regardless of their mode."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def permissions_apply() -> str | None:
    """Why a process started `without_root_file_access` can still read a mode-000 file here
    (then permission tests cannot run), or None."""
    with tempfile.TemporaryDirectory() as folder:
        secret = Path(folder) / "secret"
        secret.write_text("x")
        secret.chmod(0)
        try:
            probe = subprocess.run(
                [sys.executable, "-c", f"open({str(secret)!r}).read()"],
                preexec_fn=without_root_file_access, capture_output=True,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"cannot start a process without root's file access: {error}"
        return None if probe.returncode != 0 else "a mode-000 file is readable even so"


@contextmanager
def small_disk(folder: Path, how: str, size: int) -> Iterator[tuple[Path, Callable[[], None] | None]]:
    """A folder where writes fail for want of room, and what the process must run before
    exec: with `how` "tmpfs", a file system of `size` bytes mounted there (None when this
    process may not mount one); with "file size limit", RLIMIT_FSIZE of `size` bytes, past
    which no file may grow."""
    disk = folder / "disk"
    disk.mkdir()
    if how == "file size limit":

        def limited() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

        yield disk, limited
        return
    mounted = sys.platform.startswith("linux") and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True
    ).returncode == 0
    if not mounted:
        yield None, None
        return
    try:
        yield disk, None
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def temporaries(folder: Path) -> list[Path]:
    """sortlint's temporary files left below `folder` (`.NAME.PID.XXXX.sortlint`, and the
    copy of a hard-linked file's old text, `.NAME.PID.XXXX.sortlint-old`)."""
    return sorted(
        path for path in folder.rglob("*.sortlint*")
        if path.name.startswith(".") and path.name.endswith((".sortlint", ".sortlint-old"))
    )
