"""What Spark does with row order: the facts sortlint's `target: spark` analysis may rest on.

Each test states one behaviour of Spark 4.x and checks it on the local Spark, on tiny real
tables: the executed physical plan (which sorts, exchanges, joins and aggregates run) and the
rows themselves (their order as a client receives them, per partition, and in written files).
Each section names the Spark rules and operators behind its facts, so a failure after a Spark
upgrade points at the source to reread.

Where a setting matters it is set explicitly; facts that depend on the session's shape are
checked twice: under spark_support's test session (`local[1]`, one shuffle partition, no
adaptive execution) and under Spark's defaults (`SPARK_DEFAULTS`: adaptive execution, 200
shuffle partitions, a file scan planned as for `local[2]`).
"""

from __future__ import annotations

import random

import pytest

import spark_oracle as oracle
import spark_support
from spark_oracle import SPARK_DEFAULTS, settings
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.engines import spark as spark_engine
from sortlint.ordering.types import sql_type

pytestmark = spark_support.NEEDS_SPARK

TEST_SESSION: dict[str, str | None] = {}  # spark_support's own settings
SESSIONS = pytest.mark.parametrize(
    "session", [TEST_SESSION, SPARK_DEFAULTS], ids=["test", "defaults"]
)
NO_BROADCAST = {"spark.sql.autoBroadcastJoinThreshold": "-1"}
ASC = "ASC NULLS FIRST"


def keys(rows, position=0):
    return [row[position] for row in rows]


# ---------------------------------------------------------------------------------------------
# Tables (module-scoped: built once, read by many tests)


@pytest.fixture(scope="module", autouse=True)
def facts_database(spark):
    """This module's tables live in a database of their own, apart from other tests' tables."""
    previous = spark.catalog.currentDatabase()
    spark.sql("CREATE DATABASE IF NOT EXISTS spark_facts")
    spark.catalog.setCurrentDatabase("spark_facts")
    yield
    spark.catalog.setCurrentDatabase(previous)


@pytest.fixture(scope="module")
def issue_table(spark):
    """Issue 9's table: three Parquet files, each sorted, named in key order (0-99, 100-4999,
    5000-5049), so the middle file is by far the largest."""
    ranges = [range(0, 100), range(100, 5000), range(5000, 5050)]
    oracle.sorted_files_table(
        spark, "issue", "k int, v string", [[(k, f"v{k % 7}") for k in r] for r in ranges]
    )
    return "issue"


@pytest.fixture(scope="module")
def events(spark):
    """`events(id, k, s, v, x)`: 300 rows in shuffled id order, k in 1..30 (ties), s with
    NULLs, an int and a double measure; `dim(k, name)`: one row per k. One file each."""
    r = random.Random(11)
    ids = list(range(1, 301))
    r.shuffle(ids)
    rows = [
        (i, r.randint(1, 30), r.choice(["a", "b", "c", None]), r.randint(1, 100), r.random())
        for i in ids
    ]
    spark.createDataFrame(rows, "id int, k int, s string, v int, x double").coalesce(1).write.mode(
        "overwrite"
    ).saveAsTable("events")
    spark.createDataFrame([(k, f"n{k}") for k in range(1, 31)], "k int, name string").coalesce(
        1
    ).write.mode("overwrite").saveAsTable("dim")
    return "events"


@pytest.fixture(scope="module")
def buckets(spark):
    """Bucketed sorted tables, `bucketBy(4, "k").sortBy("k")`: `bucketed` and `bucketed_too`
    with one file per bucket, `bucketed_split` with two files per bucket."""
    r = random.Random(5)
    rows = [(r.randint(1, 60), r.randint(1, 1000)) for _ in range(400)]
    for name, files in (("bucketed", 1), ("bucketed_too", 1), ("bucketed_split", 2)):
        oracle.bucketed_table(
            spark,
            name,
            "k int, v int",
            rows,
            by=["k"],
            buckets=4,
            sorted_by=["k"],
            files_per_bucket=files,
        )
    return rows


@pytest.fixture(scope="module")
def groups(spark):
    """`groups(a, b, c)`: 60 rows, a in 0..4, b in 0..2."""
    rows = [(i % 5, i % 3, i) for i in range(60)]
    spark.createDataFrame(rows, "a int, b int, c int").coalesce(1).write.mode(
        "overwrite"
    ).saveAsTable("groups")
    return "groups"


# ---------------------------------------------------------------------------------------------
# Settings


def test_the_defaults_these_facts_depend_on(spark):
    defaults = {
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.shuffle.partitions": "200",
        "spark.sql.ansi.enabled": "true",
        "spark.sql.files.maxPartitionBytes": "128MB",
        "spark.sql.files.openCostInBytes": "4MB",
        "spark.sql.sources.bucketing.enabled": "true",
        "spark.sql.sources.bucketing.autoBucketedScan.enabled": "true",
        "spark.sql.legacy.bucketedTableScan.outputOrdering": "false",
        "spark.sql.autoBroadcastJoinThreshold": "10MB",
        "spark.sql.join.preferSortMergeJoin": "true",
        "spark.sql.execution.replaceHashWithSortAgg": "true",
        "spark.sql.execution.combineAdjacentAggregation": "true",
        "spark.sql.execution.useObjectHashAggregateExec": "true",
        "spark.sql.execution.removeRedundantSorts": "true",
        "spark.sql.optimizer.plannedWrite.enabled": "true",
    }
    assert {key: oracle.conf_default(spark, key) for key in defaults} == defaults


# ---------------------------------------------------------------------------------------------
# 1. File scans (FileSourceScanExec, FilePartition: files packed largest first)


@SESSIONS
def test_a_table_of_sorted_files_is_read_largest_file_first(spark, issue_table, session):
    issue_order = [*range(100, 5000), *range(0, 100), *range(5000, 5050)]
    with settings(spark, session):
        assert keys(oracle.rows(spark, "SELECT k FROM issue")) == issue_order
        # A filter or a projection does not bring the order back.
        assert keys(oracle.rows(spark, "SELECT k FROM issue WHERE k % 10 = 0")) == [
            k for k in issue_order if k % 10 == 0
        ]
        partitions = [keys(p) for p in oracle.partition_rows(spark, "SELECT k FROM issue")]
    if session is TEST_SESSION:  # one core: every file packed into one partition, largest first
        assert partitions == [issue_order]
    else:  # two cores: split size halves, the smallest file gets a partition of its own
        assert partitions == [[*range(100, 5000), *range(0, 100)], list(range(5000, 5050))]
        assert not oracle.is_ascending(partitions[0])


def test_splits_of_a_large_file_are_read_before_a_small_file(spark):
    small, large = list(range(0, 500)), list(range(500, 8500))
    oracle.sorted_files_table(
        spark, "split_files", "k int", [[(k,) for k in small], [(k,) for k in large]],
        row_group_bytes=8 * 1024,
    )
    for max_partition_bytes in ("128MB", "16KB"):
        with settings(spark, {"spark.sql.files.maxPartitionBytes": max_partition_bytes}):
            partitions = [keys(p) for p in oracle.partition_rows(spark, "SELECT k FROM split_files")]
            assert keys(oracle.rows(spark, "SELECT k FROM split_files")) == large + small
        if max_partition_bytes == "16KB":  # the large file is split; its splits come first
            assert len(partitions) > 2 and partitions[-1] == small
            assert [k for p in partitions[:-1] for k in p] == large


