"""Specification: `sortlint contracts` checks every declaration against real tables on Spark.

The tables are small but real: several Parquet files per table (written out of size order,
so Spark's largest-first packing shows), NULLs, duplicates, tables Spark writes bucketed and
partitioned. Every status and every piece of evidence is asserted exactly."""

from __future__ import annotations

import datetime
import decimal
import math
from pathlib import Path

import pytest

from spark_commands import Capture, run_cli, run_json, write_config, write_files
from spark_support import NEEDS_SPARK, spark  # noqa: F401  (the session fixture)

pytestmark = NEEDS_SPARK


def rows(keys, **constant):
    return [{"k": k, "v": f"v{k}", **constant} for k in keys]


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory):
    """Every table the catalog below declares, and the catalog."""
    base = tmp_path_factory.mktemp("contracts")
    # Sorted files, each in order, ranges apart; the middle file is the largest.
    sorted_dir = base / "sorted"
    write_files(sorted_dir, [[{"k": None, "v": "n"}, *rows(range(0, 10))], rows(range(10, 200)), rows(range(200, 205))])
    # The second file has one pair out of order (rows 20 and 21).
    swapped = list(range(100, 160))
    swapped[20], swapped[21] = swapped[21], swapped[20]
    write_files(base / "one_out_of_order", [rows(range(0, 100)), rows(swapped)])
    # Each file in order, but the ranges overlap.
    write_files(base / "overlapping", [rows(range(0, 50)), rows(range(40, 60))])
    # Partition directories: every day's file is sorted by host except 2024-03-02's.
    daily = base / "daily"
    write_files(
        daily,
        [
            [{"host": h, "requests": i} for i, h in enumerate(["a", "b", "c"])],
            [{"host": h, "requests": i} for i, h in enumerate(["a", "c", "b", "d"])],
            [{"host": h, "requests": i} for i, h in enumerate(["b", "b", "e"])],
        ],
        names=["day=2024-03-01/part-0.parquet", "day=2024-03-02/part-0.parquet", "day=2024-03-03/part-0.parquet"],
    )
    spark.sql("CREATE DATABASE IF NOT EXISTS contracts_test")
    # A table Spark writes: two files; order_id 7 and 9 twice, one region 'US', one NULL host.
    orders = [(i, "EU", f"h{i % 3}") for i in range(40)] + [(7, "EU", "h1"), (9, "US", None), (9, "EU", "h0")]
    spark.createDataFrame(orders, "order_id bigint, region string, host string").repartition(2).write.mode(
        "overwrite"
    ).saveAsTable("contracts_test.orders")
    # Bucketed and sorted by Spark; and bucketed without sorting, rows written in reverse.
    customers = spark.range(60).selectExpr("id AS customer_id", "CAST(id % 5 AS STRING) AS country")
    customers.write.mode("overwrite").bucketBy(4, "customer_id").sortBy("customer_id").saveAsTable(
        "contracts_test.customers"
    )
    customers.write.mode("overwrite").bucketBy(4, "customer_id").saveAsTable("contracts_test.customers_unsorted")
    # Bucket files as Spark names them, each holding its bucket's rows (Spark's own hash), in
    # descending order; and the same with one row in the wrong bucket file.
    buckets: dict[int, list[dict]] = {}
    for row in spark.range(60).selectExpr("id", "pmod(hash(id), 4) AS bucket").collect():
        buckets.setdefault(row["bucket"], []).append({"customer_id": row["id"]})
    names = [f"part-00000-x_{b:05d}.c000.parquet" for b in sorted(buckets)]
    write_files(base / "unsorted_buckets", [sorted(buckets[b], key=lambda r: -r["customer_id"]) for b in sorted(buckets)], names)
    misplaced = [sorted(buckets[b], key=lambda r: r["customer_id"]) for b in sorted(buckets)]
    misplaced[1].append(misplaced[2].pop())
    write_files(base / "misplaced_buckets", misplaced, names)
    config = write_config(
        base,
        f"""
        sources:
          sorted:
            location: {sorted_dir}
            columns: {{k: bigint, v: string}}
            orderings: [[k]]
            unique: [[k]]
          one_out_of_order:
            location: one_out_of_order
            orderings: [[k]]
          overlapping:
            location: overlapping
            orderings: [[k]]
          overlapping_per_file:
            location: overlapping
            orderings: [[k]]
            scope: partition
          daily:
            location: daily
            columns: {{host: string, requests: bigint, day: date}}
            orderings: [[host]]
            scope: partition
            partitioned_by: [day]
          contracts_test.orders:
            columns: {{order_id: bigint not null, region: string, host: string not null}}
            unique: [[order_id], [order_id, region]]
            constants: {{region: EU}}
          contracts_test.customers:
            columns: {{customer_id: int, country: string, signup: date}}
            bucketing: {{by: [customer_id], buckets: 4, sorted_by: [customer_id]}}
          contracts_test.customers_unsorted:
            bucketing: {{by: [customer_id], buckets: 4, sorted_by: [customer_id]}}
          unsorted_buckets:
            location: unsorted_buckets
            bucketing: {{by: [customer_id], buckets: 4, sorted_by: [customer_id]}}
          misplaced_buckets:
            location: misplaced_buckets
            bucketing: {{by: [customer_id], buckets: 4}}
          contracts_test.customers_as_eight:
            bucketing: {{by: [customer_id], buckets: 8}}
          contracts_test.missing:
            unique: [[id]]
        """,
    )
    customers.write.mode("overwrite").bucketBy(4, "customer_id").sortBy("customer_id").saveAsTable(
        "contracts_test.customers_as_eight"
    )
    return base, config


