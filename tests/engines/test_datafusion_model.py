"""sortlint's model of DataFusion (sortlint/engines/datafusion.py), checked on the `datafusion`
package: which queries give their rows in a global order without an ORDER BY.

A table `WITH ORDER (a)` of two Parquet files, one of them large enough that DataFusion reads
byte ranges of it in parallel, with 4 target partitions. For each query, sortlint says
whether the final `ORDER BY a` is unnecessary (SL001); DataFusion runs the query without it.
Where sortlint says unnecessary, the rows must come sorted - every time; where it keeps the
sort, DataFusion is shown returning them out of order (so the model is not merely cautious).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.config.citations import cited
from sortlint.engines import analyse
from sortlint.errors import ConfigError
from sortlint.ordering import SortKey
from sortlint.plan import nodes as n
from sortlint.plan.statement import build_statement
from sortlint.plan.tables import Tables
from sortlint.units import Unit
from sortlint.workspace.check import check

datafusion = pytest.importorskip("datafusion")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 120_000
CATALOG = """
target: datafusion
sources:
  t:
    columns: {a: bigint not null, k: bigint not null}
    orderings: [[a]]
  s:
    columns: {k: bigint not null, w: bigint not null}
    orderings: [[w desc]]
"""


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    base = tmp_path_factory.mktemp("datafusion-model")
    (base / "t").mkdir()
    (base / "s").mkdir()
    half = ROWS // 2
    for index, values in enumerate((range(0, half), range(half, ROWS))):
        table = pa.table({"a": pa.array(values, pa.int64()), "k": pa.array([v % 5 for v in values], pa.int64())})
        pq.write_table(table, base / "t" / f"{index}.parquet", row_group_size=8192)
    pq.write_table(pa.table({"k": pa.array(range(5), pa.int64()), "w": pa.array([50, 40, 30, 20, 10], pa.int64())}),
                   base / "s" / "0.parquet")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(4))
    ctx.sql(f"CREATE EXTERNAL TABLE t (a BIGINT NOT NULL, k BIGINT NOT NULL) STORED AS PARQUET "
            f"WITH ORDER (a ASC NULLS LAST) LOCATION '{base / 't'}/'").collect()
    ctx.sql(f"CREATE EXTERNAL TABLE s (k BIGINT NOT NULL, w BIGINT NOT NULL) STORED AS PARQUET "
            f"WITH ORDER (w DESC NULLS FIRST) LOCATION '{base / 's'}/'").collect()
    return ctx


def sl001(tmp_path: Path, sql: str) -> bool:
    (tmp_path / "sortlint.yml").write_text(textwrap.dedent(CATALOG))
    query = tmp_path / "q.sql"
    query.write_text(sql)
    result = check([query], load_config(tmp_path / "sortlint.yml"))
    assert not result.errors, result.errors
    return any(f.code == "SL001" for f in result.findings)


def in_order(ctx, sql: str) -> bool:
    values = [row["a"] for row in ctx.sql(sql).to_pylist()]
    return values == sorted(values)


@pytest.mark.parametrize(
    ("query", "ordered"),
    [
        # File groups (byte ranges of the files) are read in parallel: ordered inside each.
        ("SELECT a FROM t", False),
        ("SELECT a, k FROM t WHERE k > 1", False),
        # A sort in a subquery that nothing needs is removed.
        ("SELECT x.a FROM (SELECT a FROM t ORDER BY a) x", False),
        # A sort under a LIMIT stays, and its rows are one partition.
        ("SELECT x.a FROM (SELECT a FROM t ORDER BY a LIMIT 50000) x", True),
        # A window without PARTITION BY merges its input into one partition in its order.
        ("SELECT a, row_number() OVER (ORDER BY a) AS r FROM t", True),
        # With PARTITION BY, it hash-repartitions by the keys.
        ("SELECT a, k, count(*) OVER (PARTITION BY k ORDER BY a) AS c FROM t", False),
        # GROUP BY streams per partition and hash-repartitions by its keys.
        ("SELECT a, count(*) AS c FROM t GROUP BY a", False),
        # UNION ALL puts the branches' partitions side by side.
        ("SELECT a FROM t UNION ALL SELECT a FROM t", False),
        # A join streams the larger side: here t, in parallel partitions.
        ("SELECT t.a, s.w FROM t JOIN s ON t.k = s.k", False),
    ],
)
def test_rows_come_in_order_exactly_where_sortlint_says(context, tmp_path, query, ordered):
    assert sl001(tmp_path, f"SELECT * FROM ({query}) q ORDER BY a") is ordered
    runs = [in_order(context, query) for _ in range(3)]
    assert runs == [ordered] * 3


def test_a_window_nothing_reads_is_pruned_with_its_sort(context, tmp_path):
    """Issue 10 case 6, on a table of one small file: DataFusion drops the window and its
    sort, so the rows come in file order, which the window's sort would have changed."""
    assert not sl001(tmp_path, "SELECT s.w FROM (SELECT w, count(*) OVER (ORDER BY w ASC NULLS LAST) AS c FROM s) s "
                               "ORDER BY w ASC NULLS LAST")
    rows = context.sql("SELECT x.w FROM (SELECT w, count(*) OVER (ORDER BY w ASC NULLS LAST) AS c FROM s) x").to_pylist()
    assert [row["w"] for row in rows] == [50, 40, 30, 20, 10]


