"""Seeded catalogs (sortlint.yml) and table data that really satisfies every declaration.

A catalog is a few tables with typed, nullable columns. What it declares is true of the data
that is generated for it — NOT NULL columns hold no NULL, constants one value, unique keys no
duplicate, and a declared ordering holds the way the table is really written:

* `scope: global` — the rows sorted by the ordering and cut into several files of different
  sizes, each file sorted and the files in key order (what an `ORDER BY` then a write, or an
  ingestion job appending in order, leaves on disk);
* `scope: partition` with `partitioned_by` — the rows of one `partitioned_by` group all in one
  file, each file sorted by the ordering (a `repartition(keys).sortWithinPartitions(...)`);
* `bucketing: {by, buckets, sorted_by}` under `target: spark` — a bucketed table written with
  `bucketBy(...).sortBy(...)`, the declaration the README teaches for it (its ordering is
  each bucket's, not declared as `orderings`).

Values are chosen so that the cases sortlint must get right occur: duplicates, NULLs, strings
that look like numbers ('1', '01', ' 1'), doubles and decimals equal to integers, dates equal to
midnight timestamps, and (in some tables) integers at the edge of overflow.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal

# Column name -> (Spark type, value kind). Tables draw their columns from this pool, so the same
# name means the same type in every table unless a table asks for a variant (see `_variant`).
COLUMN_POOL: dict[str, tuple[str, str]] = {
    "k": ("int", "small"),
    "g": ("int", "small"),
    "s": ("string", "text"),
    "sn": ("string", "numtext"),
    "d": ("date", "date"),
    "ts": ("timestamp", "timestamp"),
    "n": ("bigint", "small"),
    "x": ("double", "double"),
    "m": ("decimal(12,2)", "decimal"),
    "b": ("boolean", "boolean"),
    "v": ("int", "small"),
}

# Variants a column may take in one table: another type for the same name makes mixed-type
# comparisons and joins (`t.k = u.k` with int vs double).
_VARIANTS: dict[str, list[tuple[str, str]]] = {
    "k": [("bigint", "small"), ("double", "double"), ("string", "numtext")],
    "n": [("bigint", "wide"), ("int", "small")],
    "v": [("int", "wide"), ("bigint", "wide")],
    "d": [("timestamp", "timestamp")],
    "ts": [("date", "date")],
    "x": [("decimal(12,2)", "decimal")],
}

VALUES: dict[str, list] = {
    "small": [0, 1, 2, 3, 4],
    "wide_int": [0, 1, 2, 2147483646, 2147483647, -2147483648],
    "wide_bigint": [0, 1, 2, 9223372036854775806, 9223372036854775807, -9223372036854775808],
    "text": ["a", "b", "c", "A", ""],
    "numtext": ["1", "01", " 1", "2", "10"],
    "double": [0.0, 1.0, 1.5, 2.0, 2.5, -1.0, 3.0],
    "decimal": [Decimal("0.00"), Decimal("1.00"), Decimal("1.50"), Decimal("2.00"), Decimal("2.50"),
                Decimal("-1.25")],
    "date": [dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2024, 1, 3), dt.date(2024, 1, 4)],
    "timestamp": [dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 2), dt.datetime(2024, 1, 2, 12, 30),
                  dt.datetime(2024, 1, 3), dt.datetime(2024, 1, 3, 23, 59, 59)],
    "boolean": [True, False],
}


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # Spark type name, as sortlint.yml and Spark DDL write it
    nullable: bool
    kind: str  # which VALUES pool the column draws from

    def values(self) -> list:
        if self.kind == "small" and self.type == "bigint":
            return VALUES["small"]
        if self.kind == "wide":
            return VALUES["wide_bigint" if self.type == "bigint" else "wide_int"]
        if self.kind == "id":  # what queries compare ids with; the data draws distinct ids
            return [1, 2, 3, 5, 8]
        return VALUES[self.kind]


@dataclass(frozen=True)
class OrderItem:
    column: str
    descending: bool = False
    nulls_first: bool = True

    def sql(self) -> str:
        return (f"{self.column} {'DESC' if self.descending else 'ASC'} "
                f"NULLS {'FIRST' if self.nulls_first else 'LAST'}")


def default_nulls_first(target: str, descending: bool) -> bool:
    """Spark sorts ASC NULLS FIRST / DESC NULLS LAST; DataFusion the opposite."""
    return descending if target == "datafusion" else not descending


@dataclass
class Table:
    name: str
    columns: list[Column]
    ordering: list[OrderItem] = field(default_factory=list)
    scope: str = "global"
    partitioned_by: list[str] = field(default_factory=list)
    unique: list[list[str]] = field(default_factory=list)
    constants: dict[str, object] = field(default_factory=dict)
    bucketed: bool = False  # under Spark: written with bucketBy(...).sortBy(*ordering)
    files: list[list[tuple]] = field(default_factory=list)  # rows of each file, in file order
    default_nulls: set[int] = field(default_factory=set)  # ordering items written without NULLS

    @property
    def rows(self) -> list[tuple]:
        return [row for file in self.files for row in file]

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def index(self, name: str) -> int:
        return [c.name for c in self.columns].index(name)


@dataclass
class Catalog:
    target: str  # "spark" | "datafusion"
    tables: list[Table]
    # DataFusion's datafusion.execution.target_partitions, given to sortlint as well
    target_partitions: int | None = None

    @property
    def dialect(self) -> str:
        # DataFusion's SQL parses as postgres does, and postgres's null ordering is DataFusion's.
        return "spark" if self.target == "spark" else "postgres"

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def yaml(self) -> str:
        lines = [f"target: {self.target}", f"dialect: {self.dialect}"]
        if self.target_partitions is not None:
            lines.append(f"datafusion: {{target_partitions: {self.target_partitions}}}")
        lines.append("sources:")
        for table in self.tables:
            lines.append(f"  {table.name}:")
            lines.append("    columns:")
            for c in table.columns:
                lines.append(f"      {c.name}: {c.type}{'' if c.nullable else ' not null'}")
            if table.bucketed:
                keys = [o.column for o in table.ordering]
                lines.append(f"    bucketing: {{by: [{keys[0]}], buckets: {len(table.files) + 1}, "
                             f"sorted_by: [{', '.join(keys)}]}}")
            elif table.ordering:
                items = []
                for i, item in enumerate(table.ordering):
                    text = f"{item.column} {'desc' if item.descending else 'asc'}"
                    if i not in table.default_nulls:
                        text += f" nulls {'first' if item.nulls_first else 'last'}"
                    items.append(text)
                lines.append(f"    orderings:\n      - [{', '.join(items)}]")
                if table.scope != "global":
                    lines.append(f"    scope: {table.scope}")
                if table.partitioned_by:
                    lines.append(f"    partitioned_by: [{', '.join(table.partitioned_by)}]")
            if table.unique:
                lines.append(f"    unique: [{', '.join('[' + ', '.join(k) + ']' for k in table.unique)}]")
            if table.constants:
                pairs = ", ".join(f"{k}: {_yaml_value(v)}" for k, v in table.constants.items())
                lines.append(f"    constants: {{{pairs}}}")
            if self.target == "datafusion":
                # What DataFusion reads from the Parquet footers: which side of a hash join it builds.
                lines.append(f"    statistics: {{rows: {len(table.rows)}}}")
        return "\n".join(lines) + "\n"


def _yaml_value(value) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


# ---------------------------------------------------------------------------------------------
# Sorting rows as an engine sorts them


def sort_key(item: OrderItem, position: int):
    """A key for `sorted(..., reverse=item.descending)` placing NULLs where `item` says."""
    null_high = item.nulls_first == item.descending

    def key(row):
        value = row[position]
        if value is None:
            return (1,) if null_high else (-1,)
        return (0, value)

    return key


def sort_rows(rows: list[tuple], table: Table, items: list[OrderItem]) -> list[tuple]:
    result = list(rows)
    for item in reversed(items):
        result.sort(key=sort_key(item, table.index(item.column)), reverse=item.descending)
    return result


def compare(a, b, descending: bool, nulls_first: bool) -> int:
    """-1, 0 or 1: where `a` sorts relative to `b` under one sort key."""
    if a is None or b is None:
        if a is None and b is None:
            return 0
        return (-1 if nulls_first else 1) * (1 if a is None else -1)
    if a == b or (a != a and b != b):  # NaN sorts equal to NaN, above everything else
        return 0
    if a != a or b != b:
        less = b != b
    else:
        less = a < b
    if descending:
        less = not less
    return -1 if less else 1


def is_sorted(keys: list[tuple], directions: list[tuple[bool, bool]]) -> int | None:
    """The index of the first row out of order under `directions` [(descending, nulls_first)],
    or None when `keys` (one tuple of sort-key values per row) are in order."""
    for i, (before, after) in enumerate(zip(keys, keys[1:])):
        for a, b, (descending, nulls_first) in zip(before, after, directions):
            c = compare(a, b, descending, nulls_first)
            if c < 0:
                break
            if c > 0:
                return i + 1
    return None


# ---------------------------------------------------------------------------------------------
# Generation


class CatalogGenerator:
    """Seeded catalogs for one target; `generate()` returns a Catalog with its data."""

    def __init__(self, rng: random.Random, target: str):
        self.r = rng
        self.target = target

    def generate(self, tables: int | None = None) -> Catalog:
        count = tables or self.r.choice([2, 3, 3, 4])
        prefix = "fz." if self.target == "spark" else ""
        return Catalog(self.target, [self.table(f"{prefix}t{i}") for i in range(count)])

    # -- schema -----------------------------------------------------------------------------

    def table(self, name: str) -> Table:
        r = self.r
        names = ["id"] + r.sample(list(COLUMN_POOL), r.randint(3, 6))
        columns = [Column("id", "int", r.random() < 0.2, "id")]
        for n in names[1:]:
            type_, kind = COLUMN_POOL[n]
            if n in _VARIANTS and r.random() < 0.3:
                type_, kind = r.choice(_VARIANTS[n])
            columns.append(Column(n, type_, r.random() < 0.6, kind))
        table = Table(name, columns)
        self.declare(table)
        self.fill(table)
        return table

    def declare(self, table: Table) -> None:
        r = self.r
        id_column = table.column("id")
        if not id_column.nullable or r.random() < 0.5:
            table.unique.append(["id"])
        if r.random() < 0.15:
            pair = r.sample([c.name for c in table.columns if c.kind in ("small", "text")], 2) \
                if sum(c.kind in ("small", "text") for c in table.columns) >= 2 else []
            if pair:
                table.unique.append(pair)
        constant_candidates = [c for c in table.columns
                               if c.kind in ("small", "text", "numtext") and c.name != "id"]
        if constant_candidates and r.random() < 0.25:
            c = r.choice(constant_candidates)
            table.constants[c.name] = r.choice(c.values())
        if r.random() < 0.7:
            self.declare_ordering(table)

    def declare_ordering(self, table: Table) -> None:
        r = self.r
        orderable = [c for c in table.columns if c.name not in table.constants]
        width = min(len(orderable), r.choice([1, 1, 2, 2, 3]))
        chosen = r.sample(orderable, width)
        if self.target == "spark" and r.random() < 0.15:
            # The README's bucketed table written with SORTED BY: ASC only.
            table.bucketed = True
            table.ordering = [OrderItem(c.name, False, True) for c in chosen]
            table.default_nulls = set(range(width))
            return
        for i, c in enumerate(chosen):
            descending = r.random() < 0.35
            nulls_first = r.random() < 0.5
            if r.random() < 0.3:
                nulls_first = default_nulls_first(self.target, descending)
                table.default_nulls.add(i)
            table.ordering.append(OrderItem(c.name, descending, nulls_first))
        if self.target == "spark" and r.random() < 0.3:
            table.scope = "partition"
            groupable = [c.name for c in table.columns if c.kind in ("small", "text", "date")]
            if groupable and r.random() < 0.8:
                table.partitioned_by = [r.choice(groupable)]

    # -- data -------------------------------------------------------------------------------

    def fill(self, table: Table) -> None:
        r = self.r
        count = r.randint(10, 48)
        rows: list[tuple] = []
        seen: list[set] = [set() for _ in table.unique]
        ids = list(range(1, 4 * count))
        r.shuffle(ids)
        attempts = 0
        while len(rows) < count and attempts < 40 * count:
            attempts += 1
            row = tuple(self.value(table, c, ids) for c in table.columns)
            keys = [tuple(row[table.index(c)] for c in key) for key in table.unique]
            if any(k in s for k, s in zip(keys, seen)):
                continue
            for k, s in zip(keys, seen):
                s.add(k)
            rows.append(row)
            if not table.unique and r.random() < 0.15:
                rows.append(row)  # an exact duplicate
        self.arrange(table, rows)

    def value(self, table: Table, column: Column, ids: list[int]):
        r = self.r
        if column.name in table.constants:
            return table.constants[column.name]
        if column.nullable and r.random() < 0.15:
            return None
        if column.kind == "id":
            return ids.pop() if ids and r.random() < 0.9 else r.randint(1, 100)
        return r.choice(column.values())

    def arrange(self, table: Table, rows: list[tuple]) -> None:
        r = self.r
        files = r.choice([1, 2, 3, 3, 4]) if len(rows) >= 4 else 1
        if not table.ordering:
            r.shuffle(rows)
            table.files = _cut(rows, files, r)
        elif table.scope == "global":
            table.files = _cut(sort_rows(rows, table, table.ordering), files, r)
        else:
            groups: dict[tuple, list[tuple]] = {}
            positions = [table.index(c) for c in table.partitioned_by]
            for row in rows:
                key = tuple(row[p] for p in positions) if positions else (r.randrange(files),)
                groups.setdefault(key, []).append(row)
            buckets: list[list[tuple]] = [[] for _ in range(files)]
            for group in groups.values():
                buckets[r.randrange(files)].extend(group)
            table.files = [sort_rows(b, table, table.ordering) for b in buckets if b]
        table.files = [f for f in table.files if f]


def _cut(rows: list[tuple], files: int, r: random.Random) -> list[list[tuple]]:
    """`rows` in order, cut into `files` contiguous pieces of random (different) sizes."""
    if files <= 1 or len(rows) < files:
        return [rows]
    cuts = sorted(r.sample(range(1, len(rows)), files - 1))
    bounds = [0, *cuts, len(rows)]
    return [rows[a:b] for a, b in zip(bounds, bounds[1:])]

