"""A column of unknown type compared with a string no other type equals (issue 20, item 7).

`host = 'app.example.com'` says nothing of `host` while its type is unknown - unless no Spark
cast to a number, a date, a timestamp or a boolean accepts 'app.example.com': then a
non-string `host` fails the query (ANSI mode) or matches no row, and the rows that pass have
`host` = 'app.example.com' if `host` is a plain string. That condition is a caveat nothing
checks: the finding is made, its fix is unsafe. `spark.only_a_string_equals` decides which
strings; the last tests hold its answers to Spark's own casts and comparisons.
"""

from __future__ import annotations

import random

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config.model import SparkSettings
from sortlint.engines import datafusion as datafusion_engine
from sortlint.engines import spark as spark_engine
from sortlint.engines.comparisons import equality
from sortlint.engines.spark import only_a_string_equals
from sortlint.ordering import Evidence, Expr, Properties

WHERE = [Evidence("query", "WHERE host = 'app.example.com' (line 3)", 3)]


@pytest.mark.parametrize(
    "text",
    [
        "app.example.com", "ERROR", "warn", "Info", "eu-west-1", "web01", "a1", "x2024-01-02",
        "", "   ", "null", "trueish", "yess", "EU", "US", "Nano", "e1", "Tx12", "nowhere", "-abc",
    ],
)
def test_strings_no_other_type_equals(text):
    assert only_a_string_equals(text)


@pytest.mark.parametrize(
    "text",
    [
        # numbers, dates, timestamps, times
        "1", " 1 ", "+1", "1.5", ".5", "1e5", "0x1p3", "1d", "2024", "2024-1", "2024-01-02 anything",
        "2024-01-02T10:00", "12:00", "T12:00", "T12", "-5",
        # booleans, case-insensitive and trimmed
        "t", "T", "true", " TRUE ", "y", "Yes", "f", "false", "n", "No", "\tno\n",
        # doubles
        "NaN", "+nan", "-Infinity", "inf", "-INF",
        # special dates and timestamps, with a zone too
        "epoch", "now", "Today", "yesterday", "tomorrow", "today UTC", "epoch Europe/Paris",
        # digits in any script, and words Spark might read
        "\u0661\u0662", "\uff11", "interval 1 day", "1 day", "T 1",
        # no cast accepts them, but they start with a word one knows: nothing claimed
        "today's", "epoch-ish", "yes1", "n/a",
        # without ANSI mode a point is the integer 0; signs and points are no string to claim
        ".", " -. ", "+.", "-", ":",
    ],
)
def test_strings_a_cast_may_accept(text):
    assert not only_a_string_equals(text)


def _facts(condition: str, types: dict[str, str], target: str = "spark", ansi: bool = True) -> Properties:
    semantics = (
        spark_engine.semantics(SparkSettings(ansi=ansi)) if target == "spark" else datafusion_engine.SEMANTICS
    )
    props = Properties(types={Expr.column(c): t for c, t in types.items()}, arithmetic=semantics.arithmetic)
    left, right = condition.split(" = ")
    return equality(props, Expr.parse(left), Expr.parse(right), WHERE, semantics)


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "legacy"])
@pytest.mark.parametrize("condition", ["host = 'app.example.com'", "'app.example.com' = host"])
def test_an_untyped_column_is_the_constant_if_it_is_a_plain_string(condition, ansi):
    constant = _facts(condition, {}, ansi=ansi).constant(Expr.column("host"))
    assert constant is not None
    assert str(constant.value) == "'app.example.com'"
    (evidence,) = constant.evidence
    assert str(evidence) == (
        "WHERE host = 'app.example.com' (line 3), if host is a plain string: "
        "no other type equals 'app.example.com'"
    )
    assert not evidence.fixes_safely


def test_an_untyped_expression_too():
    constant = _facts("lower(host) = 'app'", {}).constant(Expr.parse("lower(host)"))
    assert constant is not None and next(iter(constant.evidence)).caveat == (
        "if LOWER(host) is a plain string: no other type equals 'app'"
    )


def test_a_known_type_teaches_as_before_without_a_caveat():
    constant = _facts("host = 'app.example.com'", {"host": "string"}).constant(Expr.column("host"))
    assert constant is not None and constant.evidence == frozenset(WHERE)
    assert next(iter(constant.evidence)).fixes_safely
    # a number compared with a string: as the engine casts, no caveat either
    assert _facts("n = 'app.example.com'", {"n": "int"}).constant(Expr.column("n")).evidence == frozenset(WHERE)
    assert _facts("s = 1", {"s": "string"}).constant(Expr.column("s")) is None


