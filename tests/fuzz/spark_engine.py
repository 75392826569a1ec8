"""The Spark harness: generated tables in a real local Spark, original vs fixed queries.

Tables are written the way Spark writes them (`insertInto` of a DataFrame whose partitions are
the generated files, so each file is one `part-0000i` file holding exactly the rows the
generator put there, in that order; bucketed tables by `bucketBy(...).sortBy(...)
.saveAsTable`). Spark then reads them as it really does — several files of one table packed
into a partition largest first — so a declared ordering holds on disk, not necessarily in the
rows a scan returns.

For each file a fix changed, `check_case` runs the original and the fixed text on the one
session and compares schema (names and types), rows (multisets) and the original final
ORDER BY's order; Spark's analyzer must accept the fixed text.

The plan oracle then plans both texts with AQE off (`sortlint.integrations.spark.plan_effect`):
a fix whose executed plan is worse by `Effect.worse` - a Sort, an Exchange or an
ObjectHashAggregate more; a SortAggregate that streams with no Sort added is no worse - is a
failure (`{mode}-plan-worse`); and where one finding's fix was
applied and carries a predicted `effect`, it must be the measured difference (`{mode}-effect`;
several fixes' effects need not add up, and are not compared).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from collections import Counter

from fuzz.catalogs import Catalog, Table
from fuzz.cli import FileOutcome
from fuzz.failures import Failure
from fuzz.queries import Case
from fuzz.results import Result, differences, out_of_order

SESSION_SETTINGS = {
    # More than one shuffle partition: exchanges really split rows, as on a cluster.
    "spark.sql.shuffle.partitions": "4",
}


def start_session(base):
    """A local session with the test suite's settings (tests/spark_support.py) and ours."""
    from spark_support import make_spark_session

    spark = make_spark_session(base)
    configure(spark)
    return spark


def configure(spark) -> dict[str, str | None]:
    """Apply SESSION_SETTINGS; returns the values they replaced (for `restore`)."""
    import logging

    # Python's naive datetimes become Spark timestamps through the process's time zone: make it
    # the session's (UTC), so a generated value and its literal in a query are one instant.
    os.environ["TZ"] = "UTC"
    time.tzset()
    previous = {key: spark.conf.get(key, None) for key in SESSION_SETTINGS}
    for key, value in SESSION_SETTINGS.items():
        spark.conf.set(key, value)
    # Queries that fail are results here, not news: keep the JVM's and PySpark's logs quiet.
    spark.sparkContext.setLogLevel("OFF")
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    return previous


def restore(spark, previous: dict[str, str | None]) -> None:
    """Undo `configure` on a session the test suite shares."""
    for key, value in previous.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)
    spark.sparkContext.setLogLevel("ERROR")


def _quote(name: str) -> str:
    return ".".join(f"`{part}`" for part in name.split("."))


