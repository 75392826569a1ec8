"""How many findings carry no predicted `effect` on Spark, by rule and by the reason they give
(`effect_unknown`), over the corpora, the example repository and a slice of the Spark fuzzer's
generated queries (issue 32 item 1: an effect on every finding). sortlint only - no Spark runs.

    cd tests && PYTHONPATH=..:. ../.venv/bin/python effect_census.py [FUZZ_SEED FUZZ_COUNT]

Each set is checked as a new user would check it (`target: spark`, no declaration) except the
examples and the fuzz slice, which bring their own sortlint.yml.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from fuzz.cli import run_batch, sortlint
from fuzz.run import generate_batch

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"


def _corpus(work: Path, name: str) -> list[dict]:
    """The findings of one set, checked in a copy under `work`."""
    target = work / name
    if name == "examples":
        shutil.copytree(ROOT / "examples", target, ignore=shutil.ignore_patterns(".sortlint_cache"))
    elif name == "dbt":
        for project in ("jaffle_shop", "dbt_project_evaluator"):
            shutil.copytree(CORPORA / "dbt" / project, target / project)
        shutil.copytree(CORPORA / "dbt" / "packages" / "dbt_utils",
                        target / "dbt_project_evaluator" / "dbt_packages" / "dbt_utils")
    else:
        shutil.copytree(CORPORA / name, target / name)
    if not (target / "sortlint.yml").exists():
        (target / "sortlint.yml").write_text("target: spark\n")
    ran = sortlint(["check", ".", "--no-cache", "--dbt-renderer", "builtin", "--output-format", "json"], target)
    return [f for f in json.loads(ran.stdout) if f["code"].startswith("SL")]


def _fuzz_slice(work: Path, seed: int, count: int, batch_size: int = 40) -> list[dict]:
    findings: list[dict] = []
    batch = done = 0
    while done < count:
        size = min(batch_size, count - done)
        catalog, cases = generate_batch(seed, batch, "spark", size)
        batch += 1
        outcome = run_batch(work / "fuzz", catalog.yaml(), {c.filename: c.text for c in cases}, modes=())
        if outcome.errors and any("sortlint.yml" in e for e in outcome.errors):
            continue  # a catalog sortlint refuses: the fuzzer regenerates it too
        done += size
        findings += [f for file in outcome.files.values() for f in file.findings]
    return findings


def census(findings: list[dict]) -> list[str]:
    unknown = [f for f in findings if f["effect"] is None]
    lines = [f"{len(findings)} findings, {len(unknown)} without an effect"]
    for (code, reason), n in sorted(Counter((f["code"], f.get("effect_unknown") or "(no reason given)")
                                            for f in unknown).items()):
        lines.append(f"  {n:4d} {code}: {reason}")
    return lines


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="sortlint-census-") as tmp:
        work = Path(tmp)
        sets = {name: _corpus(work, name) for name in ("tpcds", "tpch", "examples", "dbt")}
        if argv:
            seed, count = int(argv[0]), int(argv[1])
            sets[f"fuzz slice (seed {seed}, {count} queries)"] = _fuzz_slice(work, seed, count)
        for name, findings in sets.items():
            print(f"== {name}: " + "\n".join(census(findings)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
