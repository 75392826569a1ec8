"""The terminal sessions of the README and the documentation are what sortlint prints: each
`$ sortlint ...` line is run
in a copy of `examples/` (where `make demo` runs it) and its output compared with the lines
under it. A line `...` in the README stands for any lines the README leaves out."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "$ "


def sessions() -> list[tuple[str, list[str]]]:
    """Each command of the README's terminal blocks, with the output the README shows."""
    found = []
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "".join(page.read_text() for page in pages)
    for block in re.findall(r"```\n(\$ .*?)```", text, re.S):
        command, shown = None, []
        for line in block.splitlines():
            if line.startswith(PROMPT):
                if command is not None:
                    found.append((command, shown[:-1] if shown[-1:] == [""] else shown))
                command, shown = line[len(PROMPT):], []
            else:
                shown.append(line)
        found.append((command, shown))
    return found


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, `...` standing for any run of lines."""
    pattern = "".join(".*?" if line == "..." else re.escape(line + "\n") for line in shown)
    return re.fullmatch(pattern, "".join(line + "\n" for line in printed), re.S) is not None


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("readme") / "examples"
    shutil.copytree(ROOT / "examples", copy, ignore=shutil.ignore_patterns(".sortlint_cache"))
    return copy


@pytest.mark.parametrize("command, shown", sessions(), ids=[c for c, _ in sessions()])
def test_a_readme_session_prints_what_the_readme_shows(examples, command, shown):
    words = shlex.split(command.removeprefix("cd examples && "))
    assert words[0] == "sortlint", command
    done = subprocess.run([sys.executable, "-m", "sortlint", *words[1:], "--no-cache"], cwd=examples,
                          capture_output=True, text=True, timeout=600)
    printed = (done.stdout + done.stderr).splitlines()
    assert matches(shown, printed), "\n".join(printed)


def test_the_sessions_are_found():
    assert [command for command, _ in sessions()][:2] == [
        "cd examples && sortlint check warehouse/telemetry/host_daily.sql",
        "sortlint check --diff --unsafe-fixes warehouse/telemetry/host_daily.sql",
    ]
    assert len(sessions()) == 9  # the README's two again in docs/index.md