@pytest.fixture(scope="module")
def outcomes(warehouse, capsys_module):
    base, config = warehouse
    code, result = run_json(capsys_module, "contracts", "--config", str(config))
    return code, {(o["table"], o["kind"], o["declaration"]): (o["status"], o["evidence"]["text"]) for o in result}, result


@pytest.fixture(scope="module")
def capsys_module():
    import contextlib

    capture = Capture()
    with contextlib.redirect_stdout(capture.out), contextlib.redirect_stderr(capture.err):
        yield capture


def file_uri(path: Path) -> str:
    return f"file:{path}"


def test_spark_reads_a_multi_file_table_largest_file_first(spark, warehouse):
    """The premise of the layout check: a plain read interleaves files; with the job's
    settings every file is one task, read whole and in stored order."""
    from sortlint.integrations.spark.contracts import _whole_files

    base, _ = warehouse
    before = spark.conf.get("spark.sql.files.maxPartitionBytes")
    plain = [r["k"] for r in spark.read.parquet(str(base / "sorted")).collect()]
    assert plain[:3] == [10, 11, 12]  # the largest file (keys 10..199) comes first
    with _whole_files(spark):
        frame = spark.read.parquet(str(base / "sorted"))
        tasks = frame.select("k", "_metadata.file_name").rdd.glom().collect()
    assert [[r["file_name"] for r in task][:1] for task in tasks] == [
        ["part-00001.parquet"],
        ["part-00000.parquet"],
        ["part-00002.parquet"],
    ]
    assert [[r["k"] for r in task] for task in tasks] == [
        list(range(10, 200)),
        [None, *range(0, 10)],
        list(range(200, 205)),
    ]
    # The settings are the session's own again afterwards.
    assert spark.conf.get("spark.sql.files.maxPartitionBytes") == before


def test_exit_code_is_one_when_a_declaration_is_violated(outcomes):
    code, _, _ = outcomes
    assert code == 1


def test_one_object_per_declaration_in_catalog_order(outcomes):
    _, _, result = outcomes
    assert [(o["table"], o["kind"], o["declaration"], o["status"]) for o in result] == [
        ("sorted", "columns", "k bigint, v string", "holds"),
        ("sorted", "unique", "(k)", "holds"),
        ("sorted", "ordering", "[k ASC NULLS FIRST]", "holds"),
        ("one_out_of_order", "ordering", "[k ASC NULLS FIRST]", "violated"),
        ("overlapping", "ordering", "[k ASC NULLS FIRST]", "violated"),
        ("overlapping_per_file", "ordering", "[k ASC NULLS FIRST] within each partition", "holds"),
        ("daily", "columns", "host string, requests bigint, day date", "holds"),
        ("daily", "ordering", "[host ASC NULLS FIRST] within partitions of (day)", "violated"),
        ("contracts_test.orders", "columns", "order_id bigint not null, region string, host string not null", "holds"),
        ("contracts_test.orders", "not_null", "order_id", "holds"),
        ("contracts_test.orders", "not_null", "host", "violated"),
        ("contracts_test.orders", "constant", "region = 'EU'", "violated"),
        ("contracts_test.orders", "unique", "(order_id)", "violated"),
        ("contracts_test.orders", "unique", "(order_id, region)", "violated"),
        ("contracts_test.customers", "columns", "customer_id int, country string, signup date", "violated"),
        ("contracts_test.customers", "bucketing", "by (customer_id) into 4 buckets, sorted by (customer_id)", "holds"),
        ("contracts_test.customers_unsorted", "bucketing", "by (customer_id) into 4 buckets, sorted by (customer_id)", "violated"),
        ("unsorted_buckets", "bucketing", "by (customer_id) into 4 buckets, sorted by (customer_id)", "violated"),
        ("misplaced_buckets", "bucketing", "by (customer_id) into 4 buckets", "violated"),
        ("contracts_test.customers_as_eight", "bucketing", "by (customer_id) into 8 buckets", "violated"),
        ("contracts_test.missing", "unique", "(id)", "not_checked"),
    ]


