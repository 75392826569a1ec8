"""Output names: the alias, the column's own name, else Spark-like text of the expression."""

from __future__ import annotations

import pytest
import sqlglot

from sortlint.plan.names import output_name


@pytest.mark.parametrize(
    ("item", "name"),
    [
        ("a", "a"),
        ("e.Time", "Time"),
        ("a AS Foo", "Foo"),
        ("count(*)", "count(1)"),
        ("count(amount)", "count(amount)"),
        ("amount + 1", "(amount + 1)"),
        ("sum(e.a) / count(*)", "(sum(a) / count(1))"),
        ("CAST(amount AS INT)", "amount"),
        ("upper(e.name)", "upper(name)"),
        ("'x'", "x"),
    ],
)
def test_names(item, name):
    node = sqlglot.parse_one(f"SELECT {item} FROM t", read="spark").expressions[0]
    assert output_name(node) == name
