"""Real Spark proves what `sortlint check --fix --unsafe-fixes` promises (see DESIGN.md, "Fix
contract"): every rewritten statement keeps its output columns, and — on data that honours the
declared catalog — its results.

* columns: Spark's analyzer gives the schema (names and types) of each statement before and
  after the fix; they must be identical. CREATE VIEW statements are executed (original, then
  fixed, so later statements read the fixed view); INSERT / CREATE TABLE AS are proved on their
  query; anything else is a query.
* results: tables are filled with seeded random rows that satisfy the catalog (types,
  nullability, constants, unique keys, the declared ordering, written as one file in that
  order). Each changed statement is run before and after: the results must be equal as
  multisets, and when the original has a final ORDER BY the fixed result must be in an order
  that ORDER BY allows (ties may come in any order; without resolvable keys the sequences must
  be equal).

Two corpora: the example repository (examples/) and the shapes of tests/rewriters/test_fixes.py
(copied here verbatim, with its catalog).
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType


import spark_support
from catalogs import FIX_SHAPES_CATALOG
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.sources.sql.files import split_statements

pytestmark = spark_support.NEEDS_SPARK

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIALECT = "spark"
ROWS = 200
SEED = 20240301

# At least this many statements of examples/ must change under --fix --unsafe-fixes, so the
# proofs below cannot pass by proving nothing. (17 at the time of writing.)
EXPECTED_EXAMPLE_CHANGES = 12


# ---------------------------------------------------------------------------------------------
# Statements: what kind, what query, pairing before and after


@dataclass(frozen=True)
class Pair:
    path: str  # relative to the repository root
    index: int  # statement number in the file, from 1
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def __str__(self) -> str:
        return f"{self.path} statement {self.index}:\n--- before\n{self.before}\n--- after\n{self.after}"


def pair_statements(path: Path, before: str, after: str, root: Path) -> list[Pair]:
    old = split_statements(path, before, DIALECT)
    new = split_statements(path, after, DIALECT)
    assert len(old) == len(new), f"{path}: {len(old)} statements before the fix, {len(new)} after"
    rel = str(path.relative_to(root))
    return [Pair(rel, i, a.text, b.text) for i, (a, b) in enumerate(zip(old, new), start=1)]


def parse(text: str) -> exp.Expression:
    return sqlglot.parse_one(text, read=DIALECT)


def view_name(statement: exp.Expression) -> str | None:
    """The name a CREATE VIEW statement creates, or None for any other statement."""
    if isinstance(statement, exp.Create) and (statement.args.get("kind") or "").upper() == "VIEW":
        target = statement.this
        if isinstance(target, exp.Schema):
            target = target.this
        return target.sql(DIALECT)
    return None


_QUERY_START = {TokenType.SELECT, TokenType.WITH, TokenType.VALUES}


def inner_query(text: str, statement: exp.Expression) -> str | None:
    """The query of an INSERT / CREATE … AS statement as raw text, or None for a plain query.

    Raw text, not sqlglot's re-rendering, so Spark names unaliased expressions exactly as it
    would inside the statement. Found with the tokenizer: after the first top-level `AS` of a
    CREATE, after the target of an INSERT; checked against sqlglot's own parse of the query,
    and sqlglot's rendering is the fallback when the two disagree.
    """
    if isinstance(statement, exp.Insert):
        head = TokenType.INSERT
    elif isinstance(statement, exp.Create) and isinstance(statement.expression, exp.Query):
        head = TokenType.CREATE
    else:
        return None
    query = statement.expression
    tokens = sqlglot.Dialect.get_or_raise(DIALECT).tokenizer().tokenize(text)
    depth, seen_head, start = 0, False, None
    for position, token in enumerate(tokens):
        if depth == 0 and token.token_type == head:
            seen_head = True
        elif seen_head and depth == 0:
            if head == TokenType.CREATE and token.token_type == TokenType.ALIAS:
                start = tokens[position + 1].start
                break
            if head == TokenType.INSERT and token.token_type in _QUERY_START:
                start = token.start
                break
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
    if start is not None:
        raw = text[start:]
        try:
            if parse(raw).sql(DIALECT) == query.sql(DIALECT):
                return raw
        except sqlglot.errors.ParseError:
            pass
    return query.sql(DIALECT)


def final_order(statement: exp.Expression) -> list[exp.Ordered] | None:
    """The ORDER BY of the statement's final query (the query of an INSERT/CREATE), or None."""
    query = statement.expression if isinstance(statement, (exp.Insert, exp.Create)) else statement
    while isinstance(query, exp.Subquery):
        query = query.this
    order = query.args.get("order") if isinstance(query, exp.Query) else None
    return list(order.expressions) if order is not None else None


