"""SQL text inside DataFrame calls: a window written in `selectExpr("... OVER (...)")` or
`F.expr(...)` shuffles and re-sorts like `.over(w)` (issue 15: the declared order was taken
to survive it), and a generator in `selectExpr` / `F.explode` makes rows, not constants."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.plan.nodes import Generate, Window, walk
from sortlint.workspace.check import check

CATALOG = """\
sources:
  events:
    columns: {host: string not null, time: timestamp not null, latency_ms: int}
    orderings: [[host, time]]
"""


@pytest.fixture
def lint(tmp_path: Path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)

    def run(body: str):
        path = tmp_path / "job.py"
        path.write_text("from pyspark.sql import SparkSession, functions as F\n\n"
                        "spark = SparkSession.builder.getOrCreate()\n" + textwrap.dedent(body).lstrip("\n"))
        result = check([path], load_config(tmp_path / "sortlint.yml"), plans=True)
        assert not result.all_errors, result.all_errors
        return [(f.line, f.code) for f in result.findings], [s.root for f in result.files for s in f.statements]

    return run


def test_a_window_in_select_expr_reorders_the_rows(lint):
    found, roots = lint("""
        spark.table("events").selectExpr("host", "time", "row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn") \\
            .orderBy("host", "time").write.saveAsTable("a")
    """)
    assert found == []
    (window,) = [n for n in walk(roots[0]) if isinstance(n, Window)]
    (function,) = window.functions
    assert [str(k.expr) for k in function.partition_by] == ["events.host"]
    assert [(str(k.expr), str(k.options)) for k in function.order_by] == [("events.time", "DESC NULLS LAST")]


def test_a_window_in_f_expr_beside_one_built_with_over(lint):
    found, roots = lint("""
        from pyspark.sql import Window
        w = Window.partitionBy("host").orderBy("time")
        spark.table("events").withColumn("m", F.expr("max(latency_ms) OVER (PARTITION BY host)")) \\
            .select("host", "time", F.row_number().over(w).alias("rn")).orderBy("host", "time").write.saveAsTable("a")
    """)
    windows = [n for n in walk(roots[0]) if isinstance(n, Window)]
    assert [len(w.functions) for w in windows] == [1, 1]
    assert found == []


def test_a_generator_in_select_expr_is_not_a_constant(lint):
    found, roots = lint("""
        spark.table("events").selectExpr("explode(array(3, 1, 2)) AS d").orderBy("d").write.saveAsTable("a")
        spark.table("events").select(F.explode(F.array(F.lit(3), F.lit(1))).alias("d")).orderBy("d").write.saveAsTable("b")
        spark.table("events").selectExpr("host", "posexplode(array(3, 1)) AS (i, d)").groupBy("host", "d").count() \\
            .write.saveAsTable("c")
    """)
    assert found == []
    assert [[str(c) for c in n.columns] for root in roots for n in walk(root) if isinstance(n, Generate)] == [
        ["d"], ["d"], ["i", "d"],
    ]