def test_a_file_scan_reports_no_ordering(spark, issue_table):
    assert oracle.output_ordering(spark, "SELECT k FROM issue") == []
    assert oracle.sorts_and_exchanges(spark, "SELECT k FROM issue SORT BY k") == [
        f"Sort [k {ASC}] local"
    ]
    assert oracle.sorts_and_exchanges(spark, "SELECT k FROM issue ORDER BY k") == [
        f"Sort [k {ASC}] global",
        f"Exchange rangepartitioning(k {ASC}, 1)",
    ]


def test_a_partitioned_table_is_read_largest_file_first_across_partitions(spark):
    files = [
        [(k, "a") for k in range(0, 10)],
        [(k, "b") for k in range(10, 200)],
        [(k, "c") for k in range(200, 250)],
    ]
    oracle.sorted_files_table(spark, "by_day", "k int, p string", files, partitioned_by=["p"])
    assert oracle.output_ordering(spark, "SELECT k, p FROM by_day") == []
    assert oracle.rows(spark, "SELECT k, p FROM by_day") == files[1] + files[2] + files[0]


# ---------------------------------------------------------------------------------------------
# 2. Bucketed tables (FileSourceScanExec.bucketedScan, DisableUnnecessaryBucketedScan)


def test_a_bucketed_scan_is_hash_partitioned_by_the_bucket_columns(spark, buckets):
    with settings(spark, NO_BROADCAST):
        join = "SELECT * FROM bucketed b JOIN bucketed_too c ON b.k = c.k"
        assert oracle.scans(spark, join) == [
            "spark_facts.bucketed bucketed",
            "spark_facts.bucketed_too bucketed",
        ]
        assert oracle.sorts_and_exchanges(spark, join) == [
            f"Sort [k {ASC}] local",
            f"Sort [k {ASC}] local",
        ]
        aggregate = "SELECT k, count(*) FROM bucketed GROUP BY k"
        assert oracle.sorts_and_exchanges(spark, aggregate) == []
        assert oracle.aggregate_kind(spark, aggregate) == ["HashAggregate(Complete)"]
        window = "SELECT k, row_number() OVER (PARTITION BY k ORDER BY v) AS r FROM bucketed"
        assert oracle.sorts_and_exchanges(spark, window) == [f"Sort [k {ASC}, v {ASC}] local"]
        with settings(spark, {"spark.sql.sources.bucketing.enabled": "false"}):
            assert oracle.scans(spark, join) == [
                "spark_facts.bucketed not bucketed (disabled by configuration)",
                "spark_facts.bucketed_too not bucketed (disabled by configuration)",
            ]
            assert oracle.sorts_and_exchanges(spark, join) == [
                f"Sort [k {ASC}] local",
                "Exchange hashpartitioning(k, 1)",
                f"Sort [k {ASC}] local",
                "Exchange hashpartitioning(k, 1)",
            ]


def test_a_bucketed_scan_is_disabled_when_no_operator_uses_the_buckets(spark, buckets):
    for query in (
        "SELECT k FROM bucketed",
        "SELECT k FROM bucketed ORDER BY k",
        "SELECT k FROM bucketed SORT BY k",
    ):
        assert oracle.scans(spark, query) == [
            "spark_facts.bucketed not bucketed (disabled by query planner)"
        ]
    assert oracle.sorts_and_exchanges(spark, "SELECT k FROM bucketed SORT BY k") == [
        f"Sort [k {ASC}] local"
    ]
    with settings(spark, {"spark.sql.sources.bucketing.autoBucketedScan.enabled": "false"}):
        assert oracle.scans(spark, "SELECT k FROM bucketed") == ["spark_facts.bucketed bucketed"]


def test_buckets_are_sorted_each_on_its_own_not_together(spark, buckets):
    with settings(spark, {"spark.sql.sources.bucketing.autoBucketedScan.enabled": "false"}):
        one_file = [keys(p) for p in oracle.partition_rows(spark, "SELECT k FROM bucketed")]
        two_files = [keys(p) for p in oracle.partition_rows(spark, "SELECT k FROM bucketed_split")]
    assert len(one_file) == 4 and all(oracle.is_ascending(p) for p in one_file)
    assert not oracle.is_ascending([k for p in one_file for k in p])
    # Two files per bucket: each bucket is two sorted runs, one after the other.
    assert len(two_files) == 4 and not any(oracle.is_ascending(p) for p in two_files)
    assert sorted(k for p in two_files for k in p) == sorted(keys(buckets))


def test_a_bucketed_scan_reports_its_sort_only_with_the_legacy_flag_and_one_file_per_bucket(
    spark, buckets
):
    join_one = "SELECT * FROM bucketed b JOIN bucketed_too c ON b.k = c.k"
    join_split = "SELECT * FROM bucketed_split b JOIN bucketed_too c ON b.k = c.k"
    with settings(spark, NO_BROADCAST):
        assert oracle.sorts_and_exchanges(spark, join_one) == [f"Sort [k {ASC}] local"] * 2
        with settings(spark, {"spark.sql.legacy.bucketedTableScan.outputOrdering": "true"}):
            assert oracle.sorts_and_exchanges(spark, join_one) == []
            assert oracle.sorts_and_exchanges(spark, join_split) == [f"Sort [k {ASC}] local"]
            aggregate = "SELECT k, count(*) FROM bucketed GROUP BY k"
            assert oracle.aggregate_kind(spark, aggregate) == ["SortAggregate(Complete)"]
            with settings(spark, {"spark.sql.sources.bucketing.autoBucketedScan.enabled": "false"}):
                assert oracle.output_ordering(spark, "SELECT k, v FROM bucketed") == [f"k {ASC}"]
                assert oracle.output_ordering(spark, "SELECT k, v FROM bucketed_split") == []


# ---------------------------------------------------------------------------------------------
# 3. Exchanges (EnsureRequirements, ShuffleExchangeExec, UnionExec, CoalesceExec, limit.scala)


EXCHANGES = {
    # query: (under the test session, under Spark's defaults)
    "SELECT * FROM events ORDER BY k": (
        [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, 1)"],
        [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, 200)"],
    ),
    "SELECT * FROM events DISTRIBUTE BY k": (
        ["Exchange SinglePartition"],
        ["Exchange hashpartitioning(k, 200)"],
    ),
    "SELECT * FROM events CLUSTER BY k": (
        [f"Sort [k {ASC}] local", "Exchange SinglePartition"],
        [f"Sort [k {ASC}] local", "Exchange hashpartitioning(k, 200)"],
    ),
    "SELECT * FROM events SORT BY k": ([f"Sort [k {ASC}] local"], [f"Sort [k {ASC}] local"]),
    "SELECT k, sum(v) FROM events GROUP BY k": (
        ["Exchange hashpartitioning(k, 1)"],
        ["Exchange hashpartitioning(k, 200)"],
    ),
    "SELECT id, row_number() OVER (PARTITION BY k ORDER BY id) FROM events": (
        [f"Sort [k {ASC}, id {ASC}] local", "Exchange hashpartitioning(k, 1)"],
        [f"Sort [k {ASC}, id {ASC}] local", "Exchange hashpartitioning(k, 200)"],
    ),
    "SELECT /*+ MERGE(dim) */ * FROM events JOIN dim ON events.k = dim.k": (
        [f"Sort [k {ASC}] local", "Exchange hashpartitioning(k, 1)"] * 2,
        [f"Sort [k {ASC}] local", "Exchange hashpartitioning(k, 200)"] * 2,
    ),
    "SELECT * FROM events JOIN dim ON events.k = dim.k": (
        ["BroadcastExchange"],
        ["BroadcastExchange"],
    ),
    "SELECT k FROM events UNION SELECT k FROM dim": (
        ["Exchange hashpartitioning(k, 1)"],
        ["Exchange hashpartitioning(k, 200)"],
    ),
    "SELECT k FROM events UNION ALL SELECT k FROM dim": ([], []),
    "SELECT * FROM events LIMIT 5": ([], []),
    "SELECT * FROM events ORDER BY k LIMIT 5 OFFSET 2": ([], []),
}


