"""The text report as a person at a terminal reads it: the full form with each finding's
source, colour where it helps, a progress line for long runs - and in a pipe or a CI log,
one plain line per finding, as before."""

from __future__ import annotations

import io
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sortlint import stages
from sortlint.cli import main
from sortlint.report.colors import wants_color
from sortlint.report.progress import ProgressLine, progress_line
from sortlint.sources.dbt.compiled import dbt_version

ROOT = Path(__file__).resolve().parents[2]
CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n"
QUERY = (
    "SELECT host FROM events\nWHERE host = 'a'\nORDER BY host, time;\n"
    "SELECT host, time FROM events ORDER BY host,\n  time, host;\n"
)
CONCISE = (
    "q.sql:3:10: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 2) [query]\n"
    "q.sql:5:9: SL003 [*] sort key host repeats an earlier key [query]\n"
    "Found 2 findings in 1 file.\n"
)
FULL = """\
q.sql:3:10: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 2) [query]
  |
3 | ORDER BY host, time;
  |          ^^^^
  |
  = on Spark: same plan: an exchange and a sort by fewer keys
  = safe fix (--fix): drop the sort key host

q.sql:5:9: SL003 [*] sort key host repeats an earlier key [query]
  |
5 |   time, host;
  |         ^^^^
  |
  = on Spark: same plan: an exchange and a sort by fewer keys
  = safe fix (--fix): drop the sort key host

Found 2 findings in 1 file.
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text(QUERY)
    return tmp_path


def test_the_full_form_shows_each_findings_source_marker_and_fix(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "full", "q.sql"]) == 1
    assert capsys.readouterr().out == FULL


def test_the_concise_form_is_one_line_per_finding_as_before(repo, capsys):
    for form in ("concise", "text"):
        assert main(["check", "--no-cache", "--output-format", form, "q.sql"]) == 1
        assert capsys.readouterr().out == CONCISE


def test_colour_paints_the_parts_of_a_finding(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "concise", "--color", "always", "q.sql"]) == 1
    assert capsys.readouterr().out.splitlines()[1] == (
        "\x1b[1mq.sql:5:9\x1b[0m: \x1b[1;31mSL003\x1b[0m [*] sort key host repeats an earlier key "
        "\x1b[2m[query]\x1b[0m"
    )


@pytest.mark.parametrize("choice, terminal, environment, coloured", [
    ("auto", True, {}, True),
    ("auto", False, {}, False),
    ("auto", True, {"NO_COLOR": "1"}, False),
    ("auto", False, {"FORCE_COLOR": "1"}, True),
    ("auto", True, {"FORCE_COLOR": "0"}, True),
    ("never", True, {"FORCE_COLOR": "1"}, False),
    ("always", False, {"NO_COLOR": "1"}, True),
])
def test_when_to_colour(choice, terminal, environment, coloured):
    assert wants_color(choice, terminal, environment) is coloured


def run_on_terminal(cwd: Path, *arguments: str, environment: dict | None = None) -> str:
    """What `sortlint ARGUMENTS` prints when its stdout and stderr are a terminal."""
    controller, terminal = pty.openpty()
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERM": "xterm", **(environment or {})}
    process = subprocess.Popen([sys.executable, "-m", "sortlint", *arguments], cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=terminal, stderr=terminal, env=env)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=300)
    os.close(controller)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_on_a_terminal_the_full_form_in_colour_and_in_a_pipe_one_plain_line(repo):
    on_terminal = run_on_terminal(repo, "check", "--no-cache", "q.sql")
    assert on_terminal.startswith("\x1b[1mq.sql:3:10\x1b[0m: \x1b[1;31mSL003\x1b[0m [*] sort key host is constant")
    assert "\x1b[34m3 |\x1b[0m ORDER BY host, time;\n" in on_terminal
    assert run_on_terminal(repo, "check", "--no-cache", "q.sql", environment={"NO_COLOR": "1"}) == FULL
    piped = subprocess.run([sys.executable, "-m", "sortlint", "check", "--no-cache", "q.sql"], cwd=repo,
                           capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}, timeout=300)
    assert (piped.stdout, piped.stderr) == (CONCISE, "")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_progress_line_shows_only_once_a_run_is_slow_and_leaves_nothing_behind():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, after=2.0, clock=clock)
    line(1, 10)
    clock.now = 1.9
    line(3, 10)
    assert stream.getvalue() == ""  # a quick run shows nothing
    clock.now = 2.5
    line(5, 10)
    line(10, 10)
    line.close()
    assert stream.getvalue() == (
        "\r[###############...............] 5/10 files"
        "\r[##############################] 10/10 files"
        "\r\x1b[K"
    )


def test_a_stage_no_file_s_takes_the_line_while_it_lasts():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, after=2.0, clock=clock)
    clock.now = 2.5
    line(0, 4)
    stages.report(stages.Stage("rendering the dbt project with dbt"))
    stages.report(stages.Stage("rendering the dbt project with dbt", 0, 3, "models"))
    stages.report(stages.Stage("rendering the dbt project with dbt", 0, 3, "models"))  # drawn once
    stages.report(stages.Stage("rendering the dbt project with dbt", 3, 3, "models"))
    stages.report(None)
    line(1, 4)
    line.close()
    stages.report(stages.Stage("rendering the dbt project with dbt"))  # closed: not listening
    assert stream.getvalue() == (
        "\r[..............................] 0/4 files"
        "\r[..............................] rendering the dbt project with dbt"
        "\r[..............................] rendering the dbt project with dbt: 0/3 models"
        "\r[##############################] rendering the dbt project with dbt: 3/3 models"
        "\r[..............................] 0/4 files\x1b[K"  # the rest of the longer line erased
        "\r[#######.......................] 1/4 files"
        "\r\x1b[K"
    )


STAGE = re.compile(r"\[([#.]{30})\] rendering the dbt project with dbt(?:: (\d+)/(\d+) models)?")


@pytest.mark.dbt_core
@pytest.mark.skipif(dbt_version() is None, reason="dbt-core is not installed (the dbt extra)")
def test_while_dbt_renders_the_project_the_progress_line_counts_its_models(tmp_path):
    """A one-file check of a model renders the whole project with dbt first (10 models in
    the example project): the line says so, with how many models are done, then counts
    files again. dbt runs afresh (an empty cache of its renderings)."""
    project = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", project, ignore=shutil.ignore_patterns(".sortlint_cache"))
    shown = run_on_terminal(project, "check", "--no-cache", "--dbt-renderer", "dbt",
                            "dbt/models/marts/daily_refunds.sql",
                            environment={"SORTLINT_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"})
    progress, _, report = shown.rpartition("\r\x1b[K")
    assert report.startswith("dbt/models/marts/daily_refunds.sql:7:22: SL103 group key status is constant")
    drawn = progress.split("\r")
    assert drawn[0] == ""
    *rendering, files = drawn[1:]
    assert files == "[..............................] 0/1 files\x1b[K"
    counts = []
    for text in rendering:
        found = STAGE.fullmatch(text)
        assert found is not None, text
        bar, done, total = found.groups()
        if total is None:
            assert not counts and bar == "." * 30  # dbt is still reading the project
            continue
        assert total == "10" and bar == "#" * (30 * int(done) // 10) + "." * (30 - 30 * int(done) // 10)
        counts.append(int(done))
    assert counts == sorted(counts) and counts[-1] == 10
    assert rendering[-1] == "[##############################] rendering the dbt project with dbt: 10/10 models"


def test_no_progress_line_in_a_pipe_or_a_ci_log():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_line(io.StringIO(), {}) is None
    assert progress_line(Terminal(), {"CI": "true"}) is None
    assert isinstance(progress_line(Terminal(), {}), ProgressLine)
