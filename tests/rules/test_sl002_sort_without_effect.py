"""SL002 sort-without-effect."""


def test_sort_feeding_a_join(codes):
    assert codes("""
        SELECT o.order_id FROM (SELECT * FROM orders ORDER BY amount) o
        JOIN customers c ON o.customer_id = c.customer_id
    """) == [("SL002", 1)]


def test_sort_feeding_an_order_insensitive_aggregate(codes):
    assert codes("""
        SELECT customer_id, max(amount) AS top, count(*) AS n
        FROM (SELECT customer_id, amount FROM orders ORDER BY amount) t
        GROUP BY customer_id
    """) == [("SL002", 2)]


def test_order_sensitive_aggregate_keeps_the_sort(codes):
    assert codes("""
        SELECT customer_id, collect_list(amount) AS amounts
        FROM (SELECT customer_id, amount FROM orders ORDER BY amount) t
        GROUP BY customer_id
    """) == []


def test_sort_with_limit_picks_rows(codes):
    assert codes("""
        SELECT count(*) AS n FROM (SELECT amount FROM orders ORDER BY amount DESC LIMIT 5) t
    """) == []


def test_sort_feeding_a_write_shapes_the_files(codes):
    assert codes("INSERT INTO TABLE archive SELECT * FROM orders ORDER BY amount") == []


def test_final_sort_is_the_result(codes):
    assert codes("SELECT * FROM orders ORDER BY amount") == []


def test_sort_overridden_by_a_later_sort(lint):
    findings = lint("""
        SELECT amount, customer_id FROM (SELECT amount, customer_id FROM orders ORDER BY amount) t
        ORDER BY customer_id
    """)
    assert findings == [(
        "SL002",
        1,
        "ORDER BY has no effect: its rows feed a later ORDER BY (line 2) that overrides it. "
        "Spark removes this sort itself; the clause only misleads readers",
    )]


def test_sort_under_distinct_and_union(codes):
    assert codes("""
        SELECT DISTINCT customer_id FROM (SELECT customer_id FROM orders ORDER BY amount) t
    """) == [("SL002", 1)]
    assert codes("""
        SELECT customer_id FROM (SELECT customer_id FROM orders ORDER BY amount) a
        UNION ALL
        SELECT customer_id FROM customers
    """) == [("SL002", 1)]


def test_sort_in_a_predicate_subquery(codes):
    assert codes("""
        SELECT * FROM customers
        WHERE customer_id IN (SELECT customer_id FROM orders ORDER BY amount)
    """) == [("SL002", 2)]


def test_floating_point_sum_depends_on_order(codes):
    # orders.amount is a double: the order of additions changes the rounding.
    assert codes("""
        SELECT customer_id, sum(amount) AS total, avg(amount) AS mean
        FROM (SELECT customer_id, amount FROM orders ORDER BY order_id) t
        GROUP BY customer_id
    """) == []


def test_exact_sum_does_not_depend_on_order(codes):
    assert codes("""
        SELECT customer_id, sum(order_id) AS ids, count(*) AS n
        FROM (SELECT customer_id, order_id FROM orders ORDER BY amount) t
        GROUP BY customer_id
    """) == [("SL002", 2)]


REMOVES = "Spark removes this sort itself; the clause only misleads readers"
RUNS = "Spark runs this sort: an exchange and a sort"


def cost(lint, sql: str) -> list[tuple[int, str]]:
    """Each SL002 finding's line and what it says the sort costs on Spark."""
    return [(line, message.rsplit(". ", 1)[1]) for code, line, message in lint(sql) if code == "SL002"]


def test_what_the_sort_costs_on_spark(lint):
    # EliminateSorts: under a join, an order-insensitive aggregate, DISTINCT, INTERSECT.
    assert cost(lint, """
        SELECT o.order_id FROM (SELECT * FROM orders ORDER BY amount) o
        JOIN customers c ON o.customer_id = c.customer_id
    """) == [(1, REMOVES)]
    assert cost(lint, """
        SELECT customer_id, count(*) AS n FROM (SELECT * FROM orders ORDER BY amount) o
        GROUP BY customer_id
    """) == [(1, REMOVES)]
    assert cost(lint, """
        SELECT customer_id FROM (SELECT customer_id FROM orders ORDER BY amount) a
        INTERSECT
        SELECT customer_id FROM customers
    """) == [(1, REMOVES)]
    # Spark keeps a sort under UNION ALL, under a round-robin repartition, and under an
    # aggregate it does not know to ignore order, though their results ignore it.
    assert cost(lint, """
        SELECT customer_id FROM (SELECT customer_id FROM orders ORDER BY amount) a
        UNION ALL
        SELECT customer_id FROM customers
    """) == [(1, RUNS)]
    assert cost(lint, """
        SELECT customer_id, approx_count_distinct(order_id) AS n
        FROM (SELECT * FROM orders ORDER BY amount) o GROUP BY customer_id
    """) == [(2, RUNS)]


def test_a_keyed_repartition_drops_the_sort_a_round_robin_one_runs_it(lint):
    assert cost(lint, "SELECT * FROM (SELECT * FROM orders ORDER BY amount) o DISTRIBUTE BY customer_id") == [
        (1, REMOVES)
    ]
    assert cost(lint, "SELECT /*+ REPARTITION(4) */ * FROM (SELECT * FROM orders ORDER BY amount) o") == [
        (1, RUNS)
    ]


def test_a_sort_feeding_a_window_is_redone_by_the_window(lint):
    assert lint("""
        SELECT order_id, max(amount) OVER (PARTITION BY customer_id) AS top
        FROM (SELECT * FROM orders ORDER BY created_at) o
    """) == [(
        "SL002",
        2,
        "ORDER BY has no effect: its rows feed a window, which shuffles and sorts its rows by "
        "its own keys. Spark runs this sort: an exchange and a sort",
    )]


def test_a_sort_the_window_runs_on_is_kept(codes):
    assert codes("""
        SELECT order_id, row_number() OVER (PARTITION BY customer_id ORDER BY created_at) AS n
        FROM (SELECT * FROM orders DISTRIBUTE BY customer_id SORT BY customer_id, created_at) o
    """) == []


def test_a_bucketed_write_sorts_its_files_itself(lint):
    catalog = """
        target: {target}
        sources:
          orders: {{columns: {{id: int not null, k: int}}}}
          buckets:
            columns: {{id: int not null, k: int}}
            bucketing: {{by: [k], buckets: 4, sorted_by: [k]}}
    """
    assert lint("INSERT INTO buckets SELECT id, k FROM orders SORT BY id", catalog=catalog) == [(
        "SL002",
        1,
        "SORT BY has no effect: its rows feed a write into buckets, which sorts the rows itself. "
        "Spark removes this sort itself; the clause only misleads readers",
    )]
    assert lint("INSERT INTO buckets SELECT id, k FROM orders ORDER BY id", catalog=catalog) == [(
        "SL002",
        1,
        "ORDER BY has no effect: its rows feed a write into buckets, which sorts the rows itself. "
        "Spark removes this sort itself but still runs its exchange",
    )]
