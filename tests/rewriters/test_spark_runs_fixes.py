"""Spark accepts every fixed statement (issue 20, item 5), and what SL103's literal-key rules
rest on is what Spark does (item 1).

The statements below are fixed by `sortlint check --fix --unsafe-fixes`, each in its own
file: fixes that drop GROUP BY and ORDER BY positions, rewrite select items (`any_value`, a
kept constant, the kept one of two equal keys), drop a repeated key, or reorder the keys.
Every fixed statement must be the expected text, Spark must plan it (`EXPLAIN` without an
error: a GROUP BY position naming an aggregate fails there), and on small tables with
duplicates and NULLs - which honour the catalog, so unsafe fixes hold too - it must return
the rows the original returns, in an order the original's ORDER BY allows.

(test_spark_proof.py proves the fixes of examples/ and of test_fixes.py's shapes the same
way on generated data; the fuzzers in tests/fuzz/ generate GROUP BY ordinals but no literal
keys.)
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pytest

import spark_oracle as oracle
import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.cli import main
from sortlint.integrations.spark.plan_effect import measured_effect

pytestmark = spark_support.NEEDS_SPARK

DB = "fix_runs"
CATALOG = f"""\
target: spark
spark: {{legacy_bucketed_scan_ordering: true}}
sources:
  {DB}.events:
    columns: {{event_id: bigint not null, host: string not null, level: string, latency_ms: int}}
    unique: [[event_id]]
  {DB}.orders:
    columns: {{order_id: bigint not null, code: string, qty: bigint, day: date, amount: "decimal(12,2)"}}
  {DB}.customers:
    columns: {{customer_id: bigint not null, region: string not null, name: string}}
    bucketing: {{by: [customer_id], buckets: 4, sorted_by: [customer_id, region]}}
  {DB}.tickets:
    columns: {{id: bigint not null, kind: string not null, tier: bigint not null, channel: string}}