@SESSIONS
@pytest.mark.parametrize("query", list(EXCHANGES))
def test_sql_clauses_and_their_exchanges(spark, events, query, session):
    with settings(spark, session):
        assert (
            oracle.sorts_and_exchanges(spark, query) == EXCHANGES[query][session is SPARK_DEFAULTS]
        )


def test_limits_are_planned_without_a_sort_node(spark, events):
    scan = ["ColumnarToRow", "FileSourceScan"]
    assert oracle.physical_nodes(spark, "SELECT * FROM events LIMIT 5") == ["CollectLimit", *scan]
    assert oracle.physical_nodes(spark, "SELECT * FROM events OFFSET 2") == ["CollectLimit", *scan]
    top = "SELECT k, id FROM events ORDER BY k, id LIMIT 5 OFFSET 2"
    assert oracle.physical_nodes(spark, top) == ["TakeOrderedAndProject", *scan]
    assert oracle.output_ordering(spark, top) == [f"k {ASC}", f"id {ASC}"]
    everything = sorted(oracle.rows(spark, "SELECT k, id FROM events"))
    assert oracle.rows(spark, top) == everything[2:7]
    # A LIMIT inside a query gathers its rows into one partition.
    assert oracle.physical_nodes(
        spark, "SELECT * FROM (SELECT * FROM events LIMIT 10) s WHERE k > 1"
    )[:4] == ["Filter", "GlobalLimit", "ShuffleExchange", "LocalLimit"]


@SESSIONS
def test_dataframe_repartitions_and_their_exchanges(spark, events, session):
    frame = spark.table("events")
    with settings(spark, session):
        plans = {
            name: oracle.sorts_and_exchanges(spark, f)
            for name, f in {
                "repartition(4)": frame.repartition(4),
                "repartition(k)": frame.repartition("k"),
                "repartition(4, k)": frame.repartition(4, "k"),
                "repartitionByRange(4, k)": frame.repartitionByRange(4, "k"),
                "orderBy(k)": frame.orderBy("k"),
                "sortWithinPartitions(k)": frame.sortWithinPartitions("k"),
                "coalesce(1)": frame.coalesce(1),
            }.items()
        }
        assert oracle.physical_nodes(spark, frame.coalesce(1)) == [
            "Coalesce",
            "ColumnarToRow",
            "FileSourceScan",
        ]
    defaults = session is SPARK_DEFAULTS
    shuffle = "200" if defaults else "1"
    assert plans == {
        "repartition(4)": ["Exchange RoundRobinPartitioning(4)"],
        # One shuffle partition makes a hash partitioning a single partition.
        "repartition(k)": [
            "Exchange hashpartitioning(k, 200)" if defaults else "Exchange SinglePartition"
        ],
        "repartition(4, k)": ["Exchange hashpartitioning(k, 4)"],
        "repartitionByRange(4, k)": [f"Exchange rangepartitioning(k {ASC}, 4)"],
        "orderBy(k)": [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, {shuffle})"],
        "sortWithinPartitions(k)": [f"Sort [k {ASC}] local"],
        "coalesce(1)": [],
    }


def test_union_all_concatenates_its_inputs_and_reports_no_order(spark, events):
    query = "(SELECT k FROM events ORDER BY k) UNION ALL (SELECT k FROM dim ORDER BY k)"
    assert keys(oracle.rows(spark, query)) == sorted(
        keys(oracle.rows(spark, "SELECT k FROM events"))
    ) + list(range(1, 31))
    assert oracle.output_ordering(spark, query) == []
    assert oracle.physical_nodes(spark, query)[0] == "Union"


def test_coalesce_reports_no_order_even_over_a_sorted_input(spark, events):
    frame = spark.table("events").orderBy("k").coalesce(1)
    assert oracle.output_ordering(spark, frame) == []
    assert oracle.output_ordering(spark, spark.table("events").orderBy("k")) == [f"k {ASC}"]


# ---------------------------------------------------------------------------------------------
# 4. Joins (SortMergeJoinExec, HashJoin, BroadcastNestedLoopJoinExec, JoinSelection)


SORT_MERGE_JOINS = {
    # join type: (a SORT BY on the left key stays, a SORT BY on the right key stays)
    "JOIN": (False, False),
    "LEFT JOIN": (False, True),
    "RIGHT JOIN": (True, False),
    "FULL JOIN": (True, True),
}


@pytest.mark.parametrize("join", list(SORT_MERGE_JOINS))
def test_sort_merge_join_output_is_sorted_by_its_keys_per_partition(spark, events, join):
    query = (
        f"SELECT events.k AS left_k, dim.k AS right_k FROM events {join} dim ON events.k = dim.k"
    )
    join_sides = [f"Sort [k {ASC}] local", "Exchange hashpartitioning(k, 1)"] * 2
    with settings(spark, NO_BROADCAST):
        for key, stays in zip(("left_k", "right_k"), SORT_MERGE_JOINS[join]):
            extra = [f"Sort [{key} {ASC}] local"] if stays else []
            assert oracle.sorts_and_exchanges(spark, f"{query} SORT BY {key}") == extra + join_sides


def test_sort_merge_semi_and_anti_joins_keep_the_left_keys_order(spark, events):
    with settings(spark, NO_BROADCAST):
        for join in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            query = f"SELECT events.k FROM events {join} dim ON events.k = dim.k SORT BY k"
            assert oracle.physical_nodes(spark, query)[0] == "SortMergeJoin"


def test_sort_merge_join_rows_are_sorted_in_each_partition_only(spark, events):
    with settings(spark, {**NO_BROADCAST, "spark.sql.shuffle.partitions": "4"}):
        query = "SELECT events.k, events.id FROM events JOIN dim ON events.k = dim.k"
        partitions = [keys(p) for p in oracle.partition_rows(spark, query)]
    assert len(partitions) == 4 and all(oracle.is_ascending(p) for p in partitions)
    assert not oracle.is_ascending([k for p in partitions for k in p])


def test_broadcast_hash_join_keeps_the_streamed_sides_order(spark, events):
    streamed_sorted = "SELECT s.k, s.id, dim.name FROM (SELECT * FROM events ORDER BY k, id LIMIT 100) s JOIN dim ON s.k = dim.k"
    assert oracle.physical_nodes(spark, streamed_sorted)[:2] == ["Project", "BroadcastHashJoin"]
    assert oracle.output_ordering(spark, streamed_sorted) == [f"k {ASC}", f"id {ASC}"]
    assert "Sort" not in oracle.physical_nodes(spark, f"{streamed_sorted} SORT BY s.k")
    assert oracle.is_ascending(keys(oracle.rows(spark, streamed_sorted)))
    # Broadcasting the sorted side streams the other one: no order.
    built_sorted = streamed_sorted.replace("SELECT s.k", "SELECT /*+ BROADCAST(s) */ s.k")
    assert oracle.output_ordering(spark, built_sorted) == []