@pytest.mark.parametrize("declared", ["string collate utf8_lcase", "binary", "char(20)"])
def test_a_known_type_the_model_does_not_compare_gives_no_fact(declared):
    # A collated string equals 'APP.example.com' too: known not to be a plain string.
    assert _facts("host = 'app.example.com'", {"host": declared}).constant(Expr.column("host")) is None


@pytest.mark.parametrize(
    "condition",
    [
        "host = 'web01'",  # starts with a letter, but 'w' starts no value: it is a string...
        "host = '2024-01-02'",  # a date too
        "host = 'yes'",  # a boolean too
        "host = 'today'",  # a date too
        "host = DATE '2024-01-02'",  # not a string
        "host = 1",
        "host = other",
    ],
)
def test_nothing_from_a_literal_another_type_may_equal(condition):
    facts = _facts(condition, {})
    expected = condition == "host = 'web01'"
    assert (facts.constant(Expr.column("host")) is not None) is expected


def test_datafusion_claims_nothing():
    # DataFusion's casts are other parsers, not modelled: no fact.
    assert _facts("host = 'app.example.com'", {}, target="datafusion").constant(Expr.column("host")) is None


# --- against Spark ----------------------------------------------------------------------------

# Strings chosen to sit at the edges of Spark's parsers.
HAND_PICKED = [
    "app.example.com", "ERROR", "Info", "eu-west-1", "web01", "a1", "x2024-01-02", "", " ", "\t",
    "n/a", "null", "NULL", "none", "trueish", "yess", "nope", "Nano", "infinite", "epochs", "nowhere",
    "todays", "Z", "UTC", "America/Los_Angeles", "GMT+8", "P1D", "PT1H", "day", "DAY", "hour",
    "a 2024-01-02", "z12:00", "h1", "v2.0", "Q1", "ｙｅｓ", "ＴＲＵＥ", "\u00a0yes", "yes\u200b",
    "k", "\u212a", "s", "d", "e", "x", "-", "+", ".", ":", "-a", "a-", "a b", "ab cd", "G", "M",
]
WORDS = sorted(spark_engine.CAST_WORDS) + ["1", "0", "12:00", "2024-01-02", "1 day"]
PADDING = ["", " ", "\t", "\n", "\x00", "\x1f", "\u3000"]
ZONES = ["", " UTC", " Z", " +08:00", " Europe/Paris", " x"]


def _generated() -> list[str]:
    """Words Spark's parsers know and strings near them: cased, signed, padded, with zones;
    then random strings over the characters the parsers read."""
    draw = random.Random(20260701)
    found = set(HAND_PICKED)
    for word in WORDS:
        for variant in (word, word.upper(), word.title()):
            for sign in ("", "+", "-"):
                found.add(f"{draw.choice(PADDING)}{sign}{variant}{draw.choice(ZONES)}{draw.choice(PADDING)}")
    alphabet = "aeinoptxyzATZ019-:.+/ _"
    for _ in range(400):
        found.add("".join(draw.choice(alphabet) for _ in range(draw.randint(1, 8))))
    return sorted(found)


STRING_ONLY = [text for text in _generated() if only_a_string_equals(text)]
# Every type Spark may compare a string as, and the intervals a string casts to (a comparison
# of an interval with a string is refused).
CAST_TYPES = [
    "int", "bigint", "smallint", "double", "float", "decimal(10,2)", "date", "timestamp",
    "timestamp_ntz", "boolean", "interval day", "interval year to month", "interval day to second",
    "interval hour to second",
]
TYPED_ROWS = """CREATE OR REPLACE TEMP VIEW typed_rows AS SELECT * FROM VALUES
 (0, CAST(0 AS BIGINT), CAST('NaN' AS DOUBLE), CAST('Infinity' AS FLOAT), CAST(0 AS DECIMAL(10,2)),
  DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP_NTZ '1970-01-01 00:00:00', true),
 (1, CAST(1 AS BIGINT), CAST(0 AS DOUBLE), CAST(1 AS FLOAT), CAST(1 AS DECIMAL(10,2)),
  current_date(), date_trunc('DAY', current_timestamp()), CAST(current_date() AS TIMESTAMP_NTZ), false),
 (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
 AS t(i, l, d, f, m, dt, ts, ntz, b)"""
TYPED_COLUMNS = ["i", "l", "d", "f", "m", "dt", "ts", "ntz", "b"]


