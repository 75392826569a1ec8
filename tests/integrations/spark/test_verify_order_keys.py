"""Specification: which final ORDER BY keys `verify` can compare on the output rows — an
ordinal, a select item's own expression, an unqualified output name — and which it cannot
(a qualified column that may be an input column of the same name)."""

from __future__ import annotations

import pytest
import sqlglot

from sortlint.integrations.spark.verify import _order_keys, _order_keys_and_outputs
from sortlint.integrations.spark.stored_order import Key


def keys(sql: str):
    query = sqlglot.parse_one(sql, read="spark")
    order = query.args.get("order")
    width = len(query.expressions) if isinstance(query, sqlglot.exp.Select) else 0
    return _order_keys(_order_keys_and_outputs(query, list(order.expressions) if order else []), width)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a, b FROM t ORDER BY 2 DESC, a", [Key("c1", True, False), Key("c0", False, True)]),
        ("SELECT t.a AS x, b FROM t ORDER BY t.a NULLS LAST", [Key("c0", False, False)]),
        ("SELECT lower(a) AS la FROM t ORDER BY la DESC NULLS FIRST", [Key("c0", True, True)]),
        ("SELECT lower(a) AS la FROM t ORDER BY lower(a)", [Key("c0", False, True)]),
        ("SELECT a.x, b.x AS y FROM a JOIN b ON a.k = b.k ORDER BY b.x", [Key("c1", False, True)]),
        ("SELECT a.x, b.y FROM a JOIN b ON a.k = b.k ORDER BY b.x", "ORDER BY key b.x is not an output column"),
        ("SELECT a FROM t ORDER BY c", "ORDER BY key c is not an output column"),
        ("SELECT a, a FROM t ORDER BY a", [Key("c0", False, True)]),  # the same expression twice
        ("SELECT a, b AS a FROM t ORDER BY a", [Key("c0", False, True)]),  # the item that is `a` itself
        ("SELECT * FROM t ORDER BY a", "ORDER BY key a is not an output column"),
        ("SELECT a FROM t ORDER BY 3", "ORDER BY key 3 is not an output column"),
    ],
)
def test_order_keys_over_the_output(sql, expected):
    assert keys(sql) == expected