def test_negation_wraps_where_datafusion_thinks_it_reverses_an_order(tmp_path):
    """The slt case order_022, where DataFusion is wrong: it drops the sort of `ORDER BY -(a + b) DESC` over a
    table `WITH ORDER (a + b)`, but -(a + b) wraps where a + b is the smallest BIGINT."""
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "0.csv").write_text("a,b\n-9223372036854775807,-1\n0,0\n1,1\n")
    ctx = datafusion.SessionContext()
    ctx.sql(f"CREATE EXTERNAL TABLE o (a BIGINT NOT NULL, b BIGINT NOT NULL) STORED AS CSV WITH ORDER (a + b) "
            f"LOCATION '{tmp_path / 'o'}/' OPTIONS ('format.has_header' 'true')").collect()
    query = "SELECT * FROM o ORDER BY -(a + b) DESC NULLS LAST"
    plan = ctx.sql(f"EXPLAIN {query}").to_pandas().plan.iloc[-1]
    assert "SortExec" not in plan and "SortPreservingMergeExec" not in plan
    negated = [-(row["a"] + row["b"]) for row in ctx.sql(query).to_pylist()]
    wrapped = [(v + 2**63) % 2**64 - 2**63 for v in negated]
    assert wrapped == [-(2**63), 0, -2]  # not descending
    # sortlint keeps this sort: the strict expected failure order_022 in
    # tests/conformance/test_datafusion_slt.py.


def test_a_double_equal_to_zero_is_no_constant(tmp_path):
    """DataFusion takes `x = 0` for a constant x and drops the sort of `ORDER BY x`, yet its
    sort orders -0.0 before 0.0, which both equal 0: the rows come out of its own order.
    sortlint makes no fact of a floating-point equality under DataFusion and keeps it."""
    ctx = datafusion.SessionContext()
    ctx.sql("CREATE TABLE z AS SELECT * FROM (VALUES (1, 0.0), (2, -0.0), (3, 0.0), (4, -0.0)) v(id, x)").collect()
    filtered = [row["x"] for row in ctx.sql("SELECT id, x FROM z WHERE x = 0 ORDER BY x").to_pylist()]
    sorted_ = [row["x"] for row in ctx.sql("SELECT id, x FROM z ORDER BY x").to_pylist()]
    assert [str(x) for x in sorted_] == ["-0.0", "-0.0", "0.0", "0.0"]
    assert [str(x) for x in filtered] == ["0.0", "-0.0", "0.0", "-0.0"]
    catalog = "target: datafusion\nsources:\n  z:\n    columns: {id: int not null, x: double not null}\n"
    (tmp_path / "sortlint.yml").write_text(catalog)
    (tmp_path / "q.sql").write_text("SELECT id, x FROM z WHERE x = 0 ORDER BY x, id")
    result = check([tmp_path / "q.sql"], load_config(tmp_path / "sortlint.yml"))
    assert [f.code for f in result.findings] == []


def test_one_partition_orders_files_by_statistics_only_for_a_query_that_asks(tmp_path):
    """Why SL001's fix over a declared ordering is unsafe with `target_partitions: 1`: files
    whose names do not sort in key order (b.parquet holds the smaller keys). DataFusion's
    plan for the ORDER BY reads b then a, by their Parquet statistics, and sorts nothing;
    the same query without the ORDER BY reads a then b."""
    (tmp_path / "r").mkdir()
    pq.write_table(pa.table({"a": pa.array([4, 5, 6], pa.int64())}), tmp_path / "r" / "a.parquet")
    pq.write_table(pa.table({"a": pa.array([1, 2, 3], pa.int64())}), tmp_path / "r" / "b.parquet")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    ctx.sql(f"CREATE EXTERNAL TABLE r (a BIGINT NOT NULL) STORED AS PARQUET WITH ORDER (a ASC NULLS LAST) "
            f"LOCATION '{tmp_path / 'r'}/'").collect()
    plan = ctx.sql("EXPLAIN SELECT a FROM r ORDER BY a").to_pandas().plan.iloc[-1]
    assert "Sort" not in plan and plan.index("b.parquet") < plan.index("a.parquet")
    assert [row["a"] for row in ctx.sql("SELECT a FROM r ORDER BY a").to_pylist()] == [1, 2, 3, 4, 5, 6]
    assert [row["a"] for row in ctx.sql("SELECT a FROM r").to_pylist()] == [4, 5, 6, 1, 2, 3]


