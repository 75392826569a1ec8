"""Every TPC-DS and TPC-H query (Spark SQL, as Spark's own test suite runs them) builds: no
exception, no parse error, and exact spans for every sort, grouping and window key."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import sqlglot

from sortlint.plan.nodes import Aggregate, Opaque, Sort, Window, walk
from sortlint.plan.statement import build_statements
from sortlint.plan.tables import Tables
from sortlint.sources.sql.files import split_statements

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"


def corpus(name: str) -> list[Path]:
    return sorted((CORPORA / name).glob("*.sql"))


@pytest.mark.parametrize("name", ["tpcds", "tpch"])
def test_every_query_builds(name, capsys):
    files = corpus(name)
    if not files:
        pytest.skip(f"corpus {name} not found under {CORPORA}")
    opaque = Counter()
    roots = statements = 0
    for path in files:
        units = split_statements(path, path.read_text(), "spark")
        for statement in build_statements(units, Tables(), "spark", "spark"):
            statements += 1
            assert statement.error is None, statement.error
            roots += isinstance(statement.root, Opaque)
            for node in walk(statement.root):
                if isinstance(node, Opaque):
                    assert not node.reason.startswith("internal error"), (path.name, node.reason)
                    opaque[node.reason] += 1
                assert node.span is not None, (path.name, node.label)
                check_key_spans(statement, node)
    with capsys.disabled():
        print(f"\n{name}: {statements} statements, {roots} Opaque roots, "
              f"{sum(opaque.values())} Opaque subtrees {dict(opaque)}")
    assert statements == len(files)


def check_key_spans(statement, node) -> None:
    """Each key's span is its text, and that text reads back as exactly one key."""
    keys = []
    if isinstance(node, Sort):
        keys = [("ORDER", k) for k in node.keys]
    elif isinstance(node, Window):
        keys = [("ORDER", k) for f in node.functions for k in f.order_by]
        keys += [("GROUP", k) for f in node.functions for k in f.partition_by]
    elif isinstance(node, Aggregate) and not node.grouping_sets:
        keys = [("GROUP", k) for k in node.keys]
    for clause, key in keys:
        assert key.span is not None
        assert statement.unit.text[key.span.start : key.span.end] == key.text
        parsed = sqlglot.parse_one(f"SELECT 1 {clause} BY {key.text}", read="spark")
        assert len(parsed.args["order" if clause == "ORDER" else "group"].expressions) == 1
