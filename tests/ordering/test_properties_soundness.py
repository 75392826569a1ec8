"""Soundness of the ordering engine, checked on random tables (DataFusion's approach).

Each example draws a property set - integer columns (and now and then a double one, whose
NaN and infinities Spark sorts above and at the ends of the numbers), nullable or not;
constants with values; equivalence classes; orderings over disjoint column groups (global,
or only within each group of rows sharing some partition columns); unique keys - and a
random table that satisfies all of it. Then every claim the engine makes about a
requirement, a permutation of grouping keys, a projection, a filter, a sort or a union is
checked on the rows. The engine may say "don't know"; it must never say something false.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key, lru_cache
from itertools import pairwise

from hypothesis import event, given
from hypothesis import strategies as st
from sqlglot import exp

from sortlint.ordering import Expr, Properties, SortKey, SortOptions

Row = dict[str, object]
NAMES = ("a", "b", "c", "d", "e", "f")
# Small ranges, so that ties are common.
VALUES = {
    "int": st.integers(-2, 2),
    "double": st.sampled_from([-math.inf, -1.5, -0.0, 0.0, 2.5, math.inf, math.nan]),
}
CONSTANT_VALUES = {"int": st.integers(-2, 2), "double": st.sampled_from([-1.5, 0.0, 2.5])}
OPTIONS = st.builds(SortOptions, st.booleans(), st.booleans())

# Derived expressions over one or two columns; all of them map NULL to NULL.
TEMPLATES = (
    "{0} + 1", "-{0}", "{0} * 2", "{0} * -3", "floor({0} / 2)", "{0} + {1}", "{0} - {1}",
    "CAST({0} AS BIGINT)",
)
# Monotonic disguises of a key, and whether they reverse its direction.
DISGUISES = (
    ("{0} + 1", False), ("CAST({0} AS BIGINT)", False), ("floor({0} / 2)", False),
    ("{0} * 2", False), ("-{0}", True), ("{0} * -3", True),
)


@lru_cache(maxsize=None)
def parse(text: str) -> Expr:
    return Expr.parse(text)


def col(name: str) -> Expr:
    return parse(name)


# --- Spark's values and order, in Python ---------------------------------------------

NAN = math.nan  # one NaN object: Python's `==` and hashing then treat NaNs as Spark does
BINARY: dict[type[exp.Expression], Callable] = {
    exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul, exp.Div: operator.truediv,
}


def to_long(value, rounding: Callable = math.trunc) -> int:
    """Spark's double to bigint (CAST truncates, floor floors): NaN is 0, infinities clamp."""
    if isinstance(value, int):
        return value
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return 2**63 - 1 if value > 0 else -(2**63)
    return rounding(value)


def evaluate(node: exp.Expression, row: Row):
    """Spark's value of the expressions drawn here: NULL in, NULL out; `/` gives a double."""
    if isinstance(node, exp.Column):
        return row[node.name]
    if isinstance(node, exp.Literal):
        return float(node.this) if "." in node.this else int(node.this)
    if isinstance(node, exp.Null):
        return None
    operands = [evaluate(child, row) for child in (node.this, node.args.get("expression")) if child]
    if any(value is None for value in operands):
        return None
    if isinstance(node, exp.Neg):
        value = -operands[0]
    elif isinstance(node, exp.Floor):
        value = to_long(operands[0], math.floor)
    elif isinstance(node, (exp.Cast, exp.TryCast)):  # only CAST(x AS BIGINT) is drawn
        value = to_long(operands[0])
    else:
        value = BINARY[type(node)](*operands)
    return NAN if isinstance(value, float) and math.isnan(value) else value


def rank(value):
    return (1, 0.0) if value is NAN else (0, value)


def compare(x, y, options: SortOptions) -> int:
    """-1 when `x` sorts before `y` under `options`, 0 when they tie, 1 after."""
    if x is None or y is None:
        if x is None and y is None:
            return 0
        nulls = -1 if options.nulls_first else 1
        return nulls if x is None else -nulls
    if rank(x) == rank(y):
        return 0
    return (-1 if rank(x) < rank(y) else 1) * (-1 if options.descending else 1)


def compare_values(first: Sequence, second: Sequence, options: Sequence[SortOptions]) -> int:
    """Lexicographic comparison of two rows' key values."""
    for x, y, opts in zip(first, second, options):
        if order := compare(x, y, opts):
            return order
    return 0


def key_values(rows: Sequence[Row], keys: Sequence[SortKey]) -> list[tuple]:
    return [tuple(evaluate(key.expr.node, row) for key in keys) for row in rows]


