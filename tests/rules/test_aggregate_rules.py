"""SL101 aggregate-could-stream, SL102 aggregate-partially-ordered, SL103 redundant-group-keys."""


def test_ordered_input_in_another_key_order(lint):
    findings = lint("SELECT time, host, count(*) AS n FROM events GROUP BY time, host")
    assert [(code, line) for code, line, _ in findings] == [("SL101", 1)]
    message = findings[0][2]
    assert "spark.sql.execution.replaceHashWithSortAgg is off" in message
    assert "the ordering is declared in the catalog, not known to Spark" in message
    assert "GROUP BY order differs from the input's (GROUP BY host, time)" in message


def test_ordered_input_through_a_monotonic_function(codes):
    assert codes("""
        SELECT host, date_trunc('hour', time) AS hour, count(*) AS n
        FROM events GROUP BY host, date_trunc('hour', time)
    """) == [("SL101", 2)]


def test_engine_known_order_with_sort_aggregates_on_is_quiet(lint):
    catalog = """
        target: {target}
        spark: {{replace_hash_with_sort_agg: true}}
        sources:
          customers:
            columns: {{customer_id: bigint not null, name: string}}
            orderings: [[customer_id]]
            engine_known: true
    """
    assert lint("SELECT customer_id, count(*) FROM customers GROUP BY customer_id", catalog=catalog) == []


def test_partially_ordered_keys_not_first(codes):
    assert codes("SELECT level, host, count(*) FROM events GROUP BY level, host") == [("SL102", 1)]


def test_partially_ordered_keys_already_first(codes):
    assert codes("SELECT host, level, count(*) FROM events GROUP BY host, level") == []


def test_datafusion_target_keeps_aggregate_rules_quiet(codes):
    assert codes("SELECT level, host, count(*) FROM events GROUP BY level, host", target="datafusion") == []


def test_constant_group_key(lint):
    assert lint("""
        SELECT level, latency_ms, count(*) FROM events
        WHERE level = 'WARN'
        GROUP BY level, latency_ms
    """) == [("SL103", 3, "group key level is constant: WHERE events.level = 'WARN' (line 2)")]


def test_group_key_determined_by_a_unique_key(codes):
    assert codes("SELECT event_id, level FROM events GROUP BY event_id, level") == [("SL103", 1)]


def test_group_key_equal_through_a_join(codes):
    assert codes("""
        SELECT c.customer_id, o.customer_id, count(*)
        FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        GROUP BY o.customer_id, c.customer_id
    """) == [("SL103", 3)]


def test_rollup_is_left_alone(codes):
    assert codes("SELECT level, host FROM events WHERE level = 'x' GROUP BY ROLLUP(level, host)") == []


def test_constant_keys_say_nothing_about_key_order(codes):
    # level is constant: host is the only ordered key that varies, and it already leads.
    assert codes("""
        SELECT level, host, latency_ms, count(*) FROM events
        WHERE level = 'x'
        GROUP BY level, host, latency_ms
    """) == [("SL103", 3)]
