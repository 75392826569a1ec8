"""SL003 redundant-sort-keys."""


def test_constant_key(lint):
    assert lint("""
        SELECT * FROM events WHERE level = 'ERROR'
        ORDER BY level, latency_ms
    """) == [("SL003", 2, "sort key level is constant: WHERE events.level = 'ERROR' (line 1)")]


def test_repeated_key(codes):
    assert codes("SELECT * FROM orders ORDER BY amount, customer_id, amount DESC") == [("SL003", 1)]


def test_key_equal_to_an_earlier_one(lint):
    findings = lint("""
        SELECT * FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        ORDER BY o.customer_id, c.customer_id
    """)
    assert [(code, line) for code, line, _ in findings] == [("SL003", 2)]
    assert findings[0][2] == "sort key c.customer_id equals the earlier key o.customer_id: JOIN ON (line 1)"


def test_key_after_a_unique_key(lint):
    findings = lint("SELECT * FROM events ORDER BY event_id, latency_ms")
    assert [(code, line) for code, line, _ in findings] == [("SL003", 1)]
    assert "declared unique key (event_id)" in findings[0][2]


def test_function_of_earlier_keys(codes):
    assert codes("SELECT * FROM orders ORDER BY amount, amount * 2") == [("SL003", 1)]


def test_no_redundancy(codes):
    assert codes("SELECT * FROM orders ORDER BY amount, customer_id") == []


def test_a_constant_key_of_a_declared_ordering_is_redundant_under_both_targets(codes):
    # Neither target reads events in its declared order as a whole (Spark: files largest
    # first; DataFusion: files in parallel, merged by the ORDER BY): only the constant key goes.
    assert codes("SELECT * FROM events WHERE host = 'a' ORDER BY host, time", target="datafusion") == [("SL003", 1)]
    assert codes("SELECT * FROM events WHERE host = 'a' ORDER BY host, time") == [("SL003", 1)]
