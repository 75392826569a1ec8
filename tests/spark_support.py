"""Real Spark for the tests: one local session, catalog tables, and data that honours a catalog.

Imported by test modules that prove things with Spark (`import spark_support`; pytest puts
this directory on `sys.path` because `tests/conftest.py` lives here). The `spark` fixture is
session-scoped: import it into a test module (`from spark_support import spark`) and every
module that does so shares the one JVM.

Nothing here imports PySpark at import time: `spark_unavailable()` says why Spark cannot run
(no PySpark, no Java), so a module can skip with a clear reason instead of failing to import.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import random
import shutil
import sys
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path

import pytest

from sortlint.config.model import Config, OrderingItem, Source

# ---------------------------------------------------------------------------------------------
# The session


def spark_unavailable() -> str | None:
    """Why a local Spark cannot start here, or None when it can."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[spark]')"
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and Path(java_home, "bin", "java").exists()) and shutil.which("java") is None:
        return "no Java runtime (java not on PATH, JAVA_HOME unset): `make java` installs one"
    return None


# Tests that start a real local Spark: marked, and skipped with the reason when it cannot.
NEEDS_SPARK = [
    pytest.mark.spark,
    pytest.mark.skipif(spark_unavailable() is not None, reason=f"real Spark needed: {spark_unavailable()}"),
]


def needs_spark(test):
    """`test` marked as one that runs on the real Spark (skipped where none can start)."""
    for mark in NEEDS_SPARK:
        test = mark(test)
    return test


