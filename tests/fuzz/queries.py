"""Seeded queries over a generated catalog: Spark SQL, DataFusion SQL and PySpark pipelines.

Each `Case` is one file of the batch repository (one statement, or one PySpark job ending in
`result = ...`). The generator writes the shapes sortlint reasons about — WHERE constants and
equalities (mixed-type ones that the engine casts included), joins of every kind on equal and
mixed-type keys, GROUP BY by name, ordinal, expression and constant, windows with several
specifications, subqueries with ORDER BY, UNION ALL, DISTINCT, LIMIT, SORT BY / DISTRIBUTE BY,
ORDER BY with redundant keys, monotonic functions and arithmetic near overflow.

Every query is deterministic on the engine (so two runs may be compared as multisets): no
LIMIT without a total order above it, no row_number / lag without a unique order, no ROWS
frames over ties, no floating-point sums. The final ORDER BY names only output columns (by
name or ordinal), so the harness can check the fixed rows' order from the rows themselves;
`Case.order` holds those keys as (output position, descending, nulls_first).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal

from fuzz.catalogs import Catalog, Column, Table, default_nulls_first

NUMERIC = ("int", "bigint", "double", "decimal(12,2)")
INTEGRAL = ("int", "bigint")


@dataclass
class Case:
    name: str  # file stem: q0007 (SQL) or p0007 (PySpark)
    language: str  # "sql" | "pyspark"
    text: str
    order: list[tuple[int, bool, bool]] | None = None  # final ORDER BY over output positions
    limit: int | None = None  # a LIMIT after the final ORDER BY
    order_offset: int | None = None  # where the final ORDER BY starts in `text`
    unordered_text: str | None = None  # the query without its final ORDER BY (and LIMIT)
    features: set[str] = field(default_factory=set)

    @property
    def filename(self) -> str:
        return f"{self.name}.{'sql' if self.language == 'sql' else 'py'}"


@dataclass(frozen=True)
class Ref:
    """A column visible in a FROM scope: `qualifier.name`, its type and value kind."""

    qualifier: str | None
    name: str
    type: str
    kind: str
    nullable: bool = True

    def sql(self, qualified: bool = True) -> str:
        return f"{self.qualifier}.{self.name}" if (qualified and self.qualifier) else self.name


@dataclass
class Item:
    """One select-list item: its text (`expr AS name` or a bare column) and its output column."""

    text: str
    name: str
    type: str
    kind: str
    expr: str  # the expression alone (for GROUP BY keys)
    literal: bool = False


@dataclass
class Scope:
    sql: str  # the FROM clause body
    refs: list[Ref]
    unique_id: Ref | None = None  # a column unique over this scope's rows (for row_number)


class QueryGenerator:
    def __init__(self, rng: random.Random, catalog: Catalog):
        self.r = rng
        self.catalog = catalog
        self.spark = catalog.target == "spark"
        self._fresh = 0

    # -- literals ---------------------------------------------------------------------------

    def literal(self, type_: str, value) -> str:
        """`value` written as a literal of Spark/DataFusion type `type_`."""
        if value is None:
            return "NULL"
        if type_ == "string":
            return "'" + str(value).replace("'", "''") + "'"
        if type_ == "boolean":
            return "true" if value else "false"
        if type_ == "date":
            return f"DATE '{value.isoformat()}'"
        if type_ == "timestamp":
            return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
        if type_ == "double":
            return f"{float(value)!r}D" if self.spark else f"CAST({float(value)!r} AS DOUBLE)"
        if type_.startswith("decimal"):
            return f"{Decimal(value):.2f}BD" if self.spark else f"CAST({Decimal(value):.2f} AS {type_.upper()})"
        if type_ == "bigint" and self.spark and not -2**31 <= int(value) < 2**31:
            return f"{int(value)}L"
        return str(int(value))

    def value_of(self, ref: Ref):
        pool = Column(ref.name, ref.type, True, ref.kind).values()
        return self.r.choice(pool)

    def mixed_literal(self, ref: Ref) -> str | None:
        """A literal of another type that the engine casts when comparing with `ref`."""
        r = self.r
        v = self.value_of(ref)
        if ref.kind == "numtext":
            return str(r.choice([1, 2, 10]))
        if ref.type in INTEGRAL:
            if abs(int(v)) > 2**40:
                return None
            return r.choice([f"'{int(v)}'", self.literal("double", float(v)),
                             self.literal("decimal(12,2)", Decimal(int(v)))])
        if ref.type == "date":
            return f"'{v.isoformat()}'"
        if ref.type == "timestamp":
            return r.choice([f"'{v.isoformat(sep=' ')}'", f"DATE '{v.date().isoformat()}'"])
        if ref.type.startswith("decimal"):
            return r.choice([self.literal("double", float(v)), f"'{v}'"])
        if ref.type == "double":
            return r.choice([str(int(v)) if float(v).is_integer() else self.literal("decimal(12,2)", Decimal(str(v))),
                             f"'{v}'"])
        return None

    def fresh(self, stem: str) -> str:
        self._fresh += 1
        return f"{stem}{self._fresh}"

    # -- FROM -------------------------------------------------------------------------------

    def table_scope(self, table: Table, alias: str | None) -> Scope:
        qualifier = alias or table.name.split(".")[-1]
        refs = [Ref(qualifier, c.name, c.type, c.kind, c.nullable) for c in table.columns]
        sql = f"{table.name} {alias}" if alias else table.name
        unique = ["id"] in table.unique
        return Scope(sql, refs, refs[0] if unique else None)

    def scope(self, depth: int = 0) -> Scope:
        r = self.r
        tables = self.catalog.tables
        roll = r.random()
        if roll < 0.45 or len(tables) < 2:
            t = r.choice(tables)
            return self.table_scope(t, r.choice([None, "a"]))
        if roll < 0.85 or depth > 0:
            return self.join_scope()
        return self.subquery_scope()

    def join_keys(self, left: list[Ref], right: list[Ref]) -> list[tuple[Ref, Ref]]:
        r = self.r
        same = [(a, b) for a in left for b in right if a.name == b.name and a.type == b.type]
        similar = [(a, b) for a in left for b in right if a.name == b.name and a.type != b.type
                   and _comparable(a, b)]
        anything = [(a, b) for a in left for b in right if a.type == b.type and a.kind == b.kind]
        pool = []
        if similar and r.random() < 0.35:
            pool = similar
        elif same:
            pool = same
        elif anything:
            pool = anything
        elif similar:
            pool = similar
        if not pool:
            return []
        keys = [r.choice(pool)]
        if len(pool) > 1 and r.random() < 0.25:
            second = r.choice(pool)
            if second != keys[0]:
                keys.append(second)
        return keys

    def join_scope(self) -> Scope:
        r = self.r
        a, b = r.sample(self.catalog.tables, 2)
        left, right = self.table_scope(a, "a"), self.table_scope(b, "b")
        keys = self.join_keys(left.refs, right.refs)
        kinds = ["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN",
                 "LEFT ANTI JOIN"]
        if not keys:
            kind = "CROSS JOIN"
        else:
            kind = r.choice(kinds)
        condition = " AND ".join(f"{x.sql()} = {y.sql()}" for x, y in keys)
        on = f" ON {condition}" if keys else ""
        sql = f"{left.sql} {kind} {right.sql}{on}"
        if kind in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            return Scope(sql, left.refs, left.unique_id)
        nullable_left = kind in ("RIGHT JOIN", "FULL JOIN")
        nullable_right = kind in ("LEFT JOIN", "FULL JOIN")
        refs = [Ref(x.qualifier, x.name, x.type, x.kind, x.nullable or nullable_left) for x in left.refs]
        refs += [Ref(x.qualifier, x.name, x.type, x.kind, x.nullable or nullable_right) for x in right.refs]
        return Scope(sql, refs)

    def subquery_scope(self) -> Scope:
        """(SELECT ... [ORDER BY ...] [LIMIT n]) s — with LIMIT only over a total order."""
        r = self.r
        inner = self.scope(depth=1)
        chosen = self.pick_columns(inner.refs, r.randint(2, 4))
        items = [f"{c.sql()}" if i == 0 or c.name not in {x.name for x in chosen[:i]}
                 else f"{c.sql()} AS {c.name}_{i}" for i, c in enumerate(chosen)]
        names = [c.name if c.name not in {x.name for x in chosen[:i]} else f"{c.name}_{i}"
                 for i, c in enumerate(chosen)]
        where = self.where(inner.refs)
        text = f"SELECT {', '.join(items)} FROM {inner.sql}{where}"
        if r.random() < 0.6:
            # Every selected column is a key, so a LIMIT below keeps a deterministic set of rows.
            order_names = list(range(len(names)))
            r.shuffle(order_names)
            keys = ", ".join(names[i] + self.direction()[0] for i in order_names)
            text += f" ORDER BY {keys}"
            if r.random() < 0.35:
                text += f" LIMIT {r.randint(1, 12)}"
        refs = [Ref("s", n, c.type, c.kind, c.nullable) for n, c in zip(names, chosen)]
        return Scope(f"({text}) s", refs)

    def pick_columns(self, refs: list[Ref], count: int) -> list[Ref]:
        count = max(1, min(count, len(refs)))
        return self.r.sample(refs, count)

    # -- WHERE ------------------------------------------------------------------------------

    def where(self, refs: list[Ref]) -> str:
        r = self.r
        # Few conjuncts: the tables are small, and an empty result proves nothing.
        count = r.choices([0, 1, 2, 3], [35, 45, 17, 3])[0]
        preds = [self.predicate(refs) for _ in range(count)]
        preds = [p for p in preds if p]
        return f" WHERE {' AND '.join(preds)}" if preds else ""

    def predicate(self, refs: list[Ref]) -> str | None:
        r = self.r
        ref = r.choice(refs)
        roll = r.random()
        if roll < 0.35:
            return f"{ref.sql()} = {self.literal(ref.type, self.value_of(ref))}"
        if roll < 0.55:
            lit = self.mixed_literal(ref)
            if lit is not None:
                return f"{ref.sql()} = {lit}"
            return f"{ref.sql()} = {self.literal(ref.type, self.value_of(ref))}"
        if roll < 0.7:
            partners = [o for o in refs if o != ref and _comparable(o, ref)]
            if partners:
                return f"{ref.sql()} = {r.choice(partners).sql()}"
        if roll < 0.78:
            return f"{ref.sql()} IS {r.choice(['NOT ', ''])}NULL"
        if roll < 0.86 and ref.type != "boolean":
            op = r.choice(["<", "<=", ">", ">=", "<>"])
            return f"{ref.sql()} {op} {self.literal(ref.type, self.value_of(ref))}"
        if roll < 0.93:
            values = {self.literal(ref.type, self.value_of(ref)) for _ in range(2)}
            return f"{ref.sql()} IN ({', '.join(sorted(values))})"
        other = r.choice(refs)
        return (f"({ref.sql()} = {self.literal(ref.type, self.value_of(ref))} OR "
                f"{other.sql()} = {self.literal(other.type, self.value_of(other))})")

    # -- select items -----------------------------------------------------------------------

    def expression(self, ref: Ref) -> tuple[str, str, str] | None:
        """A function of `ref` (often monotonic): (text, type, kind), or None."""
        r = self.r
        c = ref.sql()
        options: list[tuple[str, str, str]] = []
        if ref.type in INTEGRAL and self.spark and ref.kind == "wide":
            # Spark's ANSI arithmetic raises on overflow: only DataFusion wraps (see catalogs).
            options += [(f"CAST({c} AS BIGINT)", "bigint", "wide"), (f"coalesce({c}, 0)", ref.type, "wide")]
        elif ref.type in INTEGRAL:
            options += [(f"{c} + 1", ref.type, "wide" if ref.kind == "wide" else "small"),
                        (f"{c} * 2", ref.type, "small"), (f"-{c}", ref.type, "small"),
                        (f"CAST({c} AS BIGINT)", "bigint", "small"),
                        (f"CAST({c} AS DOUBLE)", "double", "double"),
                        (f"abs({c})", ref.type, "small"), (f"coalesce({c}, 0)", ref.type, "small")]
        if ref.type == "double":
            options += [(f"{c} + 1", "double", "double"), (f"floor({c})", "bigint", "small"),
                        (f"-{c}", "double", "double")]
        if ref.type.startswith("decimal"):
            options += [(f"{c} + 1", "decimal(13,2)", "decimal"),
                        (f"CAST({c} AS DOUBLE)", "double", "double")]
        if ref.type == "timestamp":
            options += [(f"date_trunc('DAY', {c})" if self.spark else f"date_trunc('day', {c})",
                         "timestamp", "timestamp"),
                        (f"CAST({c} AS DATE)", "date", "date")]
        if ref.type == "date":
            options += [(f"CAST({c} AS TIMESTAMP)", "timestamp", "timestamp")]
            if self.spark:
                options += [(f"year({c})", "int", "small"), (f"date_add({c}, 1)", "date", "date")]
        if ref.type == "string":
            options += [(f"upper({c})", "string", ref.kind), (f"concat({c}, 'z')", "string", ref.kind),
                        (f"length({c})", "int", "small")]
            if ref.kind == "numtext":
                options += [(f"CAST({c} AS INT)", "int", "small")]
        if not options:
            return None
        return r.choice(options)

    def items(self, refs: list[Ref], count: int) -> list[Item]:
        r = self.r
        out: list[Item] = []
        used: set[str] = set()
        for ref in self.pick_columns(refs, count):
            roll = r.random()
            if roll < 0.2:
                e = self.expression(ref)
                if e:
                    name = self.fresh("e")
                    out.append(Item(f"{e[0]} AS {name}", name, e[1], e[2], e[0]))
                    used.add(name)
                    continue
            if ref.name in used or roll < 0.3:
                name = self.fresh(ref.name + "_")
                out.append(Item(f"{ref.sql()} AS {name}", name, ref.type, ref.kind, ref.sql()))
            else:
                out.append(Item(ref.sql(), ref.name, ref.type, ref.kind, ref.sql()))
            used.add(out[-1].name)
        if r.random() < 0.1:
            lit_ref = r.choice(refs)
            name = self.fresh("c")
            value = self.value_of(lit_ref)
            out.append(Item(f"{self.literal(lit_ref.type, value)} AS {name}", name, lit_ref.type,
                            lit_ref.kind, self.literal(lit_ref.type, value), literal=True))
        return out

    # -- ORDER BY ---------------------------------------------------------------------------

    def direction(self) -> tuple[str, bool, bool]:
        """Random ORDER BY direction text and what it means: (text, descending, nulls_first)."""
        r = self.r
        descending = r.random() < 0.35
        text = " DESC" if descending else r.choice(["", " ASC"])
        if r.random() < 0.5:
            nulls_first = r.random() < 0.5
            text += " NULLS FIRST" if nulls_first else " NULLS LAST"
        else:
            nulls_first = default_nulls_first(self.catalog.target, descending)
        return text, descending, nulls_first

    def final_order(self, items: list[Item], allow_ordinals: bool = True
                    ) -> tuple[str, list[tuple[int, bool, bool]]]:
        """An ORDER BY over output columns (names or ordinals), sometimes with redundant keys."""
        r = self.r
        positions = list(range(len(items)))
        r.shuffle(positions)
        chosen = positions[: r.randint(1, min(3, len(positions)))]
        if r.random() < 0.2:
            chosen.append(r.choice(chosen))  # a repeated key
        keys, meaning = [], []
        for p in chosen:
            text, descending, nulls_first = self.direction()
            ref = str(p + 1) if allow_ordinals and r.random() < 0.15 else items[p].name
            keys.append(ref + text)
            meaning.append((p, descending, nulls_first))
        return " ORDER BY " + ", ".join(keys), meaning

    # -- statements -------------------------------------------------------------------------

    def case(self, name: str) -> Case:
        return self.ordered_case(name, self.built())

    def built(self):
        """A query of a shape drawn by weight (a projection when that shape builds nothing):
        (body, items, order, features, allow_limit)."""
        r = self.r
        shapes = [(self.projection, 4), (self.aggregate, 4), (self.window, 3), (self.distinct, 1),
                  (self.union, 1), (self.nested, 2)]
        if self.spark:
            shapes.append((self.sort_by, 1))
        makers, weights = zip(*shapes)
        maker = r.choices(makers, weights)[0]
        for _ in range(20):
            built = maker()
            if built is not None:
                break
            maker = self.projection
        return built

    def ordered_case(self, name: str, built, features: tuple[str, ...] = ()) -> Case:
        """The case of a built query, most often with a final ORDER BY (and sometimes a LIMIT)."""
        r = self.r
        body, items, order, built_features, allow_limit = built
        case = Case(name, "sql", body, features={*features, *built_features})
        if order is not False and r.random() < 0.8:
            clause, meaning = self.final_order(items, allow_ordinals="union" not in built_features)
            case.order_offset = len(body) + 1
            case.unordered_text = body
            case.text = body + clause
            case.order = meaning
            if allow_limit and r.random() < 0.2:
                case.limit = r.randint(1, 10)
                case.text += f" LIMIT {case.limit}"
        return case

    def projection(self):
        scope = self.scope()
        items = self.items(scope.refs, self.r.randint(1, 4))
        body = f"SELECT {', '.join(i.text for i in items)} FROM {scope.sql}{self.where(scope.refs)}"
        return body, items, None, {"projection"}, True

    def aggregate(self):
        r = self.r
        scope = self.scope()
        keys = self.items(scope.refs, r.randint(1, 3))
        keys = [k for k in keys if not k.literal]
        if not keys:
            return None
        aggs = self.aggregates(scope.refs)
        style = r.random()
        if style < 0.2:
            group = ", ".join(str(i + 1) for i in range(len(keys)))
            features = {"aggregate", "ordinal"}
        elif style < 0.3 and self.spark:
            # Spark resolves select aliases in GROUP BY
            group = ", ".join(k.name if " AS " in k.text else k.expr for k in keys)
            features = {"aggregate", "alias-group"}
        else:
            group = ", ".join(k.expr for k in keys)
            features = {"aggregate"}
        order = list(range(len(keys)))
        r.shuffle(order)
        items = [keys[i] for i in order] + aggs if r.random() < 0.3 else keys + aggs
        if style < 0.2:
            items = keys + aggs
        if r.random() < 0.15:
            extra = r.choice(scope.refs)
            group += f", {extra.sql()}"  # a group key that is not selected
        having = ""
        if r.random() < 0.15:
            having = " HAVING count(*) > 1"
        body = (f"SELECT {', '.join(i.text for i in items)} FROM {scope.sql}"
                f"{self.where(scope.refs)} GROUP BY {group}{having}")
        return body, items, None, features, True

    def aggregates(self, refs: list[Ref]) -> list[Item]:
        r = self.r
        out = [Item("count(*) AS c", "c", "bigint", "small", "count(*)")]
        for _ in range(r.randint(0, 2)):
            ref = r.choice(refs)
            options = [("count", "bigint"), ("min", ref.type), ("max", ref.type)]
            if ref.type in INTEGRAL or ref.type.startswith("decimal"):
                options.append(("sum", "bigint" if ref.type in INTEGRAL else "decimal(22,2)"))
            fn, type_ = r.choice(options)
            name = self.fresh(fn + "_")
            arg = ref.sql()
            if fn == "count" and r.random() < 0.3:
                arg = f"DISTINCT {arg}"
            if fn == "sum" and ref.kind == "wide":
                fn = "min"
            out.append(Item(f"{fn}({arg}) AS {name}", name, type_, "small", f"{fn}({arg})"))
        r.shuffle(out)
        return out[: r.randint(1, len(out))]

    def window(self):
        r = self.r
        scope = self.scope()
        items = self.items(scope.refs, r.randint(1, 3))
        for _ in range(r.choice([1, 1, 2, 2, 3])):
            items.append(self.window_item(scope))
        body = f"SELECT {', '.join(i.text for i in items)} FROM {scope.sql}{self.where(scope.refs)}"
        return body, items, None, {"window"}, True

    def window_item(self, scope: Scope) -> Item:
        r = self.r
        refs = scope.refs
        partition = self.pick_columns(refs, r.randint(0, 2)) if r.random() < 0.8 else []
        spec = f"PARTITION BY {', '.join(p.sql() for p in partition)}" if partition else ""
        name = self.fresh("w")
        roll = r.random()
        if roll < 0.25 or (roll < 0.4 and scope.unique_id is None):
            fn = r.choice(["count(*)", "min({c})", "max({c})", "count({c})"])
            text = fn.format(c=r.choice(refs).sql())
            return Item(f"{text} OVER ({spec}) AS {name}", name, "bigint", "small", "")
        if roll < 0.4:
            order = [*self.pick_columns(refs, r.randint(0, 1)), scope.unique_id]
            keys = ", ".join(o.sql() + self.direction()[0] for o in order)
            fn = r.choice(["row_number()", "lag({c})", "first_value({c})"])
            text = fn.format(c=r.choice(refs).sql())
            frame = " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" if fn.startswith("first") else ""
            return Item(f"{text} OVER ({spec} ORDER BY {keys}{frame}) AS {name}", name, "int", "small", "")
        order = self.pick_columns(refs, r.randint(1, 2))
        keys = ", ".join(o.sql() + self.direction()[0] for o in order)
        if partition and r.random() < 0.2:
            keys = partition[0].sql() + ", " + keys  # a partition key repeated in ORDER BY
        fn = r.choice(["rank()", "dense_rank()", "count(*)", "min({c})", "max({c})"])
        text = fn.format(c=r.choice(refs).sql())
        return Item(f"{text} OVER ({spec} ORDER BY {keys}) AS {name}".replace("( ORDER", "(ORDER"),
                    name, "int", "small", "")

    def distinct(self):
        scope = self.scope()
        items = self.items(scope.refs, self.r.randint(1, 3))
        body = f"SELECT DISTINCT {', '.join(i.text for i in items)} FROM {scope.sql}{self.where(scope.refs)}"
        return body, items, None, {"distinct"}, True

    def union(self):
        r = self.r
        first = self.scope()
        items = self.items(first.refs, r.randint(1, 3))
        second_table = r.choice(self.catalog.tables)
        second = self.table_scope(second_table, None)
        # The second branch selects columns of the same types, by position.
        picked = []
        for item in items:
            same = [x for x in second.refs if x.type == item.type]
            if not same:
                return None
            picked.append(r.choice(same))
        left = f"SELECT {', '.join(i.text for i in items)} FROM {first.sql}{self.where(first.refs)}"
        right = (f"SELECT {', '.join(f'{p.sql()} AS {i.name}' for p, i in zip(picked, items))} "
                 f"FROM {second.sql}{self.where(second.refs)}")
        if r.random() < 0.3:
            left = f"({left} ORDER BY {items[0].name})" if self.spark else left
        body = f"{left} UNION ALL {right}"
        return body, items, None, {"union"}, True

    def nested(self):
        """An outer query over an ordered subquery: sorts of the same rows, sorts under joins."""
        r = self.r
        table = r.choice(self.catalog.tables)
        inner = self.table_scope(table, None)
        cols = self.pick_columns(inner.refs, r.randint(1, 4))
        names = [c.name for c in cols]
        order = ", ".join(n + self.direction()[0] for n in r.sample(names, r.randint(1, len(names))))
        sub = f"SELECT {', '.join(names)} FROM {table.name}{self.where(inner.refs)} ORDER BY {order}"
        refs = [Ref("s", c.name, c.type, c.kind, c.nullable) for c in cols]
        roll = r.random()
        if roll < 0.5 or len(self.catalog.tables) < 2:
            items = self.items(refs, r.randint(1, len(refs)))
            body = f"SELECT {', '.join(i.text for i in items)} FROM ({sub}) s{self.where(refs)}"
            return body, items, None, {"nested"}, True
        if roll < 0.75:
            keys = [k for k in self.items(refs, 1) if not k.literal]
            if not keys:
                return None
            aggs = self.aggregates(refs)
            body = (f"SELECT {', '.join(i.text for i in keys + aggs)} FROM ({sub}) s "
                    f"GROUP BY {', '.join(k.expr for k in keys)}")
            return body, keys + aggs, None, {"nested", "aggregate"}, True
        other = r.choice([t for t in self.catalog.tables if t is not table])
        o = self.table_scope(other, "o")
        keys = self.join_keys(refs, o.refs)
        if not keys:
            return None
        cond = " AND ".join(f"{x.sql()} = {y.sql()}" for x, y in keys)
        items = self.items(refs + o.refs, r.randint(1, 3))
        body = f"SELECT {', '.join(i.text for i in items)} FROM ({sub}) s JOIN {o.sql} ON {cond}"
        return body, items, None, {"nested", "join"}, True

    def sort_by(self):
        """Spark's SORT BY / DISTRIBUTE BY / CLUSTER BY: no global order to check."""
        r = self.r
        table = r.choice(self.catalog.tables)
        scope = self.table_scope(table, None)
        items = self.items(scope.refs, r.randint(1, 3))
        names = [i.name for i in items]
        clause = r.choice([
            f" DISTRIBUTE BY {r.choice(names)} SORT BY {', '.join(r.sample(names, r.randint(1, len(names))))}",
            f" SORT BY {', '.join(n + self.direction()[0] for n in names)}",
            f" CLUSTER BY {r.choice(names)}",
        ])
        inner = f"SELECT {', '.join(i.text for i in items)} FROM {scope.sql}{self.where(scope.refs)}{clause}"
        if r.random() < 0.5:
            outer = self.items([Ref("s", i.name, i.type, i.kind) for i in items], len(items))
            return f"SELECT {', '.join(i.text for i in outer)} FROM ({inner}) s", outer, None, {"sort-by"}, True
        return inner, items, False, {"sort-by"}, False