def test_one_partition_a_limit_picks_the_files_it_reads_by_their_statistics(tmp_path):
    """Why a LIMIT that reaches a scan takes the scan's order away, with `target_partitions:
    1` (the fuzzer's case, datafusion-limit-picks-files-by-statistics): files in path order
    continue the declared order, and the ORDER BY ... LIMIT reads them in order and sorts
    nothing - but without the ORDER BY, DataFusion pushes the LIMIT into the scan, which reads
    the file of 6 rows alone. So no SL001 there; without the LIMIT, SL001 as before."""
    (tmp_path / "m").mkdir()
    pq.write_table(pa.table({"a": pa.array([1], pa.int64())}), tmp_path / "m" / "part-00000.parquet")
    pq.write_table(pa.table({"a": pa.array([2, 2, 3, 3, 3, 3], pa.int64())}), tmp_path / "m" / "part-00001.parquet")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    ctx.sql(f"CREATE EXTERNAL TABLE m (a BIGINT NOT NULL) STORED AS PARQUET WITH ORDER (a ASC NULLS LAST) "
            f"LOCATION '{tmp_path / 'm'}/'").collect()
    plan = ctx.sql("EXPLAIN SELECT a FROM m ORDER BY a LIMIT 5").to_pandas().plan.iloc[-1]
    assert "Sort" not in plan and "limit=5" in plan
    assert [row["a"] for row in ctx.sql("SELECT a FROM m ORDER BY a LIMIT 5").to_pylist()] == [1, 2, 2, 3, 3]
    assert [row["a"] for row in ctx.sql("SELECT a FROM m LIMIT 5").to_pylist()] == [2, 2, 3, 3, 3]
    assert [row["a"] for row in ctx.sql("SELECT a FROM m").to_pylist()] == [1, 2, 2, 3, 3, 3, 3]

    (tmp_path / "sortlint.yml").write_text(
        "target: datafusion\ndatafusion: {target_partitions: 1}\n"
        "sources:\n  m:\n    columns: {a: bigint not null}\n    orderings: [[a]]\n"
    )
    config = load_config(tmp_path / "sortlint.yml")
    found = {}
    for name, sql in {"limited": "SELECT a FROM m ORDER BY a LIMIT 5", "whole": "SELECT a FROM m ORDER BY a"}.items():
        (tmp_path / f"{name}.sql").write_text(sql)
        found[name] = [f.code for f in check([tmp_path / f"{name}.sql"], config).findings]
    assert found == {"limited": [], "whole": ["SL001"]}


def test_one_partition_a_join_keeps_the_order_both_sides_give(tmp_path):
    """joins_007 of the slt cases: with `target_partitions: 1` nothing is repartitioned, so a
    hash join streams one side as one stream - whichever side the statistics make the probe
    side (`big` is the larger here and becomes it; `small` joined with itself builds the
    left). Both sides are ordered by k, so the rows come ordered by k: SL001."""
    for name, rows in (("big", 3000), ("small", 40)):
        (tmp_path / name).mkdir()
        keys = sorted(i % 37 for i in range(rows))
        pq.write_table(pa.table({"k": pa.array(keys, pa.int64()), "v": pa.array(range(rows), pa.int64())}),
                       tmp_path / name / "0.parquet")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    catalog = "target: datafusion\ndatafusion: {target_partitions: 1}\nsources:\n"
    for name in ("big", "small"):
        ctx.sql(f"CREATE EXTERNAL TABLE {name} (k BIGINT NOT NULL, v BIGINT NOT NULL) STORED AS PARQUET "
                f"WITH ORDER (k ASC NULLS LAST) LOCATION '{tmp_path / name}/'").collect()
        catalog += f"  {name}:\n    columns: {{k: bigint not null, v: bigint not null}}\n    orderings: [[k]]\n"
    (tmp_path / "sortlint.yml").write_text(catalog)
    config = load_config(tmp_path / "sortlint.yml")
    for joined in ("small s JOIN big b ON s.k = b.k", "big b JOIN small s ON b.k = s.k",
                   "small s JOIN small t ON s.k = t.k"):
        query = f"SELECT s.k, s.v FROM {joined}"
        keys = [row["k"] for row in ctx.sql(query).to_pylist()]
        assert keys == sorted(keys) and len(set(keys)) == 37, joined
        (tmp_path / "q.sql").write_text(f"{query} ORDER BY s.k")
        assert [f.code for f in check([tmp_path / "q.sql"], config).findings] == ["SL001"], joined


