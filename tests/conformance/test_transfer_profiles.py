"""The transfer-function behaviours the DataFusion slt conformance relies on, pinned on small
queries - and the Spark profile, which must not change with them (under Spark no declared
ordering is read in order, whatever `engine_known` says of it here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.config import Column, Config, DeclaredOrdering, OrderingItem, Source
from sortlint.engines import analyse
from sortlint.ordering import SortKey
from sortlint.plan import nodes as n
from sortlint.plan.statement import build_statement
from sortlint.plan.tables import Tables
from sortlint.units import Unit


def source(name: str, columns: str, *orderings: str) -> Source:
    """`orderings` as `a, b desc`: ASC NULLS LAST / DESC NULLS FIRST (DataFusion's defaults)."""
    def item(text: str) -> OrderingItem:
        column, descending = text.strip(), text.lower().endswith(" desc")
        column = column[: -len(" desc")] if descending else column
        return OrderingItem(column, descending, nulls_first=descending, nulls_defaulted=True)

    return Source(
        name,
        tuple(Column(c, "int", nullable=False) for c in columns.split()),
        tuple(DeclaredOrdering(tuple(item(i) for i in o.split(","))) for o in orderings),
        engine_known=True,
    )


SOURCES = (
    source("t", "a b c d", "a, b"),
    source("u", "a b c d", "c"),
    source("s", "x y", "x + y"),
)


def sort_needed(sql: str, target: str) -> bool:
    """Whether the statement's depth-0 ORDER BY needs its sort under `target`: under
    DataFusion, whether it needs a SortExec - its input not ordered even inside each
    partition (a merge of ordered partitions is no sort)."""
    config = Config(target=target, dialect="postgres", sources=SOURCES)
    tables = Tables({s.name: tuple(c.name for c in s.columns) for s in SOURCES})
    statement = build_statement(Unit(Path("q.sql"), sql, 0, sql), tables, "postgres", target)
    assert statement.error is None
    analysis = analyse(statement.root, config)
    node = statement.root
    while not isinstance(node, n.Sort):
        assert isinstance(node, (n.Limit, n.Project)), node.label
        node = node.children[0]
    keys = [SortKey(item.expr, item.options) for item in node.keys]
    return not analysis.of(node.children[0]).satisfies(keys, per_partition=target == "datafusion")


@pytest.mark.parametrize(
    ("sql", "datafusion", "spark"),
    [
        # A hash join streams whichever side DataFusion's statistics make the larger: only an
        # order both sides give survives; an outer join keeps none.
        ("SELECT u.c FROM t JOIN u ON t.d = u.d ORDER BY u.c", True, True),
        ("SELECT t.a FROM t JOIN u ON t.d = u.d ORDER BY t.a", True, True),
        ("SELECT u.c FROM t JOIN u ON t.a = u.c ORDER BY u.c", False, True),
        ("SELECT u.c FROM t RIGHT JOIN u ON t.d = u.d ORDER BY u.c", True, True),
        ("SELECT u.c FROM t LEFT JOIN u ON t.d = u.d ORDER BY u.c", True, True),
        ("SELECT u.c FROM t CROSS JOIN u ORDER BY u.c", True, True),
        # Two outputs named `a`: a later clause cannot tell them apart, so neither is ordered.
        ("SELECT * FROM t JOIN u ON t.d = u.d ORDER BY u.a", True, True),
        # A window computed backwards keeps the input's order; one that is sorted for takes
        # the sort's order.
        ("SELECT a, SUM(b) OVER (ORDER BY a DESC) AS s FROM t ORDER BY a", False, True),
        ("SELECT a, ROW_NUMBER() OVER (ORDER BY b) AS r FROM t ORDER BY a", True, True),
        ("SELECT c, ROW_NUMBER() OVER (ORDER BY d) AS r FROM u ORDER BY d", False, False),
        ("SELECT a, ROW_NUMBER() OVER () AS r FROM t ORDER BY r", False, True),
        # A whole-partition aggregate is constant within its partition.
        ("SELECT a, MAX(c) OVER (PARTITION BY a) AS m FROM t ORDER BY a, m", False, True),
        ("SELECT a, MAX(c) OVER () AS m FROM t ORDER BY m", False, True),
        # UNION ALL keeps what every branch is ordered by (a merge, no sort, in DataFusion).
        ("SELECT a FROM t UNION ALL SELECT c FROM u ORDER BY a", False, True),
        ("SELECT a FROM t UNION ALL SELECT d FROM u ORDER BY a", True, True),
        ("SELECT a FROM t UNION SELECT c FROM u ORDER BY a", True, True),
        # A declared ordering on an expression (DataFusion's WITH ORDER (x + y)); Spark reads
        # no table in a declared order.
        ("SELECT x, y FROM s ORDER BY x + y", False, True),
    ],
)
def test_sort_needed(sql: str, datafusion: bool, spark: bool) -> None:
    assert sort_needed(sql, "datafusion") is datafusion
    assert sort_needed(sql, "spark") is spark


def test_a_quoted_column_named_like_an_expression_stays_a_column() -> None:
    from sortlint.engines.seeding import declared_expr
    from sortlint.ordering import Expr

    table = Source("q", (Column("a + b", "int"), Column("a", "int"), Column("b", "int")))
    assert declared_expr("a + b", "q", table) == Expr.column("a + b", "q")
    assert declared_expr("a - b", "q", table) == Expr.parse("q.a - q.b")
    assert declared_expr("a + z", "q", table) == Expr.column("a + z", "q")  # z is no column
