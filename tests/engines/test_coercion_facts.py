"""How each engine casts the two sides of `a = b`, asked of the engine itself, and the facts
sortlint draws from it (sortlint/engines/comparisons.py).

For every pair of a typed column and a column or literal, the engine's own plan gives the type
each side is compared as: Spark's analyzed plan (with ANSI mode and without), DataFusion's
optimized logical plan (after `unwrap_cast_in_comparison`, which folds a literal into the
column's type). `spark.comparison` and `datafusion.comparison` must say the same. The facts
follow: an equality or a constant only where no side's values change in the cast.
"""

from __future__ import annotations

import re
from itertools import product

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.engines import datafusion as datafusion_engine
from sortlint.engines import spark as spark_engine
from sortlint.engines.comparisons import Side, equality
from sortlint.ordering import Evidence, Expr, Properties
from sortlint.ordering.types import Arithmetic, SqlType, sql_type

# The columns of the table both engines compare: name -> catalog type.
COLUMNS = {
    "ty": "tinyint", "i": "int", "l": "bigint", "f": "float", "d": "double",
    "m": "decimal(12,2)", "w": "decimal(20,0)", "s": "string", "dt": "date",
    "ts": "timestamp", "b": "boolean",
}
LITERALS = ["1", "-1", "3000000000", "2.5", "2.555", "1e0", "'1'", "'2.5'", "'2024-01-02'", "true"]
# Pairs the engines refuse to compare (boolean with a number, a date with a number, ...) are
# left out: which ones that is, is the engine's business, not a fact.
OPERANDS = list(COLUMNS) + LITERALS


def _side(operand: str, arithmetic: Arithmetic) -> Side:
    expr = Expr.parse(operand)
    if operand in COLUMNS:
        return Side(expr, sql_type(COLUMNS[operand]))
    props = Properties(arithmetic=arithmetic)
    return Side(expr, sql_type(props.type_of(expr)), literal=True)


PAIRS = [(a, b) for a, b in product(COLUMNS, OPERANDS) if a != b]


def _names(types) -> str:
    return " = ".join(str(t) for t in types) if types else str(types)


# --- Spark ------------------------------------------------------------------------------------

SPARK_VIEW = """CREATE OR REPLACE TEMP VIEW typed AS SELECT CAST(1 AS TINYINT) ty, 1 i,
 CAST(1 AS BIGINT) l, CAST(1 AS FLOAT) f, CAST(1 AS DOUBLE) d, CAST(1 AS DECIMAL(12,2)) m,
 CAST(1 AS DECIMAL(20,0)) w, '1' s, DATE '2024-01-02' dt, TIMESTAMP '2024-01-02 00:00:00' ts, true b"""
SPARK_TYPES = {"tinyint": "tinyint", "smallint": "smallint", "int": "int", "bigint": "bigint",
               "float": "float", "double": "double", "string": "string", "date": "date",
               "timestamp": "timestamp", "boolean": "boolean"}


def _spark_compared(spark, left: str, right: str) -> tuple[SqlType | None, SqlType | None] | None:  # noqa: F811
    """The types Spark's analyzer compares the sides as; None when it refuses the comparison."""
    try:
        plan = spark._jsparkSession.sql(f"SELECT * FROM typed WHERE {left} = {right}").queryExecution().analyzed()
    except Exception:  # noqa: BLE001 - an AnalysisException: no comparison, nothing to model
        return None
    condition = plan.children().head().condition()
    if condition.getClass().getSimpleName() != "EqualTo":
        return None  # folded or rewritten (a literal comparison Spark evaluates itself)
    return tuple(sql_type(side.dataType().simpleString()) for side in (condition.left(), condition.right()))


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "legacy"])
@spark_support.needs_spark
def test_spark_compares_as_sortlint_says(spark, ansi):  # noqa: F811
    spark.sql(SPARK_VIEW)
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    arithmetic = spark_engine.semantics(_settings(ansi)).arithmetic
    try:
        wrong = []
        for left, right in PAIRS:
            engine = _spark_compared(spark, left, right)
            if engine is None:
                continue
            ours = spark_engine.comparison(_side(left, arithmetic), _side(right, arithmetic), ansi)
            if ours is not None and ours != engine:  # None: no fact, whatever Spark does
                wrong.append(f"{left} = {right}: Spark {_names(engine)}, sortlint {_names(ours)}")
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)
    assert wrong == []


