"""Whole-process times of `sortlint check` on a large generated repository of plain SQL
files whose views read each other across files: the whole repository and one file, cold
and warm, and one file after the view it reads was edited in another file.

    .venv/bin/python benchmarks/sql_project.py [--files 2000] [--seed 0] [--runs 3]

The repository (in a scratch git work tree, with a `sortlint.yml` declaring one source
table): FILES files in 40 folders, each creating a view over an earlier file's view (the
first ten over the source table), reading five random views with a sort, and appending to
one of FILES / 3 tables that three files write each (known by their declarations alone). A
file checked alone has the files that define the views it reads - and theirs - analysed
first: the one-file figures measure that lineage, and the glance at every file of the
repository for the tables it writes (`sortlint.sources.sql.preparation`). Next to them, a
bare sqlglot parse of every file. Times are min / median / max wall seconds of `--runs`
runs, each one process, start-up included.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from project_scale import BARE_PARSE, BIN, machine, measure

CATALOG = "target: spark\nsources:\n  raw.t:\n    columns: {a: int, b: int not null, c: string}\n"


def generate(root: Path, files: int, seed: int) -> list[Path]:
    chooser = random.Random(seed)
    root.mkdir()
    (root / "sortlint.yml").write_text(CATALOG)
    paths = []
    for index in range(files):
        upstream = "raw.t" if index < 10 else f"v{chooser.randrange(index)}"
        statements = [f"CREATE OR REPLACE VIEW v{index} AS\nSELECT a, b, c FROM {upstream}\nWHERE b = {index % 5};"]
        statements += [f"SELECT a, b, c FROM v{chooser.randrange(index + 1)} ORDER BY a, b, c;" for _ in range(5)]
        statements.append(f"INSERT INTO out{index % max(1, files // 3)} SELECT a, b, c FROM v{index};")
        path = root / f"jobs/d{index % 40}/f{index}.sql"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(statements) + "\n")
        paths.append(path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    samples: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repository"
        paths = generate(root, args.files, args.seed)
        one = paths[len(paths) // 2].relative_to(root)
        read = re.search(r"FROM v(\d+)", (root / one).read_text())  # the view its own view reads
        upstream = paths[int(read.group(1))] if read else paths[0]
        cache = Path(scratch) / "cache"
        sortlint = [str(BIN / "sortlint"), "check", "--cache-dir", str(cache)]
        env = {"PATH": "/usr/bin:/bin", "HOME": scratch}

        def run(label: str, *arguments: str, cold: bool = False) -> None:
            if cold:
                shutil.rmtree(cache, ignore_errors=True)
            samples.setdefault(label, []).append(measure([*sortlint, *arguments], root, env))

        for _ in range(args.runs):
            run("whole repository, cold", ".", cold=True)
            run("whole repository, warm", ".")
            run("one file, cold", str(one), cold=True)
            run("one file, warm", str(one))
            upstream.write_text(upstream.read_text() + "-- edited\n")
            run("one file, the view its view reads edited, warm", str(one))
            samples.setdefault("bare sqlglot parse of every file", []).append(
                measure([sys.executable, "-c", BARE_PARSE, *map(str, paths)], root, env, accept=(0,)))
    print(f"{args.files} SQL files, seed {args.seed}; {machine()}; {args.runs} run(s), wall seconds\n")
    print("| scenario | min s | median s | max s | peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for label, measured in samples.items():
        seconds = [wall for wall, _ in measured]
        print(f"| {label} | {min(seconds):.2f} | {statistics.median(seconds):.2f} | {max(seconds):.2f} "
              f"| {max(peak for _, peak in measured):.0f} |")


if __name__ == "__main__":
    main()
