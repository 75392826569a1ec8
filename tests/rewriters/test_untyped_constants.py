"""A WHERE that pins a column of unknown type to a string no other type equals (issue 20,
item 7): the finding is made, with the condition it holds under, and its fix is unsafe; with
the column's type declared, the same query's fix is safe, as before."""

from __future__ import annotations

import functools

import pytest

UNTYPED = """\
target: spark
sources:
  logs: {}
"""
TYPED = """\
target: spark
sources:
  logs:
    columns: {host: string, level: string, time: timestamp}
"""
QUERY = """\
SELECT host, level, count(*) AS n
FROM logs
WHERE host = 'app.example.com'
GROUP BY host, level
ORDER BY host, level
"""
CAVEAT = "if logs.host is a plain string: no other type equals 'app.example.com'"


@pytest.fixture
def check(check_file):
    return functools.partial(check_file, catalog=UNTYPED)


def test_the_constant_is_reported_with_its_caveat_and_an_unsafe_fix(check):
    assert check(QUERY) == (
        [
            f"q.sql:4:10: SL103 group key host is constant: WHERE logs.host = 'app.example.com' (line 3), "
            f"{CAVEAT} [query]",
            f"q.sql:5:10: SL003 [*unsafe] sort key host is constant: WHERE logs.host = 'app.example.com' "
            f"(line 3), {CAVEAT} [query]",
        ],
        QUERY,
    )
    assert check(QUERY, "--fix")[1] == QUERY
    assert check(QUERY, "--fix", "--unsafe-fixes")[1] == QUERY.replace("ORDER BY host, level", "ORDER BY level")


def test_with_the_type_declared_the_fixes_are_safe_as_before(check):
    # SL103's fix keeps host as the constant of its type: it needs the type.
    findings, fixed = check(QUERY, "--fix", catalog=TYPED)
    assert findings == []
    assert fixed == (
        "SELECT 'app.example.com' AS host, level, count(*) AS n\n"
        "FROM logs\n"
        "WHERE host = 'app.example.com'\n"
        "GROUP BY level\n"
        "ORDER BY level\n"
    )


@pytest.mark.parametrize(
    "condition",
    ["host = '2024-01-02'", "host = 'yes'", "host = 'today'", "host = '.'", "host = 1"],
)
def test_a_literal_another_type_may_equal_teaches_nothing(check, condition):
    sql = QUERY.replace("host = 'app.example.com'", condition)
    assert check(sql) == ([], sql)


def test_datafusion_claims_nothing(check):
    assert check(QUERY, catalog=UNTYPED.replace("spark", "datafusion")) == ([], QUERY)
