"""Spark as the judge of row order: real tables, executed plans and row orders for engine tests.

Every claim sortlint makes about Spark (`target: spark`) is checked against the local Spark
through this module. It builds the small, realistic tables such claims need and reads back what
Spark did with them:

* tables — `sorted_files_table` (several Parquet files, each holding exactly the rows given,
  in the order given, optionally in Hive-style partition directories or with small row groups
  so that Spark splits them) and `bucketed_table` (`bucketBy(...).sortBy(...).saveAsTable`, one
  or several files per bucket);
* plans — `executed_plan` returns the physical plan Spark executes for a query (SQL text, a
  DataFrame, or a callable that writes); an adaptive plan is read after execution, when it is
  final. `physical_nodes`, `sorts_and_exchanges`, `aggregate_kind` and `scans` describe that plan
  top-down (root first, children in order, as EXPLAIN prints it); `output_ordering` is the
  order Spark itself believes the result has; `analyzed_filters` shows the casts Spark puts
  into a comparison;
* rows — `rows` (the order a client receives), `partition_rows` (each partition's rows in
  order), `file_orders` (each written file's rows in stored order) and `is_ascending`;
* settings — `settings` sets session configurations for a block and restores them;
  `SPARK_DEFAULTS` are the defaults spark_support's test session overrides, for checking a
  fact under both; `conf_default` is the default Spark itself declares for a setting;
  `forced_spills` makes sorts spill to disk, as memory pressure does on real data.

Typical use in an engine test:

    with settings(spark, SPARK_DEFAULTS):
        assert sorts_and_exchanges(spark, "SELECT * FROM t ORDER BY k") == [
            "Sort [k ASC NULLS FIRST] global", "Exchange rangepartitioning(k ASC NULLS FIRST, 200)"]

Nothing here imports PySpark at import time, and it starts no session: take the session from
spark_support's session-scoped `spark` fixture (`from spark_support import spark`).

Node names are Spark's class names without the `Exec` suffix (`SortExec` -> `Sort`,
`ShuffleExchangeExec` -> `ShuffleExchange`, `FileSourceScanExec` -> `FileSourceScan`), so a
name leads straight to its source file. Wrappers that do no work of their own are left out:
`WholeStageCodegen`, `InputAdapter`, adaptive query stages and `AdaptiveSparkPlan` itself,
and `CommandResult` (its command's plan is walked instead).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

# Spark 4.x defaults that spark_support's session overrides for speed and determinism. The
# file scan's packing depends on the number of cores of `local[N]` only through
# `spark.sql.leafNodeDefaultParallelism` (its default is SparkContext.defaultParallelism), so
# setting it to 2 reads files exactly as a default `local[2]` session does.
SPARK_DEFAULTS: dict[str, str] = {
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.shuffle.partitions": "200",
    "spark.sql.leafNodeDefaultParallelism": "2",
}

# Plan nodes that only wrap another: walked through, never reported.
_WRAPPERS = {"WholeStageCodegenExec", "InputAdapter"}
_STAGES = {
    "ShuffleQueryStageExec",
    "BroadcastQueryStageExec",
    "TableCacheQueryStageExec",
    "ResultQueryStageExec",
}
_AGGREGATES = {"HashAggregateExec", "SortAggregateExec", "ObjectHashAggregateExec"}
_EXPRESSION_ID = re.compile(r"#\d+L?")


# ---------------------------------------------------------------------------------------------
# Settings


@contextmanager
def settings(spark, values: dict[str, str | None]) -> Iterator[None]:
    """Set session configurations for the block, then restore the previous values.

    A value of None unsets the key (Spark's default applies). Only runtime (SQL) settings can
    change this way; `spark.master` and other SparkContext settings cannot.
    """
    before = {key: spark.conf.get(key, None) for key in values}
    try:
        for key, value in values.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def conf_default(spark, key: str) -> str:
    """The default value Spark declares for a SQL setting (its SQLConf entry), as Spark prints it.

    Independent of what the session has set: this is what a user who never set the key gets.
    """
    sql_conf = getattr(spark._jvm.org.apache.spark.sql.internal, "SQLConf$").__getattr__("MODULE$")
    entry = sql_conf.getConfigEntry(key)
    if entry is None:
        raise KeyError(f"Spark defines no SQL setting {key!r}")
    return entry.defaultValueString()


@contextmanager
def forced_spills(spark, every: int = 37) -> Iterator[None]:
    """Make every sort in the block spill to disk each `every` rows, as memory pressure does.

    Sets `spark.shuffle.spill.numElementsForceSpillThreshold` on the running SparkContext's
    configuration, which each new sorter reads when it starts (local mode: one JVM). A sort
    that spills merges its runs by its keys only, so rows with equal keys lose the order they
    arrived in: what Spark guarantees about a sort is its keys, and this shows it on tiny data.
    """
    key = "spark.shuffle.spill.numElementsForceSpillThreshold"
    conf = spark.sparkContext._jsc.sc().conf()  # the SparkConf the executors' SparkEnv shares
    before = conf.get(key, None)
    conf.set(key, str(every))
    try:
        yield
    finally:
        if before is None:
            conf.remove(key)
        else:
            conf.set(key, before)


# ---------------------------------------------------------------------------------------------
# Tables


def table_location(spark, name: str) -> Path:
    """The directory a catalog table's files live in."""
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").where("col_name = 'Location'")
    return Path(location.collect()[0].data_type.removeprefix("file:"))


def sorted_files_table(
    spark,
    name: str,
    schema: str,
    files: Sequence[Sequence[tuple]],
    *,
    partitioned_by: Sequence[str] = (),
    row_group_bytes: int | None = None,
) -> Path:
    """A Parquet table whose i-th file holds exactly `files[i]`, in that order.

    `schema` is a Spark DDL string ("k int, v string"). Files are named `part-00000.parquet`,
    `part-00001.parquet`, ... in the order given, so "named in key order" is the caller's
    choice. With `partitioned_by`, each file goes into the Hive-style directory of its rows'
    partition values (every row of one file must share them) and the files themselves hold
    the other columns. `row_group_bytes` caps Parquet row groups, so that a large file has
    several and Spark can split it (`spark.sql.files.maxPartitionBytes`). The table is
    (re)created over the directory; returns the directory.
    """
    base = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=_scratch(spark)))
    table_dir = base / "table"
    columns = [c.strip().split()[0] for c in schema.split(",")]
    data_columns = [c for c in columns if c not in partitioned_by]
    for number, file_rows in enumerate(files):
        directory = table_dir
        if partitioned_by:
            values = {tuple(row[columns.index(c)] for c in partitioned_by) for row in file_rows}
            if len(values) != 1:
                raise ValueError(f"file {number} of {name} mixes partitions {sorted(values)}")
            for column, value in zip(partitioned_by, next(iter(values))):
                directory = directory / f"{column}={value}"
        frame = spark.createDataFrame(list(file_rows), schema).select(*data_columns)
        scratch = base / f"write-{number}"
        writer = frame.coalesce(1).write
        if row_group_bytes is not None:
            writer = writer.option("parquet.block.size", row_group_bytes)
        writer.parquet(str(scratch))
        (written,) = scratch.glob("part-*.parquet")
        directory.mkdir(parents=True, exist_ok=True)
        shutil.move(written, directory / f"part-{number:05d}.parquet")
        shutil.rmtree(scratch)
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    partitions = f" PARTITIONED BY ({', '.join(partitioned_by)})" if partitioned_by else ""
    spark.sql(f"CREATE TABLE {name} ({schema}) USING parquet{partitions} LOCATION '{table_dir}'")
    if partitioned_by:
        spark.sql(f"ALTER TABLE {name} RECOVER PARTITIONS")
    return table_dir


