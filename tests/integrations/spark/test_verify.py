"""Specification: `sortlint verify` runs every statement a fix changes, before and after, on
Spark over the real tables, and says per statement whether schema and rows (and the ORDER BY
order) stayed the same. A fix resting on a declaration the data violates shows up as a
difference; a statement that writes is compared on its query and never written."""

from __future__ import annotations

import json
import textwrap

import pytest

from spark_commands import run_cli, write_config, write_files
from spark_support import NEEDS_SPARK, spark  # noqa: F401  (the session fixture)

pytestmark = NEEDS_SPARK


@pytest.fixture(scope="module")
def repository(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("verify")
    rows = [{"order_id": i, "customer_id": i % 4, "region": "EU"} for i in range(30)]
    write_files(base / "data" / "orders", [rows[:20], rows[20:]])
    spark.sql("CREATE DATABASE IF NOT EXISTS verify_test")
    spark.sql("DROP TABLE IF EXISTS verify_test.orders")
    spark.sql("DROP TABLE IF EXISTS verify_test.copy")
    # The same orders as a table, but order 5 (customer 1) is from the US: `region` is not
    # the constant the catalog says it is.
    table = [(r["order_id"], r["customer_id"], "US" if r["order_id"] == 5 else "EU") for r in rows]
    spark.createDataFrame(table, "order_id bigint, customer_id bigint, region string").repartition(3).write.saveAsTable(
        "verify_test.orders"
    )
    spark.sql("CREATE TABLE verify_test.copy (order_id bigint, region string) USING parquet")
    write_config(
        base,
        """
        sources:
          orders_files:
            location: data/orders
            columns: {order_id: bigint not null, customer_id: bigint, region: string}
            constants: {region: EU}
          verify_test.orders:
            columns: {order_id: bigint not null, customer_id: bigint, region: string}
            constants: {region: EU}
          orders_plain:
            location: data/orders
            columns: {order_id: bigint not null, customer_id: bigint, region: string}
          verify_test.copy:
            columns: {order_id: bigint, region: string}
        """,
    )
    sql = base / "sql"
    sql.mkdir()
    (sql / "by_customer.sql").write_text(
        "SELECT customer_id, count(*) AS n FROM orders_files GROUP BY customer_id, region ORDER BY customer_id;\n"
        "SELECT customer_id, count(*) AS n FROM verify_test.orders GROUP BY customer_id, region ORDER BY customer_id;\n"
    )
    (sql / "write.sql").write_text(
        "INSERT OVERWRITE TABLE verify_test.copy\n"
        "SELECT order_id, region FROM orders_plain WHERE region = 'EU' ORDER BY region, order_id;\n"
    )
    return base


def test_a_fix_that_holds_and_one_resting_on_a_violated_declaration(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    code, out, err = run_cli(capsys, "verify", "sql", "--unsafe-fixes")
    assert err == ""
    assert code == 1
    assert out == textwrap.dedent(
        """\
        sql/by_customer.sql:1: SL103 (line 1): same: same columns, rows and ORDER BY order; plan: same operators (predicted: same plan: a hash aggregate by fewer keys)
        sql/by_customer.sql:2: SL103 (line 2): different: the rows differ: (customer_id=1, n=1) 1× before, 0× after; (customer_id=1, n=7) 1× before, 0× after; (customer_id=1, n=8) 0× before, 1× after; plan: same operators (predicted: same plan: a hash aggregate by fewer keys)
        sql/write.sql:1: SL003 (line 2): same: same columns, rows and ORDER BY order; plan: same operators (predicted: same plan: an exchange and a sort by fewer keys)
        Verified 3 statements changed by safe and unsorted fixes: 2 same, 1 different, 0 not verified.
        """
    ).replace("unsorted", "unsafe")


def test_only_safe_fixes_without_unsafe_fixes_and_nothing_is_written(repository, capsys, monkeypatch, spark):
    monkeypatch.chdir(repository)
    code, out, _ = run_cli(capsys, "verify", "sql", "--output-format", "json")
    assert code == 0
    assert json.loads(out) == [
        {
            "path": "sql/write.sql",
            "line": 1,
            "fixes": ["SL003 (line 2)"],
            "verdict": "same",
            "evidence": "same columns, rows and ORDER BY order",
            # Spark plans the fixed statement with the same operators, as the finding predicts:
            # its exchange and sort by one key less, which operator counts cannot show.
            "effect": {
                "measured": {"removes": [], "adds": [], "lightens": []},
                "predicted": {"removes": [], "adds": [], "lightens": ["Exchange", "Sort"]},
                "worse": [],
            },
        }
    ]
    assert spark.table("verify_test.copy").count() == 0
    assert [v.name for v in spark.catalog.listTables() if v.name.startswith("sortlint_verify")] == []


def test_a_sample_of_every_table(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    code, out, _ = run_cli(capsys, "verify", "sql/write.sql", "--sample", "0.5")
    assert code == 0
    assert out.splitlines()[0] == (
        "sql/write.sql:1: SL003 (line 2): same: same columns, sample rows and ORDER BY order; plan: same operators "
        "(predicted: same plan: an exchange and a sort by fewer keys)")


def test_a_dataframe_pipeline_is_not_verified(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    job = repository / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession, functions as F\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "out = spark.table('orders_plain').where(F.col('region') == 'EU').orderBy('region', 'order_id')\n"
        "out.write.saveAsTable('verify_test.copy')\n"
    )
    try:
        code, out, _ = run_cli(capsys, "verify", "job.py")
    finally:
        job.unlink()
    assert code == 0
    assert out == (
        "job.py:3: SL003 (line 3): not verified: a DataFrame pipeline: verify runs SQL statements only\n"
        "Verified 1 statement changed by safe fixes: 0 same, 0 different, 1 not verified.\n"
    )


def test_a_statement_spark_cannot_run_is_not_verified(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    query = repository / "unknown.sql"
    query.write_text("SELECT a FROM nowhere WHERE a = 1 ORDER BY a, 1 + 0;\n")
    try:
        code, out, _ = run_cli(capsys, "verify", "unknown.sql")
    finally:
        query.unlink()
    assert code == 0
    assert out.splitlines()[0].startswith(
        "unknown.sql:1: SL003 (line 1): not verified: Spark cannot run it: [TABLE_OR_VIEW_NOT_FOUND]"
    )


def test_a_measured_plan_that_is_worse_says_so(spark):  # noqa: F811
    """`Effect.worse`, the rules' and the plan oracle's definition, marks what verify measured:
    issue 32's any_value over a string, 2 sorts more (predicted by no finding)."""
    from pathlib import Path

    from sortlint.integrations.spark.plan_effect import measured_effect
    from sortlint.integrations.spark.verify import Change, Result

    spark.range(0, 40, 1, 4).selectExpr("id % 7 AS k", "cast(id % 3 AS string) AS kind").createOrReplaceTempView("kinds")
    before = "SELECT kind, k, count(*) AS n FROM kinds GROUP BY kind, k ORDER BY k, kind"
    after = "SELECT any_value(kind) AS kind, k, count(*) AS n FROM kinds GROUP BY k ORDER BY k"
    result = Result(Change(Path("q.sql"), 1, "sql", before, after, ("SL103 (line 1)",)), "same", "same rows",
                    measured=measured_effect(spark, before, after))
    assert result.effect_words() == (
        "; plan: runs 2 sorts and 2 sort aggregates in place of 2 hash aggregates (predicted: none); worse"
    )
    assert result.as_json()["effect"]["worse"] == ["Sort", "Sort"]