def is_sorted(rows: Sequence[Row], keys: Sequence[SortKey]) -> bool:
    options = [key.options for key in keys]
    values = key_values(rows, keys)
    return all(compare_values(x, y, options) <= 0 for x, y in pairwise(values))


def groups(rows: Sequence[Row], exprs: Sequence[Expr]) -> list[list[Row]]:
    """The rows sharing the values of `exprs` (NULLs equal), each group in table order."""
    found: dict[tuple, list[Row]] = {}
    for row in rows:
        found.setdefault(tuple(evaluate(e.node, row) for e in exprs), []).append(row)
    return list(found.values())


def holds(rows: Sequence[Row], keys: Sequence[SortKey], within: Sequence[Expr] = ()) -> bool:
    """Whether `keys` order the rows (inside each group of `within`, when given)."""
    return all(is_sorted(group, keys) for group in groups(rows, within))


def sort_rows(values: list[tuple], options: Sequence[SortOptions]) -> list[tuple]:
    """Lexicographic (stable) sort of value tuples, honouring direction and nulls."""
    return sorted(values, key=cmp_to_key(lambda x, y: compare_values(x, y, options)))


# --- a property set and a table that satisfies it ----------------------------------


@dataclass
class Scenario:
    """Declared facts, the steps that build them into Properties, and a table."""

    names: tuple[str, ...]
    types: dict[str, str]
    nullable: dict[str, bool]
    steps: list[Callable[[Properties], Properties]] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    # Each ordered column group as generated, and the columns it is partitioned by.
    ordered_groups: list[tuple[list[SortKey], list[Expr]]] = field(default_factory=list)

    def properties(self) -> Properties:
        props = Properties(types={col(name): self.types[name] for name in self.names})
        props = props.with_not_null(col(n) for n in self.names if not self.nullable[n])
        for step in self.steps:
            props = step(props)
        return props


def literal(value) -> Expr:
    return parse("NULL" if value is None else str(value))


def column_values(draw, type_: str, nullable: bool, count: int) -> list:
    value = st.one_of(st.none(), VALUES[type_]) if nullable else VALUES[type_]
    return draw(st.lists(value, min_size=count, max_size=count))


@st.composite
def scenarios(draw, names: tuple[str, ...] = NAMES, all_columns: bool = False) -> Scenario:
    if not all_columns:
        names = names[: draw(st.integers(3, len(names)))]
    role = st.sampled_from(["ordered", "ordered", "free", "constant", "clone"])
    roles = {n: draw(role) for n in names}
    if all(role == "clone" for role in roles.values()):
        roles[names[0]] = "free"
    sources = [n for n in names if roles[n] != "clone"]
    clone_of = {n: draw(st.sampled_from(sources)) for n in names if roles[n] == "clone"}
    types = {n: draw(st.sampled_from(["int", "int", "int", "double"])) for n in sources}
    nullable = {n: draw(st.booleans()) for n in sources}
    for name, source in clone_of.items():
        types[name], nullable[name] = types[source], nullable[source]
    scenario = Scenario(names, types, nullable)
    count = draw(st.integers(0, 14))
    table: dict[str, list] = {}

    def values(name: str) -> list:
        return column_values(draw, types[name], nullable[name], count)

    constants = {}
    for name in (n for n in sources if roles[n] == "constant"):
        value = CONSTANT_VALUES[types[name]]
        constants[name] = draw(st.one_of(st.none(), value) if nullable[name] else value)
        table[name] = [constants[name]] * count
        scenario.steps.append(lambda p, n=name, v=constants[name]: p.with_constant(col(n), literal(v)))

    ordered = [n for n in sources if roles[n] == "ordered"]
    group_of = {n: draw(st.integers(0, 1)) for n in ordered}
    free = [n for n in sources if roles[n] == "free"]
    for index in (0, 1):
        members = draw(st.permutations([n for n in ordered if group_of[n] == index]))
        if not members:
            continue
        keys = [(n, draw(OPTIONS)) for n in members]
        options = [o for _, o in keys]
        rows = sort_rows(list(zip(*(values(n) for n in members))) or [()] * count, options)
        partitioned_by = None
        if free and draw(st.integers(0, 3)) == 0:
            partitioned_by = draw(st.lists(st.sampled_from(free), min_size=1, max_size=2, unique=True))
            for name in partitioned_by:
                table.setdefault(name, values(name))
            rows = _sorted_within(rows, options, [table[n] for n in partitioned_by])
        for position, name in enumerate(members):
            table[name] = [row[position] for row in rows]
        scenario.ordered_groups.append(
            ([SortKey(col(n), o) for n, o in keys], [col(n) for n in partitioned_by or ()])
        )
        declared = [SortKey(col(n), o) for n, o in _disguised(draw, keys, clone_of, list(constants))]
        by = None if partitioned_by is None else [col(n) for n in partitioned_by]
        scenario.steps.append(lambda p, k=declared, by=by: p.with_ordering(k, partitioned_by=by))
    for name in sources:
        table.setdefault(name, values(name))
    for name, source in clone_of.items():
        table[name] = table[source]
        scenario.steps.append(lambda p, n=name, s=source: p.with_equality(col(s), col(n)))

    rows = [{n: table[n][i] for n in names} for i in range(count)]
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
        nulls_distinct = draw(st.booleans())
        rows = _unique_on(rows, key, nulls_distinct)
        scenario.steps.append(
            lambda p, k=key, d=nulls_distinct: p.with_unique_key([col(n) for n in k], nulls_distinct=d)
        )
    scenario.rows = rows
    scenario.steps = draw(st.permutations(scenario.steps))  # facts hold in any order
    return scenario


