"""SL002 sort-without-effect."""

import textwrap
from pathlib import Path

import pytest
from catalogs import RULES_CATALOG

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check


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


# --- a sort that decides a window's ties (issue 20) -----------------------------------

VISITS = """
    target: {target}
    sources:
      visits: {{columns: {{u: int not null, d: int not null, v: int not null, channel: string}}}}
      events:
        columns: {{id: int not null, u: int not null, v: int}}
        unique: [[id]]
"""
RANK = "CASE WHEN channel = 'organic' THEN 100 ELSE 1 END"
TIES = (
    "ORDER BY has no effect: its rows feed a window, which shuffles and sorts its rows by its own "
    "keys. But the window leaves ties open for {functions} (its PARTITION BY and ORDER BY do not "
    "tell every row apart), and this sort decides them only by accident of execution: without it "
    "other rows may win. Spark runs this sort: an exchange and a sort"
)
NO_TIES = (
    "ORDER BY has no effect: its rows feed a window, which shuffles and sorts its rows by its own "
    "keys. Spark runs this sort: an exchange and a sort"
)


@pytest.fixture
def fixed(tmp_path: Path, lint):
    """`fixed(sql, *flags) -> text` after `sortlint check --fix` with the visits catalog."""

    def run(sql: str, *flags: str) -> str:
        lint(sql, catalog=VISITS)  # writes the catalog and the query
        main(["check", "--fix", *flags, str(tmp_path / "query.sql")])
        return (tmp_path / "query.sql").read_text()

    return run


def test_a_sort_deciding_row_number_ties_moves_into_the_window_order(lint, fixed):
    sql = f"""
        SELECT u, d, v, row_number() OVER (PARTITION BY u, d ORDER BY {RANK}) AS n
        FROM (SELECT * FROM visits ORDER BY u, d, v) t
    """
    assert lint(sql, catalog=VISITS) == [("SL002", 2, TIES.format(functions="row_number()"))]
    assert fixed(sql) == (
        f"SELECT u, d, v, row_number() OVER (PARTITION BY u, d ORDER BY {RANK}, v) AS n\n"
        "FROM (SELECT * FROM visits) t\n"
    )


def test_tie_breakers_keep_their_direction_and_the_column_its_name(fixed):
    assert fixed("""
        SELECT id, lag(v) OVER (PARTITION BY u ORDER BY v)
        FROM (SELECT * FROM events ORDER BY u, id DESC) t
    """) == (
        "SELECT id, lag(v) OVER (PARTITION BY u ORDER BY v, id DESC) AS `lag(v, 1, NULL) OVER "
        "(PARTITION BY u ORDER BY v ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)`\n"
        "FROM (SELECT * FROM events) t\n"
    )


def test_a_rows_framed_aggregate_takes_tie_breakers(lint, fixed):
    sql = """
        SELECT u, collect_list(v) OVER (PARTITION BY u ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS vs
        FROM (SELECT u, d, v FROM visits ORDER BY u, d, v) t
    """
    assert lint(sql, catalog=VISITS) == [("SL002", 2, TIES.format(functions="collect_list()"))]
    assert "ORDER BY d, v ROWS" in fixed(sql)


def test_ties_left_open_without_a_safe_rewrite_get_no_fix(lint, fixed):
    for sql in (
        # The window cannot name the key that decides (the subquery does not pass v on).
        f"""
        SELECT u, d, row_number() OVER (PARTITION BY u, d ORDER BY {RANK}) AS n
        FROM (SELECT u, d, channel FROM visits ORDER BY u, d, v) t
        """,
        # A RANGE frame (the default with ORDER BY) holds the current row's ties: a key more
        # would change it.
        """
        SELECT u, last(v) OVER (PARTITION BY u ORDER BY d) AS last_v
        FROM (SELECT * FROM visits ORDER BY u, d, v) t
        """,
        # Without ORDER BY the frame is the whole partition; an ORDER BY would make it a RANGE.
        """
        SELECT u, first(v) OVER (PARTITION BY u) AS first_v FROM (SELECT * FROM visits ORDER BY v) t
        """,
        # Two specifications: Spark chooses which of their sorts the ties go through last.
        f"""
        SELECT u, row_number() OVER (PARTITION BY u, d ORDER BY {RANK}) AS n,
               row_number() OVER (PARTITION BY u ORDER BY d) AS m
        FROM (SELECT * FROM visits ORDER BY u, d, v) t
        """,
    ):
        [(code, _, message)] = lint(sql, catalog=VISITS)
        assert code == "SL002" and "leaves ties open" in message
        assert fixed(sql, "--unsafe-fixes") == textwrap.dedent(sql).lstrip("\n")


