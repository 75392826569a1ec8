"""Specification: the streaming order check that runs in Spark's Python workers, on Arrow alone.

The vectorised comparison of neighbours and the driver's scalar comparator follow Spark's
order (NULL placement per key whatever the direction, NaN above every number and equal to
itself); `check_files` finds, per file, the first out-of-order pair in stored order and the
number of them, within groups when asked, however the rows are cut into batches. Fuzzed
against a plain Python reference."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sortlint.integrations.spark import stored_order
from sortlint.integrations.spark.stored_order import Key, OrderCheck, compare_rows


def pairs_out_of_order(rows: list[tuple], keys: list[Key], types) -> list[bool]:
    names = [k.column for k in keys]
    table = pa.table({n: pa.array([r[i] for r in rows], t) for i, (n, t) in enumerate(zip(names, types))})
    before, after = table.slice(0, len(rows) - 1), table.slice(1, len(rows) - 1)
    return stored_order.out_of_order(before, after, keys).to_pylist()


def test_nulls_are_placed_by_the_key_whatever_the_direction():
    rows = [(None,), (1,), (None,)]
    assert pairs_out_of_order(rows, [Key("a", False, True)], [pa.int64()]) == [False, True]
    assert pairs_out_of_order(rows, [Key("a", True, True)], [pa.int64()]) == [False, True]
    assert pairs_out_of_order(rows, [Key("a", False, False)], [pa.int64()]) == [True, False]
    assert pairs_out_of_order(rows, [Key("a", True, False)], [pa.int64()]) == [True, False]


def test_nan_sorts_above_every_number_and_equals_itself():
    rows = [(1.0,), (math.nan,), (math.nan,), (math.inf,)]
    assert pairs_out_of_order(rows, [Key("x")], [pa.float64()]) == [False, False, True]
    assert pairs_out_of_order(rows, [Key("x", descending=True)], [pa.float64()]) == [True, False, False]
    assert compare_rows((math.nan,), (math.inf,), [Key("x")]) == 1
    assert compare_rows((math.nan,), (math.nan,), [Key("x")]) == 0


def test_later_keys_decide_only_ties_of_earlier_ones():
    rows = [("a", 2), ("a", 1), ("b", 0), ("b", 0)]
    keys = [Key("s"), Key("n")]
    assert pairs_out_of_order(rows, keys, [pa.string(), pa.int64()]) == [True, False, False]
    assert pairs_out_of_order(rows, [Key("s"), Key("n", descending=True)], [pa.string(), pa.int64()]) == [
        False,
        False,
        False,
    ]


def test_strings_compare_by_code_point():
    rows = [("Z",), ("a",), ("é",), ("ä",)]
    assert pairs_out_of_order(rows, [Key("s")], [pa.string()]) == [False, False, True]


# --- check_files against a reference -----------------------------------------------------------


def run(files: list[tuple[str, list[tuple]]], check: OrderCheck, cuts: list[int]):
    """Stream the files' rows (columns g, k) through check_files in batches cut at `cuts`."""
    rows = [(name, *row) for name, file_rows in files for row in file_rows]
    table = pa.table(
        {
            stored_order.FILE: [r[0] for r in rows],
            stored_order.BLOCK_START: pa.array([0] * len(rows), pa.int64()),
            stored_order.BLOCK_LENGTH: pa.array([10] * len(rows), pa.int64()),
            stored_order.FILE_SIZE: pa.array([10] * len(rows), pa.int64()),
            "g": pa.array([r[1] for r in rows], pa.int64()),
            "k": pa.array([r[2] for r in rows], pa.int64()),
        }
    )
    bounds = sorted({0, len(rows), *(c for c in cuts if 0 < c < len(rows))})
    batches = [table.slice(a, b - a).to_batches()[0] for a, b in zip(bounds, bounds[1:]) if b > a]
    schema = pa.schema(stored_order.summary_fields([check], {"g": pa.int64(), "k": pa.int64()}))
    out = [batch.to_pylist()[0] for batch in stored_order.check_files(iter(batches), [check], schema)]
    return out


def reference(file_rows: list[tuple], check: OrderCheck):
    """(disorders, first pair of positions) by brute force: neighbours within each group."""
    key = check.keys[0]
    last: dict = {}
    disorders, first = 0, None
    for position, (group, value) in enumerate(file_rows):
        group_key = group if check.groups else None
        if group_key in last:
            earlier, earlier_value = last[group_key]
            if compare_rows((earlier_value,), (value,), [key]) > 0:
                disorders += 1
                if first is None:
                    first = [earlier, position]
        last[group_key] = (position, value)
    return disorders, first


values = st.one_of(st.none(), st.integers(0, 5))
file_rows = st.lists(st.tuples(st.integers(0, 2), values), min_size=1, max_size=25)


@given(
    files=st.lists(file_rows, min_size=1, max_size=3),
    grouped=st.booleans(),
    descending=st.booleans(),
    nulls_first=st.booleans(),
    cuts=st.lists(st.integers(0, 80), max_size=6),
)
def test_check_files_matches_a_brute_force_reference(files, grouped, descending, nulls_first, cuts):
    check = OrderCheck("o", (Key("k", descending, nulls_first),), ("g",) if grouped else ())
    named = [(f"part-{i}", rows) for i, rows in enumerate(files)]
    summaries = run(named, check, cuts)
    assert [s["file"] for s in summaries] == [name for name, _ in named]
    for summary, (_, rows) in zip(summaries, named):
        disorders, first = reference(rows, check)
        assert summary["rows"] == len(rows)
        assert summary["o_disorders"] == disorders
        assert summary["o_bad_positions"] == first
        assert summary["o_first"] == {"k": rows[0][1]}
        assert summary["o_last"] == {"k": rows[-1][1]}
        if first is not None:
            assert summary["o_bad_before"] == {"k": rows[first[0]][1]}
            assert summary["o_bad_after"] == {"k": rows[first[1]][1]}


def test_a_sorted_file_cut_into_batches_has_no_disorder_at_the_cuts():
    rows = [(0, v) for v in range(10)]
    check = OrderCheck("o", (Key("k"),))
    [summary] = run([("f", rows)], check, [3, 4, 7])
    assert summary["o_disorders"] == 0 and summary["o_bad_positions"] is None


@pytest.mark.parametrize("row_index", [[0, 1, 2, 3], [0, 2, 5, 9]])
def test_rows_read_in_stored_order_by_their_parquet_row_index(row_index):
    assert _stored_order(row_index) is True


def test_rows_read_out_of_stored_order_are_noticed():
    assert _stored_order([0, 2, 1, 3]) is False


def _stored_order(row_index: list[int]) -> bool:
    n = len(row_index)
    batch = pa.record_batch(
        {
            stored_order.FILE: ["f"] * n,
            stored_order.BLOCK_START: pa.array([0] * n, pa.int64()),
            stored_order.BLOCK_LENGTH: pa.array([1] * n, pa.int64()),
            stored_order.FILE_SIZE: pa.array([1] * n, pa.int64()),
            stored_order.ROW_INDEX: pa.array(row_index, pa.int64()),
            "k": pa.array(range(n), pa.int64()),
        }
    )
    check = OrderCheck("o", (Key("k"),))
    schema = pa.schema(stored_order.summary_fields([check], {"k": pa.int64()}))
    [out] = stored_order.check_files(iter([batch.slice(0, 2), batch.slice(2)]), [check], schema)
    return out.to_pylist()[0]["stored_order"]