# --- joins under `datafusion.optimizer.*` settings ------------------------------------------

JOIN_CATALOG = """
target: datafusion
datafusion: {settings}
sources:
  l: {{columns: {{k: bigint not null, v: bigint not null}}, orderings: [[k, v]]}}
  r: {{columns: {{k: bigint not null, w: bigint not null}}}}
"""


@pytest.fixture(scope="module")
def join_tables(tmp_path_factory):
    """`l` of two Parquet files (two partitions: a repartition by the join key keeps their
    order only when asked to), ordered by (k, v); `r` of one file, in no declared order."""
    base = tmp_path_factory.mktemp("datafusion-joins")
    for name in ("l", "r"):
        (base / name).mkdir()
    for index in range(2):
        rows = range(index * 500, index * 500 + 500)
        pq.write_table(pa.table({"k": pa.array([i // 10 for i in rows], pa.int64()), "v": pa.array(rows, pa.int64())}),
                       base / "l" / f"{index}.parquet")
    pq.write_table(pa.table({"k": pa.array([i % 100 for i in range(300)], pa.int64()), "w": pa.array(range(300), pa.int64())}),
                   base / "r" / "0.parquet")
    return base


def explain(base: Path, settings: dict, sql: str) -> str:
    config = datafusion.SessionConfig().with_target_partitions(settings.get("target_partitions", 2))
    for key in ("prefer_hash_join", "repartition_joins", "prefer_existing_sort"):
        if key in settings:
            config = config.set(f"datafusion.optimizer.{key}", str(settings[key]).lower())
    return physical_plan(config, sql, (
        f"CREATE EXTERNAL TABLE l (k BIGINT NOT NULL, v BIGINT NOT NULL) STORED AS PARQUET "
        f"WITH ORDER (k ASC NULLS LAST, v ASC NULLS LAST) LOCATION '{base / 'l'}/'",
        f"CREATE EXTERNAL TABLE r (k BIGINT NOT NULL, w BIGINT NOT NULL) STORED AS PARQUET "
        f"LOCATION '{base / 'r'}/'",
    ))


def session(config, tables: tuple[str, ...]):
    """A DataFusion session with this configuration, once the `tables` statements have
    created its tables."""
    ctx = datafusion.SessionContext(config)
    for statement in tables:
        ctx.sql(statement).collect()
    return ctx


def physical_plan(config, sql: str, tables: tuple[str, ...]) -> str:
    rows = session(config, tables).sql(f"EXPLAIN {sql}").to_pylist()
    return next(row["plan"] for row in rows if row["plan_type"] == "physical_plan")


def sorted_in_each_partition(tmp_path: Path, settings: dict, sql: str, catalog: str = JOIN_CATALOG) -> bool:
    """Whether sortlint says the final ORDER BY's input is ordered inside each partition
    (DataFusion then merges it with no SortExec)."""
    flow = "{" + ", ".join(f"{k}: {str(v).lower()}" for k, v in settings.items()) + "}"
    (tmp_path / "sortlint.yml").write_text(catalog.format(settings=flow))
    config = load_config(tmp_path / "sortlint.yml")
    unit = Unit(path=tmp_path / "q.sql", text=sql, start=0, raw=sql)
    tables = Tables({source.name: tuple(c.name for c in source.columns) for source in config.sources})
    root = build_statement(unit, tables, "postgres", "datafusion").root
    sort = next(node for node in n.walk(root) if isinstance(node, n.Sort))
    keys = [SortKey(item.expr, item.options) for item in sort.keys]
    return analyse(root, config).of(sort.children[0]).satisfies(keys, per_partition=True)


SORT_MERGE = {"target_partitions": 2, "prefer_hash_join": False, "prefer_existing_sort": True}


@pytest.mark.parametrize(
    ("settings", "sql", "ordered"),
    [
        # A sort-merge join streams its left side, kept in order through the repartition.
        (SORT_MERGE, "SELECT l.k, l.v, r.w FROM l JOIN r ON l.k = r.k ORDER BY l.k, l.v", True),
        (SORT_MERGE, "SELECT l.k, l.v FROM l LEFT SEMI JOIN r ON l.k = r.k ORDER BY l.k, l.v", True),
        # ... the right side of a RIGHT JOIN: here r, not ordered, so it is sorted by k only.
        (SORT_MERGE, "SELECT l.k, l.v, r.w FROM r RIGHT JOIN l ON l.k = r.k ORDER BY l.k, l.v", True),
        (SORT_MERGE, "SELECT l.k, l.v, r.w FROM l RIGHT JOIN r ON l.k = r.k ORDER BY l.k, l.v", False),
        # A FULL JOIN keeps no side's order.
        (SORT_MERGE, "SELECT l.k, l.v, r.w FROM l FULL JOIN r ON l.k = r.k ORDER BY l.k, l.v", False),
        # The left side is not ordered by the join key: sorted by it, its order is lost.
        (SORT_MERGE, "SELECT l.k, l.v, r.w FROM l JOIN r ON l.v = r.k ORDER BY l.k, l.v", False),
        # Without prefer_existing_sort its two partitions are repartitioned out of order.
        ({**SORT_MERGE, "prefer_existing_sort": False},
         "SELECT l.k, l.v, r.w FROM l JOIN r ON l.k = r.k ORDER BY l.k, l.v", False),
        # DataFusion's defaults: a hash join, which keeps only what both sides give.
        ({"target_partitions": 2}, "SELECT l.k, l.v, r.w FROM l JOIN r ON l.k = r.k ORDER BY l.k, l.v", False),
    ],
)
def test_sort_merge_join_keeps_its_streamed_side_in_order(join_tables, tmp_path, settings, sql, ordered):
    assert sorted_in_each_partition(tmp_path, settings, sql) is ordered
    plan = explain(join_tables, settings, sql)
    assert ("SortMergeJoinExec" in plan) is (settings.get("prefer_hash_join") is False)
    if ordered:
        assert "SortExec: expr=[k@0 ASC NULLS LAST, v@1 ASC NULLS LAST]" not in plan, plan
        assert "preserve_order=true" in plan, plan


def test_a_sort_merge_join_or_a_hash_join_as_the_partition_count_decides(tmp_path):
    """`prefer_hash_join: false` with no `target_partitions`: one partition plans a hash join,
    several a sort-merge join; sortlint, not told which, keeps no order after the join."""
    settings = {"prefer_hash_join": False, "prefer_existing_sort": True}
    sql = "SELECT l.k, l.v, r.w FROM l JOIN r ON l.k = r.k ORDER BY l.k, l.v"
    assert sorted_in_each_partition(tmp_path, settings, sql) is False
    assert sorted_in_each_partition(tmp_path, {**settings, "target_partitions": 2}, sql) is True


# --- hash joins over CSV files: no statistics, so no swap -----------------------------------

CSV_CATALOG = """
target: datafusion
datafusion: {{target_partitions: 1}}
sources:
  l: {{columns: {{k: bigint not null, v: bigint not null}}, location: {base}/l/, format: {format}}}
  r: {{columns: {{k: bigint not null, w: bigint not null}}, orderings: [[w]], location: {base}/r/, format: {format}}}
"""


def test_a_hash_join_with_a_side_read_from_csv_streams_its_right_side(tmp_path):
    """JoinSelection swaps a hash join's inputs only when both sides' statistics show the
    left larger; CSV files have none (`Rows=Absent, Bytes=Absent`). So with one partition
    (mode=CollectLeft) the right side streams in its order, even when the left one, built,
    is far smaller (joins_004 of the slt cases): SL001. The same tables in Parquet have
    statistics: sortlint, not told which side is smaller, keeps the sort."""
    base = tmp_path / "data"
    for name, rows in (("l", 5), ("r", 4000)):
        (base / name).mkdir(parents=True)
        second = "v" if name == "l" else "w"
        lines = [f"k,{second}"] + [f"{i % 5},{i}" for i in range(rows)]
        (base / name / "0.csv").write_text("\n".join(lines) + "\n")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    ctx.sql(f"CREATE EXTERNAL TABLE l (k BIGINT NOT NULL, v BIGINT NOT NULL) STORED AS CSV "
            f"LOCATION '{base / 'l'}/' OPTIONS ('format.has_header' 'true')").collect()
    ctx.sql(f"CREATE EXTERNAL TABLE r (k BIGINT NOT NULL, w BIGINT NOT NULL) STORED AS CSV "
            f"WITH ORDER (w ASC NULLS LAST) LOCATION '{base / 'r'}/' OPTIONS ('format.has_header' 'true')").collect()
    queries = {
        "inner": "SELECT l.v, r.w FROM l JOIN r ON l.k = r.k",
        "right semi": "SELECT r.w FROM l RIGHT SEMI JOIN r ON l.k = r.k",
        "right anti": "SELECT r.w FROM l RIGHT ANTI JOIN r ON l.k = r.k AND l.v > 2",
    }
    for name, query in queries.items():
        plan = ctx.sql(f"EXPLAIN {query}").to_pylist()[-1]["plan"]
        assert "HashJoinExec: mode=CollectLeft" in plan and "swap" not in plan.lower(), plan
        rows = [row["w"] for row in ctx.sql(query).to_pylist()]
        assert rows == sorted(rows) and rows, name
    found = {}
    for format_ in ("csv", "parquet"):
        (tmp_path / "sortlint.yml").write_text(CSV_CATALOG.format(base=base, format=format_))
        config = load_config(tmp_path / "sortlint.yml")
        for name, query in queries.items():
            (tmp_path / "q.sql").write_text(f"{query} ORDER BY r.w")
            found[format_, name] = [f.code for f in check([tmp_path / "q.sql"], config).findings]
    assert found == {
        ("csv", "inner"): ["SL001"], ("csv", "right semi"): ["SL001"], ("csv", "right anti"): ["SL001"],
        ("parquet", "inner"): [], ("parquet", "right semi"): [], ("parquet", "right anti"): [],
    }


def test_a_left_semi_join_over_csv_emits_from_its_build_side(tmp_path):
    """`l LEFT SEMI JOIN r` builds l (no statistics, no swap) and emits its matched rows
    from the hash table: in no order DataFusion claims. No SL001."""
    base = tmp_path / "data"
    (base / "l").mkdir(parents=True)
    (base / "r").mkdir(parents=True)
    (base / "l" / "0.csv").write_text("k,v\n1,1\n")
    (base / "r" / "0.csv").write_text("k,w\n1,1\n")
    (tmp_path / "sortlint.yml").write_text(CSV_CATALOG.format(base=base, format="csv"))
    config = load_config(tmp_path / "sortlint.yml")
    (tmp_path / "q.sql").write_text("SELECT r.w FROM r LEFT SEMI JOIN l ON l.k = r.k ORDER BY r.w")
    assert [f.code for f in check([tmp_path / "q.sql"], config).findings] == []


# --- unbounded sources ----------------------------------------------------------------------

UNBOUNDED_CATALOG = """
target: datafusion
datafusion: {settings}
sources:
  s: {{columns: {{a: int not null, b: int, c: int, d: int}}, orderings: [[a, b], [c]], unbounded: true}}
"""


@pytest.mark.parametrize(
    ("window", "ordered"),
    [
        # DataFusion cannot sort an infinite input: the window runs as rows come
        # (mode=Linear), over an order-preserving repartition by d (window_019).
        ("avg(d) OVER (PARTITION BY d ORDER BY a RANGE 10 PRECEDING)", True),
        ("avg(d) OVER (PARTITION BY d ORDER BY a DESC RANGE 10 PRECEDING)", True),
        ("row_number() OVER (PARTITION BY d ORDER BY a)", True),
    ],
)
def test_a_window_over_an_unbounded_source_keeps_its_order(tmp_path, window, ordered):
    sql = f"SELECT a, b, c, d, {window} AS x FROM s ORDER BY c"
    assert sorted_in_each_partition(tmp_path, {"target_partitions": 2}, sql, UNBOUNDED_CATALOG) is ordered
    bounded = UNBOUNDED_CATALOG.replace(", unbounded: true", "")
    assert sorted_in_each_partition(tmp_path, {"target_partitions": 2}, sql, bounded) is False
    (tmp_path / "s.csv").write_text("a,b,c,d\n1,1,1,1\n")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2))
    ctx.sql(f"CREATE UNBOUNDED EXTERNAL TABLE s (a INT NOT NULL, b INT, c INT, d INT) STORED AS CSV "
            f"LOCATION '{tmp_path / 's.csv'}' WITH ORDER (a ASC, b ASC) WITH ORDER (c ASC) "
            f"OPTIONS ('format.has_header' 'true')").collect()
    plan = ctx.sql(f"EXPLAIN {sql}").to_pylist()[-1]["plan"]
    assert "SortExec" not in plan and "mode=[Linear]" in plan, plan


def test_unbounded_is_a_datafusion_source_setting(tmp_path):
    (tmp_path / "sortlint.yml").write_text("target: spark\nsources:\n  s:\n    unbounded: true\n")
    with pytest.raises(ConfigError, match=r"sortlint.yml:4: unbounded: true on source 's' needs target: datafusion"):
        load_config(tmp_path / "sortlint.yml")


# --- hash joins over Parquet files: the declared row counts pick the built side -------------

STATISTICS_CATALOG = """
target: datafusion
datafusion: {{settings}}
sources:
  f:
    columns:
      k: string not null
      ts: bigint not null
      v: bigint not null
    orderings: [[k, ts]]
    {f_rows}
  d:
    columns:
      k: string not null
      service: string not null
      env: string not null
    {d_rows}
"""


def statistics_catalog(fact_rows: int | None, dimension_rows: int | None) -> str:
    """The catalog of `f` and `d`, with the row counts declared (None: not declared); still
    to be formatted with its `settings`."""
    def rows(count: int | None) -> str:
        return "" if count is None else f"statistics: {{{{rows: {count}}}}}"
    return STATISTICS_CATALOG.format(f_rows=rows(fact_rows), d_rows=rows(dimension_rows))


def write_fact_and_dimension(base: Path, fact_rows: int, dimension_rows: int) -> None:
    """`f`, three Parquet files (keys A, B, C), each sorted by (k, ts); `d`, one file."""
    for index, key in enumerate("ABC"):
        rows = range(index * fact_rows // 3, (index + 1) * fact_rows // 3)
        (base / "f").mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"k": pa.array([key] * len(rows), pa.string()),
                                 "ts": pa.array(rows, pa.int64()), "v": pa.array(rows, pa.int64())}),
                       base / "f" / f"{key}.parquet")
    (base / "d").mkdir(parents=True, exist_ok=True)
    keys = ["A", "B", "C", "D"]
    pq.write_table(pa.table({"k": pa.array([keys[i % 4] for i in range(dimension_rows)], pa.string()),
                             "service": pa.array(["log" if i % 4 < 3 else "trace" for i in range(dimension_rows)], pa.string()),
                             "env": pa.array(["prod"] * dimension_rows, pa.string())}),
                   base / "d" / "0.parquet")


