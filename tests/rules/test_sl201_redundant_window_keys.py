"""SL201 redundant-window-keys."""


def test_order_key_repeating_the_partition_key(lint):
    assert lint("""
        SELECT row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn FROM events
    """) == [("SL201", 1, "window order key host is a partition key: constant inside each partition")]


def test_repeated_partition_key(codes):
    assert codes("SELECT sum(latency_ms) OVER (PARTITION BY host, host) AS s FROM events") == [("SL201", 1)]


def test_constant_partition_key(codes):
    assert codes("""
        SELECT sum(latency_ms) OVER (PARTITION BY level, host) AS s FROM events
        WHERE level = 'x'
    """) == [("SL201", 1)]


def test_plain_window_is_quiet(codes):
    assert codes("SELECT row_number() OVER (PARTITION BY host ORDER BY time) AS rn FROM events") == []
