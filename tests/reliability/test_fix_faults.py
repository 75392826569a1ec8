"""`--fix` under faults: nothing lost, nothing half-written.

Every fix is proved before any file is written; each file is then replaced atomically. A
file that cannot be written is reported with the reason and stays as it was, the others are
still written, no temporary file is left, and the exit code is 2. Ctrl-C (SIGINT sent to a
real `sortlint check --fix` process) ends it with exit code 130, leaving every file either
as it was or fully fixed. The points of interruption are made observable with
SORTLINT_DEBUG_PAUSE, which pauses inside each replacement (after the new text is written
to its temporary file, before the rename).
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from processes import environment, permissions_apply, run, small_disk, start, temporaries, without_root_file_access

from sortlint.cli import main
from sortlint.files import STALE_AFTER

FIXABLE = "SELECT a FROM t WHERE b = 1 ORDER BY a, a;\n"
FIXED = "SELECT a FROM t WHERE b = 1 ORDER BY a;\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def permissions():
    reason = permissions_apply()
    if reason is not None:
        pytest.skip(reason)


def test_a_read_only_folder(repo, permissions):
    for folder in ("a_locked", "b_open"):
        (repo / folder).mkdir()
        (repo / folder / "q.sql").write_text(FIXABLE)
    (repo / "a_locked").chmod(0o555)
    try:
        result = run(["check", "--fix", "."], repo, setup=without_root_file_access)
    finally:
        (repo / "a_locked").chmod(0o755)
    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        "a_locked/q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]",
        "Found 1 finding in 1 file. 1 error.",
        "1 fixed, 1 remaining.",
    ]
    assert result.stderr == "error: a_locked/q.sql: not fixed, the file is as it was: cannot write it: Permission denied\n"
    assert (repo / "a_locked" / "q.sql").read_text() == FIXABLE
    assert (repo / "b_open" / "q.sql").read_text() == FIXED
    assert temporaries(repo) == []


def test_a_read_only_file_is_refused(repo, capsys):
    (repo / "a.sql").write_text(FIXABLE)
    (repo / "b.sql").write_text(FIXABLE)
    (repo / "a.sql").chmod(0o444)
    assert main(["check", "--fix", "."]) == 2
    assert capsys.readouterr() == (
        "a.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]\n"
        "Found 1 finding in 1 file. 1 error.\n"
        "1 fixed, 1 remaining.\n",
        "error: a.sql: not fixed, the file is as it was: the file is read-only\n",
    )
    assert ((repo / "a.sql").read_text(), (repo / "b.sql").read_text()) == (FIXABLE, FIXED)
    assert stat.S_IMODE((repo / "a.sql").stat().st_mode) == 0o444


@pytest.mark.parametrize(
    ("how", "size", "reason"),
    [("tmpfs", 64 * 1024, "No space left on device"), ("file size limit", 20 * 1024, "File too large")],
)
def test_a_full_disk(repo, how, size, reason):
    """The larger file's fix does not fit (beside it, or at all); the smaller one's does."""
    big = FIXABLE * 900  # about 40 KB
    with small_disk(repo, how, size) as (disk, setup):
        if disk is None:
            pytest.skip("no tmpfs can be mounted here (not root)")
        (disk / "a_big.sql").write_text(big)
        (disk / "b_small.sql").write_text(FIXABLE)
        result = run(["check", "--fix", "--output-format", "json", "."], disk, setup=setup)
        assert result.returncode == 2
        assert f'"message": "not fixed, the file is as it was: cannot write it: {reason}"' in result.stdout
        assert result.stderr == f"error: a_big.sql: not fixed, the file is as it was: cannot write it: {reason}\n"
        assert (disk / "a_big.sql").read_text() == big
        assert (disk / "b_small.sql").read_text() == FIXED
        assert temporaries(disk) == []


@pytest.mark.parametrize("limit", [10_000, 5_000], ids=["the copy fits, the fix does not", "the copy does not fit"])
def test_a_hard_linked_file_that_cannot_be_written_whole_keeps_its_old_text(repo, limit):
    """A file with several links is rewritten in place; its fix grows it past the file size
    limit, so the new text stops part-way: the old text, copied beside it first, is written
    back, every link still sees it, and the copy is gone. When the copy cannot be written,
    the file is not touched."""
    (repo / "sortlint.yml").write_text(
        "sources:\n  staging: {columns: {id: int not null, k: int}}\n"
        "  plain: {columns: {id: int not null, k: int}, orderings: [[id]]}\n"
    )
    old = "INSERT INTO plain SELECT id, k FROM staging;\n" * 200  # 9 KB; each fix adds ` ORDER BY id`
    (repo / "q.sql").write_text(old)
    os.link(repo / "q.sql", repo / "other-name.sql")
    inode = (repo / "q.sql").stat().st_ino

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "json", "q.sql"], repo, setup=limited)
    assert result.returncode == 2
    assert '"message": "not fixed, the file is as it was: cannot write it: File too large"' in result.stdout
    assert result.stderr == "error: q.sql: not fixed, the file is as it was: cannot write it: File too large\n"
    assert (repo / "q.sql").read_text() == (repo / "other-name.sql").read_text() == old
    assert (repo / "q.sql").stat().st_ino == inode
    assert temporaries(repo) == []


def test_a_fix_through_a_symbolic_link_edits_its_target(repo, capsys):
    (repo / "real").mkdir()
    target = repo / "real" / "q.sql"
    target.write_text(FIXABLE)
    target.chmod(0o640)
    os.symlink("real/q.sql", "link.sql")
    assert main(["check", "--fix", "link.sql"]) == 0
    assert os.readlink("link.sql") == "real/q.sql"
    assert target.read_text() == FIXED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert temporaries(repo) == []


def test_a_file_changed_while_it_was_checked_is_left_alone(repo, capsys, monkeypatch):
    """The fixes are computed from the text that was read; a file saved in between (an
    editor) keeps what was saved."""
    from sortlint.rewriters import apply

    (repo / "q.sql").write_text(FIXABLE)
    prove = apply.fix_file

    def edited_meanwhile(*args, **kwargs):
        outcome = prove(*args, **kwargs)
        (repo / "q.sql").write_text("-- saved by an editor\n" + FIXABLE)
        return outcome

    monkeypatch.setattr(apply, "fix_file", edited_meanwhile)
    assert main(["check", "--fix", "q.sql"]) == 2
    assert capsys.readouterr().err == (
        "error: q.sql: not fixed, the file is as it was: the file changed while it was checked; "
        "run sortlint again\n"
    )
    assert (repo / "q.sql").read_text() == "-- saved by an editor\n" + FIXABLE


def test_a_device_put_where_a_file_was_is_left_alone(repo, capsys, monkeypatch):
    """A file replaced by a device after it was read is never renamed over (as root, a rename
    replaces any device with a file)."""
    from sortlint.rewriters import apply

    (repo / "q.sql").write_text(FIXABLE)
    prove = apply.fix_file

    def replaced_meanwhile(*args, **kwargs):
        outcome = prove(*args, **kwargs)
        (repo / "q.sql").unlink()
        null_device(repo / "q.sql")
        return outcome

    monkeypatch.setattr(apply, "fix_file", replaced_meanwhile)
    assert main(["check", "--fix", "q.sql"]) == 2
    assert capsys.readouterr().err == "error: q.sql: not fixed, the file is as it was: not a regular file\n"
    assert stat.S_ISCHR((repo / "q.sql").stat().st_mode)


def null_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")


# --- interruptions -------------------------------------------------------------------------------


def repository(folder: Path, files: int, repeat: int = 1) -> dict[Path, str]:
    """`files` fixable files, each with a statement that stays (so that a fixed file and an
    original one are told apart, and nothing in between passes for either), `repeat` times."""
    texts = {}
    for index in range(files):
        path = folder / f"q{index:03}.sql"
        fixable = f"{FIXABLE}SELECT x.a FROM (SELECT a FROM t ORDER BY a) x JOIN u ON x.a = u.a;\n"
        text = f"SELECT {index} AS n;\n" + fixable * repeat
        path.write_text(text)
        texts[path] = text
    return texts


def workers(pid: int) -> list[str]:
    """The process's forked children - its workers, not a `git` it runs (Linux)."""
    own = Path(f"/proc/{pid}/comm").read_text()
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            if Path(f"/proc/{child}/comm").read_text() == own:
                found.append(child)
        except FileNotFoundError:  # it has ended meanwhile
            continue
    return found