def _sorted_within(rows: list[tuple], options: list[SortOptions], partition: list[list]) -> list[tuple]:
    """The rows sorted only among those sharing a partition (positions stay per partition)."""
    rows = list(rows)
    positions: dict[tuple, list[int]] = {}
    for index in range(len(rows)):
        positions.setdefault(tuple(column[index] for column in partition), []).append(index)
    for indices in positions.values():
        for index, row in zip(indices, sort_rows([rows[i] for i in indices], options)):
            rows[index] = row
    return rows


def _disguised(draw, keys, clone_of: dict[str, str], constants: list[str]):
    """The same ordering as a declaration may write it: a column by one of its clones,
    constants anywhere."""
    written = []
    for name, options in keys:
        clones = [c for c, source in clone_of.items() if source == name]
        written.append((draw(st.sampled_from([name, *clones])), options))
    for constant in constants:
        if draw(st.booleans()):
            written.insert(draw(st.integers(0, len(written))), (constant, draw(OPTIONS)))
    return written


def _unique_on(rows: list[Row], key: list[str], nulls_distinct: bool) -> list[Row]:
    """Drop every row that repeats an earlier row's key (dropping keeps all orders)."""
    seen, kept = set(), []
    for row in rows:
        values = tuple(row[n] for n in key)
        if nulls_distinct and None in values:
            kept.append(row)
        elif values not in seen:
            seen.add(values)
            kept.append(row)
    return kept


# --- requirements and the check of every claim -------------------------------------


def expressions(draw, names: Sequence[str]) -> Expr:
    if draw(st.booleans()):
        return col(draw(st.sampled_from(names)))
    template = draw(st.sampled_from(TEMPLATES))
    return parse(template.format(draw(st.sampled_from(names)), draw(st.sampled_from(names))))


def _like(draw, key: SortKey) -> SortKey:
    """The key, or a monotonic disguise of it, now and then with other options."""
    expr, options = key.expr, key.options
    if expr.is_column and draw(st.booleans()):
        template, reverses = draw(st.sampled_from(DISGUISES))
        expr = parse(template.format(expr))
        options = options.reversed() if reverses else options
    if draw(st.integers(0, 5)) == 0:
        options = draw(OPTIONS)
    return SortKey(expr, options)


@st.composite
def requirements(draw, names: Sequence[str], props: Properties) -> list[SortKey]:
    """Random keys, or (more often) keys close to orderings the engine holds, so that
    many requirements are satisfied and the checks are not vacuous."""
    keys: list[SortKey] = []
    facts = [fact.keys for fact in props.orderings]
    if facts and draw(st.integers(0, 2)):
        for fact in draw(st.lists(st.sampled_from(facts), min_size=1, max_size=2)):
            keys += [_like(draw, k) for k in fact[: draw(st.integers(1, len(fact)))]]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2] if keys else [1, 2, 3]))):
        keys.insert(draw(st.integers(0, len(keys))), SortKey(expressions(draw, names), draw(OPTIONS)))
    return keys