def fact_and_dimension(base: Path) -> tuple[str, ...]:
    return (
        f"CREATE EXTERNAL TABLE f (k VARCHAR NOT NULL, ts BIGINT NOT NULL, v BIGINT NOT NULL) STORED AS PARQUET "
        f"WITH ORDER (k ASC NULLS LAST, ts ASC NULLS LAST) LOCATION '{base / 'f'}/'",
        f"CREATE EXTERNAL TABLE d (k VARCHAR NOT NULL, service VARCHAR NOT NULL, env VARCHAR NOT NULL) "
        f"STORED AS PARQUET LOCATION '{base / 'd'}/'",
    )


def parquet_join_plan(base: Path, sql: str, partitions: int) -> str:
    return physical_plan(datafusion.SessionConfig().with_target_partitions(partitions), sql, fact_and_dimension(base))


FACT_FIRST = "SELECT f.k, f.ts, d.env FROM f JOIN d ON f.k = d.k WHERE d.service = 'log' ORDER BY f.k, f.ts"
DIMENSION_FIRST = "SELECT f.k, f.ts, d.env FROM d JOIN f ON d.k = f.k WHERE d.service = 'log' ORDER BY f.k, f.ts"
UNFILTERED = "SELECT f.k, f.ts, d.env FROM f JOIN d ON f.k = d.k ORDER BY f.k, f.ts"