def bucketed_table(
    spark,
    name: str,
    schema: str,
    rows: Sequence[tuple],
    *,
    by: Sequence[str],
    buckets: int,
    sorted_by: Sequence[str] = (),
    files_per_bucket: int = 1,
) -> Path:
    """`bucketBy(buckets, *by).sortBy(*sorted_by).saveAsTable(name)`, as a user writes it.

    Each writing task writes one file per bucket it has rows for, so the number of tasks is the
    number of files per bucket: one task (`coalesce(1)`) or `files_per_bucket` round-robin
    partitions. The rows must be many enough for every task to reach every bucket; the result
    is checked. Returns the table's directory.
    """
    frame = spark.createDataFrame(list(rows), schema)
    frame = frame.coalesce(1) if files_per_bucket == 1 else frame.repartition(files_per_bucket)
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    writer = frame.write.bucketBy(buckets, *by)
    if sorted_by:
        writer = writer.sortBy(*sorted_by)
    writer.saveAsTable(name)
    location = table_location(spark, name)
    per_bucket: dict[int, int] = {}
    for file in data_files(location):
        bucket = int(re.search(r"_(\d{5})\.", file.name).group(1))
        per_bucket[bucket] = per_bucket.get(bucket, 0) + 1
    if sorted(per_bucket) != list(range(buckets)) or set(per_bucket.values()) != {files_per_bucket}:
        raise ValueError(f"{name}: files per bucket {per_bucket}, wanted {files_per_bucket} each")
    return location


