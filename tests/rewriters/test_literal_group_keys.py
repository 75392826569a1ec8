"""Literal keys of a GROUP BY, and the positions of a GROUP BY (issue 20, item 1).

Spark removes a literal grouping key itself (`RemoveLiteralFromGroupExpressions`; see
tests/rewriters/test_spark_runs_fixes.py), so SL103 says nothing about one: a literal key
costs nothing, and rewriting it to `any_value(<literal>)` made `GROUP BY 3` name an
aggregate, which Spark refuses (`GROUP_BY_POS_AGGREGATE`). The proof before writing resolves
every GROUP BY position as Spark does and refuses a fix after which one names an aggregate
or a literal it did not name before."""

from __future__ import annotations

import functools

import pytest

from catalogs import FIX_SHAPES_CATALOG
from sortlint.rewriters.apply import proof_failure

NO_CATALOG = "target: spark\n"
ISSUE = "SELECT ticket_id, '-' AS entry_type, '-' AS body, MIN(ts) FROM events GROUP BY 1, 2, 3\n"


@pytest.fixture
def check(check_file):
    """`check(sql, *flags, catalog=...) -> (finding lines, the file's text afterwards)`."""
    return functools.partial(check_file, catalog=FIX_SHAPES_CATALOG)


def test_literal_keys_of_a_positional_group_by_are_not_reported(check):
    assert check(ISSUE, catalog=NO_CATALOG) == ([], ISSUE)


def test_literal_keys_are_never_rewritten(check):
    assert check(ISSUE, "--fix", "--unsafe-fixes", catalog=NO_CATALOG) == ([], ISSUE)


def test_literal_keys_written_as_expressions_are_not_reported(check):
    # Spark folds these to literals and drops them from the grouping like any literal.
    sql = "SELECT host, count(*) AS n FROM events GROUP BY host, 'x', 1 + 1, CAST('1' AS INT), DATE '2024-01-01'\n"
    assert check(sql) == ([], sql)


def test_a_constant_key_beside_literal_keys_keeps_the_literals(check):
    sql = "SELECT host, '-' AS entry_type, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY 1, 2, 3\n"
    assert check(sql) == (
        ["q.sql:1:92: SL103 [*] group key 1 is constant: WHERE events.host = 'a' (line 1) [query]"],
        sql,
    )
    assert check(sql, "--fix", "--unsafe-fixes")[1] == (
        "SELECT 'a' AS host, '-' AS entry_type, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY 2, 3\n"
    )


def test_a_constant_key_with_only_literal_keys_beside_it_has_no_fix(check):
    # Without any real key the aggregate has one group: one row on an empty input, where the
    # grouped statement returns none.
    sql = "SELECT host, '-' AS entry_type, count(*) AS n FROM events WHERE host = 'a' GROUP BY 1, 2\n"
    expected = ["q.sql:1:85: SL103 group key 1 is constant: WHERE events.host = 'a' (line 1) [query]"]
    assert check(sql) == (expected, sql)
    assert check(sql, "--fix", "--unsafe-fixes") == (expected, sql)


def test_a_repeated_constant_key_named_twice_by_position(check):
    # Items 2 and 3 both show qty: the fix that drops GROUP BY 2 rewrites both, so GROUP BY 3
    # goes with it (it repeats the key), never left naming the literal.
    sql = "SELECT code, qty, qty AS q2, count(*) AS n FROM orders WHERE qty = 1 GROUP BY 1, 2, 3\n"
    assert check(sql, "--fix", "--unsafe-fixes")[1] == (
        "SELECT code, CAST(1 AS BIGINT) AS qty, CAST(1 AS BIGINT) AS q2, count(*) AS n FROM orders WHERE qty = 1 "
        "GROUP BY 1\n"
    )


# ---------------------------------------------------------------------------------------------
# The proof


def test_a_group_by_position_naming_an_aggregate_fails_the_proof(analysed):
    before = analysed(ISSUE, NO_CATALOG)
    after = analysed(
        "SELECT ticket_id, any_value('-') AS entry_type, any_value('-') AS body, MIN(ts) FROM events GROUP BY 1, 3",
        NO_CATALOG,
    )
    assert proof_failure(before, after, [], []) == (
        "statement 1's GROUP BY 3 would name ANY_VALUE('-'), an aggregate (Spark refuses it)"
    )


def test_a_group_by_alias_naming_an_aggregate_fails_the_proof(analysed):
    before = analysed("SELECT order_id, qty + 1 AS q1, count(*) AS n FROM orders GROUP BY order_id, q1")
    after = analysed("SELECT order_id, any_value(qty + 1) AS q1, count(*) AS n FROM orders GROUP BY order_id, q1")
    assert proof_failure(before, after, [], []) == (
        "statement 1's GROUP BY q1 would name ANY_VALUE(orders.qty + 1), an aggregate (Spark refuses it)"
    )


def test_a_group_by_position_newly_naming_a_literal_fails_the_proof(analysed):
    before = analysed("SELECT code, qty, qty AS q2, count(*) AS n FROM orders WHERE qty = 1 GROUP BY 1, 2, 3")
    after = analysed(
        "SELECT code, CAST(1 AS BIGINT) AS qty, CAST(1 AS BIGINT) AS q2, count(*) AS n FROM orders WHERE qty = 1 "
        "GROUP BY 1, 3"
    )
    assert proof_failure(before, after, [], []) == (
        "statement 1's GROUP BY 3 would name CAST(1 AS BIGINT), a literal"
    )


def test_an_order_by_position_newly_naming_a_literal_fails_the_proof(analysed):
    before = analysed("SELECT host, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY host, level ORDER BY 1")
    after = analysed("SELECT 'a' AS host, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY level ORDER BY 1")
    assert proof_failure(before, after, [], []) == "statement 1's ORDER BY 1 would name 'a', a literal"


def test_positions_that_named_literals_before_pass_the_proof(analysed):
    before = analysed(ISSUE, NO_CATALOG)
    after = analysed("SELECT ticket_id, '-' AS entry_type, '-' AS body, MIN(ts) FROM events GROUP BY 1, 3", NO_CATALOG)
    assert proof_failure(before, after, [], []) is None