def test_sorted_files_whose_ranges_do_not_overlap_hold_a_global_ordering(outcomes):
    _, found, _ = outcomes
    assert found[("sorted", "ordering", "[k ASC NULLS FIRST]")] == (
        "holds",
        "3 files, 206 rows; every file in order and the files' key ranges do not overlap",
    )
    assert found[("sorted", "unique", "(k)")] == ("holds", "no two of 206 rows share a key")


def test_a_file_out_of_order_names_the_file_and_the_first_pair(outcomes, warehouse):
    base, _ = warehouse
    _, found, _ = outcomes
    file = file_uri(base / "one_out_of_order" / "part-00001.parquet")
    assert found[("one_out_of_order", "ordering", "[k ASC NULLS FIRST]")] == (
        "violated",
        f"{file}: rows 21 (k=121) and 22 (k=120) are out of order (rows counted from 1, as stored); "
        "1 out-of-order neighbour in 1 of 2 files",
    )


def test_overlapping_ranges_violate_a_global_ordering_but_not_a_per_file_one(outcomes, warehouse):
    base, _ = warehouse
    _, found, _ = outcomes
    first, second = (file_uri(base / "overlapping" / f"part-0000{i}.parquet") for i in (0, 1))
    assert found[("overlapping", "ordering", "[k ASC NULLS FIRST]")] == (
        "violated",
        f"the key ranges of {first} (k=0 … k=49) and {second} (k=40 … k=59) overlap: "
        "no order of the files reads the table in order",
    )
    assert found[("overlapping_per_file", "ordering", "[k ASC NULLS FIRST] within each partition")] == (
        "holds",
        "2 files, 70 rows; every file in order",
    )


def test_a_partition_scoped_ordering_is_checked_in_every_partition_file(outcomes, warehouse):
    base, _ = warehouse
    _, found, _ = outcomes
    file = file_uri(base / "daily" / "day=2024-03-02" / "part-0.parquet")
    assert found[("daily", "ordering", "[host ASC NULLS FIRST] within partitions of (day)")] == (
        "violated",
        f"{file}: rows 2 (host='c') and 3 (host='b') are out of order (rows counted from 1, as stored); "
        "1 out-of-order neighbour in 1 of 3 files",
    )


def test_rows_of_spark_written_tables(outcomes):
    _, found, _ = outcomes
    table = "contracts_test.orders"
    assert found[(table, "not_null", "order_id")] == ("holds", "43 rows, none NULL")
    assert found[(table, "not_null", "host")] == ("violated", "1 of 43 rows have NULL in host")
    assert found[(table, "constant", "region = 'EU'")] == ("violated", "1 of 43 rows hold another value: 'US' (1)")
    assert found[(table, "unique", "(order_id)")] == (
        "violated",
        "2 keys are shared by several of 43 rows: (order_id=9) × 3; (order_id=7) × 2",
    )
    assert found[(table, "unique", "(order_id, region)")] == (
        "violated",
        "2 keys are shared by several of 43 rows: (order_id=7, region='EU') × 2; (order_id=9, region='EU') × 2",
    )


def test_declared_columns_against_the_schema(outcomes):
    _, found, _ = outcomes
    assert found[("contracts_test.customers", "columns", "customer_id int, country string, signup date")] == (
        "violated",
        "column customer_id is bigint, declared int; column signup is missing",
    )