"""
TABLES = {
    "events": (
        "event_id BIGINT NOT NULL, host STRING NOT NULL, level STRING, latency_ms INT",
        "",
        "(1, 'a', 'x', 10), (2, 'a', 'x', 10), (3, 'a', NULL, NULL), (4, 'b', 'x', 5), (5, 'b', NULL, 7), "
        "(6, 'a', 'y', 10), (7, 'c', 'x', NULL), (8, 'a', 'y', NULL), (9, 'b', 'x', 5)",
    ),
    "orders": (
        "order_id BIGINT NOT NULL, code STRING, qty BIGINT, day DATE, amount DECIMAL(12,2)",
        "",
        "(1, 'p', 1, DATE '2024-01-02', 2.50), (2, 'p', 1, NULL, NULL), (3, NULL, 1, DATE '2024-01-02', 2.50), "
        "(4, 'q', 2, DATE '2024-01-03', 1.00), (5, 'q', NULL, DATE '2024-01-02', NULL), "
        "(6, 'p', 1, DATE '2024-01-02', 2.50), (7, NULL, NULL, NULL, 2.50)",
    ),
    "customers": (
        "customer_id BIGINT NOT NULL, region STRING NOT NULL, name STRING",
        "CLUSTERED BY (customer_id) SORTED BY (customer_id, region) INTO 4 BUCKETS",
        "(1, 'EU', 'ann'), (1, 'US', 'bob'), (2, 'EU', NULL), (3, 'DE', 'cy'), (3, 'DE', 'cy'), (4, 'EU', NULL)",
    ),
}

ASC, DESC = (False, True), (True, False)  # (descending, nulls_first): Spark's defaults


@dataclass(frozen=True)
class Case:
    before: str
    after: str  # the exact text --fix --unsafe-fixes leaves
    order: tuple[tuple[int, bool, bool], ...] = ()  # the original's ORDER BY over output positions
    total_order: bool = False  # the ORDER BY orders every row (a LIMIT picks the same ones)


E, O, C = f"{DB}.events", f"{DB}.orders", f"{DB}.customers"
CASES = {
    # GROUP BY positions
    "literal_positions_unchanged": Case(
        f"SELECT event_id, '-' AS entry_type, '-' AS body, min(latency_ms) AS first FROM {E} GROUP BY 1, 2, 3",
        f"SELECT event_id, '-' AS entry_type, '-' AS body, min(latency_ms) AS first FROM {E} GROUP BY 1, 2, 3",
    ),
    "constant_beside_literal_positions": Case(
        f"SELECT host, '-' AS entry_type, level, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY 1, 2, 3",
        f"SELECT 'a' AS host, '-' AS entry_type, level, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY 2, 3",
    ),
    "constant_with_only_literals_beside_it_unchanged": Case(
        f"SELECT host, '-' AS entry_type, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY 1, 2",
        f"SELECT host, '-' AS entry_type, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY 1, 2",
    ),
    "repeated_constant_positions": Case(
        f"SELECT code, qty, qty AS q2, count(*) AS n FROM {O} WHERE qty = 1 GROUP BY 1, 2, 3",
        f"SELECT code, CAST(1 AS BIGINT) AS qty, CAST(1 AS BIGINT) AS q2, count(*) AS n FROM {O} WHERE qty = 1 "
        "GROUP BY 1",
    ),
    "any_value_by_position": Case(
        f"SELECT event_id, latency_ms, count(*) AS n FROM {E} GROUP BY 1, 2 ORDER BY 1",
        f"SELECT event_id, any_value(latency_ms) AS latency_ms, count(*) AS n FROM {E} GROUP BY 1 ORDER BY 1",
        order=((0, *ASC),),
    ),
    # any_value of a string would make the aggregate a SortAggregate: the key stays.
    "string_key_kept": Case(
        f"SELECT event_id, level, count(*) AS n FROM {E} GROUP BY 1, 2 ORDER BY 1",
        f"SELECT event_id, level, count(*) AS n FROM {E} GROUP BY 1, 2 ORDER BY 1",
        order=((0, *ASC),),
    ),
    "any_value_by_alias": Case(
        f"SELECT event_id, latency_ms + 1 AS l1, count(*) AS n FROM {E} GROUP BY event_id, l1",
        f"SELECT event_id, any_value(latency_ms + 1) AS l1, count(*) AS n FROM {E} GROUP BY event_id",
    ),
    "kept_date_constant_by_position": Case(
        f"SELECT day, code, count(*) AS n FROM {O} WHERE day = '2024-01-02' GROUP BY 1, 2 ORDER BY 2",
        f"SELECT DATE '2024-01-02' AS day, code, count(*) AS n FROM {O} WHERE day = '2024-01-02' GROUP BY 2 "
        "ORDER BY 2",
        order=((1, *ASC),),
    ),
    "kept_decimal_constant": Case(
        f"SELECT amount, code, count(*) AS n FROM {O} WHERE amount = 2.5 GROUP BY amount, code",
        f"SELECT CAST(2.5 AS DECIMAL(12,2)) AS amount, code, count(*) AS n FROM {O} WHERE amount = 2.5 GROUP BY code",
    ),
    "kept_equal_key_by_position": Case(
        f"SELECT o.code, p.code AS code2, count(*) AS n FROM {O} o JOIN {O} p ON o.code = p.code GROUP BY 1, 2",
        f"SELECT o.code, o.code AS code2, count(*) AS n FROM {O} o JOIN {O} p ON o.code = p.code GROUP BY 1",
    ),
    "repeated_key_beside_a_unique_key": Case(
        f"SELECT event_id, latency_ms, count(*) AS n FROM {E} GROUP BY event_id, latency_ms, latency_ms",
        f"SELECT event_id, any_value(latency_ms) AS latency_ms, count(*) AS n FROM {E} GROUP BY event_id",
    ),
    "repeated_string_key_beside_a_unique_key": Case(
        f"SELECT event_id, level, count(*) AS n FROM {E} GROUP BY event_id, level, level",
        f"SELECT event_id, level, count(*) AS n FROM {E} GROUP BY event_id, level",
    ),
    "literal_key_and_a_sole_constant_key": Case(
        f"SELECT host, max(latency_ms) AS m FROM {E} WHERE host = 'b' GROUP BY host, 'k' ORDER BY 1, 2",
        f"SELECT host, max(latency_ms) AS m FROM {E} WHERE host = 'b' GROUP BY host, 'k' ORDER BY 2",
        order=((0, *ASC), (1, *ASC)),
    ),
    # ORDER BY positions
    "constant_order_position": Case(
        f"SELECT host, level, latency_ms FROM {E} WHERE host = 'a' ORDER BY 1, 2, 3",
        f"SELECT host, level, latency_ms FROM {E} WHERE host = 'a' ORDER BY 2, 3",
        order=((0, *ASC), (1, *ASC), (2, *ASC)),
    ),
    "repeated_order_position": Case(
        f"SELECT event_id, host, level FROM {E} ORDER BY 2, 3 DESC, 2 DESC",
        f"SELECT event_id, host, level FROM {E} ORDER BY 2, 3 DESC",
        order=((1, *ASC), (2, *DESC), (1, *DESC)),
    ),
    "group_and_order_positions": Case(
        f"SELECT host, level, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY host, level ORDER BY 1, 3 DESC, 2",
        f"SELECT 'a' AS host, level, count(*) AS n FROM {E} WHERE host = 'a' GROUP BY level ORDER BY 3 DESC, 2",
        order=((0, *ASC), (2, *DESC), (1, *ASC)),
    ),
    "constant_key_named_by_group_and_order_positions": Case(
        f"SELECT level, host, count(*) AS n FROM {E} WHERE level = 'x' GROUP BY 1, 2 ORDER BY 2 DESC, 1",
        f"SELECT 'x' AS level, host, count(*) AS n FROM {E} WHERE level = 'x' GROUP BY 2 ORDER BY 2 DESC",
        order=((1, *DESC), (0, *ASC)),
    ),
    "repeated_sort_key_beside_a_unique_key": Case(
        f"SELECT * FROM {E} ORDER BY host DESC, event_id DESC, latency_ms NULLS LAST, latency_ms ASC LIMIT 3",
        f"SELECT * FROM {E} ORDER BY host DESC, event_id DESC LIMIT 3",
        total_order=True,
    ),
    # Reordered keys
    "reordered_group_keys": Case(
        f"SELECT region, customer_id, count(*) AS n FROM {C} GROUP BY region, customer_id",
        f"SELECT region, customer_id, count(*) AS n FROM {C} GROUP BY customer_id, region",
    ),
}


@pytest.fixture(scope="module")
def tables(spark):
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
    for name, (columns, layout, rows) in TABLES.items():
        spark.sql(f"DROP TABLE IF EXISTS {DB}.{name}")
        spark.sql(f"CREATE TABLE {DB}.{name} ({columns}) USING parquet {layout}")
        spark.sql(f"INSERT INTO {DB}.{name} VALUES {rows}")
    return spark


@pytest.fixture(scope="module")
def fixed(tmp_path_factory) -> dict[str, str]:
    """Each case's statement after `sortlint check --fix --unsafe-fixes`, each in its own file."""
    root = tmp_path_factory.mktemp("fix-runs")
    (root / "sortlint.yml").write_text(CATALOG)
    paths = {}
    for name, case in CASES.items():
        paths[name] = root / f"{name}.sql"
        paths[name].write_text(case.before + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["check", "--fix", "--unsafe-fixes", "."]) in (0, 1)
    return {name: path.read_text().rstrip("\n") for name, path in paths.items()}