def test_which_side_a_broadcast_hash_join_builds(spark, events):
    def built(query):
        nodes = oracle.physical_nodes(spark, query)
        join = nodes.index("BroadcastHashJoin")
        return "left" if nodes[join + 1] == "BroadcastExchange" else "right"

    # Inner joins build the smaller side (size statistics, spark.sql.autoBroadcastJoinThreshold).
    assert built("SELECT * FROM events JOIN dim ON events.k = dim.k") == "right"
    assert built("SELECT * FROM dim JOIN events ON events.k = dim.k") == "left"
    # An outer join can only build its inner side, whatever the sizes; hints choose among those.
    assert built("SELECT * FROM dim LEFT JOIN events ON events.k = dim.k") == "right"
    assert (
        built("SELECT /*+ BROADCAST(events) */ * FROM events JOIN dim ON events.k = dim.k")
        == "left"
    )


def test_a_shuffled_hash_join_keeps_its_streamed_sides_order_only_without_an_exchange(
    spark, events
):
    # The sorted top-k is one partition; with one shuffle partition it needs no exchange.
    query = (
        "SELECT /*+ SHUFFLE_HASH(dim) */ s.k FROM (SELECT * FROM events ORDER BY k, id LIMIT 100) s"
        " JOIN dim ON s.k = dim.k"
    )
    assert oracle.physical_nodes(spark, query)[:4] == [
        "Project",
        "ShuffledHashJoin",
        "Filter",
        "TakeOrderedAndProject",
    ]
    assert oracle.output_ordering(spark, query) == [f"k {ASC}"]  # only k is selected
    with settings(spark, {"spark.sql.shuffle.partitions": "4"}):
        assert oracle.physical_nodes(spark, query)[:3] == [
            "Project",
            "ShuffledHashJoin",
            "ShuffleExchange",
        ]
        assert oracle.output_ordering(spark, query) == []


def test_a_broadcast_nested_loop_join_keeps_its_streamed_sides_order_a_cartesian_product_none(
    spark, events
):
    sorted_side = "(SELECT * FROM events ORDER BY k, id LIMIT 100) s"
    for join in ("JOIN", "LEFT JOIN"):  # the sorted left side streams, dim is broadcast
        query = f"SELECT s.k FROM {sorted_side} {join} dim ON s.k < dim.k"
        assert oracle.physical_nodes(spark, query)[:2] == ["Project", "BroadcastNestedLoopJoin"]
        assert oracle.output_ordering(spark, query) == [f"k {ASC}"]  # only k is selected
        assert oracle.is_ascending(keys(oracle.rows(spark, query)))
    for query in (
        f"SELECT /*+ BROADCAST(s) */ s.k FROM {sorted_side} JOIN dim ON s.k < dim.k",  # sorted side built
        f"SELECT s.k FROM {sorted_side} RIGHT JOIN dim ON s.k < dim.k",
        f"SELECT s.k FROM {sorted_side} FULL JOIN dim ON s.k < dim.k",
    ):
        assert oracle.physical_nodes(spark, query)[:2] == ["Project", "BroadcastNestedLoopJoin"]
        assert oracle.output_ordering(spark, query) == []
    with settings(spark, NO_BROADCAST):
        cartesian = f"SELECT s.k FROM {sorted_side} JOIN dim ON s.k < dim.k"
        assert oracle.physical_nodes(spark, cartesian)[:2] == ["Project", "CartesianProduct"]
        assert oracle.output_ordering(spark, cartesian) == []


# ---------------------------------------------------------------------------------------------
# 5. Aggregates (AggUtils, ReplaceHashWithSortAgg, CombineAdjacentAggregation)


def test_the_aggregate_operator_depends_on_the_aggregate_buffer(spark, events, groups):
    assert oracle.aggregate_kind(spark, "SELECT a, sum(c) FROM groups GROUP BY a") == [
        "HashAggregate(Final)",
        "HashAggregate(Partial)",
    ]
    assert oracle.aggregate_kind(spark, "SELECT a, collect_list(c) FROM groups GROUP BY a") == [
        "ObjectHashAggregate(Final)",
        "ObjectHashAggregate(Partial)",
    ]
    assert oracle.aggregate_kind(spark, "SELECT DISTINCT a FROM groups") == [
        "HashAggregate",
        "HashAggregate",
    ]
    # max of a string keeps a string buffer, which a hash aggregate cannot update in place.
    strings = "SELECT k, max(s) FROM events GROUP BY k"
    assert oracle.aggregate_kind(spark, strings) == [
        "SortAggregate(Final)",
        "SortAggregate(Partial)",
    ]
    assert oracle.sorts_and_exchanges(spark, strings) == [
        f"Sort [k {ASC}] local",
        "Exchange hashpartitioning(k, 1)",
        f"Sort [k {ASC}] local",
    ]
    assert oracle.output_ordering(spark, strings) == [f"k {ASC}"]
    assert oracle.output_ordering(spark, "SELECT a, sum(c) FROM groups GROUP BY a") == []


# Each type sortlint models, as the catalog writes it; `any_value` of it beside a count.
ANY_VALUE_TYPES = ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "date", "timestamp",
                   "timestamp_ntz", "decimal(18,2)", "decimal(19,2)", "decimal(38,0)", "string", "varchar(10)"]
# Types sortlint does not model (no fix rests on them), measured all the same.
UNMODELLED_SORTING = ["binary", "array<int>", "struct<a:int>", "map<int,int>"]


@pytest.mark.parametrize("value_type", ANY_VALUE_TYPES + UNMODELLED_SORTING)
def test_any_value_keeps_a_hash_aggregate_only_over_a_value_buffered_in_place(spark, groups, value_type):
    # SL103 keeps a dropped key's column as any_value(key): Spark's buffer for it is the key's
    # own type, and a string's has no fixed width (UnsafeRow.isMutable), so the aggregate
    # becomes a SortAggregate, a sort of every row on each side of the exchange.
    query = f"SELECT a, any_value(CASE WHEN c < 0 THEN CAST(NULL AS {value_type}) END) AS v, count(*) AS n FROM groups GROUP BY a"
    hashes = oracle.aggregate_kind(spark, query) == ["HashAggregate(Final)", "HashAggregate(Partial)"]
    if not hashes:
        assert oracle.aggregate_kind(spark, query) == ["SortAggregate(Final)", "SortAggregate(Partial)"]
        assert [step.split(" [")[0] for step in oracle.sorts_and_exchanges(spark, query)] == [
            "Sort", "Exchange hashpartitioning(a, 1)", "Sort"]
    modelled = sql_type(value_type)
    assert (modelled is not None) == (value_type in ANY_VALUE_TYPES)
    if modelled is not None:
        assert spark_engine.hashes_any_value(modelled) == hashes, value_type
    else:
        assert not hashes


SORTED_INPUTS = {
    # child sorted by (a, b): a sort-merge join on both keys
    "join": "SELECT /*+ MERGE(h) */ g.a, g.b, g.c FROM groups g JOIN groups h ON g.a = h.a AND g.b = h.b",
    # child sorted by (a, c DESC): a window
    "window": "SELECT a, b, c, row_number() OVER (PARTITION BY a ORDER BY c DESC) AS r FROM groups",
}
REPLACE_HASH_WITH_SORT = {
    # (input, GROUP BY): aggregate, with spark.sql.execution.replaceHashWithSortAgg at its default
    ("join", "a, b"): ["SortAggregate(Complete)"],
    ("join", "b, a"): ["HashAggregate(Complete)"],
    # GROUP BY a needs its own exchange: the partial aggregate below it still streams
    ("join", "a"): ["HashAggregate(Final)", "SortAggregate(Partial)"],
    ("window", "a"): ["SortAggregate(Complete)"],
    ("window", "a, c"): ["HashAggregate(Complete)"],  # the input is sorted by c DESC
}


