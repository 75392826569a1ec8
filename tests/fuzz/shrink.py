"""Shrinking a failure to a minimal reproducer.

A failure is re-checked from scratch (sortlint over a one-file repository, the engine over
freshly written tables) by a `check(catalog, case) -> Failure | None` callable; a smaller
candidate is kept when it still fails with the same class. Candidates, in order:

1. tables the query does not name, then columns it does not name (with what is declared on
   them);
2. declarations one by one (the ordering, a unique key, a constant);
3. for SQL, one clause part at a time (a select item, a WHERE conjunct, the WHERE, a GROUP BY
   or ORDER BY key, HAVING, LIMIT), the query re-printed by sqlglot and its final ORDER BY
   re-read from the new text;
4. rows: whole files, then halves, quarters, ... down to single rows.

The attempts are bounded (`budget` checks); what is left when it runs out is still a failing
case, only not minimal. A shrunk case must fail twice more to replace the one found (shrinking
can make a failure depend on a tie, e.g. two files of the same size read in either order).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import sqlglot
from sqlglot import exp

from fuzz.catalogs import Catalog, Table, default_nulls_first
from fuzz.failures import Failure
from fuzz.queries import Case

Check = Callable[[Catalog, Case], Failure | None]


def final_order(text: str, dialect: str, target: str) -> tuple | None:
    """(order keys over output positions, limit, unordered text, ORDER BY offset) of a SQL
    statement whose final ORDER BY names output columns or ordinals; None when it cannot tell."""
    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except Exception:  # noqa: BLE001
        return None
    order = tree.args.get("order")
    if order is None:
        return [], None, None, None
    outputs = tree.named_selects if hasattr(tree, "named_selects") else []
    keys = []
    for item in order.expressions:
        key = item.this
        if isinstance(key, exp.Literal) and not key.is_string:
            position = int(key.this) - 1
        elif isinstance(key, exp.Column) and not key.table and key.name in outputs:
            position = outputs.index(key.name)
        else:
            return None
        descending = bool(item.args.get("desc"))
        nulls_first = item.args.get("nulls_first")
        if nulls_first is None:
            nulls_first = default_nulls_first(target, descending)
        keys.append((position, descending, bool(nulls_first)))
    limit = tree.args.get("limit")
    limit_value = int(limit.expression.this) if limit is not None and limit.expression is not None else None
    match = list(re.finditer(r"\bORDER BY\b", text, re.IGNORECASE))
    offset = match[-1].start() if match else None
    unordered = tree.copy()
    unordered.set("order", None)
    unordered.set("limit", None)
    return keys, limit_value, unordered.sql(dialect=dialect), offset


def case_from_sql(case: Case, text: str, dialect: str, target: str) -> Case | None:
    derived = final_order(text, dialect, target)
    if derived is None:
        return None
    keys, limit, unordered, offset = derived
    return replace(case, text=text, order=keys or None, limit=limit,
                   unordered_text=unordered, order_offset=offset)


def _removals(tree: exp.Expression):
    """Copies of `tree` with one part removed."""
    parts: list[exp.Expression] = []
    for select in tree.find_all(exp.Select):
        if len(select.expressions) > 1:
            parts += select.expressions
        where = select.args.get("where")
        if where is not None:
            parts.append(where)
            parts += [c for c in where.this.flatten() if isinstance(where.this, exp.And)]
        group = select.args.get("group")
        if group is not None:
            parts += group.expressions if len(group.expressions) > 1 else [group]
        for key in ("having", "limit", "order", "distribute", "sort", "cluster"):
            node = select.args.get(key)
            if node is not None:
                parts.append(node)
                if key in ("order", "sort") and len(node.expressions) > 1:
                    parts += node.expressions
    for key in ("order", "limit"):
        node = tree.args.get(key)
        if node is not None and node not in parts:
            parts.append(node)
            if key == "order" and len(node.expressions) > 1:
                parts += node.expressions
    for join in tree.find_all(exp.Join):
        on = join.args.get("on")
        if isinstance(on, exp.And):
            parts += list(on.flatten())
    for part in parts:
        candidate = tree.copy()
        target = next((n for n in candidate.walk() if n == part and _path(n) == _path(part)), None)
        if target is None:
            continue
        parent = target.parent
        if isinstance(parent, exp.And):  # a conjunct: the AND becomes its other side
            other = parent.expression if target is parent.this else parent.this
            parent.replace(other)
        else:
            target.pop()
        yield candidate


def _path(node: exp.Expression) -> tuple:
    path = []
    while node.parent is not None:
        path.append((node.arg_key, node.index))
        node = node.parent
    return tuple(path)


def _named(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}


def _drop_columns(table: Table, names: set[str]) -> Table:
    keep = [i for i, c in enumerate(table.columns) if c.name not in names]
    ordering = [o for o in table.ordering if o.column not in names]
    return replace(
        table,
        columns=[table.columns[i] for i in keep],
        ordering=ordering,
        default_nulls={i for i, o in enumerate(ordering) if table.ordering.index(o) in table.default_nulls},
        partitioned_by=[c for c in table.partitioned_by if c not in names] if ordering else [],
        scope=table.scope if ordering else "global",
        unique=[k for k in table.unique if not set(k) & names],
        constants={k: v for k, v in table.constants.items() if k not in names},
        bucketed=table.bucketed and bool(ordering),
        files=[[tuple(row[i] for i in keep) for row in f] for f in table.files],
    )


def _with_table(catalog: Catalog, table: Table) -> Catalog:
    return replace(catalog, tables=[table if t.name == table.name else t for t in catalog.tables])


class Shrinker:
    def __init__(self, check: Check, budget: int = 60):
        self.check = check
        self.budget = budget

    def attempt(self, catalog: Catalog, case: Case, cls: str) -> Failure | None:
        if self.budget <= 0:
            return None
        self.budget -= 1
        try:
            failure = self.check(catalog, case)
        except Exception:  # noqa: BLE001 - a candidate the harness cannot run is not smaller
            return None
        return failure if failure is not None and failure.cls == cls else None

    def shrink(self, failure: Failure) -> Failure:
        best = failure
        cls = failure.cls
        for step in (self.tables, self.columns, self.declarations, self.query, self.rows, self.columns):
            best = step(best, cls)
        # A candidate is kept when it fails once; an engine may order ties of equal-sized files
        # either way, so the result must fail twice more, or the failure stays as it was found.
        for _ in range(2 if best is not failure else 0):
            try:
                again = self.check(best.catalog, best.case)
            except Exception:  # noqa: BLE001
                again = None
            if again is None or again.cls != cls:
                return failure
        return best

    def tables(self, best: Failure, cls: str) -> Failure:
        named = _named(best.case.text)
        used = [t for t in best.catalog.tables if t.name.split(".")[-1].lower() in named]
        if len(used) < len(best.catalog.tables) and used:
            got = self.attempt(replace(best.catalog, tables=used), best.case, cls)
            if got:
                return got
        return best

    def columns(self, best: Failure, cls: str) -> Failure:
        named = _named(best.case.text)
        for table in list(best.catalog.tables):
            unused = {c.name for c in table.columns if c.name.lower() not in named}
            if unused and len(unused) < len(table.columns):
                got = self.attempt(_with_table(best.catalog, _drop_columns(table, unused)), best.case, cls)
                if got:
                    best = got
        return best

    def declarations(self, best: Failure, cls: str) -> Failure:
        for name in [t.name for t in best.catalog.tables]:
            table = best.catalog.table(name)
            options = []
            if table.ordering:
                options.append(replace(table, ordering=[], scope="global", partitioned_by=[],
                                       bucketed=False, default_nulls=set()))
            for key in table.unique:
                options.append(replace(table, unique=[k for k in table.unique if k != key]))
            for column in table.constants:
                options.append(replace(table, constants={k: v for k, v in table.constants.items() if k != column}))
            for option in options:
                got = self.attempt(_with_table(best.catalog, option), best.case, cls)
                if got:
                    best = got
                    table = best.catalog.table(name)
        return best

    def query(self, best: Failure, cls: str) -> Failure:
        if best.case.language != "sql":
            return best
        dialect = best.catalog.dialect
        progress = True
        while progress and self.budget > 0:
            progress = False
            try:
                tree = sqlglot.parse_one(best.case.text, read=dialect)
            except Exception:  # noqa: BLE001
                return best
            for candidate in _removals(tree):
                try:
                    text = candidate.sql(dialect=dialect)
                except Exception:  # noqa: BLE001
                    continue
                case = case_from_sql(best.case, text, dialect, best.catalog.target)
                if case is None:
                    continue
                got = self.attempt(best.catalog, case, cls)
                if got:
                    best, progress = got, True
                    break
        return best

    def rows(self, best: Failure, cls: str) -> Failure:
        for name in [t.name for t in best.catalog.tables]:
            # Whole files first, then ever smaller runs of rows.
            table = best.catalog.table(name)
            for i in reversed(range(len(table.files))):
                if len(table.files) > 1 and i < len(table.files):
                    files = table.files[:i] + table.files[i + 1:]
                    got = self.attempt(_with_table(best.catalog, replace(table, files=files)), best.case, cls)
                    if got:
                        best, table = got, got.catalog.table(name)
            size = max(1, len(table.rows) // 2)
            while size >= 1 and self.budget > 0:
                start, shrunk = 0, False
                while start < len(table.rows) and self.budget > 0:
                    drop = set(range(start, start + size))
                    files, n = [], 0
                    for f in table.files:
                        kept = [row for j, row in enumerate(f) if n + j not in drop]
                        n += len(f)
                        if kept:
                            files.append(kept)
                    if files:
                        got = self.attempt(_with_table(best.catalog, replace(table, files=files)), best.case, cls)
                        if got:
                            best, table, shrunk = got, got.catalog.table(name), True
                            continue
                    start += size
                if not shrunk:
                    size //= 2
        return best