def order_keys(order: list[exp.Ordered], columns: list[str]) -> list[tuple[int, bool, bool]] | None:
    """ORDER BY items as (output position, descending, nulls first), or None when some item
    is not plainly an output column (an unqualified name the output has once, or a position)."""
    lowered = [c.lower() for c in columns]
    keys = []
    for item in order:
        key = item.this
        if isinstance(key, exp.Column) and not key.table and lowered.count(key.name.lower()) == 1:
            position = lowered.index(key.name.lower())
        elif isinstance(key, exp.Literal) and key.is_int and 1 <= int(key.this) <= len(columns):
            position = int(key.this) - 1
        else:
            return None
        # sqlglot resolves Spark's default placement: ASC NULLS FIRST, DESC NULLS LAST.
        keys.append((position, bool(item.args.get("desc")), bool(item.args.get("nulls_first"))))
    return keys


# ---------------------------------------------------------------------------------------------
# The proofs, statement by statement


def drop_view(spark, name: str) -> None:
    spark.sql(f"DROP VIEW IF EXISTS {name}")


def changed_statements(spark, pairs: list[Pair], measure):
    """Each changed statement with `measure(spark, sql)` of its original and fixed text.

    Statements run in file order so that views exist for later ones: a view is created
    from the original text to measure it, then replaced by the fixed text; setup statements
    and unchanged views are just run."""
    for pair in pairs:
        statement = parse(pair.before)
        view = view_name(statement)
        if isinstance(statement, (exp.Use, exp.Set)) or (view is not None and not pair.changed):
            if view is not None:
                drop_view(spark, view)
            spark.sql(pair.after)  # later statements need it
            continue
        if not pair.changed:
            continue
        if view is not None:
            drop_view(spark, view)
            spark.sql(pair.before)
            before = measure(spark, f"SELECT * FROM {view}")
            drop_view(spark, view)
            spark.sql(pair.after)
            after = measure(spark, f"SELECT * FROM {view}")
        else:
            fixed = parse(pair.after)
            before = measure(spark, inner_query(pair.before, statement) or pair.before)
            after = measure(spark, inner_query(pair.after, fixed) or pair.after)
        yield pair, statement, before, after


def prove_columns(spark, pairs: list[Pair]) -> int:
    """Assert that every changed statement keeps Spark's output schema; returns how many were
    proved."""
    proved = 0
    for pair, _, before, after in changed_statements(spark, pairs, spark_support.schema_of):
        assert after == before, f"output columns changed\n{pair}\nbefore: {before}\nafter:  {after}"
        proved += 1
    return proved


def _normal(value):
    # Floating sums may differ in the last bits when rows are added in another order.
    return round(value, 6) if isinstance(value, float) else value


def collect(spark, sql: str) -> tuple[list[str], list[tuple]]:
    frame = spark.sql(sql)
    return frame.columns, [tuple(_normal(v) for v in row) for row in frame.collect()]


