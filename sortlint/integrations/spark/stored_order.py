"""Whether rows are stored in order: neighbours compared as they stream past, one file at a time.

This module runs inside Spark's Python workers (`DataFrame.mapInArrow`), on a cluster's
executors as well as on a laptop, so it imports nothing of sortlint's: the contracts job
pickles it by value and the executors need only pyarrow (which PySpark's Arrow support needs
anyway). It also holds the one scalar comparator the driver uses on the few key values the
workers send back, so both sides order values the same way.

Spark's order, which both comparators follow (`SortOrder` in Catalyst): NULL placement is the
key's own (`NULLS FIRST` / `NULLS LAST`), whatever the direction; NaN is larger than every
other number and equal to itself; -0.0 equals 0.0; strings compare by their UTF-8 bytes (the
default UTF8_BINARY collation), which is the order of their code points.

The input of `check_files` is a stream of Arrow batches of one Spark task with these columns:
`_file`, `_block_start`, `_block_length`, `_file_size` (Spark's `_metadata` of the file each
row comes from), optionally `_row_index` (the row's position in a Parquet file) and `_bucket`
(the bucket the row hashes to), and the key columns the checks name. It yields one summary
row per file (per run of rows from one file, if Spark ever gave a task more than one):
where it read the file from, how many rows, whether the rows came in stored order, the bucket
ids it saw, and for every check the first and last key, the number of out-of-order
neighbours, and the first such pair.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import reduce

import pyarrow as pa
import pyarrow.compute as pc

FILE, BLOCK_START, BLOCK_LENGTH, FILE_SIZE = "_file", "_block_start", "_block_length", "_file_size"
ROW_INDEX, BUCKET, POSITION = "_row_index", "_bucket", "_position"


@dataclass(frozen=True)
class Key:
    """One sort key over a column of the input batches."""

    column: str
    descending: bool = False
    nulls_first: bool = True


@dataclass(frozen=True)
class OrderCheck:
    """Rows must be in `keys` order; with `groups`, only rows sharing the group columns'
    values are compared (their subsequence must be in order, whatever lies between them)."""

    name: str
    keys: tuple[Key, ...]
    groups: tuple[str, ...] = ()


# --- the summary a task sends back ------------------------------------------------------------


def summary_fields(checks: Sequence[OrderCheck], key_types: dict[str, pa.DataType]) -> list[pa.Field]:
    """The Arrow fields of one summary row (the contracts job gives Spark the same schema)."""
    fields = [
        pa.field("file", pa.string()),
        pa.field("block_start", pa.int64()),
        pa.field("block_length", pa.int64()),
        pa.field("file_size", pa.int64()),
        pa.field("rows", pa.int64()),
        pa.field("stored_order", pa.bool_()),
        pa.field("bucket_min", pa.int32()),
        pa.field("bucket_max", pa.int32()),
    ]
    for check in checks:
        keys = pa.struct([pa.field(k.column, key_types[k.column]) for k in check.keys])
        fields += [
            pa.field(f"{check.name}_first", keys),
            pa.field(f"{check.name}_last", keys),
            pa.field(f"{check.name}_disorders", pa.int64()),
            pa.field(f"{check.name}_bad_positions", pa.list_(pa.int64())),
            pa.field(f"{check.name}_bad_before", keys),
            pa.field(f"{check.name}_bad_after", keys),
        ]
    return fields


class _CheckState:
    """One check over one file: the last row of every group so far, and what was found."""

    def __init__(self, check: OrderCheck) -> None:
        self.check = check
        self.columns = [*check.groups, *(k.column for k in check.keys), POSITION]
        self.carry: pa.Table | None = None
        self.first: pa.Table | None = None
        self.last: pa.Table | None = None
        self.disorders = 0
        # The first out-of-order pair: (position of the later row, of the earlier, their keys).
        self.bad: tuple[int, int, pa.Table, pa.Table] | None = None

    def feed(self, rows: pa.Table) -> None:
        keys = [k.column for k in self.check.keys]
        if self.first is None:
            self.first = rows.select(keys).slice(0, 1)
        self.last = rows.select(keys).slice(rows.num_rows - 1, 1)
        table = rows.select(self.columns)
        if self.carry is not None:
            table = pa.concat_tables([self.carry, table])
        if self.check.groups:
            order = pc.sort_indices(
                table, sort_keys=[(g, "ascending") for g in self.check.groups] + [(POSITION, "ascending")]
            )
            table = table.take(order)
        n = table.num_rows
        before, after = table.slice(0, n - 1), table.slice(1, n - 1)
        same_group = _all_true(
            [_same(before.column(g), after.column(g)) for g in self.check.groups], n - 1
        )
        disordered = pc.and_(same_group, out_of_order(before, after, self.check.keys))
        count = pc.sum(disordered).as_py() or 0
        if count:
            self.disorders += count
            positions = pc.filter(after.column(POSITION), disordered)
            at = pc.min(positions).as_py()
            if self.bad is None or at < self.bad[0]:
                index = pc.index(after.column(POSITION), at).as_py()
                earlier = before.column(POSITION)[index].as_py()
                self.bad = (at, earlier, before.select(keys).slice(index, 1), after.select(keys).slice(index, 1))
        ends_group = pc.invert(same_group)
        is_last = pa.concat_arrays([ends_group, pa.array([True], pa.bool_())])
        self.carry = table.filter(is_last)

    def output(self) -> dict[str, pa.Array]:
        name = self.check.name
        positions = [self.bad[1], self.bad[0]] if self.bad else None
        return {
            f"{name}_first": _struct(self.first),
            f"{name}_last": _struct(self.last),
            f"{name}_disorders": pa.array([self.disorders], pa.int64()),
            f"{name}_bad_positions": pa.array([positions], pa.list_(pa.int64())),
            f"{name}_bad_before": _struct(self.bad[2] if self.bad else None, self.first),
            f"{name}_bad_after": _struct(self.bad[3] if self.bad else None, self.first),
        }


def _struct(row: pa.Table | None, like: pa.Table | None = None) -> pa.Array:
    """A one-row table as a one-element struct array; without a row, a NULL of `like`'s type."""
    if row is None:
        fields = [pa.field(c, t) for c, t in zip(like.column_names, like.schema.types)]
        return pa.nulls(1, pa.struct(fields))
    return pa.StructArray.from_arrays([row.column(c).combine_chunks() for c in row.column_names], row.column_names)