def test_bucketed_tables(outcomes, warehouse):
    _, found, _ = outcomes
    spec = "by (customer_id) into 4 buckets, sorted by (customer_id)"
    assert found[("contracts_test.customers", "bucketing", spec)] == (
        "holds",
        "4 files, 60 rows; every file holds one bucket; every bucket file sorted",
    )
    assert found[("contracts_test.customers_unsorted", "bucketing", spec)] == (
        "violated",
        "Spark's catalog says: by (customer_id) into 4 buckets",
    )
    base, _ = warehouse
    status, evidence = found[("unsorted_buckets", "bucketing", spec)]
    assert status == "violated"
    assert evidence.startswith(f"file:{base}/unsorted_buckets/part-00000-x_00000.c000.parquet: rows 1 (customer_id=")
    assert evidence.endswith("out-of-order neighbours in 4 of 4 files")
    assert found[("misplaced_buckets", "bucketing", "by (customer_id) into 4 buckets")] == (
        "violated",
        f"file:{base}/misplaced_buckets/part-00000-x_00001.c000.parquet is bucket 1 but holds rows of "
        "bucket 1 to 2 (pmod(hash(customer_id), 4))",
    )
    assert found[("contracts_test.customers_as_eight", "bucketing", "by (customer_id) into 8 buckets")] == (
        "violated",
        "Spark's catalog says: by (customer_id) into 4 buckets, sorted by (customer_id)",
    )


def test_a_table_spark_cannot_read_is_not_checked(outcomes):
    _, found, _ = outcomes
    assert found[("contracts_test.missing", "unique", "(id)")] == (
        "not_checked",
        "Spark cannot read table contracts_test.missing: [TABLE_OR_VIEW_NOT_FOUND] The table or view "
        "`contracts_test`.`missing` cannot be found. Verify the spelling and correctness of the "
        "schema and catalog.",
    )


def test_text_output_one_line_per_declaration_and_a_summary(warehouse, capsys):
    base, config = warehouse
    code, out, _ = run_cli(capsys, "contracts", "--config", str(config), "--table", "sorted", "--table", "overlapping")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{config}:2: sorted: columns k bigint, v string: holds: 2 columns, names and types as declared"
    assert lines[2] == (
        f"{config}:5: sorted: ordering [k ASC NULLS FIRST]: holds: 3 files, 206 rows; every file in "
        "order and the files' key ranges do not overlap"
    )
    assert lines[-1] == "Checked 4 declarations of 2 tables: 3 hold, 1 violated, 0 not checked."


def test_a_sample_says_so(warehouse, capsys):
    base, config = warehouse
    code, result = run_json(capsys, "contracts", "--config", str(config), "--table", "sorted", "--sample", "0.5")
    assert code == 0
    ordering = next(o for o in result if o["kind"] == "ordering")
    assert ordering["status"] == "holds"
    assert "rows of a 0.5 sample; every file in order" in ordering["evidence"]["text"]
    assert ordering["evidence"]["sample"] == 0.5


def test_an_unknown_table_is_a_usage_error(warehouse, capsys):
    _, config = warehouse
    code, out, err = run_cli(capsys, "contracts", "--config", str(config), "--table", "nope")
    assert code == 2
    assert err == f"error: --table nope: no such source in the catalog ({config})\n"


def test_json_evidence_is_data_with_where_the_declaration_is(outcomes, warehouse):
    """Rows counted from 1, key values as JSON values, the declaration's file and line."""
    base, config = warehouse
    _, _, result = outcomes
    by_key = {(o["table"], o["kind"], o["declaration"]): o for o in result}
    disorder = by_key[("one_out_of_order", "ordering", "[k ASC NULLS FIRST]")]
    assert disorder["declared_at"] == {"file": str(config), "line": 9}
    assert {k: v for k, v in disorder["evidence"].items() if k != "text"} == {
        "rows": 160, "file": file_uri(base / "one_out_of_order" / "part-00001.parquet"),
        "rows_out_of_order": [21, 22], "keys": [{"k": 121}, {"k": 120}], "rows_counted": "as stored",
        "out_of_order": 1, "files_out_of_order": 1, "files": 2,
    }
    unique = by_key[("contracts_test.orders", "unique", "(order_id, region)")]
    assert {k: v for k, v in unique["evidence"].items() if k != "text"} == {
        "rows": 43, "shared_keys": 2, "examples": [
            {"key": {"order_id": 7, "region": "EU"}, "rows": 2},
            {"key": {"order_id": 9, "region": "EU"}, "rows": 2},
        ],
    }


@pytest.mark.parametrize("value", [
    None, True, 7, -2.5, 1e-05, float("nan"), float("-inf"), "it's a \\ and ' quote",
    datetime.datetime(2024, 1, 1, 0, 11, 5, 120), datetime.date(2024, 1, 15), decimal.Decimal("10.20"),
    b"\x00\xff",
], ids=repr)
def test_a_value_in_evidence_is_a_literal_spark_reads_back_as_the_value(spark, value):
    from sortlint.integrations.spark.contracts import sql_literal

    [row] = spark.sql(f"SELECT {sql_literal(value)} AS v").collect()
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(row["v"])
    else:
        assert row["v"] == value and type(row["v"]) is type(value)
