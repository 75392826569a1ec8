"""Two reasons, one key (issue 20, item 9): when a key is redundant both for a reason the query
itself gives (it repeats an earlier key; a WHERE makes it constant) and for a declared one (a
declared unique key or constant), the finding and its fix rest on the query's reason: safe,
`[query]`."""

from __future__ import annotations

import functools


import pytest


CATALOG = """\
target: spark
sources:
  t:
    columns: {id: int not null, sn: int, n: int not null}
    unique: [[id]]
  c:
    columns: {id: int not null, region: string not null, n: int}
    constants: {region: EU}
"""
WITHOUT_DECLARATIONS = """\
target: spark
sources:
  t:
    columns: {id: int not null, sn: int, n: int not null}
  c:
    columns: {id: int not null, region: string not null, n: int}
"""
REPEATED = "SELECT * FROM t ORDER BY sn DESC, id DESC, n NULLS LAST, n ASC LIMIT 3\n"


@pytest.fixture
def check(check_file):
    """`check(sql, *flags, catalog=...) -> (finding lines, the file's text afterwards)`."""
    return functools.partial(check_file, catalog=CATALOG)


def test_a_repeated_sort_key_is_safe_without_the_declaration(check):
    assert check(REPEATED, catalog=WITHOUT_DECLARATIONS) == (
        ["q.sql:1:58: SL003 [*] sort key n ASC repeats an earlier key [query]"],
        REPEATED,
    )


def test_a_repeated_sort_key_is_safe_beside_a_declared_unique_key(check):
    assert check(REPEATED) == (
        [
            "q.sql:1:44: SL003 [*unsafe] sort key n NULLS LAST is determined by the earlier keys: "
            "declared unique key (id) of t (sortlint.yml:3) [declared]",
            "q.sql:1:58: SL003 [*] sort key n ASC repeats an earlier key [query]",
        ],
        REPEATED,
    )


def test_fix_drops_the_repeated_sort_key_and_leaves_the_declared_one(check):
    fixed = "SELECT * FROM t ORDER BY sn DESC, id DESC, n NULLS LAST LIMIT 3\n"
    assert check(REPEATED, "--fix")[1] == fixed
    assert check(REPEATED, "--fix", "--unsafe-fixes")[1] == "SELECT * FROM t ORDER BY sn DESC, id DESC LIMIT 3\n"


def test_a_repeated_group_key_is_safe_beside_a_declared_unique_key(check):
    sql = "SELECT id, n, count(*) AS k FROM t GROUP BY id, n, n\n"
    assert check(sql, "--fix")[1] == "SELECT id, n, count(*) AS k FROM t GROUP BY id, n\n"
    assert check(sql) == (
        [
            "q.sql:1:49: SL103 [*unsafe] group key n is determined by the earlier keys: "
            "declared unique key (id) of t (sortlint.yml:3) [declared] (no runtime effect)",
            "q.sql:1:52: SL103 [*] group key n repeats an earlier key [query] (no runtime effect)",
        ],
        sql,
    )


def test_a_key_the_where_makes_constant_is_safe_beside_a_declared_constant(check):
    sql = "SELECT * FROM c WHERE region = 'EU' ORDER BY region, id\n"
    assert check(sql) == (
        ["q.sql:1:46: SL003 [*] sort key region is constant: WHERE c.region = 'EU' (line 1) [query]"],
        sql,
    )
    assert check(sql, "--fix")[1] == "SELECT * FROM c WHERE region = 'EU' ORDER BY id\n"