def claims_hold(props: Properties, rows: list[Row], requirement: list[SortKey], stats: Counter) -> None:
    """Every verdict of the engine on `requirement` is true of `rows`: the satisfied
    prefix orders them, and dropping the keys called redundant changes no comparison."""
    satisfaction = props.satisfaction(requirement)
    assert holds(rows, requirement[: satisfaction.satisfied]), "the claimed prefix does not hold"
    assert props.satisfied_prefix(requirement) == satisfaction.satisfied
    assert props.satisfies(requirement) is satisfaction.complete
    kept = [index for index, v in enumerate(satisfaction.verdicts) if v.redundant is None]
    if satisfaction.complete and kept:
        stats["claimed"] += 1
        event("claimed a non-trivial requirement")
    options = [key.options for key in requirement]
    values = key_values(rows, requirement)
    for first in values:
        for second in values:
            whole = compare_values(first, second, options)
            without = compare_values(
                [first[i] for i in kept], [second[i] for i in kept], [options[i] for i in kept]
            )
            assert whole == without, "a key called redundant changes the order"
    stats["examples"] += 1


def not_vacuous(stats: Counter, share: float) -> None:
    """Enough examples ended in a non-trivial satisfied claim for the check to mean much."""
    assert stats["examples"] and stats["claimed"] >= share * stats["examples"], stats


# --- the properties ------------------------------------------------------------------


def test_satisfaction_claims_hold_on_every_table():
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        props = scenario.properties()
        requirement = data.draw(requirements(scenario.names, props))
        claims_hold(props, scenario.rows, requirement, stats)

    check()
    not_vacuous(stats, 0.12)


def test_declared_orderings_are_known_to_hold():
    """A guard against an engine made sound by forgetting: every ordering the table was
    built to satisfy is known to hold (inside its partitions, for a partitioned one)."""

    @given(scenarios())
    def check(scenario):
        props = scenario.properties()
        for requirement, partitioned_by in scenario.ordered_groups:
            assert holds(scenario.rows, requirement, partitioned_by)
            assert props.satisfaction(requirement, partitioned_by).complete
            assert props.satisfies(requirement) or partitioned_by

    check()


def test_satisfaction_within_groups_holds_on_each_group():
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        props = scenario.properties()
        names = data.draw(st.lists(st.sampled_from(scenario.names), max_size=2, unique=True))
        within = [col(n) for n in names]
        requirement = data.draw(requirements(scenario.names, props))
        satisfaction = props.satisfaction(requirement, within)
        assert holds(scenario.rows, requirement[: satisfaction.satisfied], within)
        stats["examples"] += 1
        kept = [v for v in satisfaction.verdicts if v.redundant is None]
        stats["claimed"] += satisfaction.complete and bool(kept)

    check()
    not_vacuous(stats, 0.15)


def test_ordered_permutation_keys_hold():
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        props = scenario.properties()
        exprs = [expressions(data.draw, scenario.names) for _ in range(data.draw(st.integers(1, 4)))]
        permutation = props.ordered_permutation(exprs)
        assert [exprs[i] for i in permutation.indices] == [k.expr for k in permutation.keys]
        assert len(set(permutation.indices)) == len(permutation.indices)
        assert holds(scenario.rows, permutation.keys)
        stats["examples"] += 1
        stats["claimed"] += bool(permutation.keys)

    check()
    not_vacuous(stats, 0.3)


@st.composite
def projections(draw, names: Sequence[str]) -> list[tuple[Expr, Expr]]:
    """`SELECT source AS output, ...`: columns, derived expressions and literals, with
    repeats, under new names or the input's own names (`SELECT b AS a, a AS b`)."""
    count = draw(st.integers(1, 6))
    names_pool = st.sampled_from(NAMES + ("p0", "p1", "p2"))
    outputs = draw(st.lists(names_pool, min_size=count, max_size=count, unique=True))
    mapping = []
    for output in outputs:
        kind = draw(st.sampled_from(["column", "column", "derived", "literal"]))
        if kind == "literal":
            source = draw(st.sampled_from([parse("7"), parse("NULL")]))
        else:
            source = col(draw(st.sampled_from(names))) if kind == "column" else expressions(draw, names)
        mapping.append((source, col(output)))
    return mapping


def test_projection_claims_hold_on_the_projected_table():
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        mapping = data.draw(projections(scenario.names))
        projected = scenario.properties().project(mapping)
        rows = [{str(o): evaluate(s.node, row) for s, o in mapping} for row in scenario.rows]
        requirement = data.draw(requirements([str(o) for _, o in mapping], projected))
        claims_hold(projected, rows, requirement, stats)
        for expr, constant in projected.constants.items():
            if constant.value is not None:
                value = evaluate(constant.value.node, {})
                assert all(evaluate(expr.node, row) == value for row in rows)

    check()
    not_vacuous(stats, 0.08)


def _equal(x, y) -> bool:
    """SQL's `=`: never true on a NULL; NaN equals NaN in Spark."""
    return x is not None and y is not None and rank(x) == rank(y)


