"""SL001 unnecessary-sort: `events` is declared ordered by [host, time] - a layout, which
Spark does not read in order, and a `WITH ORDER` DataFusion does."""


def test_a_declared_ordering_never_satisfies_an_order_by_under_spark(codes):
    assert codes("SELECT host, time FROM events WHERE host = 'a' ORDER BY time") == []
    assert codes("SELECT host, time FROM events ORDER BY host, time") == []


def test_constant_prefix_makes_the_declared_order_match_under_datafusion(lint):
    assert lint("""
        SELECT host, time FROM events
        WHERE host = 'a'
        ORDER BY time
    """, target="datafusion") == [(
        "SL001",
        3,
        "ORDER BY [time ASC NULLS LAST] is already satisfied by its input: "
        "declared ordering [host ASC NULLS LAST, time ASC NULLS LAST] of events "
        "(sortlint.yml:14); WHERE events.host = 'a' (line 2)",
    )]


def test_not_null_column_ignores_null_placement(codes):
    assert codes("SELECT * FROM events ORDER BY host NULLS FIRST, time", target="datafusion") == [("SL001", 1)]


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


def test_an_inner_sort_of_the_same_rows_is_the_one_reported_under_spark(lint):
    # Spark removes the inner sort itself (EliminateSorts): the outer one is the query's order.
    assert lint("""
        SELECT t.amount FROM (SELECT amount FROM orders ORDER BY amount DESC) t
        ORDER BY t.amount DESC
    """) == [(
        "SL002",
        1,
        "ORDER BY has no effect: its rows feed a later ORDER BY (line 2) that overrides it. "
        "Spark removes this sort itself; the clause only misleads readers",
    )]


def test_an_inner_sort_satisfies_the_outer_one_under_datafusion(lint):
    findings = lint("""
        SELECT t.amount FROM (SELECT amount FROM orders ORDER BY amount DESC) t
        ORDER BY t.amount DESC
    """, target="datafusion")
    assert [(code, line) for code, line, _ in findings] == [("SL001", 2)]
    assert "ORDER BY (line 1)" in findings[0][2]


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
