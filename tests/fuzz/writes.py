"""The writer fuzzer: seeded writes into tables with a declared layout, checked against the
files Spark writes (issue 20).

Each case is one statement that fills a table of the catalog below - `INSERT OVERWRITE` into
`plain` (a global layout: `orderings: [[id]]`) or `daily` (partitioned by `p`, each partition
sorted by `id`), or `CREATE TABLE plain_ctas AS` (global) - ending with the organization
clauses a writer writes: none, `ORDER BY`, `SORT BY`, `DISTRIBUTE BY`, `DISTRIBUTE BY ...
SORT BY`, `CLUSTER BY`, with or without a `LIMIT`. For each, `check_case`:

* runs sortlint, and its unsafe fixes in a copy;
* writes the original with Spark, and the fixed statement when the fix changed it: the fixed
  statement must plan, write the same rows under the same schema, leave no SL301, and leave
  files in the declared layout (each file sorted by `id`; for the global layout, each file a
  separate range);
* when sortlint reports no SL301, the original's files must be in the layout already.

Every query is deterministic on the engine: a LIMIT stands over an order of unique keys, or
over the one-file source read without a shuffle, so the rows it keeps are the same in both runs.

    cd tests && PYTHONPATH=..:. python -m fuzz.writes [SEED] [COUNT]
"""

from __future__ import annotations

import contextlib
import io
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import spark_oracle as oracle
from spark_oracle import settings

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check

DB = "write_fuzz"
CATALOG = f"""\
target: spark
sources:
  {DB}.source:
    columns: {{id: int not null, k: int not null, p: string not null}}
    unique: [[id]]
  {DB}.plain:
    columns: {{id: int not null, k: int not null, p: string not null}}
    orderings: [[id]]
  {DB}.plain_ctas:
    columns: {{id: int not null, k: int not null, p: string not null}}
    orderings: [[id]]
  {DB}.daily:
    columns: {{id: int not null, k: int not null, p: string not null}}
    orderings: [[id]]
    scope: partition
    partitioned_by: [p]
"""
TABLES = {
    "plain": "(id int, k int, p string) USING parquet",
    "daily": "(id int, k int, p string) USING parquet PARTITIONED BY (p)",
}
SORT_KEYS = (["id"], ["id DESC"], ["p", "id"], ["k"], ["k", "id"], ["p", "k"])
SPREAD_KEYS = ("k", "p", "id")


@dataclass
class WriteCase:
    name: str
    table: str  # plain, daily or plain_ctas
    text: str
    shape: str  # its organization, e.g. "distribute by + sort by + limit", "ctas order by"


@dataclass
class WriteReport:
    shapes: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)  # reported / fixed / no fix / kept
    unfixed: Counter = field(default_factory=Counter)  # the shapes reported with no fix
    failures: list[str] = field(default_factory=list)


def generate(rng: random.Random, index: int) -> WriteCase:
    table = rng.choice(["plain", "daily", "plain_ctas"])
    where = rng.choice(["", f" WHERE k > {rng.randint(1, 20)}"])
    clause = rng.choice(["none", "order by", "sort by", "distribute by", "distribute by + sort by", "cluster by"])
    keys = ", ".join(rng.choice(SORT_KEYS))
    spread = rng.choice(SPREAD_KEYS)
    organization = {
        "none": "",
        "order by": f" ORDER BY {keys}",
        "sort by": f" SORT BY {keys}",
        "distribute by": f" DISTRIBUTE BY {spread}",
        "distribute by + sort by": f" DISTRIBUTE BY {spread} SORT BY {keys}",
        "cluster by": f" CLUSTER BY {spread}",
    }[clause]
    shape = clause
    # A LIMIT only where it keeps the same rows every run: over an order that ends with the
    # unique id, or over the one-file source with no shuffle before it.
    if clause == "order by" and keys.split(", ")[-1].startswith("id") or clause in ("none", "sort by"):
        if rng.random() < 0.5:
            if clause == "sort by" and not keys.split(", ")[-1].startswith("id"):
                keys = f"{keys}, id"
                organization = f" SORT BY {keys}"
            organization += f" LIMIT {rng.randint(1, 60)}"
            shape += " + limit"
    query = f"SELECT id, k, p FROM {DB}.source{where}{organization}"
    if table == "plain_ctas":
        return WriteCase(f"w{index:04d}", table, f"CREATE TABLE {DB}.plain_ctas AS {query}", f"ctas {shape}")
    return WriteCase(f"w{index:04d}", table, f"INSERT OVERWRITE TABLE {DB}.{table} {query}", shape)