def explain(spark, sql: str) -> str:
    """Spark's plans of a statement; a statement Spark refuses fails here."""
    plan = "\n".join(row[0] for row in spark.sql(f"EXPLAIN EXTENDED {sql}").collect())
    assert not plan.startswith("Error occurred"), f"Spark refuses\n{sql}\n{plan}"
    return plan


def rows(spark, sql: str) -> list[tuple]:
    return [tuple(row) for row in spark.sql(sql).collect()]


def test_most_cases_are_changed_by_the_fixes():
    changed = [name for name, case in CASES.items() if case.before != case.after]
    assert len(changed) >= 14


@pytest.mark.parametrize("name", CASES)
def test_the_fixed_statement_is_the_expected_text(fixed, name):
    assert fixed[name] == CASES[name].after


@pytest.mark.parametrize("name", CASES)
def test_spark_plans_the_fixed_statement_and_returns_the_same_rows(tables, fixed, name):
    case = CASES[name]
    explain(tables, fixed[name])
    before, after = rows(tables, case.before), rows(tables, fixed[name])
    assert before, "vacuous: the original returns no rows on these tables"
    assert Counter(after) == Counter(before)
    assert spark_support.is_sorted_by(after, case.order)
    if case.total_order:
        assert after == before


# ---------------------------------------------------------------------------------------------
# No fix makes Spark's plan worse (issue 32)