class _FileState:
    """Everything one task learned about one file."""

    def __init__(self, file: str, first: pa.Table, checks: Sequence[OrderCheck]) -> None:
        self.file = file
        self.block_start = first.column(BLOCK_START)[0].as_py()
        self.block_length = first.column(BLOCK_LENGTH)[0].as_py()
        self.file_size = first.column(FILE_SIZE)[0].as_py()
        self.rows = 0
        self.stored_order = True
        self.last_index: int | None = None
        self.bucket_min: int | None = None
        self.bucket_max: int | None = None
        self.checks = [_CheckState(check) for check in checks]

    def feed(self, rows: pa.Table) -> None:
        count = rows.num_rows
        if ROW_INDEX in rows.column_names:
            index = rows.column(ROW_INDEX)
            positions = index
            increasing = pc.all(pc.greater(index.slice(1), index.slice(0, count - 1))).as_py()
            starts_after = self.last_index is None or index[0].as_py() > self.last_index
            self.stored_order = self.stored_order and increasing is not False and starts_after
            self.last_index = index[count - 1].as_py()
        else:
            positions = pa.array(range(self.rows, self.rows + count), pa.int64())
        if BUCKET in rows.column_names:
            low, high = pc.min_max(rows.column(BUCKET)).values()
            self.bucket_min = _extreme(min, self.bucket_min, low.as_py())
            self.bucket_max = _extreme(max, self.bucket_max, high.as_py())
        rows = rows.append_column(POSITION, positions)
        for state in self.checks:
            state.feed(rows)
        self.rows += count

    def output(self, schema: pa.Schema) -> pa.RecordBatch:
        columns = {
            "file": pa.array([self.file], pa.string()),
            "block_start": pa.array([self.block_start], pa.int64()),
            "block_length": pa.array([self.block_length], pa.int64()),
            "file_size": pa.array([self.file_size], pa.int64()),
            "rows": pa.array([self.rows], pa.int64()),
            "stored_order": pa.array([self.stored_order]),
            "bucket_min": pa.array([self.bucket_min], pa.int32()),
            "bucket_max": pa.array([self.bucket_max], pa.int32()),
        }
        for state in self.checks:
            columns.update(state.output())
        return pa.RecordBatch.from_arrays(
            [columns[f.name].cast(f.type) for f in schema], schema=schema
        )


