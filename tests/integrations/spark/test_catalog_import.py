"""Specification: `sortlint catalog import` prints what Spark's catalog knows as catalog YAML,
and `--merge` writes it into a sortlint.yml keeping the user's declarations and comments,
reporting every disagreement instead of overwriting it."""

from __future__ import annotations

import textwrap

import pytest

from sortlint.config import load_config
from sortlint.config.model import Bucketing
from sortlint.integrations.spark.catalog_import import iceberg_sort_order
from spark_commands import run_cli
from spark_support import needs_spark, spark  # noqa: F401  (the session fixture)

CUSTOMERS = """\
  sales_import.customers:
    columns:
      customer_id: bigint
      name: string
    bucketing: {by: [customer_id], buckets: 4, sorted_by: [customer_id]}
"""
DAILY = """\
  sales_import.daily:
    columns:
      host: string
      requests: bigint
      label: string collate utf8_lcase
      day: date
    scope: partition
    partitioned_by: [day]  # each file holds one value of these (partition directories)
"""


@pytest.fixture(scope="module")
def tables(spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS sales_import")
    for table in ("customers", "daily", "typed"):
        spark.sql(f"DROP TABLE IF EXISTS sales_import.{table}")
    spark.range(20).selectExpr("id AS customer_id", "CAST(id AS STRING) AS name").write.bucketBy(
        4, "customer_id"
    ).sortBy("customer_id").saveAsTable("sales_import.customers")
    spark.sql(
        "CREATE TABLE sales_import.daily (host STRING, requests BIGINT, label STRING COLLATE UTF8_LCASE, "
        "day DATE) USING parquet PARTITIONED BY (day)"
    )
    spark.sql(
        "CREATE TABLE sales_import.typed (id INT NOT NULL, amount DECIMAL(12,2), tags ARRAY<STRING>, "
        "attrs MAP<STRING,INT>, s STRUCT<a: INT, b: STRING>, ts TIMESTAMP_NTZ) USING parquet"
    )


@needs_spark
def test_a_bucketed_and_a_partitioned_table(tables, capsys):
    code, out, err = run_cli(capsys, "catalog", "import", "sales_import.customers", "sales_import.daily")
    assert (code, err) == (0, "")
    assert out == "sources:\n" + CUSTOMERS + DAILY


@needs_spark
def test_a_whole_database_with_every_type_spark_reads(tables, capsys):
    code, out, _ = run_cli(capsys, "catalog", "import", "--database", "sales_import")
    assert code == 0
    # File-source tables are nullable whatever the DDL said: Spark reads `id` as nullable.
    assert out == "sources:\n" + CUSTOMERS + DAILY + (
        "  sales_import.typed:\n"
        "    columns:\n"
        "      id: int\n"
        "      amount: decimal(12,2)\n"
        "      tags: array<string>\n"
        "      attrs: map<string,int>\n"
        "      s: struct<a:int,b:string>\n"
        "      ts: timestamp_ntz\n"
    )


@needs_spark
def test_the_printed_catalog_is_a_valid_configuration(tables, capsys, tmp_path):
    _, out, _ = run_cli(capsys, "catalog", "import", "--database", "sales_import")
    path = tmp_path / "sortlint.yml"
    path.write_text(out)
    config = load_config(path)
    customers = config.source("sales_import.customers")
    assert customers.bucketing == Bucketing(("customer_id",), 4, ("customer_id",), customers.bucketing.location)
    daily = config.source("sales_import.daily")
    assert (daily.scope, daily.partitioned_by) == ("partition", ("day",))
    assert daily.column("label").type == "string collate utf8_lcase"


@needs_spark
def test_merge_keeps_the_users_declarations_and_reports_conflicts(tables, capsys, tmp_path):
    path = tmp_path / "sortlint.yml"
    path.write_text(
        textwrap.dedent(
            """\
            # Our warehouse.
            target: spark
            sources:
              sales_import.customers:   # hand-written
                columns:
                  customer_id: int not null   # we say int
                  nickname: string
                unique: [[customer_id]]
              other.table:
                orderings:
                  - [a]
            """
        )
    )
    code, out, err = run_cli(
        capsys, "catalog", "import", "sales_import.customers", "sales_import.daily", "--merge", str(path)
    )
    assert err == ""
    assert code == 1
    assert out == (
        f"conflict: {path}:6: sources.sales_import.customers.columns.customer_id: yours says int not null, "
        "Spark's catalog says bigint (kept yours)\n"
        f"conflict: {path}:7: sources.sales_import.customers.columns.nickname: the table has no such column (kept yours)\n"
        f"Merged 2 tables into {path}: 1 added, 2 declarations added, 2 conflicts.\n"
    )
    assert path.read_text() == textwrap.dedent(
        """\
        # Our warehouse.
        target: spark
        sources:
          sales_import.customers:   # hand-written
            columns:
              customer_id: int not null   # we say int
              nickname: string
              name: string
            unique: [[customer_id]]
            bucketing: {by: [customer_id], buckets: 4, sorted_by: [customer_id]}
          other.table:
            orderings:
              - [a]
        """
    ) + DAILY
    load_config(path)


@needs_spark
def test_merge_does_not_add_columns_the_users_declarations_contradict(tables, capsys, tmp_path):
    path = tmp_path / "sortlint.yml"
    original = "sources:\n  sales_import.customers:\n    orderings: [[signup]]\n"
    path.write_text(original)
    code, out, _ = run_cli(capsys, "catalog", "import", "sales_import.customers", "--merge", str(path))
    assert code == 1
    assert out.splitlines()[0] == (
        f"conflict: {path}:3: sources.sales_import.customers.orderings: names column(s) signup, which "
        "the table lacks; columns not imported (kept yours)"
    )
    assert path.read_text() == original + "    bucketing: {by: [customer_id], buckets: 4, sorted_by: [customer_id]}\n"


@needs_spark
def test_a_table_not_in_the_catalog_is_an_error(tables, capsys):
    code, out, err = run_cli(capsys, "catalog", "import", "sales_import.nope")
    assert (code, out) == (2, "")
    assert err == "error: table sales_import.nope is not in Spark's catalog\n"


def test_merge_refuses_a_broken_configuration(tmp_path, capsys):
    """Checked before Spark starts: a configuration sortlint cannot read is not merged into."""
    path = tmp_path / "sortlint.yml"
    path.write_text("sources:\n  t:\n    orderings: [[a sideways]]\n")
    code, out, err = run_cli(capsys, "catalog", "import", "t", "--merge", str(path))
    assert code == 2
    assert err == (
        f"error: {path}:3: bad direction 'sideways' in ordering item 'a sideways'; expected asc or desc\n"
    )


@pytest.mark.parametrize(
    ("text", "items", "dropped"),
    [
        ("", (), None),
        ("category ASC NULLS FIRST, id DESC NULLS LAST", ("category asc nulls first", "id desc nulls last"), None),
        ("`Event Id` ASC NULLS_LAST", (), "`Event Id` ASC NULLS_LAST"),
        ("ts ASC NULLS FIRST, bucket(16, id) ASC NULLS FIRST, x DESC NULLS LAST", ("ts asc nulls first",), "bucket(16, id) ASC NULLS FIRST"),
        ("days(ts) DESC NULLS LAST", (), "days(ts) DESC NULLS LAST"),
    ],
)
def test_an_iceberg_sort_order_keeps_its_leading_plain_columns(text, items, dropped):
    assert iceberg_sort_order(text) == (items, dropped)
