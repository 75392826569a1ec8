"""SL001 under `target: datafusion` depends on `datafusion: {target_partitions: N}`, checked
against the `datafusion` package on the same SQL and the same files.

`t` is two Parquet files `WITH ORDER (a)`, whose names sort in key order. With 4 target
partitions DataFusion reads them as two partitions and a final ORDER BY is the merge of them
(SortPreservingMergeExec): not a sort to remove. With 1 it reads them one after another as
one stream in that order and plans nothing for the ORDER BY: SL001 says so. Its fix is
unsafe, because the stream is in order only while the files' names keep sorting in key
order (tests/engines/test_datafusion_model.py shows DataFusion reading them so).
"""

from __future__ import annotations

import re

import pytest

from sortlint.config import load_config
from sortlint.workspace.check import check

datafusion = pytest.importorskip("datafusion")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CATALOG = """\
target: datafusion
datafusion: {{target_partitions: {partitions}}}
sources:
  t:
    columns: {{a: bigint not null, k: bigint not null}}
    orderings: [[a]]
"""
FILES = ([3, 1, 2], [5, 4, 6])  # k of each row; a counts up through both files
QUERIES = {
    "scan": "SELECT a, k FROM t ORDER BY a",
    "aggregate": "SELECT a, count(*) AS c FROM t GROUP BY a ORDER BY a",
}
MESSAGE = (
    "ORDER BY [a ASC NULLS LAST] is already satisfied by its input: declared ordering "
    "[a ASC NULLS LAST] of t (sortlint.yml:6), read as one stream (target_partitions 1) if t's "
    "files, in path order, continue that order"
)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    location = tmp_path_factory.mktemp("target-partitions") / "t"
    location.mkdir()
    first = 0
    for index, ks in enumerate(FILES):
        a = pa.array(range(first, first + len(ks)), pa.int64())
        pq.write_table(pa.table({"a": a, "k": pa.array(ks, pa.int64())}), location / f"part-{index}.parquet")
        first += len(ks)
    return location


def session(table, partitions: int):
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(partitions))
    ctx.sql(f"CREATE EXTERNAL TABLE t (a BIGINT NOT NULL, k BIGINT NOT NULL) STORED AS PARQUET "
            f"WITH ORDER (a ASC NULLS LAST) LOCATION '{table}/'").collect()
    return ctx


def physical_plan(ctx, sql: str) -> str:
    return ctx.sql(f"EXPLAIN {sql}").to_pandas().plan.iloc[-1]


def findings(tmp_path, monkeypatch, partitions: int, sql: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG.format(partitions=partitions))
    query = tmp_path / "q.sql"
    query.write_text(sql + "\n")
    result = check([query], load_config(tmp_path / "sortlint.yml"))
    assert not result.errors, result.errors
    return result.findings


@pytest.mark.parametrize("query", QUERIES)
def test_four_partitions_merge_so_the_order_by_stays(table, tmp_path, monkeypatch, query):
    sql = QUERIES[query]
    assert "SortPreservingMergeExec" in physical_plan(session(table, 4), sql)
    assert findings(tmp_path, monkeypatch, 4, sql) == []


@pytest.mark.parametrize("query", QUERIES)
def test_one_partition_needs_no_sort_and_sl001_says_so(table, tmp_path, monkeypatch, query):
    sql = QUERIES[query]
    ctx = session(table, 1)
    assert not re.search(r"Sort(Preserving)?\w*Exec", physical_plan(ctx, sql))
    [finding] = findings(tmp_path, monkeypatch, 1, sql)
    column = sql.index("ORDER BY") + 1
    assert (finding.code, finding.line, finding.column, finding.message) == ("SL001", 1, column, MESSAGE)
    assert (finding.basis, finding.fix.applicability) == ("declared", "unsafe")
    # The fix, run by DataFusion: the same rows in the same order.
    [edit] = finding.fix.edits
    fixed = sql[: edit.start] + edit.content + sql[edit.end:]
    assert fixed.rstrip() == sql[: sql.index(" ORDER BY")]
    assert ctx.sql(fixed).to_pylist() == ctx.sql(sql).to_pylist()
