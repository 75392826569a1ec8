"""The DataFusion harness: SL001 claims under `target: datafusion` against the `datafusion`
Python package.

Each table is a directory of Parquet files written with pyarrow, each file sorted by the
declared ordering and the files in key order, registered with
`CREATE EXTERNAL TABLE ... STORED AS PARQUET WITH ORDER (...) LOCATION ...`: the declaration
DataFusion itself knows.

For every case with a final ORDER BY, EXPLAIN with and without it tells whether DataFusion
sorts for it (more SortExec / PartialSortExec nodes with it than without). For every SL001
finding, the query without that ORDER BY (sortlint's own fix applied) is executed a few times:
its rows must be the original's and, when the final ORDER BY was removed, still in its order.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from fuzz.catalogs import Catalog
from fuzz.cli import FileOutcome, apply_edits, finding_offset
from fuzz.failures import Failure
from fuzz.queries import Case
from fuzz.results import Result, differences

DDL_TYPES = {"int": "INT", "bigint": "BIGINT", "double": "DOUBLE", "string": "VARCHAR",
             "date": "DATE", "timestamp": "TIMESTAMP", "boolean": "BOOLEAN"}

RUNS = 3  # executions of each query without its ORDER BY: partitions race


def arrow_type(type_: str):
    import pyarrow as pa

    if type_.startswith("decimal"):
        precision, scale = map(int, re.findall(r"\d+", type_))
        return pa.decimal128(precision, scale)
    return {"int": pa.int32(), "bigint": pa.int64(), "double": pa.float64(), "string": pa.string(),
            "date": pa.date32(), "timestamp": pa.timestamp("us"), "boolean": pa.bool_()}[type_]


def ddl_type(type_: str) -> str:
    return type_.upper() if type_.startswith("decimal") else DDL_TYPES[type_]


def session(catalog: Catalog, directory: Path, target_partitions: int):
    """A SessionContext with every table of `catalog` written under `directory` and registered."""
    import datafusion
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = datafusion.SessionConfig().with_target_partitions(target_partitions)
    ctx = datafusion.SessionContext(config)
    for table in catalog.tables:
        location = directory / table.name
        location.mkdir(parents=True, exist_ok=True)
        for old in location.glob("*.parquet"):
            old.unlink()
        schema = pa.schema([pa.field(c.name, arrow_type(c.type), c.nullable) for c in table.columns])
        for i, rows in enumerate(table.files):
            columns = list(zip(*rows)) if rows else [[] for _ in table.columns]
            data = pa.table([pa.array(list(col), type=f.type) for col, f in zip(columns, schema)], schema=schema)
            pq.write_table(data, location / f"part-{i:05d}.parquet")
        columns = ", ".join(f"{c.name} {ddl_type(c.type)}{'' if c.nullable else ' NOT NULL'}"
                            for c in table.columns)
        order = ""
        if table.ordering:
            order = f" WITH ORDER ({', '.join(item.sql() for item in table.ordering)})"
        ctx.sql(f"CREATE EXTERNAL TABLE {table.name} ({columns}) STORED AS PARQUET{order} "
                f"LOCATION '{location}/'").collect()
    return ctx


def run(ctx, text: str) -> Result:
    try:
        df = ctx.sql(text.strip().rstrip(";"))
        schema = [(f.name, str(f.type)) for f in df.schema()]
    except Exception as error:  # noqa: BLE001
        return Result([], [], f"analysis: {_message(error)}")
    try:
        rows = [tuple(r.values()) for r in df.to_pylist()]
    except Exception as error:  # noqa: BLE001
        return Result(schema, [], f"runtime: {_message(error)}")
    return Result(schema, rows)


def _message(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:400]


def physical_plan(ctx, text: str) -> str:
    for batch in ctx.sql("EXPLAIN " + text.strip().rstrip(";")).collect():
        data = batch.to_pydict()
        for kind, plan in zip(data["plan_type"], data["plan"]):
            if kind == "physical_plan":
                return plan
    return ""


def sorts(plan: str) -> int:
    return len(re.findall(r"\b(?:SortExec|PartialSortExec)\b", plan))


def merges(plan: str) -> int:
    return len(re.findall(r"\bSortPreservingMergeExec\b", plan))


# What DataFusion does for a final ORDER BY, from its plans with and without it. A merge of
# sorted partitions is no sort, but the ORDER BY is what asks for it: without it the rows of
# the partitions interleave, so dropping the ORDER BY is right only where DataFusion elides.
SORTS, MERGES, ELIDES, NO_ROWS = (
    "DataFusion sorts", "DataFusion merges", "DataFusion elides", "DataFusion plans no rows",
)


class DataFusionHarness:
    def __init__(self, ctx, settings: dict):
        self.ctx = ctx
        self.settings = settings
        self.stats: Counter = Counter()
        self.agreement: Counter = Counter()  # (sortlint, DataFusion) -> count, over final ORDER BYs
        # (label, catalog, case, plan with the ORDER BY, plan without it)
        self.disagreements: list[tuple[str, Catalog, Case, str, str]] = []
        self.plans: tuple[str, str] = ("", "")

    def datafusion_decision(self, case: Case) -> str | None:
        """What DataFusion plans for the case's final ORDER BY (None: cannot tell)."""
        try:
            self.plans = (physical_plan(self.ctx, case.text), physical_plan(self.ctx, case.unordered_text))
        except Exception:  # noqa: BLE001
            return None
        ordered, unordered = self.plans
        if "EmptyExec" in ordered:
            return NO_ROWS  # a contradictory WHERE: no rows, so no sort either
        if sorts(ordered) > sorts(unordered):
            return SORTS
        return MERGES if merges(ordered) > merges(unordered) else ELIDES

    def check_case(self, catalog: Catalog, case: Case, outcome: FileOutcome) -> list[Failure]:
        failures: list[Failure] = []
        sl001 = [f for f in outcome.findings if f["code"] == "SL001" and f["fix"]]
        final = [f for f in sl001 if case.order_offset is not None
                 and finding_offset(case.text, f) == case.order_offset]
        if case.order is not None and case.unordered_text is not None:
            engine = self.datafusion_decision(case)
            if engine is not None:
                linter = "sortlint drops" if final else "sortlint keeps"
                self.agreement[(linter, engine)] += 1
                if engine != NO_ROWS and bool(final) != (engine == ELIDES):
                    self.disagreements.append((f"{linter}, {engine}", catalog, case, *self.plans))
        if not sl001:
            return failures
        original = run(self.ctx, case.text)
        if original.error:
            self.stats["original failed"] += 1
            return failures
        for finding in sl001:
            self.stats["SL001 executed"] += 1
            text = apply_edits(case.text, finding["fix"]["edits"])
            order = case.order if case.order else None
            for _ in range(RUNS):
                fixed = run(self.ctx, text)
                if fixed.error:
                    kind = "unanalysable" if fixed.error.startswith("analysis") else "error"
                    failures.append(self.failure(catalog, case, text, finding, original, fixed,
                                                 f"safe-{kind}", fixed.error))
                    break
                found = differences(original, fixed, order, case.limit)
                if found:
                    aspect, detail = found[0]
                    failures.append(self.failure(catalog, case, text, finding, original, fixed,
                                                 "sl001-disproved", f"{aspect}: {detail}"))
                    break
        return failures

    def failure(self, catalog, case, text, finding, original, fixed, kind, detail) -> Failure:
        return Failure("datafusion", kind, catalog, case, text, [finding], original, fixed, detail,
                       dict(self.settings))