def prove_results(spark, pairs: list[Pair], require_rows: bool) -> int:
    """Assert that every changed statement gives the same results before and after; returns
    how many were proved.

    The multiset check is stricter than the contract in one corner: ORDER BY … LIMIT with ties
    at the limit may pick different rows. Both versions run on one partition over the same
    input with equivalent comparisons, so they pick the same rows; a failure there would show
    the tied rows in its message.
    """
    proved = 0
    for pair, statement, (columns, before), (_, after) in changed_statements(spark, pairs, collect):
        if require_rows:
            assert before, f"vacuous: the original returns no rows on the generated data\n{pair}"
        assert Counter(after) == Counter(before), (
            f"results differ\n{pair}\nonly before: {list((Counter(before) - Counter(after)).elements())[:5]}"
            f"\nonly after: {list((Counter(after) - Counter(before)).elements())[:5]}"
        )
        # A write's rows have no order a reader sees: what its sort does to the files is
        # proved by the Spark oracle tests (tests/engines/test_spark_rules.py).
        order = None if isinstance(statement, (exp.Insert, exp.Create)) else final_order(statement)
        if order is not None:
            keys = order_keys(order, columns)
            if keys is None:
                assert after == before, f"rows come in another order\n{pair}"
            else:
                assert spark_support.is_sorted_by(after, keys), (
                    f"the fixed result breaks the original's ORDER BY\n{pair}"
                )
        proved += 1
    return proved


# ---------------------------------------------------------------------------------------------
# Corpus 1: the example repository


@dataclass
class FixedRepository:
    root: Path
    config: object
    pairs: list[Pair]
    literals: list[str]


@pytest.fixture(scope="module")
def fixed_examples(tmp_path_factory) -> FixedRepository:
    """examples/ copied, fixed in place with --fix --unsafe-fixes, statements paired."""
    root = tmp_path_factory.mktemp("examples") / "repo"
    shutil.copytree(EXAMPLES, root)
    config = load_config(root / "sortlint.yml")
    files = sorted((root / "warehouse").rglob("*.sql"))
    originals = {path: path.read_text() for path in files}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        code = main(["check", "--fix", "--unsafe-fixes", "."])
    assert code in (0, 1), f"sortlint check --fix exited {code}"
    pairs = [
        pair
        for path in files
        for pair in pair_statements(path, originals[path], path.read_text(), root)
    ]
    literals = sorted(
        {
            literal.this
            for pair in pairs
            for literal in parse(pair.before).find_all(exp.Literal)
            if literal.is_string
        }
    )
    return FixedRepository(root, config, pairs, literals)


@pytest.fixture(scope="module")
def example_tables(spark, fixed_examples):
    """The examples' catalog as real, empty tables."""
    spark_support.create_tables(spark, fixed_examples.config.sources)
    return fixed_examples


@pytest.fixture(scope="module")
def example_data(spark, example_tables):
    """The examples' tables filled with rows that honour the catalog (filter literals included)."""
    spark_support.load_catalog_data(
        spark, example_tables.config, rows=ROWS, seed=SEED, strings=example_tables.literals
    )
    return example_tables


def test_examples_fixes_change_enough_statements(fixed_examples):
    changed = [pair for pair in fixed_examples.pairs if pair.changed]
    assert len(changed) >= EXPECTED_EXAMPLE_CHANGES, "\n\n".join(map(str, changed))
    assert {pair.path for pair in changed} == {
        str(path.relative_to(fixed_examples.root))
        for path in (fixed_examples.root / "warehouse").rglob("*.sql")
    }


def test_examples_fixes_keep_output_columns(spark, example_tables):
    proved = prove_columns(spark, example_tables.pairs)
    assert proved >= EXPECTED_EXAMPLE_CHANGES


def test_examples_fixes_keep_results_on_catalog_data(spark, example_data):
    proved = prove_results(spark, example_data.pairs, require_rows=True)
    assert proved >= EXPECTED_EXAMPLE_CHANGES


# Wrong "fixes" the proofs must reject, so a green run means something: (before, after, why
# the proof must fail). The data is the examples' catalog data.
WRONG_FIXES = {
    "order_not_declared": (
        "SELECT host, time, latency_ms FROM telemetry.events ORDER BY time",
        "SELECT host, time, latency_ms FROM telemetry.events",
        "breaks the original's ORDER BY",
    ),
    "partition_scoped_order_is_not_global": (
        "SELECT day, host, requests FROM telemetry.host_daily ORDER BY host",
        "SELECT day, host, requests FROM telemetry.host_daily",
        "breaks the original's ORDER BY",
    ),
    "nullable_key_placement": (
        "SELECT host, level FROM telemetry.events ORDER BY host, level NULLS LAST",
        "SELECT host, level FROM telemetry.events ORDER BY host, level",
        "breaks the original's ORDER BY",
    ),
    "unresolvable_order_key": (
        "SELECT host FROM telemetry.events ORDER BY time",
        "SELECT host FROM telemetry.events",
        "rows come in another order",
    ),
    "limit_needs_its_sort": (
        "SELECT event_id FROM telemetry.events ORDER BY latency_ms DESC, event_id LIMIT 10",
        "SELECT event_id FROM telemetry.events LIMIT 10",
        "results differ",
    ),
    "group_key_not_determined": (
        "SELECT customer_id, status, count(*) AS n FROM sales.orders GROUP BY customer_id, status",
        "SELECT customer_id, any_value(status) AS status, count(*) AS n FROM sales.orders GROUP BY customer_id",
        "results differ",
    ),
}