def load(spark, catalog: Catalog) -> None:
    """Create and fill every table of `catalog` (replacing tables of the same name)."""
    from pyspark.sql import functions as F

    for table in catalog.tables:
        if "." in table.name:
            spark.sql(f"CREATE DATABASE IF NOT EXISTS `{table.name.split('.')[0]}`")
        name = _quote(table.name)
        spark.sql(f"DROP TABLE IF EXISTS {name}")
        _remove_stale_location(spark, table.name)
        columns = ", ".join(f"`{c.name}` {c.type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns)
        spark.sql(f"CREATE TABLE {name} ({columns}) USING parquet")
        schema = spark.table(name).schema
        if table.bucketed:
            spark.sql(f"DROP TABLE {name}")
            df = spark.createDataFrame(table.rows, schema).coalesce(1)
            keys = [item.column for item in table.ordering]
            df.write.bucketBy(len(table.files) + 1, keys[0]).sortBy(*keys).saveAsTable(table.name)
            continue
        indexed = [(i, row) for i, rows in enumerate(table.files) for row in rows]
        files = max(1, len(table.files))
        rdd = spark.sparkContext.parallelize(indexed, 1).partitionBy(files, lambda i: i).values()
        spark.createDataFrame(rdd, schema).write.mode("overwrite").insertInto(name)
        _verify_files(spark, table, name, F)


def _remove_stale_location(spark, name: str) -> None:
    """A managed table's directory left by an earlier process would make CREATE TABLE fail."""
    import shutil
    from urllib.parse import urlparse

    warehouse = Path(urlparse(spark.conf.get("spark.sql.warehouse.dir")).path)
    parts = name.lower().split(".")
    location = warehouse.joinpath(*([f"{parts[0]}.db", parts[1]] if len(parts) == 2 else parts))
    if location.is_dir():
        shutil.rmtree(location)


def _verify_files(spark, table: Table, name: str, F) -> None:
    """Each written file holds exactly the generated file's rows in order (harness soundness)."""
    got: dict[str, list[tuple]] = {}
    for row in spark.table(name).select("*", F.input_file_name().alias("__file")).collect():
        values = tuple(row)
        got.setdefault(values[-1], []).append(values[:-1])
    written = [got[f] for f in sorted(got)]
    expected = [f for f in table.files if f]
    if written != expected:
        raise AssertionError(f"{table.name}: Spark's files do not hold the generated files' rows")


def run(spark, case: Case, text: str) -> Result:
    """Analyse and execute one case's text (a SQL statement, or a PySpark job's `result`)."""
    try:
        if case.language == "sql":
            df = spark.sql(text.strip().rstrip(";"))
        else:
            scope: dict = {"spark": spark}
            exec(compile(text, case.filename, "exec"), scope)
            df = scope["result"]
        schema = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
    except Exception as error:  # noqa: BLE001 - any failure to analyse is a result here
        return Result([], [], f"analysis: {_message(error)}")
    try:
        rows = [tuple(r) for r in df.collect()]
    except Exception as error:  # noqa: BLE001
        return Result(schema, [], f"runtime: {_message(error)}")
    return Result(schema, rows)


def _message(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:400]


class SparkHarness:
    def __init__(self, spark):
        self.spark = spark
        self.stats: Counter = Counter()

    def check_case(self, catalog: Catalog, case: Case, outcome: FileOutcome) -> list[Failure]:
        texts = [("safe", outcome.safe_text), ("unsafe", outcome.unsafe_text)]
        if all(text is None for _, text in texts):
            return []
        original = run(self.spark, case, case.text)
        if original.error:
            self.stats["original failed"] += 1
            return []
        if case.order and out_of_order(original.rows, case.order) is not None:
            raise AssertionError(f"{case.name}: Spark's own ORDER BY result is not in order: harness bug")
        failures: list[Failure] = []
        safe_failed = False
        for mode, text in texts:
            if text is None or (mode == "unsafe" and (text == outcome.safe_text or safe_failed)):
                continue
            self.stats[f"{mode} fixed files checked"] += 1
            failure = self.compare(catalog, case, outcome, mode, text, original)
            if failure:
                failures.append(failure)
                safe_failed = safe_failed or mode == "safe"
        return failures

    def compare(self, catalog, case, outcome, mode, text, original) -> Failure | None:
        fixed = run(self.spark, case, text)
        allowed = ("safe",) if mode == "safe" else ("safe", "unsafe")
        findings = [f for f in outcome.findings if f["fix"] and f["fix"]["applicability"] in allowed]
        dropped = outcome.dropped_safe if mode == "safe" else outcome.dropped_unsafe

        def failure(kind, detail):
            return Failure("spark", f"{mode}-{kind}", catalog, case, text, findings, original, fixed,
                           detail, dict(SESSION_SETTINGS), dropped)

        if fixed.error:
            kind = "unanalysable" if fixed.error.startswith("analysis") else "error"
            return failure(kind, fixed.error)
        found = differences(original, fixed, case.order, case.limit)
        if found:
            aspect, detail = found[0]
            return failure(aspect, detail)
        return self.plan_failure(case, text, findings, failure)

    def plan_failure(self, case, text, findings, failure) -> Failure | None:
        """The plan oracle (see the module's docstring)."""
        from sortlint.diagnostics.effects import Effect

        measured = Effect.between(self.counts(case, case.text), self.counts(case, text))
        self.stats["plans compared"] += 1
        if measured.worse():
            return failure("plan-worse", f"measured {measured.as_json()}: the fix adds {', '.join(measured.worse())}")
        predicted = [f.get("effect") for f in findings]
        if not findings or any(p is None for p in predicted):
            return None  # findings without a predicted effect: nothing to compare
        if len(findings) > 1:
            # One fix may change what Spark does with another's operators (seed 5102: a window
            # key and the sort beneath it each save a sort alone, one together), and a built
            # DAG's statements may be alternatives (the branches of an `if`, seed 5102): the
            # predictions do not add up. Each finding's effect alone: tests/engines.
            self.stats["effects not compared: several fixes"] += 1
            return None
        self.stats["effects compared"] += 1
        expected = Effect(tuple(predicted[0]["removes"]), tuple(predicted[0]["adds"]))
        if expected != measured:
            return failure("effect", f"predicted {expected.as_json()}, measured {measured.as_json()}")
        return None

    def counts(self, case: Case, text: str) -> Counter:
        """The operator counts of the plan Spark executes for `text`, AQE off."""
        from sortlint.integrations.spark.plan_effect import operator_counts, static_planning

        with static_planning(self.spark):
            if case.language == "sql":
                return operator_counts(self.spark.sql(text.strip().rstrip(";")))
            scope: dict = {"spark": self.spark}
            exec(compile(text, case.filename, "exec"), scope)
            return operator_counts(scope["result"])