def create_tables(spark) -> None:
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
    rng = random.Random(20)
    ids = list(range(1, 241))
    rng.shuffle(ids)
    rows = [(i, rng.randint(1, 30), rng.choice(["a", "b", "c"])) for i in ids]
    spark.createDataFrame(rows, "id int, k int, p string").coalesce(1).write.mode("overwrite").saveAsTable(
        f"{DB}.source"
    )


def written(spark, table: str, statement: str):
    """The table's schema, rows and files' rows after the statement fills it (anew)."""
    spark.sql(f"DROP TABLE IF EXISTS {DB}.{table}")
    if table in TABLES:
        spark.sql(f"CREATE TABLE {DB}.{table} {TABLES[table]}")
    plan = spark.sql(f"EXPLAIN {statement}").collect()[0][0]
    if "Error occurred" in plan:
        raise AssertionError(f"Spark cannot plan it: {plan.splitlines()[0]}")
    with settings(spark, {"spark.sql.shuffle.partitions": "4"}):
        spark.sql(statement)
    frame = spark.table(f"{DB}.{table}")
    files = list(oracle.file_orders(oracle.table_location(spark, f"{DB}.{table}")).values())
    return frame.schema, Counter(frame.collect()), files


def layout_broken(table: str, files: list[list[tuple]]) -> str | None:
    """Why the files do not hold the declared layout, or None when they do."""
    ids = [[row[0] for row in rows] for rows in files if rows]
    if not all(oracle.is_ascending(file) for file in ids):
        return "a file is not sorted by id"
    if table != "daily":
        ranges = sorted((min(file), max(file)) for file in ids)
        if not all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])):
            return "the files' id ranges overlap"
    return None


def sl301(directory: Path, path: Path) -> list[str]:
    result = check([path], load_config(directory / "sortlint.yml"))
    return [f.code for f in result.findings if f.code == "SL301"]


def check_case(spark, case: WriteCase, directory: Path, report: WriteReport) -> None:
    report.shapes[case.shape] += 1
    path = directory / f"{case.name}.sql"
    path.write_text(case.text + "\n")
    reported = sl301(directory, path)
    with contextlib.redirect_stdout(io.StringIO()):
        main(["check", "--fix", "--unsafe-fixes", "--no-cache", str(path)])
    fixed = path.read_text().strip()

    def fail(why: str) -> None:
        report.failures.append(f"{case.name} ({case.shape}): {why}\n  {case.text}\n  fixed: {fixed}")

    try:
        schema, rows, files = written(spark, case.table, case.text)
    except Exception as error:  # noqa: BLE001 (the generator's own statement must run)
        fail(f"the original does not run: {str(error).strip().splitlines()[0]}")
        return
    if not reported:
        report.outcomes["kept"] += 1
        why = layout_broken(case.table, files)
        if why is not None:
            fail(f"no SL301, but {why}")
        return
    report.outcomes["reported"] += 1
    if fixed == case.text:
        report.outcomes["no fix"] += 1
        report.unfixed[case.shape] += 1
        return
    report.outcomes["fixed"] += 1
    if sl301(directory, path):
        fail("the fixed statement is still reported")
    try:
        fixed_schema, fixed_rows, fixed_files = written(spark, case.table, fixed)
    except Exception as error:  # noqa: BLE001 (whatever Spark says of the fix is the failure)
        fail(f"Spark rejects the fix: {str(error).strip().splitlines()[0]}")
        return
    if fixed_schema != schema:
        fail(f"the fix changes the schema: {schema} -> {fixed_schema}")
    if fixed_rows != rows:
        fail("the fix writes other rows")
    why = layout_broken(case.table, fixed_files)
    if why is not None:
        fail(f"after the fix {why}")


def fuzz_writes(spark, seed: int, count: int, directory: Path) -> WriteReport:
    create_tables(spark)
    (directory / "sortlint.yml").write_text(CATALOG)
    rng = random.Random(seed)
    report = WriteReport()
    for index in range(count):
        check_case(spark, generate(rng, index), directory, report)
    return report


if __name__ == "__main__":
    import spark_support

    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    session = spark_support.make_spark_session(Path(tempfile.mkdtemp(prefix="write-fuzz-")))
    with tempfile.TemporaryDirectory() as folder:
        outcome = fuzz_writes(session, seed, count, Path(folder))
    print(dict(outcome.shapes), dict(outcome.outcomes), "no fix:", dict(outcome.unfixed))
    print("\n".join(outcome.failures) or "no failures")
    sys.exit(1 if outcome.failures else 0)
