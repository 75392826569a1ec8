"""Which functions of non-null operands sortlint says are non-null, against what Spark returns.

A function casts an operand of another type to the one it computes on (`floor` a string to a
double, `date_add` a string to a date). Without ANSI mode a cast that fails is NULL, so
`floor(s)` of a non-null string `'abc'` is NULL; with it the query fails, and every row it
returns is non-null. `trunc` and `date_trunc` are NULL for a unit Spark does not know, in
either mode. sortlint must never call NULL impossible where Spark returns it: a NULLS
FIRST/LAST placement, or a unique key with distinct NULLs, rests on it.
"""

from __future__ import annotations

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config.model import SparkSettings
from sortlint.engines import datafusion as datafusion_engine
from sortlint.engines import spark as spark_engine
from sortlint.ordering import Expr, Properties

# One row of non-null values; `s` is a string that is neither a number nor a date.
TYPES = {"s": "string", "d": "date", "t": "timestamp", "n": "int"}
ROW = "SELECT 'abc' AS s, DATE '2024-01-05' AS d, TIMESTAMP '2024-01-05 10:00:00' AS t, 7 AS n"

NULL, ERROR, VALUE = "NULL", "error", "value"

# expression: (Spark without ANSI mode, Spark with it), measured on Spark 4.3 (below);
# (sortlint says nullable without ANSI mode, with it).
CASES = {
    # numbers of a string
    "floor(s)": ((NULL, ERROR), (True, False)),
    "ceil(s)": ((NULL, ERROR), (True, False)),
    "atan(s)": ((NULL, ERROR), (True, False)),
    "abs(s)": ((NULL, ERROR), (True, False)),
    "-s": ((NULL, ERROR), (True, False)),
    "s + 1": ((NULL, ERROR), (True, False)),
    "s * 2": ((NULL, ERROR), (True, False)),
    "s / 2": ((NULL, ERROR), (True, False)),
    # dates of a string (year(s) is year(to_date(s)), which sortlint never trusts on a string)
    "year(s)": ((NULL, ERROR), (True, True)),
    "date_add(s, 1)": ((NULL, ERROR), (True, False)),
    "date_sub(s, 1)": ((NULL, ERROR), (True, False)),
    "trunc(s, 'MM')": ((NULL, ERROR), (True, False)),
    "date_trunc('HOUR', s)": ((NULL, ERROR), (True, False)),
    # a unit Spark does not truncate to: NULL in both modes
    "trunc(d, 'DD')": ((NULL, NULL), (True, True)),
    "date_trunc('hours', t)": ((NULL, NULL), (True, True)),
    # operands of the type the function computes on, or cast to a string: never NULL
    "floor(n)": ((VALUE, VALUE), (False, False)),
    "atan(n)": ((VALUE, VALUE), (False, False)),
    "year(d)": ((VALUE, VALUE), (False, False)),
    "date_add(d, 1)": ((VALUE, VALUE), (False, False)),
    "d + 1": ((VALUE, VALUE), (False, False)),
    "trunc(d, 'MM')": ((VALUE, VALUE), (False, False)),
    "date_trunc('HOUR', t)": ((VALUE, VALUE), (False, False)),
    "upper(s)": ((VALUE, VALUE), (False, False)),
    "concat(s, n)": ((VALUE, VALUE), (False, False)),
}


def _props(arithmetic) -> Properties:
    columns = {name: Expr.column(name) for name in TYPES}
    return Properties(
        not_null=frozenset(columns.values()),
        types={columns[name]: type_ for name, type_ in TYPES.items()},
        arithmetic=arithmetic,
    )


def _arithmetic(ansi: bool):
    return spark_engine.semantics(SparkSettings(ansi=ansi)).arithmetic


@pytest.mark.parametrize("text", CASES)
def test_nullable_as_measured(text):
    without, with_ = CASES[text][1]
    expr = Expr.parse(text)
    assert (_props(_arithmetic(False)).nullable(expr), _props(_arithmetic(True)).nullable(expr)) == (without, with_)


def test_datafusion_fails_a_cast_it_cannot_make():
    # DataFusion rejects floor('abc'), 'abc' + 1 while planning, and fails date_trunc('hour',
    # 'abc') and a unit it does not know while running: only the unit can make a NULL claim wrong.
    props = _props(datafusion_engine.ARITHMETIC)
    assert [props.nullable(Expr.parse(t)) for t in ("floor(s)", "date_trunc('HOUR', s)", "date_trunc('hours', t)")] == [
        False, False, True,
    ]


def _outcome(spark, text: str) -> str:  # noqa: F811
    try:
        value = spark.sql(f"SELECT {text} AS v FROM ({ROW})").collect()[0][0]
    except Exception:  # noqa: BLE001 - Spark's error classes differ by cause; any failure is one
        return ERROR
    return NULL if value is None else VALUE


@pytest.mark.parametrize("ansi", [False, True], ids=["legacy", "ansi"])
@spark_support.needs_spark
def test_spark_returns_what_the_table_says(spark, ansi):  # noqa: F811
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        measured = {text: _outcome(spark, text) for text in CASES}
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)
    assert measured == {text: outcomes[ansi] for text, (outcomes, _) in CASES.items()}
    # and sortlint never calls non-null what Spark returns as NULL
    props = _props(_arithmetic(ansi))
    assert [t for t, found in measured.items() if found == NULL and not props.nullable(Expr.parse(t))] == []


@spark_support.needs_spark
def test_a_sort_of_a_function_of_a_string_keeps_its_nulls_apart(spark):  # noqa: F811
    """The end-to-end case (tests/rules/test_sl001_unnecessary_sort.py lints it): rows sorted
    by floor(code) NULLS FIRST are not sorted by it NULLS LAST when floor(code) is NULL."""
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        spark.sql("SELECT * FROM VALUES ('abc'), ('1.5') AS events(code)").createOrReplaceTempView("events")
        inner = "SELECT floor(code) AS f FROM events ORDER BY floor(code) LIMIT 10"
        kept = [r.f for r in spark.sql(f"SELECT s.f FROM ({inner}) s ORDER BY f NULLS LAST").collect()]
        removed = [r.f for r in spark.sql(inner).collect()]
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)
    assert (kept, removed) == ([1, None], [None, 1])
