"""What Spark does with the rows of a generator (`explode`, `posexplode`, `stack`, LATERAL VIEW):
the facts `sortlint.engines.operators.generate` rests on, checked on the local Spark.

* A generator is planned as `GenerateExec`, which maps each partition's rows in order: every
  input row's rows come out where the row was, so an order of the input's columns holds of
  the output - on several partitions too. Spark itself does not report that ordering
  (`GenerateExec` has no `outputOrdering`), so it runs an ORDER BY above it again: removing
  that ORDER BY saves a shuffle and a sort and leaves the rows as they were.
* The generated values come in the order of the generator's argument, not sorted, and are
  not one value: `explode(array(3, 1, 2))` is 3, 1, 2.
* Rows repeat: a key unique in the input is not unique in the output.
"""

from __future__ import annotations

import pytest

import spark_oracle as oracle
import spark_support
from spark_oracle import SPARK_DEFAULTS, settings
from spark_support import spark  # noqa: F401  (the session fixture)

pytestmark = spark_support.NEEDS_SPARK

SESSIONS = pytest.mark.parametrize("session", [{}, SPARK_DEFAULTS], ids=["test", "defaults"])
ASC = "ASC NULLS FIRST"


@pytest.fixture(scope="module")
def items(spark):
    """`generate_items(id, k, tags)`: three Parquet files of shuffled ids (the largest file is
    read first), ids unique, each row an array of three tags."""
    files = [[(i, i % 4, [3, 1, 2]) for i in ids] for ids in ([5, 1, 9], [2, 8, 4, 7, 3, 6, 10, 12, 11], [0])]
    oracle.sorted_files_table(spark, "generate_items", "id int, k int, tags array<int>", files)
    return "generate_items"


def sorted_then_exploded(table: str, outer_sort: str = "") -> str:
    return (
        f"SELECT id, tag FROM (SELECT * FROM {table} ORDER BY id) s "
        f"LATERAL VIEW explode(tags) t AS tag {outer_sort}"
    )


@SESSIONS
def test_a_generator_keeps_the_order_of_its_input_rows(spark, items, session):
    with settings(spark, session):
        assert "Generate" in oracle.physical_nodes(spark, sorted_then_exploded(items))
        result = oracle.rows(spark, sorted_then_exploded(items))
    assert [row[0] for row in result] == [i for i in range(13) for _ in range(3)]
    assert [row[1] for row in result] == [3, 1, 2] * 13


def test_spark_does_not_know_that_order_and_sorts_again(spark, items):
    with settings(spark, SPARK_DEFAULTS):
        plan = oracle.sorts_and_exchanges(spark, sorted_then_exploded(items, "ORDER BY id"))
        alone = oracle.sorts_and_exchanges(spark, sorted_then_exploded(items))
    sort = [f"Sort [id {ASC}] global", f"Exchange rangepartitioning(id {ASC}, 200)"]
    assert plan == sort + sort
    assert alone == sort


@SESSIONS
def test_the_generated_values_keep_the_arguments_order(spark, session):
    with settings(spark, session):
        assert oracle.rows(spark, "SELECT d FROM (SELECT explode(array(3, 1, 2)) AS d) t") == [(3,), (1,), (2,)]
        assert oracle.rows(spark, "SELECT explode(sequence(5, 1, -2)) AS d") == [(5,), (3,), (1,)]
        assert oracle.rows(spark, "SELECT stack(2, 'b', 1, 'a', 2)") == [("b", 1), ("a", 2)]


def test_an_order_by_over_a_generated_column_is_a_sort_spark_runs(spark):
    query = "SELECT d FROM (SELECT explode(array(3, 1, 2)) AS d) t ORDER BY d"
    assert oracle.sorts_and_exchanges(spark, query)[0] == f"Sort [d {ASC}] global"
    assert oracle.rows(spark, query) == [(1,), (2,), (3,)]


def test_rows_repeat_so_input_keys_are_no_longer_unique(spark, items):
    result = oracle.rows(spark, f"SELECT id, count(*) FROM {items} LATERAL VIEW explode(tags) t AS tag GROUP BY id")
    assert sorted(result) == [(i, 3) for i in range(13)]


def test_outer_keeps_rows_without_generated_values(spark):
    query = "SELECT id, x FROM VALUES (1, array(7)), (2, array()) AS v(id, xs) LATERAL VIEW OUTER explode(xs) e AS x"
    assert oracle.rows(spark, query) == [(1, 7), (2, None)]


@pytest.mark.parametrize("item, known", [
    ("explode(array(3, 1, 2))", True), ("explode_outer(sequence(1, 3))", True),
    ("posexplode(array(3, 1))", True), ("explode(map(1, 'a'))", True),
    ("stack(2, 1, 'a', 2, 'b')", True), ("stack(3, 1, 2, 3, 4)", True),
    ("json_tuple('{}', 'a', 'b')", True), ("posexplode(array(3, 1)) AS (i, v)", True),
    ("inline_outer(array(struct(1, 2)))", False),  # the structs' field names
])
def test_sortlint_names_generated_columns_as_spark_does(spark, item, known):
    from sqlglot import exp

    from sortlint.plan.built import NotUnderstood
    from sortlint.plan.dialect import sql_dialect
    from sortlint.plan.generators import alias_names, generator_call

    written = sql_dialect("spark").parse(f"SELECT {item}")[0].expressions[0]
    value = written.this if isinstance(written, exp.Aliases) else written
    try:
        ours: tuple[str, ...] | None = generator_call(value, alias_names(written)).names
    except NotUnderstood:
        ours = None
    assert ours == (tuple(spark.sql(f"SELECT {item}").columns) if known else None)