@pytest.mark.parametrize(("source", "group_by"), list(REPLACE_HASH_WITH_SORT))
def test_a_hash_aggregate_becomes_a_sort_aggregate_when_the_input_is_sorted_by_the_group_by_keys_in_order(
    spark, groups, source, group_by
):
    measure = "max(r)" if source == "window" else "sum(c)"  # an unused window would be pruned
    query = f"SELECT {group_by}, {measure} FROM ({SORTED_INPUTS[source]}) i GROUP BY {group_by}"
    assert oracle.aggregate_kind(spark, query) == REPLACE_HASH_WITH_SORT[(source, group_by)]


def test_replace_hash_with_sort_agg_and_combine_adjacent_aggregation_settings(spark, groups):
    query = f"SELECT a, b, sum(c) FROM ({SORTED_INPUTS['join']}) i GROUP BY a, b"
    with settings(spark, {"spark.sql.execution.replaceHashWithSortAgg": "false"}):
        assert oracle.aggregate_kind(spark, query) == ["HashAggregate(Complete)"]
    with settings(spark, {"spark.sql.execution.combineAdjacentAggregation": "false"}):
        assert oracle.aggregate_kind(spark, query) == [
            "SortAggregate(Final)",
            "SortAggregate(Partial)",
        ]
    with settings(spark, SPARK_DEFAULTS):
        assert oracle.aggregate_kind(spark, query) == ["SortAggregate(Complete)"]
    assert oracle.output_ordering(spark, query) == [f"a {ASC}", f"b {ASC}"]


def test_a_sort_written_under_an_aggregate_never_makes_it_a_sort_aggregate(spark, groups):
    # The optimizer removes the sort first (order-insensitive sum): nothing sorted reaches it.
    query = "SELECT a, sum(c) FROM (SELECT * FROM groups SORT BY a) s GROUP BY a"
    assert oracle.aggregate_kind(spark, query) == ["HashAggregate(Final)", "HashAggregate(Partial)"]
    assert oracle.sorts_and_exchanges(spark, query) == ["Exchange hashpartitioning(a, 1)"]


# ---------------------------------------------------------------------------------------------
# 6. Windows (ExtractWindowExpressions, CollapseWindow, TransposeWindow, WindowExec)


ISSUE_WINDOWS = "SELECT id, count(*) OVER (PARTITION BY k) AS c, row_number() OVER (ORDER BY id) AS r FROM small"
ISSUE_WINDOWS_SWAPPED = "SELECT id, row_number() OVER (ORDER BY id) AS r, count(*) OVER (PARTITION BY k) AS c FROM small"


@pytest.fixture(scope="module")
def small(spark):
    spark.createDataFrame([(1, 1), (2, 2), (3, 1), (4, 2), (5, 1)], "id int, k int").coalesce(
        1
    ).write.mode("overwrite").saveAsTable("small")
    return "small"


@SESSIONS
def test_several_window_specifications_are_stacked_as_spark_chooses(spark, small, session):
    with settings(spark, session):
        assert oracle.physical_nodes(spark, ISSUE_WINDOWS)[:5] == [
            "Project",
            "Window",
            "Sort",
            "Window",
            "Sort",
        ]
        # The window written last (ORDER BY id) runs first; the PARTITION BY k window on top
        # sorts its partition by k, so the ids come back out of order.
        for query in (ISSUE_WINDOWS, ISSUE_WINDOWS_SWAPPED):
            assert oracle.sorts_and_exchanges(spark, query) == [
                f"Sort [k {ASC}] local",
                f"Sort [id {ASC}] local",
                "Exchange SinglePartition",
            ]
        assert oracle.rows(spark, ISSUE_WINDOWS) == [
            (1, 3, 1),
            (3, 3, 3),
            (5, 3, 5),
            (2, 2, 2),
            (4, 2, 4),
        ]
        ordered = f"{ISSUE_WINDOWS} ORDER BY id"
        assert oracle.sorts_and_exchanges(spark, ordered)[0] == f"Sort [id {ASC}] global"
        assert oracle.rows(spark, ordered) == [
            (1, 3, 1),
            (2, 2, 2),
            (3, 3, 3),
            (4, 2, 4),
            (5, 3, 5),
        ]


def test_windows_on_the_same_partition_keys_share_one_exchange_and_one_sort(spark, events):
    same_keys = (
        "SELECT id, sum(v) OVER (PARTITION BY k ORDER BY id) AS a, count(*) OVER (PARTITION BY k) AS c,"
        " rank() OVER (PARTITION BY k ORDER BY id) AS r FROM events"
    )
    assert oracle.sorts_and_exchanges(spark, same_keys) == [
        f"Sort [k {ASC}, id {ASC}] local",
        "Exchange hashpartitioning(k, 1)",
    ]
    # sum and rank share a specification (one Window), count has its own: two Window operators
    assert oracle.physical_nodes(spark, same_keys).count("Window") == 2


def test_a_window_output_is_sorted_by_its_partition_and_order_keys_per_partition(spark, events):
    window = "SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY id) AS r FROM events"
    assert oracle.output_ordering(spark, window) == [f"k {ASC}", f"id {ASC}"]
    assert oracle.sorts_and_exchanges(spark, f"{window} SORT BY k, id") == [
        f"Sort [k {ASC}, id {ASC}] local",
        "Exchange hashpartitioning(k, 1)",
    ]
    with settings(spark, {"spark.sql.shuffle.partitions": "4"}):
        partitions = [[(r[1], r[0]) for r in p] for p in oracle.partition_rows(spark, window)]
    assert len(partitions) == 4 and all(p == sorted(p) for p in partitions)
    assert [x for p in partitions for x in p] != sorted(x for p in partitions for x in p)


@SESSIONS
def test_a_window_without_partition_by_sorts_all_rows_in_one_partition(spark, events, session):
    window = "SELECT id, row_number() OVER (ORDER BY id) AS r FROM events"
    with settings(spark, session):
        assert oracle.sorts_and_exchanges(spark, window) == [
            f"Sort [id {ASC}] local",
            "Exchange SinglePartition",
        ]
        # An ORDER BY on the same key is already satisfied: Spark removes it.
        assert oracle.sorts_and_exchanges(spark, f"{window} ORDER BY id") == [
            f"Sort [id {ASC}] local",
            "Exchange SinglePartition",
        ]
        assert keys(oracle.rows(spark, window)) == list(range(1, 301))


# ---------------------------------------------------------------------------------------------
# 7. Sorts Spark removes itself (EliminateSorts, RemoveRedundantSorts), and look-alikes


