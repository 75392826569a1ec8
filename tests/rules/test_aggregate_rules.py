"""SL101 aggregate-could-stream, SL102 aggregate-partially-ordered, SL103 redundant-group-keys."""

from catalogs import RULES_CATALOG as CATALOG

CATALOG_WITHOUT_SORT_AGGREGATES = CATALOG.replace(
    "target: {target}\n", "target: {target}\nspark: {{replace_hash_with_sort_agg: false}}\n"
)


WINDOWED = """
    SELECT host, time, max(n) AS n FROM (
        SELECT host, time, count(*) OVER (PARTITION BY host ORDER BY time) AS n FROM events
    ) w
"""


def test_a_window_order_in_another_key_order(lint):
    # The window leaves each partition of host sorted by (host, time), the rows of one host
    # in one partition: Spark streams GROUP BY host, time, and hashes GROUP BY time, host.
    assert lint(WINDOWED + "GROUP BY time, host") == [(
        "SL101",
        4,
        "GROUP BY input is already ordered by [w.host ASC NULLS FIRST, w.time ASC NULLS FIRST] "
        "(window (line 2)), but it runs as a hash aggregate: the keys must follow the input's "
        "order (GROUP BY host, time)",
    )]
    assert lint(WINDOWED + "GROUP BY host, time") == []


def test_the_setting_off_is_named(lint):
    catalog = CATALOG_WITHOUT_SORT_AGGREGATES
    assert lint(WINDOWED + "GROUP BY host, time", catalog=catalog) == [(
        "SL101",
        4,
        "GROUP BY input is already ordered by [w.host ASC NULLS FIRST, w.time ASC NULLS FIRST] "
        "(window (line 2)), but it runs as a hash aggregate: spark.sql.execution.replaceHashWithSortAgg "
        "is off (sortlint.yml says spark: {replace_hash_with_sort_agg: false}; Spark 4.3 turns it "
        "on by default)",
    )]


def test_a_declared_ordering_is_no_order_spark_knows(codes):
    assert codes("SELECT time, host, count(*) AS n FROM events GROUP BY time, host") == []


def test_spark_needs_every_key_ordered_ascending_and_no_shuffle(codes):
    # A monotonic function of an ordered key is not an order Spark knows.
    assert codes(WINDOWED.replace("time, max(n)", "date_trunc('hour', time) AS hour, max(n)") + "GROUP BY hour, host") == []
    # Descending: Spark's sort aggregate wants ascending keys.
    assert codes(WINDOWED.replace("ORDER BY time", "ORDER BY time DESC") + "GROUP BY time, host") == []
    # time alone is sorted only inside each host: grouping by it needs a shuffle.
    assert codes(WINDOWED + "GROUP BY time") == []


def test_a_bucketed_table_read_with_the_legacy_setting(lint):
    catalog = """
        target: {target}
        spark: {{legacy_bucketed_scan_ordering: true}}
        sources:
          lines:
            columns: {{order_id: bigint not null, line_no: int not null, qty: int}}
            bucketing: {{by: [order_id], buckets: 8, sorted_by: [order_id, line_no]}}
    """
    query = "SELECT line_no, order_id, sum(qty) AS qty FROM lines GROUP BY line_no, order_id"
    findings = lint(query, catalog=catalog)
    assert [(code, line) for code, line, _ in findings] == [("SL101", 1)]
    assert "bucketed table lines sorted by (order_id, line_no) in each bucket" in findings[0][2]
    # Without the setting Spark does not report the buckets' order.
    assert lint(query, catalog=catalog.replace("true", "false")) == []


def test_partially_ordered_keys_under_spark_change_nothing(codes):
    assert codes(WINDOWED + "GROUP BY n, host") == []


def test_partially_ordered_keys_not_first_under_datafusion(codes):
    assert codes("SELECT level, host, count(*) FROM events GROUP BY level, host", target="datafusion") == [
        ("SL102", 1)
    ]


def test_partially_ordered_keys_already_first(codes):
    assert codes("SELECT host, level, count(*) FROM events GROUP BY host, level", target="datafusion") == []


def test_datafusion_streams_any_key_order(codes):
    assert codes("SELECT time, host, count(*) FROM events GROUP BY time, host", target="datafusion") == []


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
    """, target="datafusion") == [("SL103", 3)]


def test_an_order_a_data_source_reports_to_spark(lint):
    catalog = """
        target: {target}
        sources:
          iceberg:
            columns: {{day: date not null, id: bigint not null, n: int}}
            orderings: [[day, id]]
            scope: partition
            partitioned_by: [day]
            engine_known: true
    """
    findings = lint("SELECT id, day, sum(n) AS n FROM iceberg GROUP BY id, day", catalog=catalog)
    assert [(code, line) for code, line, _ in findings] == [("SL101", 1)]
    assert "ordering [day ASC NULLS FIRST, id ASC NULLS FIRST] that iceberg reports to Spark" in findings[0][2]
    # Not clustered by day (no reported partitioning): grouping needs a shuffle, nothing streams.
    assert lint(
        "SELECT id, day, sum(n) AS n FROM iceberg GROUP BY id, day", catalog=catalog.replace("partitioned_by: [day]", "")
    ) == []
