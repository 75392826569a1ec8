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
    assert findings == [
        ("SL002", 1, "ORDER BY has no effect: its rows feed a later ORDER BY (line 2) that overrides it")
    ]


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
