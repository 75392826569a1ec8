"""Where the output goes, under faults: `--output-file` naming a device, a pipe or an open
descriptor is written in place - never replaced by a file - and an output that cannot be
written (a full disk) is the user's error, one line and exit code 2, not sortlint's bug."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from processes import command, environment, run

FIXABLE = "SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n"
FIXED = "SELECT a FROM t WHERE b = 1 ORDER BY a;\n"
REPORT = "q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]\nFound 1 finding in 1 file.\n"
NULL, FULL = (1, 3), (1, 7)  # Linux's /dev/null and /dev/full


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "q.sql").write_text(FIXABLE)
    return tmp_path


def device(path: Path, numbers: tuple[int, int]) -> Path:
    """A character device made in the test's folder (the machine's /dev is never touched)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*numbers))
    except PermissionError:
        pytest.skip("mknod needs root")
    return path


def test_a_device_as_the_output_file_stays_a_device(repo):
    (repo / "x").mkdir()
    null = device(repo / "x" / "mynull", NULL)
    result = run(["check", "--no-cache", "--output-file", "x/mynull", "q.sql"], repo)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "")
    assert stat.S_ISCHR(null.stat().st_mode) and null.stat().st_rdev == os.makedev(*NULL)
    assert os.listdir(repo / "x") == ["mynull"]


def test_a_full_device_as_the_output_file(repo):
    full = device(repo / "full", FULL)
    result = run(["check", "--no-cache", "--output-file", "full", "q.sql"], repo)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "error: full: cannot write the report: No space left on device\n"
    assert stat.S_ISCHR(full.stat().st_mode)


def test_a_fifo_as_the_output_file_is_written_to_its_reader(repo):
    os.mkfifo(repo / "fifo")
    reader = subprocess.Popen(["cat", "fifo"], cwd=repo, stdout=subprocess.PIPE, text=True)
    try:
        result = run(["check", "--no-cache", "--output-file", "fifo", "q.sql"], repo, timeout=60)
        got, _ = reader.communicate(timeout=60)
    finally:
        reader.kill()
        reader.wait()
    assert (result.returncode, result.stdout, result.stderr, got) == (1, "", "", REPORT)
    assert stat.S_ISFIFO((repo / "fifo").stat().st_mode)


def test_a_process_substitution_as_the_output_file(repo):
    """`--output-file >(...)`: bash names the pipe /dev/fd/N."""
    script = f'{" ".join(command("check", "--no-cache"))} --output-file >(cat) q.sql; code=$?; wait $!; exit $code'
    result = subprocess.run(["bash", "-c", script], cwd=repo, env=environment(), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (1, REPORT, "")


def test_dev_stdout_as_the_output_file(repo):
    result = run(["check", "--no-cache", "--output-file", "/dev/stdout", "q.sql"], repo)
    assert (result.returncode, result.stdout, result.stderr) == (1, REPORT, "")


def test_dev_stdout_on_a_file_appends_to_that_file(repo):
    """The shell holds the file open: replacing it would send the report to a name the shell
    no longer writes to, and drop what it wrote before."""
    out = repo / "out.txt"
    with open(out, "w") as handle:
        handle.write("before\n")
        handle.flush()
        result = subprocess.run(command("check", "--no-cache", "--output-file", "/dev/stdout", "q.sql"), cwd=repo,
                                env=environment(), stdout=handle, stderr=subprocess.PIPE, text=True, timeout=120)
        inode = os.fstat(handle.fileno()).st_ino
    assert (result.returncode, result.stderr) == (1, "")
    assert out.read_text() == "before\n" + REPORT
    assert out.stat().st_ino == inode


@pytest.mark.parametrize(
    "args",
    [["check", "q.sql"], ["check", "--diff", "q.sql"], ["check", "--statistics", "q.sql"], ["rules"],
     ["check", "--fix", "--stdin-filename", "q.sql", "-"]],
)
def test_a_full_disk_on_stdout_is_the_users_error(repo, args):
    with open("/dev/full", "w") as full:
        result = subprocess.run(command(*args), cwd=repo, env=environment(), input=FIXABLE, stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (2, "error: cannot write to stdout: No space left on device\n")
    assert (repo / "q.sql").read_text() == FIXABLE


def test_a_full_disk_on_stderr_still_gives_the_report(repo):
    """Notes that cannot be said stop nothing; the exit code says something went wrong."""
    (repo / "notes.txt").write_text("a file of no kind sortlint reads: a note on stderr\n")
    for args, code in ((["check", "q.sql"], 1), (["check", "notes.txt", "q.sql"], 2)):
        with open("/dev/full", "w") as full:
            result = subprocess.run(command(*args), cwd=repo, env=environment(), stdout=subprocess.PIPE,
                                    stderr=full, text=True, timeout=120)
        assert (result.returncode, result.stdout) == (code, REPORT), args