SORT_REMOVALS = {
    # name: (query, its sorts and exchanges under the test session)
    "sort under the same sort": (
        "SELECT s.id FROM (SELECT id FROM events ORDER BY id DESC) s ORDER BY s.id DESC",
        ["Sort [id DESC NULLS LAST] global", "Exchange rangepartitioning(id DESC NULLS LAST, 1)"],
    ),
    "sort under another sort": (
        "SELECT * FROM (SELECT * FROM events ORDER BY id) s ORDER BY k",
        [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, 1)"],
    ),
    "look-alike: sort under a limit under a sort": (
        "SELECT * FROM (SELECT * FROM events ORDER BY id LIMIT 10) s ORDER BY k",
        [f"Sort [k {ASC}] global"],  # the inner sort is the TakeOrderedAndProject, kept
    ),
    "local sort already satisfied by the child": (
        "SELECT * FROM (SELECT * FROM events ORDER BY k, id) s SORT BY k",
        [f"Sort [k {ASC}, id {ASC}] global", f"Exchange rangepartitioning(k {ASC}, id {ASC}, 1)"],
    ),
    "global sort under a local sort becomes its exchange": (
        "SELECT * FROM (SELECT * FROM events ORDER BY id) s SORT BY k",
        [f"Sort [k {ASC}] local", "Exchange SinglePartition"],
    ),
    "look-alike: a computed column between them keeps the global sort": (
        "SELECT * FROM (SELECT id, k + 1 AS k FROM (SELECT * FROM events ORDER BY id) a) b SORT BY k",
        [
            f"Sort [k {ASC}] local",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
    ),
    "sort under count, sum of integers, min, max": (
        "SELECT k, count(*), sum(v), min(id), max(v) FROM (SELECT * FROM events ORDER BY id) s GROUP BY k",
        ["Exchange hashpartitioning(k, 1)"],
    ),
    "sort under DISTINCT": (
        "SELECT DISTINCT k FROM (SELECT * FROM events ORDER BY id) s",
        ["Exchange hashpartitioning(k, 1)"],
    ),
    "look-alike: sort under a sum of doubles": (
        "SELECT k, sum(x) FROM (SELECT * FROM events ORDER BY id) s GROUP BY k",
        [
            "Exchange hashpartitioning(k, 1)",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
    ),
    "look-alike: sort under collect_list": (
        "SELECT k, collect_list(id) FROM (SELECT * FROM events ORDER BY id) s GROUP BY k",
        [
            "Exchange hashpartitioning(k, 1)",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
    ),
    "look-alike: sort under first": (
        "SELECT k, first(id) FROM (SELECT * FROM events ORDER BY id) s GROUP BY k",
        [
            "Exchange hashpartitioning(k, 1)",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
    ),
    "sort under a join": (
        "SELECT /*+ MERGE(dim) */ s.id, dim.name FROM (SELECT * FROM events ORDER BY id) s JOIN dim ON s.k = dim.k",
        [f"Sort [k {ASC}] local", "Exchange hashpartitioning(k, 1)"] * 2,
    ),
    "look-alike: sort under a window": (
        "SELECT id, row_number() OVER (PARTITION BY k ORDER BY id) FROM (SELECT * FROM events ORDER BY v) s",
        [
            f"Sort [k {ASC}, id {ASC}] local",
            "Exchange hashpartitioning(k, 1)",
            f"Sort [v {ASC}] global",
            f"Exchange rangepartitioning(v {ASC}, 1)",
        ],
    ),
    "look-alike: sorts under UNION ALL under a sort": (
        "SELECT k FROM ((SELECT k FROM events ORDER BY k) UNION ALL (SELECT k FROM dim ORDER BY k)) u ORDER BY k",
        [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, 1)"] * 3,
    ),
    "look-alike: sort under a filter": (
        "SELECT * FROM (SELECT * FROM events ORDER BY id) s WHERE k > 3",
        [f"Sort [id {ASC}] global", f"Exchange rangepartitioning(id {ASC}, 1)"],
    ),
    "constant sort key": ("SELECT * FROM events ORDER BY 'x'", []),
    "constant key among others": (
        "SELECT * FROM events ORDER BY k, 'x'",
        [f"Sort [k {ASC}] global", f"Exchange rangepartitioning(k {ASC}, 1)"],
    ),
    "sort on a column that is a literal": (
        "SELECT * FROM (SELECT 1 AS c, id FROM events) s ORDER BY c",
        [],
    ),
    "look-alike: a column fixed by WHERE stays a sort key": (
        "SELECT * FROM events WHERE k = 5 ORDER BY k, id",
        [f"Sort [k {ASC}, id {ASC}] global", f"Exchange rangepartitioning(k {ASC}, id {ASC}, 1)"],
    ),
    "sort of at most one row": (
        "SELECT * FROM (SELECT max(id) AS m FROM events) s ORDER BY m",
        ["Exchange SinglePartition"],
    ),
    "sort over a top-k on the same key": (
        "SELECT * FROM (SELECT * FROM events ORDER BY k LIMIT 10) s ORDER BY k",
        [],
    ),
}


@pytest.mark.parametrize("case", list(SORT_REMOVALS))
def test_sorts_spark_removes_itself_and_their_look_alikes(spark, events, case):
    query, expected = SORT_REMOVALS[case]
    assert oracle.sorts_and_exchanges(spark, query) == expected


def test_an_outer_sort_drops_an_inner_sort_even_when_its_extra_keys_would_break_ties(spark, events):
    # The inner ORDER BY k, id is removed: rows with the same k are not in id order.
    result = oracle.rows(
        spark, "SELECT k, id FROM (SELECT k, id FROM events ORDER BY k, id) s ORDER BY k"
    )
    assert oracle.is_ascending(keys(result))
    assert result != sorted(result)


@SESSIONS
def test_a_local_sort_over_a_global_sort_keeps_only_its_range_exchange(spark, events, session):
    with settings(spark, session):
        plan = oracle.sorts_and_exchanges(
            spark, "SELECT * FROM (SELECT * FROM events ORDER BY id) s SORT BY k"
        )
    # One shuffle partition makes the range partitioning a single partition.
    exchange = (
        f"Exchange rangepartitioning(id {ASC}, 200)"
        if session is SPARK_DEFAULTS
        else "Exchange SinglePartition"
    )
    assert plan == [f"Sort [k {ASC}] local", exchange]


def test_dataframe_sorts_spark_removes_and_keeps(spark, events):
    frame = spark.table("events")
    removed = {
        "orderBy.repartition(4).sortWithinPartitions": frame.orderBy("id")
        .repartition(4)
        .sortWithinPartitions("k"),
        "orderBy.coalesce(1).orderBy": frame.orderBy("id").coalesce(1).orderBy("k"),
        "orderBy.distinct": frame.orderBy("id").distinct(),
    }
    kept = {
        "orderBy.repartition(4)": frame.orderBy("id").repartition(4),
        "orderBy.dropDuplicates(k)": frame.orderBy("id").dropDuplicates(["k"]),
    }
    assert {name: oracle.sorts_and_exchanges(spark, f) for name, f in removed.items()} == {
        "orderBy.repartition(4).sortWithinPartitions": [
            f"Sort [k {ASC}] local",
            "Exchange RoundRobinPartitioning(4)",
        ],
        "orderBy.coalesce(1).orderBy": [f"Sort [k {ASC}] global"],
        "orderBy.distinct": ["Exchange hashpartitioning(id, k, s, v, x, 1)"],
    }
    assert {name: oracle.sorts_and_exchanges(spark, f) for name, f in kept.items()} == {
        "orderBy.repartition(4)": [
            "Exchange RoundRobinPartitioning(4)",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
        # dropDuplicates keeps the first row of each k: an order-sensitive aggregate.
        "orderBy.dropDuplicates(k)": [
            f"Sort [k {ASC}] local",
            "Exchange hashpartitioning(k, 1)",
            f"Sort [k {ASC}] local",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
    }


# ---------------------------------------------------------------------------------------------
# 8. Writes (V1Writes, FileFormatWriter; the sorter's spill merge)


@pytest.fixture(scope="module")
def source(spark):
    """`source(id, k, p)`: 200 rows in shuffled id order, p in a/b/c."""
    r = random.Random(3)
    ids = list(range(1, 201))
    r.shuffle(ids)
    rows = [(i, r.randint(1, 40), r.choice(["a", "b", "c"])) for i in ids]
    spark.createDataFrame(rows, "id int, k int, p string").coalesce(1).write.mode(
        "overwrite"
    ).saveAsTable("source")
    return "source"


def written(spark, ddl: str, query: str, positions=(0,)):
    """Create `target` with `ddl`, run `query` (which writes it), and return the write's sorts
    and exchanges, for each of `positions` whether the written files are ascending in that
    column ([True], [False] or [False, True]: some are), and the number of files."""
    spark.sql("DROP TABLE IF EXISTS target")
    if ddl:
        spark.sql(f"CREATE TABLE target {ddl}")
    plan = oracle.sorts_and_exchanges(spark, query)
    files = oracle.file_orders(oracle.table_location(spark, "target")).values()
    ascending = [sorted({oracle.is_ascending(keys(rows, p)) for rows in files}) for p in positions]
    return (plan, *ascending, len(files))


PLAIN = "(id int, k int, p string) USING parquet"
PARTITIONED = "(id int, k int, p string) USING parquet PARTITIONED BY (p)"


def test_a_plain_table_write_keeps_the_query_order(spark, source):
    assert written(spark, PLAIN, "INSERT INTO target SELECT id, k, p FROM source ORDER BY id") == (
        [f"Sort [id {ASC}] global", f"Exchange rangepartitioning(id {ASC}, 1)"],
        [True],
        1,
    )
    assert written(spark, PLAIN, "INSERT INTO target SELECT id, k, p FROM source SORT BY id") == (
        [f"Sort [id {ASC}] local"],
        [True],
        1,
    )
    assert written(spark, PLAIN, "INSERT INTO target SELECT id, k, p FROM source") == (
        [],
        [False],
        1,
    )


PARTITIONED_WRITES = {
    # query: (the write's sorts and exchanges, are the files sorted by id)
    "SELECT id, k, p FROM source SORT BY id": ([f"Sort [p {ASC}] local"], [False]),
    "SELECT id, k, p FROM source DISTRIBUTE BY p SORT BY id": (
        [f"Sort [p {ASC}] local", "Exchange SinglePartition"],
        [False],
    ),
    "SELECT id, k, p FROM source SORT BY p, id": ([f"Sort [p {ASC}, id {ASC}] local"], [True]),
    "SELECT id, k, p FROM source ORDER BY p, id": (
        [f"Sort [p {ASC}, id {ASC}] global", f"Exchange rangepartitioning(p {ASC}, id {ASC}, 1)"],
        [True],
    ),
    "SELECT id, k, p FROM source ORDER BY id": (
        [
            f"Sort [p {ASC}] local",
            f"Sort [id {ASC}] global",
            f"Exchange rangepartitioning(id {ASC}, 1)",
        ],
        [True],
    ),
}


@pytest.mark.parametrize("query", list(PARTITIONED_WRITES))
def test_a_partitioned_write_sorts_by_the_partition_columns_first(spark, source, query):
    assert written(spark, PARTITIONED, f"INSERT INTO target {query}") == (
        *PARTITIONED_WRITES[query],
        3,
    )


@pytest.mark.parametrize("query", list(PARTITIONED_WRITES)[:3])
def test_create_table_as_select_is_planned_like_insert(spark, source, query):
    ctas = f"CREATE TABLE target USING parquet PARTITIONED BY (p) AS {query}"
    assert written(spark, "", ctas) == (*PARTITIONED_WRITES[query], 3)


def test_an_order_by_into_a_partitioned_table_survives_only_while_its_sort_does_not_spill(
    spark, source
):
    query = "INSERT INTO target SELECT id, k, p FROM source ORDER BY id"
    with oracle.forced_spills(spark, every=37):
        assert written(spark, PARTITIONED, query)[1:] == ([False], 3)
        # Sorting by the partition columns first needs no second sort: the order is kept.
        assert written(
            spark, PARTITIONED, "INSERT INTO target SELECT id, k, p FROM source ORDER BY p, id"
        )[1:] == ([True], 3)


def test_a_partitioned_write_on_an_integer_column_drops_the_order_by(spark, source):
    # No empty-string-to-NULL projection sits between the two sorts here (the partition column
    # is not a string): the write's sort by `part` turns the ORDER BY into its exchange alone.
    by_part = "(id int, p string, part int) USING parquet PARTITIONED BY (part)"
    query = "INSERT INTO target SELECT id, p, k % 3 AS part FROM source ORDER BY id"
    assert written(spark, by_part, query) == (
        [f"Sort [part {ASC}] local", "Exchange SinglePartition"],
        [False],
        3,
    )
    with settings(spark, SPARK_DEFAULTS):
        assert written(spark, by_part, query)[0] == [
            f"Sort [part {ASC}] local",
            f"Exchange rangepartitioning(id {ASC}, 200)",
        ]


BUCKET_ID = "pmod(collation_aware_hash(k, 42), 4)"


def test_a_bucketed_write_sorts_each_file_by_bucket_and_sort_columns_only(spark, source):
    sorted_buckets = (
        "(id int, k int, p string) USING parquet CLUSTERED BY (k) SORTED BY (k) INTO 4 BUCKETS"
    )
    # Whatever the query's sort, each bucket file is sorted by k (position 1), not by id.
    for clause in ("ORDER BY id", "SORT BY k, id"):
        query = f"INSERT INTO target SELECT id, k, p FROM source {clause}"
        plan, by_id, by_k, files = written(spark, sorted_buckets, query, positions=(0, 1))
        assert plan[0] == f"Sort [{BUCKET_ID} {ASC}, k {ASC}] local"
        assert (by_id, by_k, files) == ([False], [True], 4)
    unsorted_buckets = "(id int, k int, p string) USING parquet CLUSTERED BY (k) INTO 4 BUCKETS"
    query = "INSERT INTO target SELECT id, k, p FROM source SORT BY id"
    assert written(spark, unsorted_buckets, query)[0] == [f"Sort [{BUCKET_ID} {ASC}] local"]


def test_dataframe_writes_are_planned_like_sql_writes(spark, source):
    frame = spark.table("source")

    def write(build):
        spark.sql("DROP TABLE IF EXISTS target")
        plan = oracle.sorts_and_exchanges(
            spark, lambda: build(frame).mode("overwrite").saveAsTable("target")
        )
        files = oracle.file_orders(oracle.table_location(spark, "target"))
        return plan, sorted({oracle.is_ascending(keys(rows)) for rows in files.values()})

    assert write(lambda f: f.sortWithinPartitions("id").write.partitionBy("p")) == (
        [f"Sort [p {ASC}] local"],
        [False],
    )
    assert write(
        lambda f: f.repartition("p").sortWithinPartitions("p", "id").write.partitionBy("p")
    ) == (
        [f"Sort [p {ASC}, id {ASC}] local", "Exchange SinglePartition"],
        [True],
    )
    assert write(lambda f: f.orderBy("id").write) == (
        [f"Sort [id {ASC}] global", f"Exchange rangepartitioning(id {ASC}, 1)"],
        [True],
    )
    assert write(lambda f: f.sortWithinPartitions("id").write.bucketBy(4, "k").sortBy("k"))[0] == [
        f"Sort [{BUCKET_ID} {ASC}, k {ASC}] local",
    ]


def test_without_planned_writes_the_writer_sorts_at_execution_time(spark, source):
    with settings(spark, {"spark.sql.optimizer.plannedWrite.enabled": "false"}):
        # The plan keeps the query's sort; the writer adds its sort by p outside the plan.
        assert written(
            spark, PARTITIONED, "INSERT INTO target SELECT id, k, p FROM source SORT BY id"
        ) == (
            [f"Sort [id {ASC}] local"],
            [True],
            3,
        )


# ---------------------------------------------------------------------------------------------
# 9. ANSI mode (spark.sql.ansi.enabled; arithmetic and Cast eval modes)


@pytest.fixture(scope="module")
def numbers(spark):
    spark.createDataFrame(
        [(0, 2147483646, "12"), (1, 2147483647, "abc"), (2, -5, "7")], "id int, i int, s string"
    ).coalesce(1).write.mode("overwrite").saveAsTable("numbers")
    return "numbers"


def error_class(spark, query):
    from pyspark.errors import PySparkException

    try:
        oracle.rows(spark, query)
    except PySparkException as error:
        return error.getCondition()
    return None


def test_ansi_mode_raises_on_overflow_division_by_zero_and_bad_casts(spark, numbers):
    with settings(spark, {"spark.sql.ansi.enabled": "true"}):
        assert error_class(spark, "SELECT i + 1 FROM numbers") == "ARITHMETIC_OVERFLOW"
        assert error_class(spark, "SELECT i * 2 FROM numbers") == "ARITHMETIC_OVERFLOW"
        assert error_class(spark, "SELECT i / id FROM numbers") == "DIVIDE_BY_ZERO"
        assert error_class(spark, "SELECT i % id FROM numbers") == "REMAINDER_BY_ZERO"
        assert error_class(spark, "SELECT CAST(i * 10L AS INT) FROM numbers") == "CAST_OVERFLOW"
        assert error_class(spark, "SELECT CAST(s AS INT) FROM numbers") == "CAST_INVALID_INPUT"
        assert oracle.rows(spark, "SELECT s + 1 FROM numbers WHERE id <> 1") == [(13,), (8,)]
        assert spark_support.schema_of(spark, "SELECT s + 1 AS t FROM numbers") == [("t", "bigint")]
    with settings(spark, {"spark.sql.ansi.enabled": "false"}):
        assert oracle.rows(
            spark, "SELECT i + 1, i * 2, i / id, CAST(s AS INT) FROM numbers ORDER BY id"
        ) == [
            (2147483647, -4, None, 12),
            (-2147483648, -2, 2147483647.0, None),
            (-4, -10, -2.5, 7),
        ]
        assert oracle.rows(spark, "SELECT i % id, CAST(i * 10L AS INT) FROM numbers ORDER BY id") == [
            (None, -20),
            (0, -10),
            (-1, -50),
        ]
        # A string + an int is a double without ANSI mode, a bigint with it.
        assert oracle.rows(spark, "SELECT s + 1 FROM numbers WHERE id <> 1") == [(13.0,), (8.0,)]
        assert spark_support.schema_of(spark, "SELECT s + 1 AS t FROM numbers") == [("t", "double")]


def test_without_ansi_mode_integer_arithmetic_does_not_keep_order(spark, numbers):
    with settings(spark, {"spark.sql.ansi.enabled": "false"}):
        by_i = keys(oracle.rows(spark, "SELECT id FROM numbers ORDER BY i"))
        by_i_plus_1 = keys(oracle.rows(spark, "SELECT id FROM numbers ORDER BY i + 1"))
        by_widened = keys(
            oracle.rows(spark, "SELECT id FROM numbers ORDER BY CAST(i AS BIGINT) + 1")
        )
        decimals = oracle.rows(
            spark,
            "SELECT CAST(i AS DECIMAL(10, 0)) * CAST(1E30 AS DECIMAL(31, 0)) FROM numbers ORDER BY id",
        )
    assert by_i == [2, 0, 1] and by_widened == by_i
    assert by_i_plus_1 == [1, 2, 0]  # 2147483647 + 1 wrapped to the smallest int
    assert decimals[1] == (None,)  # decimal overflow is NULL


# ---------------------------------------------------------------------------------------------
# 10. Implicit casts in comparisons (AnsiTypeCoercion / TypeCoercion: PromoteStrings)


@pytest.fixture(scope="module")
def typed(spark):
    spark.sql("DROP TABLE IF EXISTS typed")
    spark.sql(
        "CREATE TABLE typed (s string, i int, l bigint, d double, dec decimal(10,2), dt date, ts timestamp) USING parquet"
    )
    spark.sql(
        "INSERT INTO typed VALUES"
        " ('1', 1, 1, 1.0, 1.00, DATE'2024-01-02', TIMESTAMP'2024-01-02 00:00:00'),"
        " ('01', 1, 1, 1.5, 1.50, DATE'2024-01-02', TIMESTAMP'2024-01-02 12:00:00'),"
        " (' 1', 2, 2, 2.0, 2.00, DATE'2024-01-03', TIMESTAMP'2024-01-03 00:00:00'),"
        " ('2024-01-02', 3, 3, 3.0, 3.00, DATE'2024-01-02', TIMESTAMP'2024-01-02 00:00:00')"
    )
    return "typed"


COMPARISONS = {
    # comparison: (Spark's reading with ANSI mode, without)
    "s = 1": ("(cast(s as bigint) = cast(1 as bigint))", "(cast(s as int) = 1)"),
    "s = i": ("(cast(s as bigint) = cast(i as bigint))", "(cast(s as int) = i)"),
    "s = 1.5": (
        "(cast(s as double) = cast(1.5 as double))",
        "(cast(s as double) = cast(1.5 as double))",
    ),
    "s = dt": ("(cast(s as date) = dt)", "(cast(s as date) = dt)"),
    "s = '1'": ("(s = 1)", "(s = 1)"),
    "dt = '2024-01-02'": ("(dt = cast(2024-01-02 as date))", "(dt = cast(2024-01-02 as date))"),
    "ts = dt": ("(ts = cast(dt as timestamp))", "(ts = cast(dt as timestamp))"),
    "i = d": ("(cast(i as double) = d)", "(cast(i as double) = d)"),
    "l = i": ("(l = cast(i as bigint))", "(l = cast(i as bigint))"),
    "l = d": ("(cast(l as double) = d)", "(cast(l as double) = d)"),
    "dec = i": (
        "(cast(dec as decimal(12,2)) = cast(cast(i as decimal(10,0)) as decimal(12,2)))",
        "(cast(dec as decimal(12,2)) = cast(cast(i as decimal(10,0)) as decimal(12,2)))",
    ),
}


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_how_spark_casts_the_sides_of_a_comparison(spark, typed, ansi):
    with settings(spark, {"spark.sql.ansi.enabled": ansi}):
        readings = {
            c: oracle.analyzed_filters(spark, f"SELECT * FROM typed WHERE {c}") for c in COMPARISONS
        }
    assert readings == {c: [reading[ansi == "false"]] for c, reading in COMPARISONS.items()}


def test_a_string_equal_to_a_number_is_not_one_string(spark, typed):
    with settings(spark, {"spark.sql.ansi.enabled": "false"}):
        assert sorted(keys(oracle.rows(spark, "SELECT s FROM typed WHERE s = 1"))) == [
            " 1",
            "01",
            "1",
        ]
    with settings(spark, {"spark.sql.ansi.enabled": "true"}):
        assert error_class(spark, "SELECT s FROM typed WHERE s = 1") == "CAST_INVALID_INPUT"
    # A string literal compared to a date column is cast to a date: time of day is dropped.
    assert len(oracle.rows(spark, "SELECT * FROM typed WHERE dt = '2024-01-02 23:59'")) == 3
    # A timestamp equal to a date is one at midnight of that date.
    assert sorted(keys(oracle.rows(spark, "SELECT s FROM typed WHERE ts = dt"))) == [
        " 1",
        "1",
        "2024-01-02",
    ]