# Operators that cost a pass over the rows, or a shuffle.
COSTS = ("Sort", "ShuffleExchange", "BroadcastExchange", "SortAggregate", "ObjectHashAggregate")


def plan_costs(spark, sql: str) -> Counter:
    with oracle.settings(spark, {"spark.sql.shuffle.partitions": "4"}):
        return Counter(node for node in oracle.physical_nodes(spark, sql) if node in COSTS)


@pytest.mark.parametrize("name", CASES)
def test_no_fix_makes_the_plan_worse(tables, fixed, name):
    # `Effect.worse`, the rules' and the plan oracle's one definition: SL101's fix makes an
    # aggregate stream over rows Spark already has sorted, a SortAggregate with no Sort more.
    with oracle.settings(tables, {"spark.sql.shuffle.partitions": "4"}):
        effect = measured_effect(tables, CASES[name].before, fixed[name])
    assert not effect.worse(), effect


T = f"{DB}.tickets"
# Another file writes the table the readers below group: kind and tier are constant in it.
UPSTREAM = f"CREATE TABLE {DB}.emails AS SELECT id, kind, tier, channel FROM {T} WHERE kind = 'email' AND tier = 2;\n"
CONSTANT_KEYS = {
    # The statement: SL003 drops kind from ORDER BY; any_value(kind) would make both
    # aggregates SortAggregates, with a sort before each - kind stays grouped.
    "string_from_another_file": (
        f"SELECT kind, channel, count(*) AS n FROM {DB}.emails GROUP BY kind, channel ORDER BY channel, kind",
        f"SELECT kind, channel, count(*) AS n FROM {DB}.emails GROUP BY kind, channel ORDER BY channel",
    ),
    "bigint_from_another_file": (
        f"SELECT tier, channel, count(*) AS n FROM {DB}.emails GROUP BY tier, channel ORDER BY channel, tier",
        f"SELECT any_value(tier) AS tier, channel, count(*) AS n FROM {DB}.emails GROUP BY channel ORDER BY channel",
    ),
    "string_from_the_query": (
        f"SELECT kind, channel, count(*) AS n FROM {T} WHERE kind = 'chat' GROUP BY kind, channel "
        "ORDER BY channel, kind",
        f"SELECT 'chat' AS kind, channel, count(*) AS n FROM {T} WHERE kind = 'chat' GROUP BY channel "
        "ORDER BY channel",
    ),
}
HASHED = ["HashAggregate(Final)", "HashAggregate(Partial)"]


@pytest.fixture(scope="module")
def tickets(tables):
    """`tickets` in four files, and `emails`, written from it by UPSTREAM."""
    rows = [(i, ["email", "chat", "sms"][i % 3], i % 2 + 1, [None, "web", "phone", "mail"][i % 4]) for i in range(400)]
    frame = tables.createDataFrame(rows, "id bigint, kind string, tier bigint, channel string")
    frame.repartition(4).write.mode("overwrite").saveAsTable(T)
    tables.sql(f"DROP TABLE IF EXISTS {DB}.emails")
    tables.sql(UPSTREAM.rstrip(";\n"))
    return tables