def data_files(path: Path) -> list[Path]:
    """A table directory's data files (hidden and `_` files skipped), by path."""
    return sorted(
        p
        for p in Path(path).rglob("*")
        if p.is_file()
        and not any(part.startswith((".", "_")) for part in p.relative_to(path).parts)
    )


def file_orders(path: Path) -> dict[str, list[tuple]]:
    """Each data file under `path` with its rows in stored order: {relative path: rows}.

    Read by the active Spark session in one job, each file as one split (a task reads its
    files one after the other, each from start to end), without partition inference: the rows
    hold the columns stored in the file, not the partition directory values.
    """
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.getActiveSession()
    root = Path(path).resolve()
    result: dict[str, list[tuple]] = {str(f.relative_to(path)): [] for f in data_files(path)}
    with settings(spark, {"spark.sql.files.maxPartitionBytes": str(1 << 40)}):
        frame = spark.read.option("recursiveFileLookup", "true").parquet(str(path))
        for row in frame.withColumn("__file", F.input_file_name()).collect():
            file = Path(unquote(urlparse(row[-1]).path)).resolve()
            result[str(file.relative_to(root))].append(tuple(row[:-1]))
    return result


def _scratch(spark) -> Path:
    warehouse = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))
    scratch = warehouse.parent / "oracle-tables"
    scratch.mkdir(parents=True, exist_ok=True)
    return scratch


# ---------------------------------------------------------------------------------------------
# Executed plans


class _PlanRecorder:
    """A QueryExecutionListener (implemented in Python through py4j): every executed plan."""

    def __init__(self):
        self.plans: list[tuple[str, object]] = []
        self.lock = threading.Lock()

    def onSuccess(self, function_name, query_execution, duration_ns):  # noqa: N802 (Java API)
        with self.lock:
            self.plans.append((function_name, query_execution.executedPlan()))

    def onFailure(self, function_name, query_execution, exception):  # noqa: N802 (Java API)
        with self.lock:
            self.plans.append((function_name, None))

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]


_recorders: dict[int, _PlanRecorder] = {}


def _recorder(spark) -> _PlanRecorder:
    key = id(spark)
    if key not in _recorders:
        from pyspark.java_gateway import ensure_callback_server_started

        ensure_callback_server_started(spark.sparkContext._gateway)
        recorder = _PlanRecorder()
        spark._jsparkSession.listenerManager().register(recorder)
        _recorders[key] = recorder
    return _recorders[key]


def _recorded(spark, action: Callable[[], object]) -> list[object]:
    """The plans of the queries `action` executes (listener events arrive asynchronously: the
    bus is drained before, so earlier queries are not counted, and after)."""
    recorder = _recorder(spark)
    listener_bus = spark.sparkContext._jsc.sc().listenerBus()
    listener_bus.waitUntilEmpty()
    with recorder.lock:
        start = len(recorder.plans)
    action()
    listener_bus.waitUntilEmpty()
    with recorder.lock:
        return [plan for _, plan in recorder.plans[start:] if plan is not None]


def _is_write(plan) -> bool:
    return any(
        name in ("DataWritingCommandExec", "V2TableWriteExec")
        or name.startswith(("AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic"))
        or name.endswith("TableAsSelectExec")
        for name in _class_names(plan)
    )


