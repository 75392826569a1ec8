"""Comparing two executions of a query: schema, rows as multisets, and the final order.

Engine-neutral: a result is its schema [(name, type)] and its rows as tuples in the order the
engine returned them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from fuzz.catalogs import is_sorted


@dataclass
class Result:
    schema: list[tuple[str, str]]
    rows: list[tuple]
    error: str | None = None  # the engine's message when the query failed

    def shown(self, limit: int = 40) -> str:
        head = " | ".join(f"{n} {t}" for n, t in self.schema)
        lines = [head] + [" | ".join(_show(v) for v in row) for row in self.rows[:limit]]
        if len(self.rows) > limit:
            lines.append(f"... {len(self.rows) - limit} more rows")
        return "\n".join(lines)


def _show(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def normal(value):
    """A value as compared: floats to 9 significant digits (sums may add in another order)."""
    if isinstance(value, float):
        if math.isnan(value):
            return ("nan",)
        if math.isinf(value) or value == 0:
            return value
        return float(f"{value:.9g}")
    if isinstance(value, Decimal):
        return value.normalize()
    return value


def multiset(rows: list[tuple]) -> Counter:
    return Counter(tuple(normal(v) for v in row) for row in rows)


def keys_of(rows: list[tuple], order: list[tuple[int, bool, bool]]) -> list[tuple]:
    return [tuple(row[p] for p, _, _ in order) for row in rows]


def out_of_order(rows: list[tuple], order: list[tuple[int, bool, bool]]) -> int | None:
    """The first row index out of `order`, or None."""
    return is_sorted(keys_of(rows, order), [(d, n) for _, d, n in order])


def differences(original: Result, fixed: Result, order, limit: int | None) -> list[tuple[str, str]]:
    """What changed from `original` to `fixed`: [(aspect, detail)], aspect in schema/rows/order.

    With a LIMIT after the final ORDER BY, rows tied with the last one may differ between two
    correct runs: the sort keys' sequence must be equal, and the rows before the last key.
    """
    found: list[tuple[str, str]] = []
    if original.schema != fixed.schema:
        found.append(("schema", f"{original.schema} became {fixed.schema}"))
    if len(original.schema) != len(fixed.schema):
        return found + [("rows", "column count changed")]
    if limit is not None and order:
        a, b = keys_of(original.rows, order), keys_of(fixed.rows, order)
        if [tuple(map(normal, k)) for k in a] != [tuple(map(normal, k)) for k in b]:
            found.append(("rows", "the sort keys of the limited rows differ"))
        elif a:
            last = a[-1]
            before = [r for r, k in zip(original.rows, a) if k != last]
            after = [r for r, k in zip(fixed.rows, b) if k != last]
            if multiset(before) != multiset(after):
                found.append(("rows", "rows before the last sort key differ"))
    elif multiset(original.rows) != multiset(fixed.rows):
        lost = multiset(original.rows) - multiset(fixed.rows)
        gained = multiset(fixed.rows) - multiset(original.rows)
        found.append(("rows", f"{sum(lost.values())} rows lost, {sum(gained.values())} rows gained; "
                              f"lost e.g. {list(lost)[:3]}, gained e.g. {list(gained)[:3]}"))
    if order:
        at = out_of_order(fixed.rows, order)
        if at is not None:
            found.append(("order", f"row {at} is out of the ORDER BY's order: {fixed.rows[at - 1]} "
                                   f"then {fixed.rows[at]}"))
    return found
