"""sortlint as a user runs it: its command line over a repository of generated files.

`run_batch` writes one repository (sortlint.yml and one file per case), and runs

* `sortlint check --output-format json` — the findings, with each fix's applicability;
* `sortlint check --fix` in a copy — what the safe fixes write;
* `sortlint check --fix --unsafe-fixes` in another copy — what all fixes write;

and reads back each file's fixed text and the `fix dropped:` lines. The sortlint that runs is
the one `import sortlint` finds from this checkout (the worktree root goes first on PYTHONPATH).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout whose sortlint is fuzzed

_DROPPED = re.compile(r"^fix dropped: (?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<code>SL\d+): (?P<reason>.*)$")


@dataclass
class FileOutcome:
    findings: list[dict] = field(default_factory=list)
    safe_text: str | None = None  # the file after --fix (None: unchanged)
    unsafe_text: str | None = None  # after --fix --unsafe-fixes (None: unchanged)
    dropped_safe: list[tuple[str, str]] = field(default_factory=list)  # (code, reason)
    dropped_unsafe: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class BatchOutcome:
    files: dict[str, FileOutcome]
    errors: list[str]  # sortlint's `error:` lines (a file it could not read, a bad catalog)
    exit_codes: tuple[int, int, int]
    seconds: float = 0.0


def sortlint(args: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, "-m", "sortlint", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=timeout,
    )


def write_repository(directory: Path, catalog_yaml: str, files: dict[str, str]) -> None:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "sortlint.yml").write_text(catalog_yaml)
    for name, text in files.items():
        (directory / name).write_text(text)


def run_batch(directory: Path, catalog_yaml: str, files: dict[str, str], modes=("safe", "unsafe")
              ) -> BatchOutcome:
    """Write the repository under `directory` and run sortlint on it (see the module doc)."""
    started = time.perf_counter()
    original = directory / "original"
    write_repository(original, catalog_yaml, files)
    check = sortlint(["check", ".", "--output-format", "json", "--jobs", "1"], original)
    errors = [line[len("error: "):] for line in check.stderr.splitlines() if line.startswith("error: ")]
    outcomes = {name: FileOutcome() for name in files}
    if check.returncode == 2 and any("sortlint.yml" in e for e in errors):
        # The catalog itself is refused: nothing was checked.
        return BatchOutcome(outcomes, errors, (2, 0, 0), time.perf_counter() - started)
    if check.returncode not in (0, 1, 2) or not check.stdout.strip().startswith("["):
        raise RuntimeError(f"sortlint check failed ({check.returncode}):\n{check.stderr[-4000:]}")
    for finding in json.loads(check.stdout):
        outcomes[finding["path"]].findings.append(finding)
    if check.returncode == 2 and not errors:
        raise RuntimeError(f"sortlint exit 2 without an error line:\n{check.stderr[-4000:]}")
    codes = [check.returncode]
    for mode in ("safe", "unsafe"):
        if mode not in modes:
            codes.append(0)
            continue
        copy = directory / mode
        write_repository(copy, catalog_yaml, files)
        args = ["check", ".", "--fix"] + (["--unsafe-fixes"] if mode == "unsafe" else [])
        fixed = sortlint(args, copy)
        if "Traceback" in fixed.stderr:
            raise RuntimeError(f"sortlint {' '.join(args)} crashed:\n{fixed.stderr[-4000:]}")
        codes.append(fixed.returncode)
        for line in fixed.stdout.splitlines():
            m = _DROPPED.match(line)
            if m and m["path"] in outcomes:
                getattr(outcomes[m["path"]], f"dropped_{mode}").append((m["code"], m["reason"]))
        for name, text in files.items():
            after = (copy / name).read_text()
            if after != text:
                setattr(outcomes[name], f"{mode}_text", after)
    return BatchOutcome(outcomes, errors, tuple(codes), time.perf_counter() - started)


def apply_edits(text: str, edits: list[dict]) -> str:
    """A finding's fix edits (1-based line/column, end exclusive) applied to `text`."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    result = text
    for e in sorted(edits, key=lambda e: (e["line"], e["column"]), reverse=True):
        a, b = offset(e["line"], e["column"]), offset(e["end_line"], e["end_column"])
        result = result[:a] + e["content"] + result[b:]
    return result


def finding_offset(text: str, finding: dict) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: finding["line"] - 1]) + finding["column"] - 1