def executed_plan(spark, query):
    """The physical plan Spark executed for `query` (a py4j handle on the JVM SparkPlan).

    * SQL text or a DataFrame: its plan; an adaptive plan (spark.sql.adaptive.enabled) is
      executed first (rows collected), so that its final plan is read, a static plan is what
      will run and needs no execution; a SQL command (INSERT, CREATE TABLE AS, ...) runs
      when `spark.sql` is called;
    * a callable: called, and the plan of the write it performed is returned (e.g.
      `lambda: df.write.bucketBy(4, "k").saveAsTable("t")`), else the last plan it executed.

    Commands are recorded through a QueryExecutionListener, because the plan that writes the
    files (e.g. CREATE TABLE AS's inner insert) is a separate execution.
    """
    if callable(query):
        plans = _recorded(spark, query)
    elif isinstance(query, str):
        holder: list = []
        plans = _recorded(spark, lambda: holder.append(spark.sql(query)))
        frame = holder[0]
        if not _is_command(frame):
            return _final_plan(frame)
    else:
        return _final_plan(query)
    writes = [p for p in plans if _is_write(p)]
    if writes:
        return writes[-1]
    if not plans:
        raise AssertionError("the action executed no query")
    return plans[-1]


def _final_plan(frame):
    """The frame's physical plan; an adaptive plan is executed first, to be final."""
    plan = frame._jdf.queryExecution().executedPlan()
    if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec" and not plan.isFinalPlan():
        frame.collect()
    return plan


def _is_command(frame) -> bool:
    return (
        frame._jdf.queryExecution().executedPlan().getClass().getSimpleName() == "CommandResultExec"
    )


def _walk(plan) -> Iterator:
    """The plan's operators top-down (pre-order), wrappers unwrapped."""
    name = plan.getClass().getSimpleName()
    if name == "AdaptiveSparkPlanExec":
        yield from _walk(plan.executedPlan())
        return
    if name == "CommandResultExec":
        yield from _walk(plan.commandPhysicalPlan())
        return
    if name in _STAGES:
        yield from _walk(plan.plan())
        return
    if name not in _WRAPPERS:
        yield plan
    children = plan.children().iterator()
    while children.hasNext():
        yield from _walk(children.next())


def _class_names(plan) -> list[str]:
    return [node.getClass().getSimpleName() for node in _walk(plan)]


def _node_name(node) -> str:
    return node.getClass().getSimpleName().removesuffix("Exec")


def _text(spark_object) -> str:
    """A Catalyst object's text without expression ids (`k#12` -> `k`)."""
    return _EXPRESSION_ID.sub("", spark_object.toString())


def physical_nodes(spark, query) -> list[str]:
    """Operator names of the executed physical plan, top-down (see `executed_plan`)."""
    return [_node_name(node) for node in _walk(executed_plan(spark, query))]


def describe_node(node) -> str:
    """Sorts and exchanges in EXPLAIN's words, other operators by name.

    `Sort [k ASC NULLS FIRST] global` (a total order: ORDER BY) or `... local` (each partition:
    SORT BY, sortWithinPartitions, and the sorts Spark adds for joins, windows and writes);
    `Exchange hashpartitioning(k, 200)`, `Exchange rangepartitioning(k ASC NULLS FIRST, 200)`,
    `Exchange RoundRobinPartitioning(4)`, `Exchange SinglePartition`; `BroadcastExchange`.
    """
    name = node.getClass().getSimpleName()
    if name == "SortExec":
        keys = ", ".join(_text(order) for order in _list(node.sortOrder()))
        is_global = getattr(node, "global")()  # `global` is a Python keyword
        return f"Sort [{keys}] {'global' if is_global else 'local'}"
    if name == "ShuffleExchangeExec":
        return f"Exchange {_text(node.outputPartitioning())}"
    if name == "BroadcastExchangeExec":
        return "BroadcastExchange"
    return _node_name(node)


def sorts_and_exchanges(spark, query) -> list[str]:
    """The executed plan's sorts and exchanges, top-down, described by `describe_node`."""
    return [
        describe_node(node)
        for node in _walk(executed_plan(spark, query))
        if node.getClass().getSimpleName()
        in ("SortExec", "ShuffleExchangeExec", "BroadcastExchangeExec")
    ]


