"""How `sortlint` copes with big single statements and long lines: seconds and peak memory.

    .venv/bin/python benchmarks/big_statements.py [--scale F] [--only NAME] [--jobs default|1]

Three inputs, each measured as one whole process (start-up and imports included) over a
generated file in a temporary folder:

* in-list  - one `SELECT ... WHERE k IN (...)` of 250,000 quoted values (3 MB, one statement)
  with a finding and its fix (a repeated sort key);
* one-line - 67,000 statements on a single 4.8 MB line (a third with a finding each);
* fix      - `check --fix` of a 4.9 MB file of 50,000 statements, two thirds with a fix (a
  repeated sort key, a sort feeding a join).

`tests/reliability/test_big_statements.py` pins the findings and fixes of smaller versions.

`--scale` multiplies the sizes (0.01 gives quick inputs for profiling). Each input is checked
twice: as sortlint runs by default (one process per CPU: the statements of one big file are
shared among workers) and with `--jobs 1` (`--jobs` keeps one of the two). The table shows
the issue's targets next to the measured wall seconds, CPU seconds (the workers' included)
and peak resident memory of the child process (its maximum RSS, as the kernel reports it
after the child exits; a worker's own peak is not in it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE_LINE = (
    "SELECT a, b, count(*) FROM sales.t GROUP BY a, b ORDER BY a, b; "
    "SELECT x.a FROM (SELECT a FROM sales.t ORDER BY a) x JOIN sales.u ON x.a = u.a; "
    "SELECT c, d, e FROM sales.v WHERE c > 1 AND d = 'open' ORDER BY c, e; "
)
FIXABLE = (
    "SELECT order_id, amount FROM sales.orders WHERE region = 'EU' ORDER BY order_id, order_id;\n"
    "SELECT x.order_id FROM (SELECT order_id FROM sales.orders ORDER BY order_id) x "
    "JOIN sales.customers c ON x.order_id = c.id;\n"
    "SELECT customer_id, sum(amount) AS total FROM sales.orders GROUP BY customer_id;\n"
)


def in_list(path: Path, scale: float) -> None:
    values = ", ".join(f"'{i:08}'" for i in range(int(250_000 * scale)))
    path.write_text(f"SELECT k, v FROM sales.t WHERE k IN ({values}) ORDER BY k, v, k;\n")


def one_line(path: Path, scale: float) -> None:
    path.write_text(ONE_LINE * int(67_000 * scale / 3) + "\n")


def fix(path: Path, scale: float) -> None:
    path.write_text(FIXABLE * int(50_000 * scale / 3))


# name: (generator, extra arguments of `sortlint check`, target seconds, target MiB or None)
INPUTS: dict[str, tuple[Callable[[Path, float], None], tuple[str, ...], float, float | None]] = {
    "in-list": (in_list, (), 20, 250),
    "one-line": (one_line, (), 30, 400),
    "fix": (fix, ("--fix",), 30, None),
}


# How each input is run: as by default (one process per CPU), and in one process.
JOBS: dict[str, tuple[str, ...]] = {"default": (), "1": ("--jobs", "1")}


def measure(path: Path, extra: tuple[str, ...]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak RSS in MiB and exit code of one `sortlint check` of `path`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "sortlint", "check", "--no-cache", *extra, path.name]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=path.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return (
        time.perf_counter() - start,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
    )


def cpu_model() -> str:
    """The CPU's name as Linux reports it (the figures depend on it)."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "unknown CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the sizes by this")
    parser.add_argument("--only", choices=INPUTS, action="append", help="only these inputs")
    parser.add_argument("--jobs", choices=JOBS, action="append", help="only these ways of running")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs ({cpu_model()}), scale {args.scale}\n")
    print("| input | jobs | size MB | wall s | CPU s | target s | peak MiB | target MiB | exit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.only or INPUTS:
        generate, extra, seconds, mebibytes = INPUTS[name]
        for jobs in args.jobs or JOBS:
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "q.sql"
                generate(path, args.scale)  # afresh: --fix rewrites it
                size = path.stat().st_size / 1e6
                wall, cpu, peak, code = measure(path, (*JOBS[jobs], *extra))
            target_memory = "" if mebibytes is None else f"{mebibytes:.0f}"
            print(f"| {name} | {jobs} | {size:.1f} | {wall:.1f} | {cpu:.1f} | {seconds:.0f} | {peak:.0f} | {target_memory} | {code} |", flush=True)


if __name__ == "__main__":
    main()
