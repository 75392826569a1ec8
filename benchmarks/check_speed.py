"""Whole-process speed of `sortlint check` over the TPC-DS corpus, side by side with a
bare sqlglot parse of the same files and with `sqlfluff lint --dialect sparksql`.

    .venv/bin/python benchmarks/check_speed.py [--corpus DIR] [--runs N] [--skip-sqlfluff]

Each tool runs as its own process (interpreter start-up and imports included), so the
figures are what a pre-commit hook or CI step pays. Peak memory is the child's maximum
resident set size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpora" / "tpcds"
BIN = Path(sys.executable).parent

BARE_PARSE = """
import sys, sqlglot
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        sqlglot.parse(handle.read(), read="spark")
"""


def measure(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS in MiB of one run of `command`."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        error = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
        raise SystemExit(f"{command[0]} exited {code}:\n{error}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-sqlfluff", action="store_true")
    args = parser.parse_args()

    files = sorted(args.corpus.glob("*.sql"))
    if not files:
        raise SystemExit(f"no .sql files in {args.corpus}")
    names = [str(f) for f in files]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "sortlint.yml").write_text("target: spark\n")
        tools = {
            "sqlglot parse (bare)": [sys.executable, "-c", BARE_PARSE, *names],
            "sortlint check": [str(BIN / "sortlint"), "check", "--config", str(work / "sortlint.yml"), *names],
        }
        if not args.skip_sqlfluff:
            tools["sqlfluff lint"] = [str(BIN / "sqlfluff"), "lint", "--dialect", "sparksql", "--processes", "1", *names]
        results = {}
        for tool, command in tools.items():
            runs = 1 if tool == "sqlfluff lint" else args.runs
            samples = [measure(command, work) for _ in range(runs)]
            seconds = statistics.median(s for s, _ in samples)
            peak = max(m for _, m in samples)
            results[tool] = (seconds, peak)

    print(f"{len(files)} files from {args.corpus} (python {sys.version.split()[0]}, median of {args.runs} runs; sqlfluff once)\n")
    print(f"{'tool':<24}{'seconds':>10}{'files/s':>10}{'ms/file':>10}{'peak MiB':>10}")
    for tool, (seconds, peak) in results.items():
        print(f"{tool:<24}{seconds:>10.2f}{len(files) / seconds:>10.1f}{1000 * seconds / len(files):>10.1f}{peak:>10.0f}")
    sortlint = results["sortlint check"][0]
    print(f"\nsortlint / bare parse: {sortlint / results['sqlglot parse (bare)'][0]:.2f}x (target <= 2.5x)")
    if "sqlfluff lint" in results:
        print(f"sqlfluff / sortlint:   {results['sqlfluff lint'][0] / sortlint:.1f}x faster (target >= 35x)")


if __name__ == "__main__":
    main()