WRONG_COLUMNS = {
    "renamed": (
        "SELECT host, count(*) FROM telemetry.events GROUP BY host",
        "SELECT host, count(*) AS n FROM telemetry.events GROUP BY host",
    ),
    "retyped": (
        "SELECT host, sum(latency_ms) AS s FROM telemetry.events GROUP BY host",
        "SELECT host, sum(CAST(latency_ms AS DOUBLE)) AS s FROM telemetry.events GROUP BY host",
    ),
    "reordered": (
        "SELECT host, level FROM telemetry.events",
        "SELECT level, host FROM telemetry.events",
    ),
}


def test_the_proofs_reject_wrong_fixes(spark, example_data):
    for name, (before, after, why) in WRONG_FIXES.items():
        with pytest.raises(AssertionError, match=why):
            prove_results(spark, [Pair(name, 1, before, after)], require_rows=True)
    for name, (before, after) in WRONG_COLUMNS.items():
        with pytest.raises(AssertionError, match="output columns changed"):
            prove_columns(spark, [Pair(name, 1, before, after)])


# ---------------------------------------------------------------------------------------------
# Corpus 2: the shapes of tests/rewriters/test_fixes.py, with its catalog (copied verbatim)

FIXES_CATALOG = FIX_SHAPES_CATALOG

FIX_SHAPES = {
    "sl002_own_line": "SELECT count(*) AS n\nFROM (\n  SELECT host\n  FROM events\n  ORDER BY latency_ms\n) t;\n",
    "sl002_inline_comment": "SELECT count(*) AS n FROM (SELECT host FROM events ORDER BY latency_ms) t; -- nightly\n",
    "sl001_constant_limit": "SELECT host, time FROM events WHERE host = 'a' ORDER BY host LIMIT 10",
    "sl001_declared": "SELECT customer_id, region FROM customers\nWHERE customer_id = 1\nORDER BY region;\n",
    "sl003_commas_comments": (
        "SELECT * FROM events WHERE level = 'x'\n"
        "ORDER BY\n"
        "  level,       -- always 'x' here\n"
        "  latency_ms,\n"
        "  latency_ms DESC\n"
    ),
    "sl003_cte_crlf": (
        "WITH t AS (\r\n  SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms, level LIMIT 3\r\n)"
        "\r\nSELECT * FROM t\r\n"
    ),
    "sl003_no_newline": "SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms",
    "sl101_reorder": "SELECT region, customer_id, count(*) AS n\nFROM customers\nGROUP BY region, customer_id;\n",
    "sl301_sort_added": (
        "INSERT OVERWRITE TABLE host_days\n"
        "SELECT host, to_date(time) AS day, count(*) AS events\n"
        "FROM events\n"
        "GROUP BY host, to_date(time);\n"
    ),
    "sl301_sort_replaced": (
        "INSERT INTO host_days SELECT host, day, events FROM host_days DISTRIBUTE BY day SORT BY host"
    ),
    "sl103_constant": "SELECT host, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY host, level",
    "sl103_equal": (
        "SELECT host, level AS lvl, host AS h2, count(*) AS n FROM events WHERE host = level GROUP BY host, level"
    ),
    "sl103_determined": "SELECT event_id, level, count(*) AS n FROM events GROUP BY event_id, level",
    "sl103_typed_date": "SELECT day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY day, code",
    "sl103_typed_bigint": "SELECT qty, code, count(*) AS n FROM orders WHERE qty = 1 GROUP BY qty, code",
    "sl103_typed_decimal": "SELECT amount, code, count(*) AS n FROM orders WHERE amount = 2.5 GROUP BY amount, code",
    "sl103_ordinal": "SELECT code, qty, count(*) AS n FROM orders WHERE qty = 1 GROUP BY 1, 2",
    "sl103_ordinal_equal": (
        "SELECT o.code, p.code AS code2, count(*) AS n FROM orders o JOIN orders p ON o.code = p.code GROUP BY 1, 2"
    ),
    "sl103_alias": "SELECT order_id, qty + 1 AS q1, count(*) AS n FROM orders WHERE qty = 1 GROUP BY order_id, q1",
    "sl201_order_key": "SELECT host, row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn FROM events",
    "sl201_partition_key": "SELECT sum(latency_ms) OVER (PARTITION BY host, host) FROM events",
    "second_run": "SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms;\n",
}


