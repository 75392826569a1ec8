"""Whole-process times of `sortlint check` on a large generated dbt project — the whole
project, one file, one file after an edit, a new model, 16 files — cold and warm, next to
`dbt parse`, `dbt compile`, `sqlfluff lint` and a bare sqlglot parse of the compiled SQL.

    .venv/bin/python benchmarks/project_scale.py [--models 1200] [--seed 0] [--profile real]
        [--project DIR]
        [--runs 3] [--skip-dbt-renderer] [--skip-tools] [--sqlfluff-files N] [--whole-only]
        [--issue-31]

The project is `benchmarks/dbt_project.py`'s (or a copy of `--project DIR`: the edits below
are made to the copy). Each measurement is one process, interpreter start-up and imports
included, as a pre-commit hook or CI step pays; peak memory is the process's maximum
resident set size, its reaped children included (sortlint's forked workers; not the Spark
JVM dbt starts, which dbt does not wait for).

sortlint scenarios, each with `--dbt-renderer builtin` (and the whole project, and one
model after an edit, also with `--dbt-renderer dbt`):

* whole project, cold (the cache directory emptied first) and warm (nothing changed since
  the previous run), with the default `--jobs` and with `--jobs 1`;
* one model named on the command line, right after the whole project's run (the cache
  holds that run's records), cold and warm;
* one mid-chain model edited (a comment appended) and checked alone, warm otherwise;
* one model added (reading the mid-chain model) and checked alone, warm otherwise;
* 16 models, spread over the project, named on the command line, warm.

The cache directory is a scratch one, named with `--cache-dir` when the sortlint under test
accepts it (probed in `sortlint check --help`) and always as `SORTLINT_CACHE_DIR`, which
sortlint's dbt renderings already use. Warm scenarios whose state the previous run changed
get one unmeasured run first.

Next to them, once per run: `dbt parse` and `dbt compile` (no partial parsing, the local
Spark session profile sortlint writes, the target path outside the project so that sortlint
never reads the manifest they leave), a bare sqlglot parse of the models' compiled SQL
(`target/compiled`), and once `sqlfluff lint --dialect sparksql --templater jinja` (of the
first `--sqlfluff-files` models only, when given: it takes about a second a file).
Times are min / median / max wall seconds of `--runs` runs.

`--issue-31` runs only issue 31's five scenarios (whole project cold, with the default
`--jobs`, and warm; one model right after the whole project's run; one model edited; one
model added) and prints issue 31's table: the median of each against its goal, with the load
average before and after (`--profile real --models 1200` is the project the goals are for).
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import dbt_project  # noqa: E402  (benchmarks/dbt_project.py, beside this script)

BARE_PARSE = """
import sys, sqlglot
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        sqlglot.parse(handle.read(), read="spark")
"""
SQLFLUFF_CONFIG = """\
[sqlfluff]
dialect = sparksql
templater = jinja
max_line_length = 120

[sqlfluff:templater:jinja]
apply_dbt_builtins = True
load_macros_from_path = macros
"""


def measure(command: list[str], cwd: Path, env: dict, accept: tuple[int, ...] = (0, 1)) -> tuple[float, float]:
    """Wall seconds and peak RSS in MiB of one run of `command`, which must exit with a
    code in `accept` (sortlint: 1 is findings; dbt: 1 is a failure)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in accept:
            output.seek(0)
            shown = output.read().decode(errors="replace")
            errors = "\n".join(line for line in shown.splitlines() if line.startswith("error")) or shown
            raise SystemExit(f"{' '.join(command)} exited {code}:\n{errors[-3000:]}")
    return elapsed, usage.ru_maxrss / 1024


def supports_cache_dir(env: dict) -> bool:
    """Whether the sortlint under test has the persistent cache's `--cache-dir` flag."""
    shown = subprocess.run([str(BIN / "sortlint"), "check", "--help"], env=env,
                           capture_output=True, text=True, check=True)
    return "--cache-dir" in shown.stdout