@pytest.mark.parametrize(
    ("fact_rows", "dimension_rows", "sql", "built", "partitions"),
    [
        # The fact table, written on the left, is larger: JoinSelection swaps the inputs and
        # builds d (filtered or not), and f streams in its order.
        (3000, 4, FACT_FIRST, "d", 3),
        (3000, 4, UNFILTERED, "d", 3),
        # ... and leaves them as they are when the dimension table is written on the left.
        (3000, 4, DIMENSION_FIRST, "d", 3),
        # The dimension table is larger: the fact table is built, its order lost.
        (30, 3000, UNFILTERED, "f", 3),
        # Unfiltered, 30 rows against 20: d is built. A filter on the fact table's own
        # column makes DataFusion estimate it smaller (ts < 3 of 0..29: 3 rows), and builds
        # it; sortlint, bounding that estimate by 1 and 30 only, claims nothing either way.
        (30, 20, UNFILTERED, "d", 3),
        (30, 20, "SELECT f.k, f.ts, d.env FROM f JOIN d ON f.k = d.k WHERE f.ts < 3 ORDER BY f.k, f.ts", "f", 3),
        # A side over hash_join_single_partition_threshold_rows is never built whole: the
        # small one is, whichever way it is written.
        (150_000, 4, UNFILTERED, "d", 3),
        # Both over it: both sides are hash-repartitioned (mode=Partitioned), no order kept.
        (150_000, 140_000, UNFILTERED, None, 3),
        # With one partition the left side is collected whatever its size (mode=CollectLeft),
        # and JoinSelection still builds the smaller side.
        (150_000, 140_000, UNFILTERED, "d", 1),
        (30, 3000, UNFILTERED, "f", 1),
    ],
)
def test_declared_row_counts_decide_which_side_a_hash_join_builds(
    tmp_path, fact_rows, dimension_rows, sql, built, partitions
):
    """JoinSelection on the datafusion package, 3 partitions or 1: the side it collects
    (mode=CollectLeft, the left input after any swap) is the one the declared
    `statistics: {rows: N}` make sortlint expect, and the fact table's order survives the
    join - no SortExec for the ORDER BY - exactly when sortlint says so."""
    base = tmp_path / "data"
    write_fact_and_dimension(base, fact_rows, dimension_rows)
    plan = parquet_join_plan(base, sql, partitions)
    join = next(line for line in plan.splitlines() if "HashJoinExec" in line)
    build = plan.splitlines()[plan.splitlines().index(join) + 1:]
    scans = [line for line in build if "DataSourceExec" in line]
    if built is None:
        assert "mode=Partitioned" in join, plan
    else:
        assert "mode=CollectLeft" in join, plan
        assert f"/{built}/" in scans[0], plan  # the first input below the join is the built one
    catalog = statistics_catalog(fact_rows, dimension_rows)
    ordered = sorted_in_each_partition(tmp_path, {"target_partitions": partitions}, sql, catalog=catalog)
    assert ordered is (built == "d")
    assert ("SortExec" not in plan) is ordered, plan