def _settings(ansi: bool):
    from sortlint.config.model import SparkSettings

    return SparkSettings(ansi=ansi)


# --- DataFusion -------------------------------------------------------------------------------

DATAFUSION_TABLE = """CREATE TABLE x AS SELECT arrow_cast(1, 'Int8') ty, arrow_cast(1, 'Int32') i,
 arrow_cast(1, 'Int64') l, arrow_cast(1, 'Float32') f, arrow_cast(1, 'Float64') d,
 arrow_cast(1, 'Decimal128(12, 2)') m, arrow_cast(1, 'Decimal128(20, 0)') w, '1' s,
 DATE '2024-01-02' dt, TIMESTAMP '2024-01-02 00:00:00' ts, true b"""
ARROW = {"Int8": "tinyint", "Int16": "smallint", "Int32": "int", "Int64": "bigint",
         "Float32": "float", "Float64": "double", "Utf8": "string", "Utf8View": "string",
         "LargeUtf8": "string", "Date32": "date", "Boolean": "boolean"}


def _arrow_type(text: str) -> SqlType | None:
    text = text.strip()
    if text.startswith("Timestamp"):
        return sql_type("timestamp")
    decimal = re.fullmatch(r"Decimal128\((\d+),\s*(\d+)\)", text)
    if decimal:
        return sql_type(f"decimal({decimal.group(1)},{decimal.group(2)})")
    return sql_type(ARROW.get(text))


def _datafusion_side(text: str) -> SqlType | None:
    """The type a side of DataFusion's optimized comparison has: a column, a cast, a literal."""
    cast = re.fullmatch(r"CAST\(x\.\w+ AS (.+)\)", text)
    if cast:
        return _arrow_type(cast.group(1))
    column = re.fullmatch(r"x\.(\w+)", text)
    if column:
        return sql_type(COLUMNS[column.group(1)])
    decimal = re.fullmatch(r"Decimal128\([^,]*,(\d+),(\d+)\)", text)
    if decimal:
        return sql_type(f"decimal({decimal.group(1)},{decimal.group(2)})")
    literal = re.fullmatch(r"(\w+)\(.*\)", text)
    return _arrow_type(literal.group(1)) if literal else None


def _datafusion_compared(ctx, left: str, right: str):
    try:
        plan = ctx.sql(f"SELECT * FROM x WHERE {left} = {right}").optimized_logical_plan().display_indent()
    except Exception:  # noqa: BLE001 - a planning error: no comparison, nothing to model
        return None
    line = next((line for line in plan.splitlines() if "Filter:" in line), None)
    if line is None:
        return "folded"  # a constant comparison DataFusion evaluated itself
    condition = line.split("Filter:", 1)[1].strip()
    sides = condition.split(" = ")
    if len(sides) != 2:
        return "folded"
    return tuple(_datafusion_side(side) for side in sides)


def test_datafusion_compares_as_sortlint_says():
    datafusion = pytest.importorskip("datafusion")
    ctx = datafusion.SessionContext()
    ctx.sql(DATAFUSION_TABLE).collect()
    arithmetic = datafusion_engine.ARITHMETIC
    wrong = []
    for left, right in PAIRS:
        engine = _datafusion_compared(ctx, left, right)
        if engine in (None, "folded"):
            continue
        ours = datafusion_engine.comparison(_side(left, arithmetic), _side(right, arithmetic))
        if ours is not None and ours != engine:  # None: no fact, whatever DataFusion does
            wrong.append(f"{left} = {right}: DataFusion {_names(engine)}, sortlint {_names(ours)}")
    assert wrong == []