@pytest.fixture(scope="module")
def fixes_catalog(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fix-shapes")
    (directory / "sortlint.yml").write_text(FIXES_CATALOG)
    return load_config(directory / "sortlint.yml")


@pytest.fixture(scope="module")
def fixes_tables(spark, fixes_catalog):
    spark_support.create_tables(spark, fixes_catalog.sources)
    return fixes_catalog


@pytest.fixture(scope="module")
def fixes_data(spark, fixes_tables):
    strings = ["a", "x"]  # the literals the shapes filter on
    spark_support.load_catalog_data(spark, fixes_tables, rows=ROWS, seed=SEED, strings=strings)
    return fixes_tables


@pytest.fixture(scope="module")
def fixed_shapes(tmp_path_factory) -> dict[str, list[Pair]]:
    """Every shape fixed by `sortlint check --fix --unsafe-fixes` in its own file, paired."""
    fixed = {}
    for name, before in FIX_SHAPES.items():
        directory = tmp_path_factory.mktemp(f"shape-{name}")
        (directory / "sortlint.yml").write_text(FIXES_CATALOG)
        path = directory / "q.sql"
        path.write_bytes(before.encode())
        code = main(["check", "--fix", "--unsafe-fixes", str(path)])
        assert code in (0, 1), f"{name}: sortlint check --fix exited {code}"
        fixed[name] = pair_statements(path, before, path.read_bytes().decode(), directory)
    return fixed


def changed_pairs(fixed_shapes, name: str) -> list[Pair]:
    pairs = fixed_shapes[name]
    if not any(pair.changed for pair in pairs):
        pytest.skip(f"{name}: sortlint --fix leaves this shape unchanged, nothing to prove")
    return pairs


def test_fix_shapes_are_mostly_fixed(fixed_shapes):
    """Guard against proving nothing: test_fixes.py expects every shape to change."""
    unchanged = [name for name, pairs in fixed_shapes.items() if not any(p.changed for p in pairs)]
    assert len(unchanged) <= 3, f"sortlint --fix changes none of {unchanged}"


# Fixes Spark proves wrong, by shape name: each a real sortlint bug, marked
# xfail(strict=True) with its description until it is fixed (then the XPASS says: remove it).
KNOWN_COLUMN_BUGS: dict[str, str] = {}
KNOWN_RESULT_BUGS: dict[str, str] = {}


def _with_known_bugs(names, bugs):
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=bugs[name])) if name in bugs else name
        for name in names
    ]


@pytest.mark.parametrize("name", _with_known_bugs(FIX_SHAPES, KNOWN_COLUMN_BUGS))
def test_fix_shape_keeps_output_columns(spark, fixes_tables, fixed_shapes, name):
    pairs = changed_pairs(fixed_shapes, name)
    assert prove_columns(spark, pairs) == sum(pair.changed for pair in pairs)


@pytest.mark.parametrize("name", _with_known_bugs(FIX_SHAPES, KNOWN_RESULT_BUGS))
def test_fix_shape_keeps_results_on_catalog_data(spark, fixes_data, fixed_shapes, name):
    pairs = changed_pairs(fixed_shapes, name)
    assert prove_results(spark, pairs, require_rows=False) == sum(pair.changed for pair in pairs)
