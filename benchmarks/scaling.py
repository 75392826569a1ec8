"""How `sortlint check` scales with its input: seconds and peak memory per size.

    .venv/bin/python benchmarks/scaling.py [--quick] [--runs N]

Each measurement is one `sortlint check --jobs 1` process (start-up and imports included,
as a pre-commit hook pays them) over a generated repository: wall seconds, CPU seconds
(user and system: what a busy shared machine does not inflate) and peak memory, the
process's maximum resident set size. Four axes, one at a time:

* statements - one file of N statements, half of them with a finding
  (`SELECT a, b, count(*) ... GROUP BY a, b ORDER BY a, b;` and a sort feeding a join);
* files      - N files of 10 such statements each;
* nesting    - one statement of N nested subqueries (past what Python's recursion limit lets
  sqlglot parse, the statement is reported as too deeply nested: "error" in the table);
* values     - one `INSERT ... VALUES` of N rows of 7 literals (about 90 bytes a row).

`per item` is the CPU milliseconds per statement, file, level or row above those of the
smallest size, which shows whether the cost of one more grows with the size (it should not).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

STATEMENTS = (
    "SELECT a, b, count(*) FROM t GROUP BY a, b ORDER BY a, b;\n"
    "SELECT x.a FROM (SELECT a FROM t ORDER BY a) x JOIN u ON x.a = u.a;\n"
)


def statements(folder: Path, count: int) -> None:
    (folder / "q.sql").write_text(STATEMENTS * (count // 2))


def files(folder: Path, count: int) -> None:
    for index in range(count):
        (folder / f"q{index:05}.sql").write_text(STATEMENTS * 5)


def nesting(folder: Path, depth: int) -> None:
    (folder / "q.sql").write_text(
        "SELECT a FROM " + "(SELECT a, b FROM " * depth + "t" + " ORDER BY a) x" * depth + ";\n"
    )


def values(folder: Path, rows: int) -> None:
    text = ",\n".join(
        f"({i}, {i * 7919 % 100003}, DATE'2024-01-{i % 28 + 1:02}', TIMESTAMP'2024-01-01 00:00:00', "
        f"{i % 1000}.25, 'EUR', 'open')"
        for i in range(rows)
    )
    (folder / "q.sql").write_text(f"INSERT INTO sales.orders VALUES\n{text};\n")


AXES: dict[str, tuple[Callable[[Path, int], None], tuple[int, ...], tuple[int, ...]]] = {
    # axis: (generator, sizes, quick sizes)
    "statements": (statements, (1_000, 2_000, 5_000, 10_000), (500, 1_000, 2_000)),
    "files": (files, (100, 300, 1_000), (30, 100, 300)),
    "nesting": (nesting, (10, 50, 100, 200, 1_000), (10, 50, 200)),
    "values": (values, (1_000, 10_000, 55_000, 200_000), (1_000, 10_000, 55_000)),
}


def measure(folder: Path) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak RSS in MiB and exit code of one check of `folder`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "sortlint", "check", "--jobs", "1", "."]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (the median is shown)")
    parser.add_argument("--axis", choices=AXES, action="append", help="only these axes")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "sortlint", quiet=1)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30 if hasattr(os, "sysconf") else 0
    print(f"python {sys.version.split()[0]}, {cpus} CPUs, {memory:.0f} GiB; median of {args.runs} runs\n")
    print(f"{'axis':<12}{'size':>9}{'wall s':>9}{'CPU s':>8}{'peak MiB':>10}{'per item ms':>13}  result")
    for axis in args.axis or AXES:
        generate, sizes, quick = AXES[axis]
        first: tuple[int, float] | None = None
        for size in quick if args.quick else sizes:
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(scratch)
                generate(folder, size)
                runs = [measure(folder) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            peak = max(r[2] for r in runs)
            result = {0: "clean", 1: "findings", 2: "error"}.get(runs[0][3], f"exit {runs[0][3]}")
            per_item = "" if first is None else f"{1000 * (cpu - first[1]) / (size - first[0]):.3f}"
            first = first or (size, cpu)
            print(f"{axis:<12}{size:>9}{wall:>9.2f}{cpu:>8.2f}{peak:>10.0f}{per_item:>13}  {result}")


if __name__ == "__main__":
    main()