# --- the facts --------------------------------------------------------------------------------

WHERE = [Evidence("query", "WHERE")]


def _after(left: str, right: str, target: str) -> Properties:
    semantics = (
        spark_engine.semantics(_settings(True)) if target == "spark" else datafusion_engine.SEMANTICS
    )
    props = Properties(
        types={Expr.column(name): t for name, t in COLUMNS.items()}, arithmetic=semantics.arithmetic
    )
    return equality(props, Expr.parse(left), Expr.parse(right), WHERE, semantics)


def _constant(props: Properties, column: str) -> str | None:
    """`value` of a constant column, `?` for one of unknown value, None when not constant."""
    found = props.constant(Expr.column(column))
    if found is None:
        return None
    return str(found.value) if found.value is not None else "?"


@pytest.mark.parametrize(
    ("left", "right", "target", "constant"),
    [
        # The literal is cast to the column's type: the column is that value.
        ("dt", "'2024-01-02'", "spark", "CAST('2024-01-02' AS DATE)"),
        ("l", "1", "spark", "CAST(1 AS BIGINT)"),
        ("m", "2.5", "spark", "CAST(2.5 AS DECIMAL(12, 2))"),
        ("i", "1", "datafusion", "CAST(1 AS INT)"),  # DataFusion's 1 is a bigint
        ("dt", "'2024-01-02'", "datafusion", "CAST('2024-01-02' AS DATE)"),
        # The column is widened exactly: constant, of a value not written here.
        ("ty", "1", "spark", "?"),
        ("i", "'1'", "spark", "?"),  # ANSI: both bigints
        ("m", "'2.5'", "spark", "?"),  # both doubles; decimal(12,2) fits a double exactly
        # The column's values change in the cast: no fact.
        ("s", "1", "spark", None),  # '1', '01' and ' 1' all equal 1
        ("s", "1", "datafusion", None),
        ("w", "1e0", "spark", None),  # decimal(20,0) does not fit a double
        ("d", "0", "datafusion", None),  # DataFusion sorts -0.0 before 0.0
    ],
)
def test_a_constant_only_where_the_column_keeps_its_values(left, right, target, constant):
    assert _constant(_after(left, right, target), left) == constant


@pytest.mark.parametrize(
    ("left", "right", "target", "equal"),
    [
        ("i", "l", "spark", True),  # an int widened to a bigint
        ("i", "d", "spark", True),  # an int fits a double exactly
        ("l", "d", "spark", False),  # a bigint does not
        ("s", "i", "spark", False),  # the string is cast
        ("dt", "ts", "spark", True),  # a date is its midnight
        ("i", "m", "spark", True),  # decimal(12,2) holds every int
        ("i", "d", "datafusion", False),  # floating: -0.0 and 0.0 sort apart
        ("i", "l", "datafusion", True),
    ],
)
def test_an_equality_only_where_no_side_changes(left, right, target, equal):
    props = _after(left, right, target)
    assert (props.representative(Expr.column(left)) == props.representative(Expr.column(right))) is equal


def test_an_unknown_type_gives_no_fact():
    # '1' is a number too; a string no other type equals says more (test_untyped_comparisons.py)
    semantics = spark_engine.semantics(_settings(True))
    props = equality(Properties(), Expr.parse("a"), Expr.parse("'1'"), WHERE, semantics)
    assert props.constant(Expr.column("a")) is None


def test_a_typed_literal_is_a_value_too():
    props = _after("dt", "DATE '2024-01-02'", "datafusion")
    assert _constant(props, "dt") == "CAST('2024-01-02' AS DATE)"
    props = _after("m", "CAST(3.00 AS DECIMAL(12,2))", "spark")
    assert _constant(props, "m") == "CAST(3.00 AS DECIMAL(12, 2))"
