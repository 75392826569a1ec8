"""What a user gains from sortlint's fixes on Spark: wall time and plan operators, per fix family.

Run with `.venv/bin/python benchmarks/spark_gain.py [--rows N]` (default 10,000,000 rows).
One generated table, `events(user_id bigint, kind string, ts bigint, amount double)`, is
written as 8 parquet files into a temporary directory and read by a local Spark (`local[2]`,
AQE off so that the plan timed is the plan counted, 8 shuffle partitions). Every family's
typical query is fixed by sortlint itself (`sortlint check --fix --unsafe-fixes` over a
`sortlint.yml` declaring the table; `kind` is declared constant, as a writer filtering it
would make it), so the fixed text is sortlint's, not ours; a family where sortlint fixes
nothing says so. Each side runs once unmeasured, then 3 times in full, the two sides in turn
(`write.format("noop")`: every row computed, nothing collected), and its median wall time is printed with its executed plan's operator
counts (`sortlint.integrations.spark.plan_effect`), as a markdown table.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sortlint.diagnostics.effects import OPERATORS, Effect  # noqa: E402
from sortlint.integrations.spark.plan_effect import operator_counts, static_planning  # noqa: E402

# (family, typical query). The rule codes are what the family is meant to exercise; the
# table's "fixes" column says which codes sortlint really applied.
FAMILIES = [
    ("SL001 unnecessary sort (ORDER BY a constant)",
     "SELECT user_id, ts, amount FROM events ORDER BY kind"),
    ("SL002 sort without effect (sorted input of a join)",
     "SELECT s.user_id, n FROM (SELECT user_id, count(*) AS n FROM events GROUP BY user_id ORDER BY n) s "
     "JOIN (SELECT DISTINCT user_id AS u FROM events) t ON s.user_id = t.u"),
    ("SL003 redundant sort keys (constant key)",
     "SELECT user_id, kind, ts FROM events ORDER BY kind, user_id, ts"),
    ("aggregate over sorted input (SL101/SL102's ground)",
     "SELECT user_id, count(*) AS n FROM (SELECT * FROM events DISTRIBUTE BY user_id SORT BY user_id, ts) e GROUP BY user_id, kind"),
    ("SL103 redundant group keys (constant string key)",
     "SELECT user_id, kind, count(*) AS n FROM events GROUP BY user_id, kind"),
    ("SL201 redundant window keys",
     "SELECT user_id, ts, row_number() OVER (PARTITION BY user_id ORDER BY kind, ts) AS r FROM events"),
]

CONFIG = """\
sources:
  events:
    location: {data}
    format: parquet
    columns: {{user_id: bigint not null, kind: string not null, ts: bigint not null, amount: double}}
    constants: {{kind: click}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    with tempfile.TemporaryDirectory(prefix="sortlint-gain-") as scratch:
        base = Path(scratch)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        spark = (
            SparkSession.builder.master("local[2]").appName("sortlint-gain")
            .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.adaptive.enabled", "false").config("spark.sql.shuffle.partitions", "8")
            .config("spark.sql.catalogImplementation", "in-memory")
            .config("spark.sql.warehouse.dir", str(base / "warehouse"))
            .config("spark.local.dir", str(base / "scratch")).getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        data = base / "events"
        spark.range(0, args.rows, 1, 8).selectExpr(
            "id % 100003 AS user_id", "'click' AS kind", "(id * 7919) % 1000000007 AS ts", "rand(1) * 100 AS amount"
        ).write.parquet(str(data))
        spark.read.parquet(str(data)).createOrReplaceTempView("events")
        fixed = fix_all(base, data)
        print(f"{args.rows:,} rows, 8 parquet files, local[2], AQE off, median of {args.repeats}\n")
        print("| family | fixes applied | original | fixed | gain | original plan | fixed plan |")
        print("|---|---|---|---|---|---|---|")
        for (family, query), (codes, text) in zip(FAMILIES, fixed):
            if text is None:
                print(f"| {family} | none: sortlint fixes nothing here | | | no gain | | |")
                continue
            (before, counts_before), (after, counts_after) = measure(spark, (query, text), args.repeats)
            effect = Effect.between(counts_before, counts_after)
            gain = f"{(before - after) / before:+.0%} ({'same operators' if effect.none else effect.words()})"
            print(f"| {family} | {codes} | {before:.1f} s | {after:.1f} s | {gain} | "
                  f"{shown(counts_before)} | {shown(counts_after)} |")
        spark.stop()


def fix_all(base: Path, data: Path) -> list[tuple[str, str | None]]:
    """Each family's query as `sortlint check --fix --unsafe-fixes` rewrites it, with the
    codes of the fixes applied (None when it changes nothing)."""
    import json

    project = base / "project"
    project.mkdir()
    (project / "sortlint.yml").write_text(CONFIG.format(data=data))
    for index, (_, query) in enumerate(FAMILIES):
        (project / f"q{index}.sql").write_text(query + ";\n")
    report = subprocess.run(
        [sys.executable, "-m", "sortlint", "check", ".", "--output-format", "json"],
        cwd=project, capture_output=True, text=True,
    )
    findings = json.loads(report.stdout or "[]")
    subprocess.run([sys.executable, "-m", "sortlint", "check", ".", "--fix", "--unsafe-fixes"],
                   cwd=project, capture_output=True, text=True)
    result = []
    for index, (_, query) in enumerate(FAMILIES):
        text = (project / f"q{index}.sql").read_text().strip().rstrip(";")
        codes = sorted({f["code"] for f in findings if Path(f["path"]).name == f"q{index}.sql" and f.get("fix")})
        result.append((", ".join(codes), None if text == query else text))
    return result


def measure(spark, queries: tuple[str, ...], repeats: int):
    """Each query's median wall seconds of running it in full, and its plan's operator counts.

    The queries run in turn (one unmeasured run each first, then `repeats` rounds of one run
    each), so that the JVM's warm-up and the page cache favour no side."""
    counts = []
    with static_planning(spark):
        for query in queries:
            counts.append(operator_counts(spark.sql(query)))

    def run(query: str) -> float:
        start = time.perf_counter()
        spark.sql(query).write.format("noop").mode("overwrite").save()
        return time.perf_counter() - start

    for query in queries:
        run(query)
    times: list[list[float]] = [[] for _ in queries]
    for _ in range(repeats):
        for index, query in enumerate(queries):
            times[index].append(run(query))
    return [(statistics.median(taken), counted) for taken, counted in zip(times, counts)]


def shown(counts) -> str:
    return ", ".join(f"{counts[o]} {o}" for o in OPERATORS if counts[o]) or "none"


if __name__ == "__main__":
    main()