def _extreme(pick, current, value):
    if value is None:
        return current
    return value if current is None else pick(current, value)


def check_files(
    batches: Iterator[pa.RecordBatch], checks: Sequence[OrderCheck], schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """One summary row per file the task read, in the order the task read them."""
    state: _FileState | None = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        table = pa.Table.from_batches([batch])
        files = table.column(FILE)
        changes = pc.indices_nonzero(pc.not_equal(files.slice(1), files.slice(0, len(files) - 1)))
        bounds = [0, *(i + 1 for i in changes.to_pylist()), table.num_rows]
        for start, end in zip(bounds, bounds[1:]):
            run = table.slice(start, end - start)
            file = run.column(FILE)[0].as_py()
            if state is None or state.file != file:
                if state is not None:
                    yield state.output(schema)
                state = _FileState(file, run, checks)
            state.feed(run)
    if state is not None:
        yield state.output(schema)


# --- comparing neighbours, a column at a time ------------------------------------------------


def out_of_order(before: pa.Table, after: pa.Table, keys: Sequence[Key]) -> pa.Array:
    """For each pair of rows (before[i], after[i]): whether `before` must come after `after`
    under `keys` (lexicographically: the first key on which they differ decides)."""
    n = before.num_rows
    result = pa.array([False] * n, pa.bool_())
    decided = pa.array([False] * n, pa.bool_())
    for key in keys:
        later, earlier = _compare(before.column(key.column), after.column(key.column), key)
        result = pc.or_(result, pc.and_(pc.invert(decided), later))
        decided = pc.or_(decided, pc.or_(later, earlier))
    return result


def _compare(a, b, key: Key) -> tuple[pa.Array, pa.Array]:
    """(a sorts after b, a sorts before b), both without nulls."""
    a, b = _plain(a), _plain(b)
    greater = pc.fill_null(pc.greater(a, b), False)
    less = pc.fill_null(pc.less(a, b), False)
    if pa.types.is_floating(a.type):
        a_nan = pc.fill_null(pc.is_nan(a), False)
        b_nan = pc.fill_null(pc.is_nan(b), False)
        a_number = pc.and_(pc.is_valid(a), pc.invert(a_nan))
        b_number = pc.and_(pc.is_valid(b), pc.invert(b_nan))
        greater = pc.or_(greater, pc.and_(a_nan, b_number))
        less = pc.or_(less, pc.and_(b_nan, a_number))
    if key.descending:
        greater, less = less, greater
    only_a_null = pc.and_(pc.is_null(a), pc.is_valid(b))
    only_b_null = pc.and_(pc.is_null(b), pc.is_valid(a))
    if key.nulls_first:
        return pc.or_(greater, only_b_null), pc.or_(less, only_a_null)
    return pc.or_(greater, only_a_null), pc.or_(less, only_b_null)


def _plain(array):
    """A chunked column as one array, dictionary-encoded values decoded."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array


def _same(a, b) -> pa.Array:
    """Equal, with NULL equal to NULL (as rows of one group)."""
    a, b = _plain(a), _plain(b)
    equal = pc.fill_null(pc.equal(a, b), False)
    return pc.or_(equal, pc.and_(pc.is_null(a), pc.is_null(b)))


def _all_true(masks: list[pa.Array], n: int) -> pa.Array:
    return reduce(pc.and_, masks, pa.array([True] * n, pa.bool_()))


# --- the same order, on the driver's few Python values ---------------------------------------


def compare_values(a, b, key: Key) -> int:
    """-1, 0 or 1: where `a` sorts relative to `b` under `key`."""
    if a is None or b is None:
        if a is None and b is None:
            return 0
        first = -1 if key.nulls_first else 1
        return first if a is None else -first
    a_nan = isinstance(a, float) and math.isnan(a)
    b_nan = isinstance(b, float) and math.isnan(b)
    if a_nan or b_nan:
        order = 0 if a_nan and b_nan else (1 if a_nan else -1)
    else:
        order = 0 if a == b else (-1 if a < b else 1)
    return -order if key.descending else order


def compare_rows(a: Sequence, b: Sequence, keys: Sequence[Key]) -> int:
    """Lexicographic comparison of two key tuples (one value per key, in order)."""
    for x, y, key in zip(a, b, keys):
        order = compare_values(x, y, key)
        if order:
            return order
    return 0