def _comparable(a: Ref, b: Ref) -> bool:
    """Whether `a = b` is a comparison the engines accept (perhaps through a cast)."""
    if a.type == b.type:
        return a.kind == b.kind or a.type != "string"
    numeric = set(NUMERIC)
    if a.type in numeric and b.type in numeric:
        return True
    if {a.type, b.type} == {"date", "timestamp"}:
        return True
    if "string" in (a.type, b.type):
        other = b if a.type == "string" else a
        text = a if a.type == "string" else b
        return text.kind == "numtext" and other.type in INTEGRAL
    return False


# ---------------------------------------------------------------------------------------------
# PySpark pipelines


class PipelineGenerator:
    """A PySpark job per case: spark.table(...) through filter / join / groupBy / window /
    orderBy, ending in `result = ...`."""

    def __init__(self, rng: random.Random, catalog: Catalog):
        self.r = rng
        self.catalog = catalog

    def lit(self, col: Column):
        value = self.r.choice(col.values())
        return _py_literal(value)

    def case(self, name: str) -> Case:
        r = self.r
        lines = ["from pyspark.sql import functions as F", "from pyspark.sql import Window", ""]
        table = r.choice(self.catalog.tables)
        lines.append(f'df = spark.table("{table.name}")')
        cols = [(c.name, c) for c in table.columns]
        features = {"pyspark"}
        if r.random() < 0.6:
            c = r.choice(table.columns)
            lines.append(f'df = df.filter(F.col("{c.name}") == {self.lit(c)})')
        if r.random() < 0.3 and len(self.catalog.tables) > 1:
            other = r.choice([t for t in self.catalog.tables if t is not table])
            shared = [c for c in other.columns if any(c.name == n and c.type == x.type for n, x in cols)]
            if shared:
                key = r.choice(shared)
                keep = [c for c in other.columns if c.name not in dict(cols) or c is key]
                sel = ", ".join(f'"{c.name}"' for c in keep)
                how = r.choice(["inner", "inner", "left", "left_semi"])
                lines.append(f'o = spark.table("{other.name}").select({sel})')
                lines.append(f'df = df.join(o, on="{key.name}", how="{how}")')
                if how != "left_semi":
                    cols += [(c.name, c) for c in keep if c is not key]
                features.add("join")
        shape = r.random()
        if shape < 0.4:
            keys = r.sample([n for n, _ in cols], r.randint(1, min(2, len(cols))))
            agg_col = r.choice(cols)
            aggs = ['F.count("*").alias("c")', f'F.max("{agg_col[0]}").alias("mx")']
            lines.append(f'df = df.groupBy({", ".join(repr(k) for k in keys)}).agg({", ".join(aggs)})')
            outputs = keys + ["c", "mx"]
            features.add("aggregate")
        else:
            outputs = [n for n, _ in cols]
            if shape < 0.7:
                part = r.choice(cols)[0]
                order = r.choice(cols)[0]
                fn = r.choice(["F.rank()", "F.dense_rank()", f'F.max("{order}")', 'F.count("*")'])
                lines.append(f'w = Window.partitionBy("{part}").orderBy(F.col("{order}"))')
                lines.append(f'df = df.withColumn("wv", {fn}.over(w))')
                outputs.append("wv")
                features.add("window")
            picked = r.sample(outputs, r.randint(1, min(4, len(outputs))))
            lines.append(f'df = df.select({", ".join(repr(p) for p in picked)})')
            outputs = picked
        order = self.result(lines, "df", outputs)
        return Case(name, "pyspark", "\n".join(lines) + "\n", order=order, features=features)

    def result(self, lines: list[str], df: str, outputs: list[str]) -> list[tuple[int, bool, bool]] | None:
        """Append `result = ...` of `df` (of columns `outputs`), most often with a final
        orderBy; its keys as `Case.order` holds them."""
        r = self.r
        if r.random() >= 0.85:
            lines.append(f"result = {df}")
            return None
        chosen = r.sample(range(len(outputs)), r.randint(1, min(3, len(outputs))))
        keys, order = [], []
        for p in chosen:
            descending = r.random() < 0.35
            nulls = r.random()
            if nulls < 0.5:
                method, nulls_first = ("desc" if descending else "asc"), descending is False
            elif nulls < 0.75:
                method, nulls_first = ("desc" if descending else "asc") + "_nulls_first", True
            else:
                method, nulls_first = ("desc" if descending else "asc") + "_nulls_last", False
            keys.append(f'F.col("{outputs[p]}").{method}()' if method != "asc" or r.random() < 0.5
                        else f'"{outputs[p]}"')
            order.append((p, descending, nulls_first))
        lines.append(f"result = {df}.orderBy({', '.join(keys)})")
        return order


def _py_literal(value) -> str:
    if isinstance(value, Decimal):
        return f'F.lit("{value}").cast("decimal(12,2)")'
    if isinstance(value, dt.datetime):
        return f'F.lit("{value.isoformat(sep=" ")}").cast("timestamp")'
    if isinstance(value, dt.date):
        return f'F.lit("{value.isoformat()}").cast("date")'
    return repr(value)