def test_a_finding_resting_on_row_counts_names_them_and_its_fix_is_unsafe(tmp_path):
    """With one partition the streamed fact table's order is the join's whole output: SL001.
    It rests on the declared row counts, which DataFusion checks nowhere and which change as
    tables grow, so the fix is unsafe; DataFusion runs the fixed query in that order."""
    base = tmp_path / "data"
    write_fact_and_dimension(base, 3000, 4)
    (tmp_path / "sortlint.yml").write_text(statistics_catalog(3000, 4).format(settings="{target_partitions: 1}"))
    query = "SELECT f.k, f.ts, d.env FROM f JOIN d ON f.k = d.k"
    (tmp_path / "q.sql").write_text(f"{query} ORDER BY f.k, f.ts")
    [finding] = check([tmp_path / "q.sql"], load_config(tmp_path / "sortlint.yml")).findings
    assert finding.code == "SL001"
    catalog = cited(tmp_path / "sortlint.yml")
    assert finding.message.endswith(
        f"; declared statistics rows: 3000 of f ({catalog}:5) and rows: 4 of d ({catalog}:12), "
        "by which DataFusion builds d and streams f"
    )
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    ctx = session(datafusion.SessionConfig().with_target_partitions(1), fact_and_dimension(base))
    rows = [(row["k"], row["ts"]) for row in ctx.sql(query).to_pylist()]
    assert len(rows) == 3000 and rows == sorted(rows)


