"""How `sortlint contracts` scales with a table's rows and files, next to Spark's own floor.

Run with `.venv/bin/python benchmarks/contracts_scale.py` (`--quick` stops at 1e6 rows; `--rows`
and `--files` choose the grid). For each size a table is generated as Parquet files on local
disk, `--files` of them, each sorted and holding a contiguous range of keys (what a job
writing `repartitionByRange(k).sortWithinPartitions(k)` leaves), with columns

    k bigint (unique, sorted), g bigint (k % 1000), s string, region string ('EU')

and the catalog declares `columns`, `k not null`, `region = 'EU'`, `unique [[k]]` and the
ordering `[[k]]`. Timed, as the median of `--repeat` runs after one warm-up:

* `contracts` - every check of the table, as the command runs them (`check_contracts`);
* `ordering`, `unique`, `rows` - the layout scan alone, the uniqueness job alone, and the
  one aggregate pass of `not null` and the constant alone;
* `count()` - `spark.read.parquet(path).count()`, the floor the issue names (Parquet answers it
  from file footers, without reading a value), and `scan` - a full read of every column
  (`agg` over all of them), the floor of any check that looks at the data.

Rows per second are rows / seconds of `contracts`. At the end, for each file count, the
exponent of time against rows (the slope of log time over log rows between the smallest and
the largest size): about 1 means linear. The session is `local[*]` with Spark's defaults
(AQE on); the machine is printed with the results.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROWS = (100_000, 1_000_000, 10_000_000)
FILES = (1, 10, 100)

CATALOG = """
sources:
  bench:
    location: {path}
    columns: {{k: bigint not null, g: bigint, s: string, region: string}}
    constants: {{region: EU}}
    unique: [[k]]
    orderings: [[k]]
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=None)
    parser.add_argument("--files", type=int, nargs="*", default=list(FILES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="up to 1e6 rows")
    parser.add_argument("--scratch", type=Path, default=None, help="where the tables are written")
    args = parser.parse_args()
    rows_grid = args.rows or [r for r in ROWS if not args.quick or r <= 1_000_000]

    from sortlint.config.discovery import parse_config_text
    from sortlint.integrations.spark.contracts import check_contracts
    from sortlint.integrations.spark.session import SparkOptions, spark_session

    spark = spark_session(
        SparkOptions(
            "local[*]",
            (("spark.ui.enabled", "false"), ("spark.sql.session.timeZone", "UTC")),
            "sortlint-contracts-bench",
        )
    )
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="contracts-bench-"))
    print(f"machine: {os.cpu_count()} CPUs, {_memory_gib():.0f} GiB; Spark {spark.version} local[*]")
    header = (
        f"{'rows':>10} {'files':>5} {'contracts s':>11} {'rows/s':>10} {'ordering s':>10} "
        f"{'unique s':>8} {'rows s':>6} {'count() s':>9} {'scan s':>6} {'contracts/scan':>14}"
    )
    print(header)
    timings: dict[int, dict[int, float]] = {}
    for files in args.files:
        for rows in rows_grid:
            path = scratch / f"t_{rows}_{files}"
            _generate(spark, path, rows, files)
            config = parse_config_text(scratch / "sortlint.yml", CATALOG.format(path=path))
            [source] = config.sources
            kinds = {
                "contracts": source,
                "ordering": _only(source, "orderings"),
                "unique": _only(source, "unique"),
                "rows": _only(source, "constants"),
            }
            measured = {}
            for name, subject in kinds.items():
                outcomes = None

                def run(subject=subject):
                    nonlocal outcomes
                    [result] = check_contracts(spark, [subject])
                    outcomes = result.outcomes

                measured[name] = _median(run, args.repeat)
                bad = [o for o in outcomes if o.status != "holds"]
                assert not bad, bad
            count = _median(lambda: spark.read.parquet(str(path)).count(), args.repeat)
            scan = _median(lambda: _full_scan(spark, path), args.repeat)
            timings.setdefault(files, {})[rows] = measured["contracts"]
            print(
                f"{rows:>10} {files:>5} {measured['contracts']:>11.2f} "
                f"{rows / measured['contracts']:>10,.0f} {measured['ordering']:>10.2f} "
                f"{measured['unique']:>8.2f} {measured['rows']:>6.2f} {count:>9.2f} {scan:>6.2f} "
                f"{measured['contracts'] / scan:>13.1f}x",
                flush=True,
            )
            shutil.rmtree(path, ignore_errors=True)
    print()
    for files, by_rows in timings.items():
        low, high = min(by_rows), max(by_rows)
        if low == high:
            continue
        exponent = math.log(by_rows[high] / by_rows[low]) / math.log(high / low)
        verdict = "linear" if exponent < 1.15 else "worse than linear"
        print(f"{files:>3} files: time ~ rows^{exponent:.2f} from {low:,} to {high:,} rows -> {verdict}")


def _generate(spark, path: Path, rows: int, files: int) -> None:
    """`files` Parquet files, each a contiguous, sorted range of k."""
    frame = spark.range(0, rows, 1, numPartitions=files).selectExpr(
        "id AS k", "id % 1000 AS g", "CAST(id * 7919 % 1000003 AS STRING) AS s", "'EU' AS region"
    )
    frame.write.mode("overwrite").parquet(str(path))


def _only(source, kind: str):
    """The source with one kind of check only (`rows`: not null and the constant, one pass)."""
    import dataclasses

    if kind == "orderings":
        return dataclasses.replace(source, columns=(), unique=(), constants=())
    if kind == "unique":
        return dataclasses.replace(source, columns=(), orderings=(), constants=())
    return dataclasses.replace(source, orderings=(), unique=())


def _full_scan(spark, path: Path) -> None:
    from pyspark.sql import functions as F

    frame = spark.read.parquet(str(path))
    frame.agg(*(F.max(c) for c in frame.columns)).collect()


def _median(action, repeat: int) -> float:
    action()  # warm-up: the JVM's code generation, the Python workers
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _memory_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return float("nan")


if __name__ == "__main__":
    main()