def aggregate_kind(spark, query) -> list[str]:
    """The executed plan's aggregate operators, top-down, with their mode.

    `HashAggregate(Final)`, `HashAggregate(Partial)`, `SortAggregate(Complete)`, ...; an
    aggregate without aggregate functions (DISTINCT, GROUP BY without functions) has no mode
    and is named alone.
    """
    kinds = []
    for node in _walk(executed_plan(spark, query)):
        name = node.getClass().getSimpleName()
        if name in _AGGREGATES:
            modes = {str(e.mode()) for e in _list(node.aggregateExpressions())}
            mode = f"({'/'.join(sorted(modes))})" if modes else ""
            kinds.append(_node_name(node) + mode)
    return kinds


def output_ordering(spark, query) -> list[str]:
    """The ordering the root of the executed plan reports to Spark (`outputOrdering`).

    What Spark itself believes about the order of each partition of the result: the sort
    orders without expression ids, e.g. `['k ASC NULLS FIRST']`, or [] when it knows none.
    """
    return [_text(order) for order in _list(executed_plan(spark, query).outputOrdering())]


def scans(spark, query) -> list[str]:
    """Each file scan of the executed plan: its table and whether Spark reads it bucketed.

    `default.t bucketed` (one partition per bucket, hash-partitioned by the bucket columns),
    `default.t not bucketed (disabled by query planner)` (autoBucketedScan found no operator
    that uses the buckets), `... (disabled by configuration)`, or `default.t` for a table
    that is not bucketed.
    """
    described = []
    for node in _walk(executed_plan(spark, query)):
        if node.getClass().getSimpleName() != "FileSourceScanExec":
            continue
        identifier = node.tableIdentifier()
        name = identifier.get().unquotedString() if identifier.isDefined() else "<path>"
        name = name.removeprefix("spark_catalog.")
        if node.relation().bucketSpec().isEmpty():
            described.append(name)
        elif node.bucketedScan():
            described.append(f"{name} bucketed")
        else:
            reason = "by query planner" if node.disableBucketedScan() else "by configuration"
            described.append(f"{name} not bucketed (disabled {reason})")
    return described


def analyzed_filters(spark, query: str) -> list[str]:
    """The conditions of the analyzed plan's filters (WHERE, HAVING), casts made explicit.

    Shows how Spark's type coercion reads a comparison, e.g. `s = 1` on a string column is
    `(cast(s as bigint) = cast(1 as bigint))` under ANSI mode. Nothing is executed.
    """
    analyzed = spark._jsparkSession.sql(query).queryExecution().analyzed()
    conditions = []
    nodes = [analyzed]
    while nodes:
        node = nodes.pop(0)
        if node.getClass().getSimpleName() == "Filter":
            conditions.append(_text(node.condition()))
        nodes.extend(_list(node.children()))
    return conditions


def _list(scala_seq) -> list:
    items = []
    iterator = scala_seq.iterator()
    while iterator.hasNext():
        items.append(iterator.next())
    return items


# ---------------------------------------------------------------------------------------------
# Rows


def _frame(spark, query):
    return spark.sql(query) if isinstance(query, str) else query


def rows(spark, query) -> list[tuple]:
    """The query's rows in the order a client receives them (collect: partition 0 first)."""
    return [tuple(row) for row in _frame(spark, query).collect()]


def partition_rows(spark, query) -> list[list[tuple]]:
    """The query's rows partition by partition, each in its order (empty partitions left out).

    Computed by adding `spark_partition_id()` on top of the query, which changes neither its
    partitioning nor the order inside a partition.
    """
    from pyspark.sql import functions as F

    frame = _frame(spark, query)
    tagged = frame.withColumn("__partition", F.spark_partition_id())
    result: list[list[tuple]] = []
    last = None
    for row in tagged.collect():
        values = tuple(row)
        if values[-1] != last:
            result.append([])
            last = values[-1]
        result[-1].append(values[:-1])
    return result


def is_ascending(values: Sequence) -> bool:
    """Whether the values never decrease (NULLs first, as Spark's ASC default)."""
    keyed = [(1, v) if v is not None else (0,) for v in values]
    return all(a <= b for a, b in zip(keyed, keyed[1:]))