def test_without_declared_row_counts_a_parquet_join_keeps_no_order(tmp_path):
    catalog = statistics_catalog(None, None)
    assert sorted_in_each_partition(tmp_path, {"target_partitions": 3}, FACT_FIRST, catalog=catalog) is False


def test_row_counts_are_compared_only_where_datafusion_knows_no_byte_size(tmp_path):
    """With a join key of fixed width DataFusion knows both sides' byte sizes and compares
    those, which the catalog does not declare: no order is claimed."""
    catalog = """
target: datafusion
datafusion: {settings}
sources:
  f:
    columns:
      k: bigint not null
      ts: bigint not null
    orderings: [[k, ts]]
    statistics:
      rows: 3000
  d:
    columns:
      k: bigint not null
      env: string not null
    statistics:
      rows: 4
"""
    sql = "SELECT f.k, f.ts, d.env FROM f JOIN d ON f.k = d.k ORDER BY f.k, f.ts"
    assert sorted_in_each_partition(tmp_path, {"target_partitions": 3}, sql, catalog=catalog) is False


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("target: spark\nsources:\n  s:\n    statistics: {rows: 5}\n",
         r"sortlint.yml:4: statistics of source 's' needs target: datafusion"),
        ("target: datafusion\nsources:\n  s:\n    statistics: {rows: many}\n",
         r"sortlint.yml:4: rows of statistics of source 's' must be a whole number, 0 or more, got"),
        ("target: datafusion\nsources:\n  s:\n    statistics: {rows: -1}\n",
         r"sortlint.yml:4: rows of statistics of source 's' must be a whole number, 0 or more, got"),
        ("target: datafusion\nsources:\n  s:\n    statistics: {bytes: 5}\n",
         r"sortlint.yml:4: .*bytes"),
    ],
)
def test_statistics_are_a_checked_datafusion_source_setting(tmp_path, text, error):
    (tmp_path / "sortlint.yml").write_text(text)
    with pytest.raises(ConfigError, match=error):
        load_config(tmp_path / "sortlint.yml")
