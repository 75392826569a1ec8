"""Coverage and speed of sortlint on the dbt corpora, rendered by dbt and by the built-in
renderer, next to `dbt compile` of the same project.

    .venv/bin/python benchmarks/dbt_render.py [--corpora DIR]

Each project (`../shared/corpora/dbt/jaffle_shop`, `.../dbt_project_evaluator` with
`packages/dbt_utils` placed as `dbt deps` would) is copied to a scratch directory and:

* `dbt compile` runs on it alone (the dbt CLI, the local Spark session profile sortlint
  writes, no cache population), as a user would run it;
* `sortlint check` runs three times as its own process: rendering with dbt on an empty
  cache (one dbt run, traced), again on the warm cache, and with `--dbt-renderer builtin`;
* the coverage figures come from the Python API: model files, models each renderer
  rendered, statements parsed, statements whose plan has no opaque node, findings by rule.

Times are wall-clock seconds of one run each on this machine (2 shared cores): dbt and
Spark start-up dominate, so they vary by a second or two from run to run.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE.parent.parent / "shared" / "corpora" / "dbt"
PROJECTS = {"jaffle_shop": (), "dbt_project_evaluator": ("dbt_utils",)}


def timed(command: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    if finished.returncode not in (0, 1):  # 1: findings
        raise SystemExit(f"{' '.join(command)} failed:\n{finished.stdout}{finished.stderr}")
    return seconds


def coverage(root: Path, renderer: str) -> dict:
    from sortlint.config import Config, DbtOptions
    from sortlint.plan import nodes as n
    from sortlint.sources.dbt import project as dbt
    from sortlint.workspace.check import check

    dbt.forget()
    config = Config(root=root.parent, include=("**/*.sql",), dbt=DbtOptions(renderer=renderer))
    project = dbt.load_project(root.resolve())
    models = {path.resolve() for path in project.models().values()}
    result = check([root], config)
    rendered = parsed = clean = 0
    by_rule: collections.Counter = collections.Counter()
    for analysis in result.files:
        if analysis.path.resolve() not in models:
            continue
        rendered += not any("cannot render" in error.message for error in analysis.errors)
        for statement in analysis.statements:
            parsed += 1
            clean += not any(isinstance(node, n.Opaque) for node in walk(statement.root))
        by_rule.update(f.code for f in analysis.findings)
    errors = [e for e in result.all_errors if Path(str(e.path)).resolve() in models]
    return {"models": len(models), "rendered": rendered, "statements": parsed,
            "without_opaque": clean, "findings": dict(sorted(by_rule.items())),
            "errors": len(errors)}


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from sortlint.sources.dbt.compiled import session_profile

    scratch = Path(tempfile.mkdtemp(prefix="sortlint-dbt-bench-"))
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "SORTLINT_CACHE_DIR": str(scratch / "cache"), "PYTHONPATH": str(HERE.parent)}
    env.pop("SORTLINT_DBT_RENDERER", None)
    os.environ.update({k: v for k, v in env.items() if k != "PYTHONPATH"})
    rows = []
    for name, packages in PROJECTS.items():
        root = scratch / name
        shutil.copytree(args.corpora / name, root)
        for package in packages:
            shutil.copytree(args.corpora / "packages" / package, root / "dbt_packages" / package)
        profiles = scratch / f"{name}-profiles"
        profiles.mkdir()
        (profiles / "profiles.yml").write_text(session_profile(name, name))
        dbt_cli = Path(sys.executable).with_name("dbt")
        compile_seconds = timed(
            [str(dbt_cli), "compile", "--project-dir", str(root), "--profiles-dir", str(profiles),
             "--profile", name, "--no-populate-cache", "--target-path", str(scratch / f"{name}-target"),
             "--log-path", str(scratch / f"{name}-logs"), "--select", "resource_type:model"],
            scratch, env)
        check = [sys.executable, "-m", "sortlint", "check", "--jobs", "1", name]
        cold = timed([*check, "--dbt-renderer", "dbt"], scratch, env)
        warm = timed([*check, "--dbt-renderer", "dbt"], scratch, env)
        builtin = timed([*check, "--dbt-renderer", "builtin"], scratch, env)
        by_dbt, by_builtin = coverage(root, "dbt"), coverage(root, "builtin")
        rows.append((name, by_dbt, by_builtin, compile_seconds, cold, warm, builtin))
    print(f"{'project':24} {'renderer':8} {'models':>6} {'rendered':>8} {'stmts':>5} "
          f"{'no opaque':>9} {'errors':>6}  findings")
    for name, by_dbt, by_builtin, *_ in rows:
        for label, figures in (("dbt", by_dbt), ("builtin", by_builtin)):
            print(f"{name:24} {label:8} {figures['models']:>6} {figures['rendered']:>8} "
                  f"{figures['statements']:>5} {figures['without_opaque']:>9} "
                  f"{figures['errors']:>6}  {figures['findings']}")
    print()
    print(f"{'project':24} {'dbt compile':>11} {'check (dbt, cold)':>17} {'(dbt, warm)':>11} "
          f"{'(builtin)':>9}   seconds; per model: compile / cold / warm / builtin")
    for name, by_dbt, _, compile_seconds, cold, warm, builtin in rows:
        count = by_dbt["models"]
        print(f"{name:24} {compile_seconds:>11.1f} {cold:>17.1f} {warm:>11.1f} {builtin:>9.1f}   "
              f"{compile_seconds / count:.2f} / {cold / count:.2f} / {warm / count:.2f} / "
              f"{builtin / count:.2f}")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