def test_a_window_that_tells_rows_apart_or_repeats_the_sort_needs_no_tie_breakers(lint, fixed):
    for sql, removed in (
        # Ties of (u, d, v) are equal on every key of the sort.
        ("SELECT u, d, v, row_number() OVER (PARTITION BY u, d ORDER BY v) AS n FROM (SELECT * FROM visits ORDER BY u, d, v) t", " ORDER BY u, d, v"),
        # A rank gives tied rows one value; max ignores order; a sum of integers too.
        (f"SELECT u, rank() OVER (PARTITION BY u, d ORDER BY {RANK}) AS n FROM (SELECT * FROM visits ORDER BY u, d, v) t", " ORDER BY u, d, v"),
        ("SELECT u, max(v) OVER (PARTITION BY u ORDER BY d) AS n, sum(v) OVER (PARTITION BY u ORDER BY d) AS s FROM (SELECT * FROM visits ORDER BY u, d, v) t", " ORDER BY u, d, v"),
    ):
        assert lint(sql, catalog=VISITS) == [("SL002", 1, NO_TIES)]
        assert fixed(sql) == sql.replace(removed, "")


def test_a_declared_unique_key_in_the_window_makes_the_removal_unsafe(lint, fixed):
    # The window's keys cover events' unique id - a declaration Spark does not enforce.
    sql = "SELECT id, row_number() OVER (PARTITION BY u ORDER BY id) AS n FROM (SELECT * FROM events ORDER BY u, v) t"
    assert lint(sql, catalog=VISITS) == [("SL002", 1, NO_TIES)]
    assert fixed(sql) == sql
    assert fixed(sql, "--unsafe-fixes") == sql.replace(" ORDER BY u, v", "")


def test_order_sensitive_aggregates_over_a_sorted_subquery_are_not_reported(codes):
    # first / last / collect_list read their group's rows in order: SL002 keeps the sort.
    assert codes("""
        SELECT u, first(v) AS f, last(v) AS l, collect_list(v) AS vs
        FROM (SELECT * FROM visits ORDER BY u, d, v) t
        GROUP BY u
    """, catalog=VISITS) == []


def test_a_sort_by_decides_ties_only_in_each_partition_so_its_tie_breakers_are_unsafe(lint, fixed):
    sql = "SELECT u, row_number() OVER (PARTITION BY u ORDER BY d) AS n FROM (SELECT * FROM visits SORT BY u, d, v) t"
    expected = TIES.format(functions="row_number()").replace("ORDER BY has", "SORT BY has")
    expected = expected.replace(": an exchange and a sort", " in every partition")
    assert lint(sql, catalog=VISITS) == [("SL002", 1, expected)]
    assert fixed(sql) == sql
    assert fixed(sql, "--unsafe-fixes") == (
        "SELECT u, row_number() OVER (PARTITION BY u ORDER BY d, v) AS n FROM (SELECT * FROM visits) t"
    )


def test_tie_breakers_follow_the_window_order_by_layout(fixed):
    assert fixed("""
        SELECT
            u,
            row_number() OVER (
                PARTITION BY u
                ORDER BY
                    channel
            ) AS n
        FROM (
            SELECT *
            FROM visits
            ORDER BY u, d, v
        ) t
    """) == textwrap.dedent("""\
        SELECT
            u,
            row_number() OVER (
                PARTITION BY u
                ORDER BY
                    channel,
                    d,
                    v
            ) AS n
        FROM (
            SELECT *
            FROM visits
        ) t
    """)


def test_no_tie_breaking_fix_for_a_window_named_in_a_window_clause(tmp_path, monkeypatch):
    """The tie-breaking fix appends keys to the window's ORDER BY; written in a WINDOW clause,
    that ORDER BY serves every window naming it, so the finding comes without a fix."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(textwrap.dedent(RULES_CATALOG).format(target="spark"))
    query = tmp_path / "query.sql"
    query.write_text(
        "SELECT host, row_number() OVER w AS rn\n"
        "FROM (SELECT * FROM events ORDER BY time, latency_ms) s\n"
        "WINDOW w AS (ORDER BY time)\n"
    )
    findings = check([query], load_config(start_paths=[query])).findings
    assert [(f.code, f.line, f.fix) for f in findings] == [("SL002", 2, None)]