def _spark_literal(text: str) -> str:
    """`text` as a Spark SQL string literal (backslashes and quotes escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.fixture
def ansi_mode(spark):  # noqa: F811
    """`ansi_mode(on)` sets spark.sql.ansi.enabled for the test; restored after."""
    previous = spark.conf.get("spark.sql.ansi.enabled")
    yield lambda on: spark.conf.set("spark.sql.ansi.enabled", str(on).lower())
    spark.conf.set("spark.sql.ansi.enabled", previous)


def test_the_generated_strings_include_both_answers():
    # The Spark tests prove something only if the predicate says yes often, and no to the
    # strings near Spark's words.
    assert len(STRING_ONLY) > 200
    assert "Yes" not in STRING_ONLY and "app.example.com" in STRING_ONLY


@spark_support.needs_spark
def test_no_cast_accepts_a_string_only_a_string_equals(spark, ansi_mode):  # noqa: F811
    """Without ANSI mode every cast of such a string is NULL; with it, every cast fails
    (`try_cast` is the ANSI cast that answers NULL instead of failing)."""
    rows = ", ".join(f"({_spark_literal(text)})" for text in STRING_ONLY)
    accepted = []
    for ansi in (False, True):
        ansi_mode(ansi)

        def cast(t: str) -> str:
            # a string cast to an interval fails even without ANSI mode: try_cast says NULL
            return "try_cast" if ansi or t.startswith("interval") else "CAST"

        columns = ", ".join(f"{cast(t)}(s AS {t}) IS NOT NULL AS c{i}" for i, t in enumerate(CAST_TYPES))
        for row in spark.sql(f"SELECT s, {columns} FROM VALUES {rows} AS v(s)").collect():
            accepted += [(ansi, row[0], t) for i, t in enumerate(CAST_TYPES) if row[i + 1]]
    assert accepted == []


@spark_support.needs_spark
def test_with_ansi_mode_a_cast_of_such_a_string_fails(spark, ansi_mode):  # noqa: F811
    ansi_mode(True)
    passed = []
    for text in ("app.example.com", "ERROR", "", "web01", "nope"):
        for t in ("int", "double", "decimal(10,2)", "date", "timestamp", "boolean"):
            try:
                spark.sql(f"SELECT CAST({_spark_literal(text)} AS {t})").collect()
                passed.append((text, t))
            except Exception:  # noqa: BLE001 - the failure Spark reports: what ANSI mode does
                pass
    assert passed == []


@spark_support.needs_spark
def test_a_non_string_column_compared_with_such_a_string_matches_no_row(spark, ansi_mode):  # noqa: F811
    """Without ANSI mode: every generated string against every column (a string column is
    compared as a literal is: the same casts), then every hand-picked literal. With it, a
    few literals against each column alone: the query fails or matches nothing."""
    spark.sql(TYPED_ROWS)
    ansi_mode(False)
    rows = ", ".join(f"({_spark_literal(text)})" for text in STRING_ONLY)
    condition = " OR ".join(f"{c} = s" for c in TYPED_COLUMNS)
    matched = [row[0] for row in spark.sql(
        f"SELECT DISTINCT s FROM VALUES {rows} AS v(s) JOIN typed_rows ON {condition}"
    ).collect()]
    literals = [text for text in HAND_PICKED if only_a_string_equals(text)]
    anywhere = ", ".join(
        "count_if(" + " OR ".join(f"{c} = {_spark_literal(text)}" for c in TYPED_COLUMNS) + ")"
        for text in literals
    )
    counts = spark.sql(f"SELECT {anywhere} FROM typed_rows").collect()[0]
    matched += [text for text, count in zip(literals, counts) if count]
    assert matched == []
    ansi_mode(True)
    for text in ("app.example.com", "ERROR", "", " ", "web01", "x2024-01-02", "null", "ｙｅｓ"):
        assert only_a_string_equals(text)
        for column in TYPED_COLUMNS:
            try:
                count = spark.sql(f"SELECT count(*) FROM typed_rows WHERE {column} = {_spark_literal(text)}").collect()[0][0]
            except Exception:  # noqa: BLE001 - the query fails: no row passes
                continue
            if count:
                matched.append((text, column))
    assert matched == []


@spark_support.needs_spark
def test_a_collated_string_equals_other_strings(spark):  # noqa: F811
    """Why the caveat says *plain* string, and the fix stays unsafe: under a case-insensitive
    collation `host = 'app.example.com'` holds for two values of host."""
    rows = spark.sql(
        "SELECT count(DISTINCT CAST(host AS STRING)) FROM VALUES ('app.example.com'), ('APP.example.com') "
        "AS t(host) WHERE CAST(host AS STRING COLLATE UTF8_LCASE) = 'app.example.com'"
    ).collect()
    assert rows[0][0] == 2