@pytest.fixture(scope="module")
def constant_keys_fixed(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("constant-keys")
    (root / "sortlint.yml").write_text(CATALOG)
    (root / "a_create.sql").write_text(UPSTREAM)
    for name, (before, _) in CONSTANT_KEYS.items():
        (root / f"c_{name}.sql").write_text(before + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["check", "--fix", "--unsafe-fixes", "."]) in (0, 1)
    return {name: (root / f"c_{name}.sql").read_text().rstrip("\n") for name in CONSTANT_KEYS}


@pytest.mark.parametrize("name", CONSTANT_KEYS)
def test_a_constant_group_key_is_dropped_only_where_spark_still_hashes(tickets, constant_keys_fixed, name):
    before, after = CONSTANT_KEYS[name]
    fixed = constant_keys_fixed[name]
    # Before: one sort (the ORDER BY), its range exchange and the aggregate's hash exchange.
    assert plan_costs(tickets, before) == Counter({"Sort": 1, "ShuffleExchange": 2})
    assert plan_costs(tickets, fixed) == Counter({"Sort": 1, "ShuffleExchange": 2})
    assert oracle.aggregate_kind(tickets, fixed) == HASHED
    assert fixed == after
    got, expected = rows(tickets, fixed), rows(tickets, before)
    assert expected and Counter(got) == Counter(expected)
    assert spark_support.is_sorted_by(got, ((1, *ASC),))


def test_any_value_of_a_string_key_makes_spark_sort_to_aggregate(tickets):
    # What the fix wrote before: the plan, two more sorts and two SortAggregates.
    old_fix = f"SELECT any_value(kind) AS kind, channel, count(*) AS n FROM {DB}.emails GROUP BY channel ORDER BY channel"
    assert plan_costs(tickets, old_fix) == Counter({"Sort": 3, "ShuffleExchange": 2, "SortAggregate": 2})
    assert oracle.aggregate_kind(tickets, old_fix) == ["SortAggregate(Final)", "SortAggregate(Partial)"]


# ---------------------------------------------------------------------------------------------
# What SL103's rules for literal keys rest on


def test_ordinals_are_on_by_default(tables):
    for setting in ("spark.sql.groupByOrdinal", "spark.sql.orderByOrdinal"):
        assert rows(tables, f"SET {setting}") == [(setting, "true")]


def test_spark_drops_literal_group_keys_itself(tables):
    # The optimized plan groups by event_id alone: RemoveLiteralFromGroupExpressions (and
    # constant folding first, for keys that are functions of literals).
    for sql in (
        CASES["literal_positions_unchanged"].before,
        f"SELECT event_id, count(*) AS n FROM {E} GROUP BY event_id, 'x', 1 + 1, CAST('1' AS INT), DATE '2024-01-01'",
    ):
        optimized = explain(tables, sql).split("== Optimized Logical Plan ==")[1]
        keys = re.search(r"Aggregate \[([^\]]*)\]", optimized).group(1)
        assert re.fullmatch(r"event_id#\d+L?", keys), optimized


def test_a_group_by_position_naming_an_aggregate_is_refused(tables):
    # What SL103's fix made of the issue's statement before: GROUP BY 3 names any_value('-').
    sql = f"SELECT event_id, any_value('-') AS entry_type, any_value('-') AS body, min(latency_ms) AS first FROM {E} GROUP BY 1, 3"
    plan = "\n".join(row[0] for row in tables.sql(f"EXPLAIN {sql}").collect())
    assert "GROUP_BY_POS_AGGREGATE" in plan


def test_positions_naming_literals_are_the_literals(tables):
    # An integer literal named by a position is a value, not another position (5 is out of
    # range): a constant key, one group per event_id; ORDER BY 2 sorts by the constant.
    assert len(rows(tables, f"SELECT event_id, 5 AS c, count(*) AS n FROM {E} GROUP BY 1, 2")) == 9
    assert rows(tables, f"SELECT event_id, 'x' AS c FROM {E} WHERE event_id < 3 ORDER BY 2, 1") == [(1, "x"), (2, "x")]


def test_a_group_by_of_constants_returns_no_row_on_an_empty_input(tables):
    # Why SL103 has no fix when every other key is redundant: without the GROUP BY, one row.
    empty = f"(SELECT * FROM {E} WHERE host = 'none')"
    assert rows(tables, f"SELECT 'x' AS k, count(*) AS n FROM {empty} GROUP BY k") == []
    assert rows(tables, f"SELECT host, '-' AS k, count(*) AS n FROM {empty} GROUP BY 1, 2") == []
    assert rows(tables, f"SELECT host, count(*) AS n FROM {empty} GROUP BY host") == []
    assert rows(tables, f"SELECT 'x' AS k, count(*) AS n FROM {empty}") == [("x", 0)]
