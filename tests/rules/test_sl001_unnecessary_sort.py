"""SL001 unnecessary-sort: `events` is declared ordered by [host, time]."""


def test_constant_prefix_makes_the_declared_order_match(lint):
    assert lint("""
        SELECT host, time FROM events
        WHERE host = 'a'
        ORDER BY time
    """) == [(
        "SL001",
        3,
        "ORDER BY [time ASC NULLS FIRST] is already satisfied by its input: "
        "declared ordering [host ASC NULLS FIRST, time ASC NULLS FIRST] of events "
        "(sortlint.yml:14); WHERE events.host = 'a' (line 2)",
    )]


def test_the_declared_ordering_itself(codes):
    assert codes("SELECT host, time FROM events ORDER BY host, time") == [("SL001", 1)]


def test_not_null_column_ignores_null_placement(codes):
    assert codes("SELECT * FROM events ORDER BY host NULLS LAST, time") == [("SL001", 1)]


def test_nullable_expression_keeps_null_placement(codes):
    # latency_ms is nullable: NULLS LAST is not the order the inner sort produced.
    assert codes("""
        SELECT latency_ms FROM (SELECT latency_ms FROM events ORDER BY latency_ms) t
        ORDER BY latency_ms NULLS LAST
    """) == [("SL002", 1)]


def test_flipped_direction_is_not_satisfied(codes):
    assert codes("SELECT * FROM events ORDER BY host DESC, time") == []


def test_missing_prefix_is_not_satisfied(codes):
    assert codes("SELECT * FROM events ORDER BY time") == []


def test_inner_sort_satisfies_outer_one(lint):
    findings = lint("""
        SELECT t.amount FROM (SELECT amount FROM orders ORDER BY amount DESC) t
        ORDER BY t.amount DESC
    """)
    assert [(code, line) for code, line, _ in findings] == [("SL001", 2)]
    assert "ORDER BY (line 1)" in findings[0][2]


def test_monotonic_function_of_the_ordered_column(codes):
    assert codes("""
        SELECT date_trunc('hour', created_at) AS hour, amount FROM orders
        ORDER BY hour
    """) == [("SL001", 2)]


def test_sort_after_a_join_is_not_satisfied_under_spark(codes):
    assert codes("""
        SELECT o.created_at FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        ORDER BY o.created_at
    """) == []


def test_basis_is_declared_for_catalog_orders_and_query_for_inner_sorts(tmp_path, lint):
    from sortlint.config import load_config
    from sortlint.workspace.check import check

    (tmp_path / "sortlint.yml").write_text("sources:\n  t:\n    orderings: [[a]]\n")
    query = tmp_path / "q.sql"
    query.write_text(
        "SELECT a FROM t ORDER BY a;\n"
        "SELECT b FROM (SELECT b FROM u ORDER BY b) s ORDER BY b;\n"
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