def test_filter_claims_hold_on_the_filtered_table():
    """`WHERE x = y` (a class) or `WHERE x = v` (a constant), on the rows that pass."""
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        props = scenario.properties()
        name = data.draw(st.sampled_from(scenario.names))
        left = col(name)
        if data.draw(st.booleans()):
            right = expressions(data.draw, scenario.names)
            rows = [r for r in scenario.rows if _equal(evaluate(left.node, r), evaluate(right.node, r))]
            first, second = data.draw(st.permutations([left, right]))  # the first represents
            props = props.with_equality(first, second)
        else:
            value = data.draw(CONSTANT_VALUES[scenario.types[name]])
            rows = [r for r in scenario.rows if _equal(evaluate(left.node, r), value)]
            props = props.with_constant(left, literal(value))
        if data.draw(st.booleans()):
            props = props.with_not_null([left])
        requirement = data.draw(requirements(scenario.names, props))
        claims_hold(props, rows, requirement, stats)

    check()
    not_vacuous(stats, 0.12)


def test_sort_claims_hold_on_the_sorted_table():
    """Spark's sort is not stable: rows that tie on the keys come in any order."""
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        props = scenario.properties()
        keys = data.draw(requirements(scenario.names, props))
        shuffled = data.draw(st.permutations(scenario.rows))
        values = key_values(shuffled, keys)
        options = [key.options for key in keys]
        order = sort_rows([(*v, i) for i, v in enumerate(values)], options)
        rows = [shuffled[row[-1]] for row in order]
        sorted_props = props.sorted_by(keys)
        requirement = data.draw(requirements(scenario.names, sorted_props))
        claims_hold(sorted_props, rows, requirement, stats)

    check()
    not_vacuous(stats, 0.2)


def _filter_step(draw, names, props, rows):
    """`WHERE x = y` or `WHERE x = v`, for a column x of the current rows."""
    left = col(draw(st.sampled_from(names)))
    if draw(st.booleans()):
        right = expressions(draw, names)
        first, second = draw(st.permutations([left, right]))
        kept = [r for r in rows if _equal(evaluate(left.node, r), evaluate(right.node, r))]
        return names, props.with_equality(first, second), kept
    seen = [v for r in rows if (v := evaluate(left.node, r)) is not None and v is not NAN]
    value = draw(st.sampled_from(seen)) if seen and draw(st.booleans()) else draw(VALUES["int"])
    if isinstance(value, float) and math.isinf(value):
        value = 0
    kept = [r for r in rows if _equal(evaluate(left.node, r), value)]
    return names, props.with_constant(left, literal(value)), kept


def _project_step(draw, names, props, rows):
    mapping = draw(projections(names))
    projected = [{str(o): evaluate(s.node, row) for s, o in mapping} for row in rows]
    return [str(o) for _, o in mapping], props.project(mapping), projected


def _sort_step(draw, names, props, rows):
    keys = draw(requirements(names, props))
    shuffled = draw(st.permutations(rows))
    values = key_values(shuffled, keys)
    order = sort_rows([(*v, i) for i, v in enumerate(values)], [key.options for key in keys])
    return names, props.sorted_by(keys), [shuffled[row[-1]] for row in order]


def test_pipelines_of_operators_keep_their_claims_true():
    """Filters, projections and sorts one after another, on properties and rows alike."""
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        scenario = data.draw(scenarios())
        names, props, rows = list(scenario.names), scenario.properties(), scenario.rows
        for _ in range(data.draw(st.integers(1, 4))):
            step = data.draw(st.sampled_from([_filter_step, _project_step, _project_step, _sort_step]))
            names, props, rows = step(data.draw, names, props, rows)
        requirement = data.draw(requirements(names, props))
        claims_hold(props, rows, requirement, stats)

    check()
    not_vacuous(stats, 0.1)


def test_union_claims_hold_on_each_child_and_its_constants_everywhere():
    """A union's orderings are claims about each child's stream; its constants are
    claims about every row, since rows of different children mix."""
    stats: Counter = Counter()

    @given(st.data())
    def check(data):
        names = NAMES[: data.draw(st.integers(3, len(NAMES)))]
        count = data.draw(st.integers(2, 3))
        children = [data.draw(scenarios(names, all_columns=True)) for _ in range(count)]
        union = Properties.union([child.properties() for child in children])
        requirement = data.draw(requirements(names, union))
        for child in children:
            claims_hold(union, child.rows, requirement, stats)
        for expr, constant in union.constants.items():
            assert constant.value is not None
            value = evaluate(constant.value.node, {})
            assert all(evaluate(expr.node, row) == value for c in children for row in c.rows)

    check()
    not_vacuous(stats, 0.05)