def make_spark_session(base: Path):
    """A quiet local Spark session whose warehouse, metastore and scratch files live in `base`.

    `local[1]` and one shuffle partition keep the 2-core test machine responsive and the
    execution deterministic; the in-memory catalog avoids Hive and its metastore entirely
    (derby's home is still pointed into `base` in case anything touches it).
    """
    from pyspark.sql import SparkSession

    base.mkdir(parents=True, exist_ok=True)
    # Python workers (Arrow batches, UDFs) run this interpreter, which has pyarrow.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("sortlint-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.sql.warehouse.dir", str(base / "warehouse"))
        .config("spark.local.dir", str(base / "scratch"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={base / 'derby'}")
        .config("spark.sql.sources.parallelPartitionDiscovery.threshold", "1000000")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """The one SparkSession of the test run (skips the test when Spark cannot start)."""
    reason = spark_unavailable()
    if reason is not None:
        pytest.skip(reason)
    session = make_spark_session(tmp_path_factory.mktemp("spark"))
    yield session
    session.stop()


# ---------------------------------------------------------------------------------------------
# Schemas and tables


def schema_of(spark, sql: str) -> list[tuple[str, str]]:
    """Spark's analyzed output columns of a query: [(name, type)], nothing executed."""
    return [(f.name, f.dataType.simpleString()) for f in spark.sql(sql).schema.fields]


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def table_name(source: Source) -> str:
    """The source's name as Spark SQL text (each part back-quoted)."""
    return ".".join(_quote(part) for part in source.name.split("."))


def create_tables(spark, sources: Iterable[Source]) -> None:
    """Each declared source as a real, empty parquet table with the declared column types.

    `db.table` names get their database first. A table of the same name from an earlier test
    is dropped: the catalog being proved is the one that counts.
    """
    for source in sources:
        if not source.columns:
            raise ValueError(f"{source.name}: a catalog table needs declared columns")
        parts = source.name.split(".")
        if len(parts) > 2:
            raise ValueError(f"{source.name}: catalog.db.table names are not supported here")
        if len(parts) == 2:
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(parts[0])}")
        columns = ", ".join(
            f"{_quote(c.name)} {c.type or 'string'}{'' if c.nullable else ' NOT NULL'}"
            for c in source.columns
        )
        spark.sql(f"DROP TABLE IF EXISTS {table_name(source)}")
        spark.sql(f"CREATE TABLE {table_name(source)} ({columns}) USING parquet")


# ---------------------------------------------------------------------------------------------
# Data that satisfies the catalog


class DataGenerator:
    """Random rows for a declared source that honour every declaration it makes.

    * values by Spark type: integers from a range about twice the row count (so joins find
      partners and non-unique columns repeat), strings from a small pool (ties; the pool should
      include the literals the queries filter on), timestamps to the second over a few days,
      dates over a couple of months, decimals at the declared scale, doubles with repeats;
    * NULL (about one value in eight) only in nullable columns;
    * constants fixed to their declared value; every unique key unique (rows are redrawn);
    * rows in the declared order, direction and null placement included: the whole table for
      `scope: global`, each `partitioned_by` group for `scope: partition` (the groups
      themselves in random order: the contract says nothing about it).

    `verify` checks all of that on the result, so a generator bug cannot pass as a proof.
    """

    def __init__(self, seed: int, strings: Sequence[str] = ()):
        self.random = random.Random(seed)
        generic = ["a", "b", "c", "x", "EU", "US", "DE", "ERROR", "WARN", "INFO", "PAID"]
        self.strings = list(dict.fromkeys([*strings, *generic]))

    # -- values ---------------------------------------------------------------------------

    def value(self, data_type, count: int):
        from pyspark.sql import types as T

        r = self.random
        if isinstance(data_type, T.BooleanType):
            return r.random() < 0.5
        if isinstance(data_type, (T.ByteType, T.ShortType)):
            return r.randint(1, 100)
        if isinstance(data_type, (T.IntegerType, T.LongType)):
            return r.randint(1, max(20, 2 * count))
        if isinstance(data_type, T.StringType):
            return r.choice(self.strings)
        if isinstance(data_type, T.TimestampType):
            return dt.datetime(2024, 3, 1) + dt.timedelta(seconds=r.randint(0, 3 * 86400))
        if isinstance(data_type, T.TimestampNTZType):
            return dt.datetime(2024, 3, 1) + dt.timedelta(seconds=r.randint(0, 3 * 86400))
        if isinstance(data_type, T.DateType):
            return dt.date(2024, 3, 1) + dt.timedelta(days=r.randint(0, 59))
        if isinstance(data_type, T.DecimalType):
            digits = min(data_type.precision - data_type.scale, 4)
            unscaled = r.randint(0, 10 ** (digits + data_type.scale) - 1)
            return Decimal(unscaled).scaleb(-data_type.scale)
        if isinstance(data_type, (T.DoubleType, T.FloatType)):
            return r.choice([0.5, 1.25, 2.0, 3.5, 10.0, 99.75, -1.5])
        raise NotImplementedError(f"no generator for {data_type.simpleString()}")

    @staticmethod
    def constant(value, data_type):
        """A declared constant (YAML-typed) as a value of the column's Spark type."""
        from pyspark.sql import types as T

        if isinstance(data_type, T.StringType):
            return str(value)
        if isinstance(data_type, T.DecimalType):
            return Decimal(str(value)).quantize(Decimal(1).scaleb(-data_type.scale))
        if isinstance(data_type, T.DateType) and isinstance(value, str):
            return dt.date.fromisoformat(value)
        if isinstance(data_type, (T.TimestampType, T.TimestampNTZType)) and isinstance(value, str):
            return dt.datetime.fromisoformat(value)
        return value

    # -- rows -----------------------------------------------------------------------------

    def rows(self, source: Source, schema, count: int) -> list[tuple]:
        names = [f.name.lower() for f in schema.fields]
        nullable = {c.name.lower(): c.nullable for c in source.columns}
        constants = {
            name.lower(): self.constant(value, schema.fields[names.index(name.lower())].dataType)
            for name, value in source.constants
        }
        keys = [[names.index(c.lower()) for c in key] for key in source.unique]
        seen: list[set] = [set() for _ in keys]
        rows: list[tuple] = []
        attempts = 0
        while len(rows) < count:
            attempts += 1
            if attempts > 50 * count:
                raise ValueError(f"{source.name}: cannot draw {count} rows with unique keys")
            row = []
            for field, name in zip(schema.fields, names):
                if name in constants:
                    row.append(constants[name])
                elif nullable.get(name, True) and self.random.random() < 0.125:
                    row.append(None)
                else:
                    row.append(self.value(field.dataType, count))
            row = tuple(row)
            projections = [tuple(row[i] for i in key) for key in keys]
            if any(p in s for p, s in zip(projections, seen)):
                continue
            for p, s in zip(projections, seen):
                s.add(p)
            rows.append(row)
        return self.arrange(source, names, rows)

    def arrange(self, source: Source, names: list[str], rows: list[tuple]) -> list[tuple]:
        if not source.orderings:
            self.random.shuffle(rows)
            return rows
        if len(source.orderings) > 1:
            # Sorting by one ordering generally breaks the other: random data cannot satisfy two
            # unrelated orderings. Sort by the first; `verify` rejects the table if another fails.
            pass
        ordering = source.orderings[0].items
        if source.scope == "global":
            return sort_rows(rows, names, ordering)
        group_of = [names.index(c.lower()) for c in source.partitioned_by]
        groups: dict[tuple, list[tuple]] = {}
        for row in rows:
            groups.setdefault(tuple(row[i] for i in group_of), []).append(row)
        order = list(groups)
        self.random.shuffle(order)
        return [row for key in order for row in sort_rows(groups[key], names, ordering)]

    @staticmethod
    def verify(source: Source, names: list[str], rows: list[tuple]) -> None:
        """Raise AssertionError unless `rows` (in order) satisfy every declaration of `source`."""
        index = {n.lower(): i for i, n in enumerate(names)}
        for column in source.columns:
            if not column.nullable:
                assert all(r[index[column.name]] is not None for r in rows), (source.name, column.name)
        for name, _ in source.constants:
            assert len({r[index[name.lower()]] for r in rows}) <= 1, (source.name, name)
        for key in source.unique:
            projected = [tuple(r[index[c.lower()]] for c in key) for r in rows]
            assert len(set(projected)) == len(projected), (source.name, key)
        if source.scope == "global":
            groups = [rows]
        else:
            by: dict[tuple, list[tuple]] = {}
            for r in rows:
                by.setdefault(tuple(r[index[c.lower()]] for c in source.partitioned_by), []).append(r)
            groups = list(by.values())
        for ordering in source.orderings:
            for group in groups:
                assert is_sorted(group, names, ordering.items), (source.name, str(ordering))


def _sort_key(position: int, item: OrderingItem):
    """A key for `list.sort(reverse=item.descending)` that puts NULLs where the item says."""
    # With reverse=True the largest key comes first, so a NULL that must come first is largest.
    null_high = item.nulls_first == item.descending

    def key(row):
        value = row[position]
        if value is None:
            return (1,) if null_high else (-1,)
        return (0, value)

    return key


def sort_rows(rows: list[tuple], names: list[str], items: Sequence[OrderingItem]) -> list[tuple]:
    """Rows sorted lexicographically by `items`: stable sorts from the last key to the first."""
    result = list(rows)
    index = {n.lower(): i for i, n in enumerate(names)}
    for item in reversed(items):
        result.sort(key=_sort_key(index[item.column.lower()], item), reverse=item.descending)
    return result


def compare_values(a, b, descending: bool, nulls_first: bool) -> int:
    """-1, 0 or 1: where `a` sorts relative to `b` under one sort key (Spark's semantics)."""
    if a is None or b is None:
        if a is None and b is None:
            return 0
        return (-1 if nulls_first else 1) * (1 if a is None else -1)
    if a == b:
        return 0
    less = a < b
    if descending:
        less = not less
    return -1 if less else 1


def is_sorted_by(rows: Sequence[tuple], keys: Sequence[tuple[int, bool, bool]]) -> bool:
    """Whether `rows` are in order under `keys` = [(position, descending, nulls_first)]."""
    for before, after in zip(rows, rows[1:]):
        for position, descending, nulls_first in keys:
            c = compare_values(before[position], after[position], descending, nulls_first)
            if c < 0:
                break
            if c > 0:
                return False
    return True


def is_sorted(rows: Sequence[tuple], names: list[str], items: Sequence[OrderingItem]) -> bool:
    index = {n.lower(): i for i, n in enumerate(names)}
    return is_sorted_by(
        rows, [(index[i.column.lower()], i.descending, i.nulls_first) for i in items]
    )


def load_catalog_data(
    spark, config: Config, *, rows: int = 200, seed: int = 20240301, strings: Sequence[str] = ()
) -> dict[str, list[tuple]]:
    """Create every declared table of `config` and fill it with rows that honour the catalog.

    Each table is written as one parquet file in the declared order, and read back to check
    that Spark returns the rows in exactly that order (true for one small file read by a local
    session: one split, one task). Returns the rows of each table by its declared name.
    """
    create_tables(spark, config.sources)
    generator = DataGenerator(seed, strings)
    written: dict[str, list[tuple]] = {}
    for source in config.sources:
        name = table_name(source)
        schema = spark.table(name).schema
        names = [f.name for f in schema.fields]
        data = generator.rows(source, schema, rows)
        generator.verify(source, names, data)
        spark.createDataFrame(data, schema).coalesce(1).write.mode("overwrite").insertInto(name)
        back = [tuple(r) for r in spark.table(name).collect()]
        assert back == data, f"{source.name}: Spark did not read the rows back in written order"
        written[source.name] = data
    return written