def fixed_text(original: str) -> str:
    return original.replace(FIXABLE, FIXED).replace("FROM t ORDER BY a) x", "FROM t) x")


def settle(texts: dict[Path, str]) -> tuple[int, int]:
    """(files as they were, files fully fixed); fails on anything else."""
    as_they_were = fixed = 0
    for path, original in texts.items():
        now = path.read_text()
        assert now in (original, fixed_text(original)), f"{path.name} is half-written:\n{now}"
        as_they_were += now == original
        fixed += now == fixed_text(original)
    return as_they_were, fixed


def wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the point of interruption never came")
        time.sleep(0.005)


def interrupted(process: subprocess.Popen, how: int = signal.SIGINT) -> tuple[int, str]:
    """Send the signal as a terminal sends Ctrl-C: to the process group (workers too)."""
    os.killpg(process.pid, how)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


def test_ctrl_c_while_analysing_writes_nothing(repo):
    texts = repository(repo, 768, repeat=10)
    process = start(["check", "--fix", "."], repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(2.0)  # started and analysing: proving 15,000 fixes takes far longer
    code, err = interrupted(process)
    assert code == 130
    assert "Traceback" not in err
    assert settle(texts) == (768, 0)
    assert temporaries(repo) == []


@pytest.mark.parametrize("after", [0, 1, 3])
def test_ctrl_c_while_writing(repo, after):
    """SIGINT arrives while file `after` is being replaced (its temporary file exists): that
    file is completed, no other is started, and nothing is left behind."""
    texts = repository(repo, 8)
    env = environment(SORTLINT_DEBUG_PAUSE="1.0")
    process = start(["check", "--fix", "."], repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    wait_until(lambda: settle(texts)[1] == after and temporaries(repo))
    code, err = interrupted(process)
    assert (code, err) == (130, "sortlint: interrupted (no file is left half-written)\n")
    assert settle(texts) == (8 - after - 1, after + 1)
    assert temporaries(repo) == []


def test_sigterm_while_writing(repo):
    texts = repository(repo, 4)
    env = environment(SORTLINT_DEBUG_PAUSE="1.0")
    process = start(["check", "--fix", "."], repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    wait_until(lambda: temporaries(repo))
    code, _ = interrupted(process, signal.SIGTERM)
    assert code == -signal.SIGTERM
    assert settle(texts) == (3, 1)
    assert temporaries(repo) == []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc to see the workers start")
def test_ctrl_c_during_a_parallel_check(repo):
    """Forked workers share the terminal's SIGINT: none of them prints a traceback."""
    repository(repo, 400, repeat=10)
    process = start(["check", "--jobs", "2", "."], repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    wait_until(lambda: workers(process.pid))
    code, err = interrupted(process)
    assert code == 130
    assert "Traceback" not in err


def test_workers_end_when_their_parent_is_gone(repo):
    """A parent killed before it reads (SIGKILL: no clean-up) leaves its workers to finish
    their shares and end, never blocked for ever writing records nobody will read."""
    repository(repo, 400, repeat=10)
    process = start(["check", "--no-cache", "--jobs", "2", "."], repo, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until(lambda: workers(process.pid))
    children = workers(process.pid)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    wait_until(lambda: all(ended(child) for child in children), timeout=180)


def ended(pid: str) -> bool:
    """Gone, or a zombie nobody reaped (it ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


# --- what SIGKILL leaves -------------------------------------------------------------------------


def leftover(folder: Path, name: str, pid: int, age: float = 2 * STALE_AFTER, suffix: str = ".sortlint") -> Path:
    """A temporary file as `--fix` names it, `age` seconds old."""
    path = folder / f".{name}.{pid}.{os.urandom(4).hex()}{suffix}"
    path.write_text(FIXED)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_a_walk_removes_temporary_files_whose_writer_is_gone(repo, capsys):
    """Only those sure to be a dead run's: a running writer's, a fresh one (a writer in
    another pid namespace may be alive), and the copy of a hard-linked file's old text (which
    may be all that is left of it) stay. None is read as a source."""
    (repo / "q.sql").write_text(FIXABLE)
    (repo / "sub").mkdir()
    gone = dead_pid()
    stale = [leftover(repo, "q.sql", gone), leftover(repo / "sub", "x.sql", gone)]
    kept = [
        leftover(repo, "q.sql", os.getpid()),
        leftover(repo, "q.sql", gone, age=1),
        leftover(repo, "q.sql", gone, suffix=".sortlint-old"),
    ]
    assert main(["check", "."]) == 1
    assert capsys.readouterr() == (
        "q.sql:1:41: SL003 [*] sort key a repeats an earlier key [query]\nFound 1 finding in 1 file.\n", ""
    )
    assert temporaries(repo) == sorted(kept)
    assert not any(path.exists() for path in stale)


def test_what_a_killed_fix_leaves_goes_with_the_next_fix(repo):
    """SIGKILL cannot be held back: it leaves the temporary file of the file being replaced.
    The next `--fix` of that file (named, its folder not walked) removes it once it is older
    than a writer keeps one."""
    texts = repository(repo, 2)
    env = environment(SORTLINT_DEBUG_PAUSE="30")
    process = start(["check", "--fix", "."], repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: temporaries(repo))
    process.kill()
    process.communicate(timeout=60)
    [left] = temporaries(repo)
    assert left.name.startswith(f".q000.sql.{process.pid}.")
    assert settle(texts) == (2, 0)
    then = time.time() - 2 * STALE_AFTER  # younger, it could be a live writer's elsewhere
    os.utime(left, (then, then))
    result = run(["check", "--fix", "q000.sql"], repo)
    assert (result.returncode, result.stderr) == (0, "")
    assert temporaries(repo) == []
    assert settle(texts) == (1, 1)