class Bench:
    """The project copy, the scratch cache, and the samples measured so far."""

    def __init__(self, project: Path, scratch: Path, cache_flag: bool, env: dict) -> None:
        self.project = project
        self.cache = scratch / "cache"
        self.cache.mkdir()
        self.env = env
        self.cache_flag = cache_flag
        self.samples: dict[str, list[tuple[float, float]]] = {}
        self.files: dict[str, int] = {}  # labels whose runs cover fewer than all the models
        models = sorted(p.relative_to(project) for p in (project / "models").rglob("*.sql"))
        intermediate = [p for p in models if p.parts[1] == "intermediate"]
        self.mid = intermediate[len(intermediate) // 2]  # a model in the middle of the chains
        self.spread = models[:: max(1, len(models) // 16)][:16]
        self.mid_text = (project / self.mid).read_text(encoding="utf-8")
        self.edits = 0

    def sortlint(self, *args: str, renderer: str = "builtin") -> list[str]:
        command = [str(BIN / "sortlint"), "check", "--dbt-renderer", renderer]
        if self.cache_flag:
            command += ["--cache-dir", str(self.cache)]
        return [*command, *args]

    def cold(self) -> None:
        shutil.rmtree(self.cache)
        self.cache.mkdir()

    def run(self, label: str, command: list[str], before: Callable[[], None] | None = None,
            warm_up: bool = False, files: int | None = None, accept: tuple[int, ...] = (0, 1)) -> None:
        """One measured run of `command` in the project (after `before`, and after an
        unmeasured run when `warm_up`)."""
        if before:
            before()
        if warm_up:
            measure(command, self.project, self.env, accept)
        self.samples.setdefault(label, []).append(measure(command, self.project, self.env, accept))
        if files is not None:
            self.files[label] = files
        print(f"  {label}: {self.samples[label][-1][0]:.2f} s", file=sys.stderr, flush=True)

    def edit_mid(self) -> None:
        """A harmless edit of the mid-chain model: a new comment line each time."""
        self.edits += 1
        (self.project / self.mid).write_text(self.mid_text + f"-- benchmark edit {self.edits}\n",
                                             encoding="utf-8")

    def add_model(self) -> Path:
        """A new model reading the mid-chain model, under a new name each time."""
        self.edits += 1
        added = self.mid.with_name(f"int_benchmark_added_{self.edits}.sql")
        (self.project / added).write_text(
            f"select *, {self.edits} as benchmark_run\nfrom {{{{ ref('{self.mid.stem}') }}}}\n",
            encoding="utf-8")
        return added

    def restore(self, added: list[Path]) -> None:
        (self.project / self.mid).write_text(self.mid_text, encoding="utf-8")
        for path in added:
            (self.project / path).unlink(missing_ok=True)


def sortlint_round(bench: Bench, whole_only: bool, dbt_renderer: bool) -> None:
    """One run of every sortlint scenario, in an order where each warm scenario follows
    a run over the same state (or warms up first)."""
    everything = "."
    for jobs in ((), ("--jobs", "1")):
        suffix = " --jobs 1" if jobs else ""
        bench.run(f"whole project, cold{suffix}", bench.sortlint(*jobs, everything), bench.cold)
        bench.run(f"whole project, warm{suffix}", bench.sortlint(*jobs, everything))
    if not whole_only:
        one = str(bench.mid)
        # What a pre-commit hook meets after CI or a whole check: the records of that run.
        bench.run("one model after a whole-project run", bench.sortlint(one))
        bench.run("one model, cold", bench.sortlint(one), bench.cold)
        bench.run("one model, warm", bench.sortlint(one))
        bench.run("one model changed, warm", bench.sortlint(one), bench.edit_mid)
        added = bench.add_model()
        bench.run("one model added, warm", bench.sortlint(str(added)))
        bench.restore([added])
        bench.run("16 models, warm", bench.sortlint(*map(str, bench.spread)), warm_up=True)
    if dbt_renderer:
        bench.run("whole project, cold (dbt renders)", bench.sortlint(everything, renderer="dbt"), bench.cold)
        bench.run("whole project, warm (dbt renders)", bench.sortlint(everything, renderer="dbt"))
    if dbt_renderer and not whole_only:
        # dbt renders a project with one `dbt compile` of every model, so an edit of any
        # model costs the check of one file a compile of the whole project.
        bench.run("one model changed, warm (dbt renders)", bench.sortlint(str(bench.mid), renderer="dbt"),
                  bench.edit_mid)
        bench.restore([])


ISSUE_31 = {  # issue 31's table: scenario, its goal in seconds
    "whole project, cold": 30.0,
    "whole project, warm": 3.0,
    "one model after a whole-project run": 2.0,
    "one model changed, warm": 2.0,
    "one model added, warm": 2.0,
}


def issue_31_round(bench: Bench) -> None:
    """One run of each of issue 31's scenarios, in its table's order."""
    bench.run("whole project, cold", bench.sortlint("."), bench.cold)
    bench.run("whole project, warm", bench.sortlint("."))
    one = str(bench.mid)
    bench.run("one model after a whole-project run", bench.sortlint(one))
    bench.run("one model changed, warm", bench.sortlint(one), bench.edit_mid)
    added = bench.add_model()
    bench.run("one model added, warm", bench.sortlint(str(added)))
    bench.restore([added])


def tools_round(bench: Bench, scratch: Path) -> None:
    """dbt parse, dbt compile and a bare sqlglot parse of what dbt compiled."""
    dbt = str(BIN / "dbt")
    common = ["--project-dir", str(bench.project), "--no-partial-parse",
              "--target-path", str(scratch / "target"), "--log-path", str(scratch / "logs")]
    bench.run("dbt parse", [dbt, "parse", *common], accept=(0,))
    bench.run("dbt compile", [dbt, "compile", *common, "--select", "resource_type:model"], accept=(0,))
    compiled = sorted(str(p) for p in (scratch / "target" / "compiled").rglob("*.sql")
                      if not any(part.endswith(".yml") for part in p.parts))
    bench.run("sqlglot parse of compiled SQL (bare)", [sys.executable, "-c", BARE_PARSE, *compiled], accept=(0,))


def sqlfluff_once(bench: Bench, limit: int) -> None:
    """sqlfluff over the models (the first `limit` in path order when given)."""
    (bench.project / ".sqlfluff").write_text(SQLFLUFF_CONFIG)
    models = sorted(str(p.relative_to(bench.project)) for p in (bench.project / "models").rglob("*.sql"))
    if limit:
        models = models[:limit]
    bench.run(f"sqlfluff lint ({len(models)} models)",
              [str(BIN / "sqlfluff"), "lint", "--dialect", "sparksql", "--templater", "jinja",
               "--disable-progress-bar", "--nofail", *models], files=len(models))
    (bench.project / ".sqlfluff").unlink()


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown CPU")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpus} CPUs ({model}), python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", choices=dbt_project.PROFILES, default="plain",
                        help="the generated project's (dbt_project.py --profile)")
    parser.add_argument("--project", type=Path, help="an existing dbt project (copied) instead of a generated one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-dbt-renderer", action="store_true", help="no runs rendered by dbt")
    parser.add_argument("--skip-tools", action="store_true", help="no dbt parse/compile, sqlglot, sqlfluff")
    parser.add_argument("--sqlfluff-files", type=int, default=0, help="lint only this many models (0: all)")
    parser.add_argument("--whole-only", action="store_true", help="only the whole-project sortlint runs")
    parser.add_argument("--issue-31", action="store_true", help="only issue 31's scenarios, and its table")
    args = parser.parse_args()

    compileall.compile_dir(ROOT / "sortlint", quiet=1)
    from sortlint import __version__
    from sortlint.sources.dbt.compiled import session_profile

    scratch = Path(tempfile.mkdtemp(prefix="sortlint-project-scale-"))
    try:
        project = scratch / "project"
        if args.project:
            shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("target", "logs"))
            described = f"{args.project}"
        else:
            dbt_project.generate(project, args.models, args.seed, args.profile)
            described = f"generated: {args.models} models, seed {args.seed}, profile {args.profile}"
        profile, schema = profile_and_name(project)
        profiles = scratch / "profiles"
        profiles.mkdir()
        (profiles / "profiles.yml").write_text(session_profile(profile, schema))
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, "DBT_PROFILES_DIR": str(profiles),
               "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "SORTLINT_CACHE_DIR": str(scratch / "cache")}
        env.pop("SORTLINT_DBT_RENDERER", None)
        bench = Bench(project, scratch, supports_cache_dir(env), env)
        count = sum(1 for _ in (project / "models").rglob("*.sql"))
        load_before = os.getloadavg()
        for run in range(args.runs):
            print(f"run {run + 1} of {args.runs}", file=sys.stderr, flush=True)
            if args.issue_31:
                issue_31_round(bench)
                continue
            sortlint_round(bench, args.whole_only, not args.skip_dbt_renderer)
            if not args.skip_tools:
                tools_round(bench, scratch)
        if not args.skip_tools and not args.issue_31:
            sqlfluff_once(bench, args.sqlfluff_files)
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    if args.issue_31:
        print(f"Project: {described}, {count} model files. sortlint {__version__}, {machine()}; "
              f"{args.runs} run(s), wall seconds; load average (1, 5, 15 min) "
              f"{' '.join(f'{x:.1f}' for x in load_before)} before, {' '.join(f'{x:.1f}' for x in load_after)} after.\n")
        print("| run (`--dbt-renderer builtin`) | median s | peak MiB | goal s | met |")
        print("|---|---:|---:|---:|---|")
        for label, goal in ISSUE_31.items():
            median = statistics.median(s for s, _ in bench.samples[label])
            print(f"| {label} | {median:.2f} | {max(m for _, m in bench.samples[label]):.0f} | ≤ {goal:g} "
                  f"| {'yes' if median <= goal else 'no'} |")
        return

    print(f"Project: {described}, {count} model files. sortlint {__version__} "
          f"({'with' if bench.cache_flag else 'without'} --cache-dir), {machine()}; "
          f"{args.runs} run(s), wall seconds.\n")
    print("| scenario | runs | min s | median s | max s | s/model (median) | peak MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, runs in bench.samples.items():
        seconds = [s for s, _ in runs]
        median = statistics.median(seconds)
        files = bench.files.get(label, count)
        print(f"| {label} | {len(runs)} | {min(seconds):.2f} | {median:.2f} | {max(seconds):.2f} "
              f"| {median / files:.3f} | {max(m for _, m in runs):.0f} |")
    print("\nRows are `sortlint check --dbt-renderer builtin` unless marked (dbt renders): "
          "`--dbt-renderer dbt`; s/model divides by every model of the project (sqlfluff: by the models it linted).")


def profile_and_name(project: Path) -> tuple[str, str]:
    """The `profile:` and `name:` of a project's dbt_project.yml: the profile dbt looks
    for, and the schema sortlint's session profile gives it."""
    import yaml

    document = yaml.safe_load((project / "dbt_project.yml").read_text())
    return document.get("profile", document["name"]), document["name"]


if __name__ == "__main__":
    main()
