"""SL001 unnecessary-sort: `events` is declared ordered by [host, time] - a layout, which
Spark does not read in order, and a `WITH ORDER` DataFusion reads in order only inside each
file group (a final ORDER BY merges them)."""

import pytest


def test_a_declared_ordering_never_satisfies_an_order_by_under_spark(codes):
    assert codes("SELECT host, time FROM events WHERE host = 'a' ORDER BY time") == []
    assert codes("SELECT host, time FROM events ORDER BY host, time") == []


def test_a_declared_ordering_is_merged_by_a_final_order_by_under_datafusion(codes):
    # DataFusion reads the files of a `WITH ORDER` table in parallel, each in its order: the
    # final ORDER BY is the merge that makes them one order, not a sort to remove.
    assert codes("SELECT host, time FROM events WHERE host = 'a' ORDER BY time", target="datafusion") == []
    assert codes("SELECT * FROM events ORDER BY host NULLS FIRST, time", target="datafusion") == []


def test_flipped_direction_is_not_satisfied(codes):
    assert codes("SELECT * FROM events ORDER BY host DESC, time", target="datafusion") == []


def test_missing_prefix_is_not_satisfied(codes):
    assert codes("SELECT * FROM events ORDER BY time", target="datafusion") == []


def test_keys_the_query_fixes_satisfy_any_order(lint):
    assert lint("SELECT host, level FROM events WHERE host = 'a' AND level = 'x' ORDER BY level, host") == [(
        "SL001",
        1,
        "ORDER BY [level ASC NULLS FIRST, host ASC NULLS FIRST] is already satisfied by its input: "
        "WHERE events.host = 'a' (line 1); WHERE events.level = 'x' (line 1)",
    )]


@pytest.mark.parametrize("target, engine", [
    # Spark removes the inner sort itself (EliminateSorts): the outer one is the query's order.
    ("spark", ". Spark removes this sort itself; the clause only misleads readers"),
    # DataFusion removes a subquery's sort that nothing above requires: the outer one stays.
    ("datafusion", ""),
])
def test_an_inner_sort_of_the_same_rows_is_the_one_reported(lint, target, engine):
    assert lint("""
        SELECT t.amount FROM (SELECT amount FROM orders ORDER BY amount DESC) t
        ORDER BY t.amount DESC
    """, target=target) == [
        ("SL002", 1, f"ORDER BY has no effect: its rows feed a later ORDER BY (line 2) that overrides it{engine}"),
    ]


def test_a_top_k_keeps_its_order_for_the_sort_above_it(lint):
    assert lint("""
        SELECT amount FROM (SELECT amount FROM orders ORDER BY amount LIMIT 10) t
        ORDER BY amount
    """) == [(
        "SL001",
        2,
        "ORDER BY [amount ASC NULLS FIRST] is already satisfied by its input: ORDER BY (line 1)",
    )]


def test_a_window_without_partition_by_sorts_all_rows(codes):
    assert codes("""
        SELECT order_id, row_number() OVER (ORDER BY created_at) AS n FROM orders
        ORDER BY created_at
    """) == [("SL001", 2)]


def test_several_window_specifications_leave_no_known_order(codes):
    # Spark stacks one window per specification in an order of its choice (issue 9).
    assert codes("""
        SELECT order_id, count(*) OVER (PARTITION BY customer_id) AS c,
               row_number() OVER (ORDER BY order_id) AS r
        FROM orders
        ORDER BY order_id
    """) == []


def test_monotonic_function_of_an_ordered_column(codes):
    assert codes("""
        SELECT date_trunc('hour', created_at) AS hour, amount
        FROM (SELECT created_at, amount FROM orders ORDER BY created_at LIMIT 100) t
        ORDER BY hour
    """) == [("SL001", 3)]


def test_sort_after_a_join_is_not_satisfied(codes):
    assert codes("""
        SELECT o.created_at FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        WHERE c.customer_id = 1
        ORDER BY c.customer_id
    """) == [("SL001", 3)]
    assert codes("""
        SELECT o.created_at FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        ORDER BY o.created_at
    """) == []


def test_a_sort_writing_a_declared_layout_is_never_reported(codes):
    catalog = """
        target: {target}
        sources:
          orders: {{columns: {{id: int not null, k: int}}}}
          archive:
            columns: {{id: int not null, k: int}}
            orderings: [[k]]
    """
    assert codes("INSERT INTO archive SELECT id, k FROM orders WHERE k = 1 ORDER BY k", catalog=catalog) == []


def test_basis_is_declared_for_catalog_facts_and_query_for_inner_sorts(tmp_path, lint):
    from sortlint.config import load_config
    from sortlint.workspace.check import check

    (tmp_path / "sortlint.yml").write_text("sources:\n  t:\n    constants: {a: 1}\n")
    query = tmp_path / "q.sql"
    query.write_text(
        "SELECT a FROM t ORDER BY a;\n"
        "SELECT b FROM (SELECT b FROM u ORDER BY b LIMIT 5) s ORDER BY b;\n"
    )
    result = check([query], load_config(start_paths=[query]))
    assert [(f.code, f.line, f.basis) for f in result.findings] == [
        ("SL001", 1, "declared"),
        ("SL001", 2, "query"),
    ]


ANSI_CATALOG = """
target: {{target}}
spark: {{{{ansi: {ansi}}}}}
sources:
  events:
    columns: {{{{event_id: bigint not null, latency_ms: int}}}}
"""


def test_without_ansi_mode_integer_arithmetic_may_wrap_and_keeps_no_order(lint):
    # Spark without ANSI mode computes latency_ms + 1 as an INT that wraps at 2147483647
    # (tests/engines/test_spark_facts.py); with it, an overflow fails the query.
    sql = """
        SELECT s.x FROM (SELECT latency_ms + 1 AS x FROM events ORDER BY latency_ms LIMIT 10) s
        ORDER BY x
    """
    assert [code for code, _, _ in lint(sql, catalog=ANSI_CATALOG.format(ansi="true"))] == ["SL001"]
    assert lint(sql, catalog=ANSI_CATALOG.format(ansi="false")) == []
    widened = sql.replace("latency_ms + 1", "CAST(latency_ms AS BIGINT) + 1")
    assert [code for code, _, _ in lint(widened, catalog=ANSI_CATALOG.format(ansi="false"))] == ["SL001"]


STRING_CATALOG = """
target: {{target}}
spark: {{{{ansi: {ansi}}}}}
sources:
  events:
    columns: {{{{code: string not null, day: string not null}}}}
"""


@pytest.mark.parametrize("key", ["floor(code)", "code + 1", "date_add(day, 1)"])
def test_without_ansi_mode_a_function_of_a_string_may_be_null(lint, key):
    # Without ANSI mode floor('abc') is NULL although `code` is not null: rows sorted NULLS
    # FIRST are not sorted NULLS LAST (Spark's rows: tests/ordering/test_null_preserving.py).
    # With it, a string that is not a number fails the query, and every row it returns is
    # sorted both ways.
    sql = f"SELECT s.f FROM (SELECT {key} AS f FROM events ORDER BY {key} LIMIT 10) s ORDER BY f NULLS LAST"
    assert lint(sql, catalog=STRING_CATALOG.format(ansi="true")) == [(
        "SL001", 1, "ORDER BY [f ASC NULLS LAST] is already satisfied by its input: ORDER BY (line 1)",
    )]
    assert lint(sql, catalog=STRING_CATALOG.format(ansi="false")) == []
