"""The keys the engine derives without walking a tree again are the keys of the nodes
themselves: an operand's identity taken from its parent's (`Expr.children`), and the parts
of a tree keyed in one pass (`every_part`), on every node of the TPC-DS and TPC-H queries."""

from __future__ import annotations

from pathlib import Path

import sqlglot
from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.ordering.expressions import every_part, kind_of

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


def _statements() -> list[exp.Expression]:
    files = sorted((CORPORA / "tpcds").glob("*.sql")) + sorted((CORPORA / "tpch").glob("*.sql"))
    assert len(files) == 125
    return [t for f in files for t in sqlglot.parse(f.read_text(), read="spark") if t is not None]


STATEMENTS = _statements()


def test_an_operands_key_taken_from_its_parents_is_its_own():
    checked = 0
    for statement in STATEMENTS:
        for node in statement.walk():
            expr = Expr.of(node)
            own = tuple(
                Expr.of(child)
                for child in expr.node.iter_expressions()
                if not isinstance(child, (exp.DataType, exp.Var))
            )
            assert expr.children == own
            assert [c.node for c in expr.children] == [c.node for c in own]
            checked += 1
    assert checked == 26156


def test_the_parts_keyed_in_one_pass_are_each_nodes_own_key():
    kinds = {"Column", "Window", "Cast", "Sum", "Case"}
    for statement in STATEMENTS:
        parts = list(every_part(statement, kinds))
        own = [
            Expr.of(sub) for sub in statement.walk()
            if not isinstance(sub, (exp.Identifier, exp.DataType)) and kind_of(Expr.of(sub)) in kinds
        ]
        assert parts == own
        assert [p.node for p in parts] == [o.node for o in own]
    assert kind_of(Expr.parse("CAST(a AS INT)")) == kind_of(Expr.parse("TRY_CAST(a AS INT)")) == "Cast"
    assert kind_of(Expr.column("a", "t")) == "Column"
