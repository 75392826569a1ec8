"""SQL types as the ordering engine reads them (sortlint/ordering/types.py): which declared
names are modelled, which casts keep values apart and in order, how a constant is written as
a value of a column's type, and how each engine types literals and arithmetic."""

from __future__ import annotations

import pytest
from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.ordering.types import (
    Arithmetic, SqlType, decimal, exact_cast, shows_values_when_grouped, sql_type, typed_literal,
)

SPARK = Arithmetic()
DATAFUSION = Arithmetic(integer_literals="bigint", fractional_literals="double", integer_division=True,
                        overflow="wrap")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("int", "int"), ("integer", "int"), ("long", "bigint"), ("BIGINT", "bigint"),
        ("tinyint", "tinyint"), ("short", "smallint"), ("real", "float"), ("double precision", "double"),
        ("decimal(12,2)", "decimal(12,2)"), ("decimal(12, 2)", "decimal(12,2)"), ("decimal", "decimal(10,0)"),
        ("numeric(5)", "decimal(5,0)"), ("varchar(20)", "string"), ("text", "string"),
        ("timestamp_ltz", "timestamp"), ("timestamp_ntz", "timestamp_ntz"), ("bool", "boolean"),
    ],
)
def test_declared_names_read_as_types(text, name):
    found = sql_type(text)
    assert found is not None and found.name == name


@pytest.mark.parametrize("text", ["char(3)", "string collate utf8_lcase", "interval", "array<int>", "decimal(40,2)", None])
def test_types_not_modelled_give_no_type(text):
    # CHAR pads, a collation compares 'a' and 'A' equal: their equalities say too little.
    assert sql_type(text) is None


@pytest.mark.parametrize(
    ("source", "target", "exact"),
    [
        ("int", "bigint", True), ("bigint", "int", False), ("int", "decimal(10,0)", True),
        ("bigint", "decimal(19,0)", True), ("bigint", "decimal(18,0)", False),
        ("decimal(12,2)", "decimal(13,3)", True), ("decimal(12,2)", "decimal(12,3)", False),
        ("int", "double", True), ("bigint", "double", False), ("int", "float", False),
        ("float", "double", True), ("decimal(15,2)", "double", True), ("decimal(16,2)", "double", False),
        ("date", "timestamp", True), ("timestamp", "date", False), ("timestamp_ntz", "timestamp", False),
        ("string", "int", False), ("string", "date", False),
    ],
)
def test_exact_casts_keep_values_apart_and_in_order(source, target, exact):
    assert exact_cast(sql_type(source), sql_type(target)) is exact


@pytest.mark.parametrize(
    ("value", "value_type", "column_type", "text"),
    [
        ("'2024-01-02'", "string", "date", "DATE '2024-01-02'"),
        ("'2024-01-02 10:00:00'", "string", "timestamp", "TIMESTAMP '2024-01-02 10:00:00'"),
        ("'2024-01-02 23:59'", "string", "date", "CAST('2024-01-02 23:59' AS DATE)"),
        ("1", "int", "bigint", "CAST(1 AS BIGINT)"),
        ("1", "int", "int", "1"),
        ("2.5", "decimal(2,1)", "decimal(12,2)", "CAST(2.5 AS DECIMAL(12,2))"),
        ("'a'", "string", "string", "'a'"),
        ("CAST('2024-01-02' AS DATE)", "date", "date", "DATE '2024-01-02'"),
        ("NULL", None, "int", "CAST(NULL AS INT)"),
    ],
)
def test_a_constant_is_written_as_a_value_of_the_column_type(value, value_type, column_type, text):
    assert typed_literal(Expr.parse(value).node, value_type, sql_type(column_type)) == text


def test_any_value_shows_values_except_for_floats_and_unknown_types():
    assert shows_values_when_grouped(sql_type("decimal(12,2)"))
    assert not shows_values_when_grouped(sql_type("double"))
    assert not shows_values_when_grouped(None)


@pytest.mark.parametrize(
    ("literal", "spark", "datafusion"),
    [
        ("1", "int", "bigint"), ("3000000000", "bigint", "bigint"),
        ("2.5", "decimal(2,1)", "double"), ("0.001", "decimal(3,3)", "double"),
        ("1e0", "double", "double"), ("'x'", "string", "string"),
    ],
)
def test_each_engine_types_its_literals(literal, spark, datafusion):
    node = Expr.parse(literal).node
    assert isinstance(node, exp.Literal)
    assert str(SPARK.literal_type(node)) == spark
    assert str(DATAFUSION.literal_type(node)) == datafusion


@pytest.mark.parametrize(
    ("sql", "left", "right", "spark", "datafusion"),
    [
        ("a + b", "int", "int", "int", "int"),
        ("a + b", "int", "bigint", "bigint", "bigint"),
        ("a / b", "int", "int", "double", "int"),  # DataFusion divides integers as integers
        ("a * b", "decimal(12,2)", "int", "decimal(23,2)", "decimal(23,2)"),
        ("a + b", "decimal(12,2)", "decimal(12,2)", "decimal(13,2)", "decimal(13,2)"),
        ("a + b", "decimal(38,2)", "int", None, None),  # cut to 38 digits: a value may not fit
        ("a + b", "double", "int", "double", "double"),
    ],
)
def test_arithmetic_result_types(sql, left, right, spark, datafusion):
    node = Expr.parse(sql).node
    a, b = sql_type(left), sql_type(right)
    assert [str(t) if t else None for t in (SPARK.result_type(node, a, b), DATAFUSION.result_type(node, a, b))] == [
        spark, datafusion
    ]


def test_decimal_is_spark_decimal_of_ten_digits():
    assert sql_type("decimal") == decimal(10) == SqlType("decimal", precision=10, scale=0)
