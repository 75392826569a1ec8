"""The catalog accepts a column type exactly when Spark's DDL parser does.

`DataType.fromDDL` on the local Spark is the judge: every spelling below is accepted by both
or refused by both, and an accepted one keeps its meaning (Spark reads the normalised text
as the same type it reads the written one).
"""

from __future__ import annotations

import pytest
import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config.syntax import BadText, column_type

pytestmark = spark_support.NEEDS_SPARK

ACCEPTED = [
    "int", "INTEGER", "bigint", "long", "smallint", "short", "tinyint", "byte", "float", "real",
    "double", "decimal", "decimal(10)", "Decimal ( 10 , 2 )", "dec", "dec(5,1)", "numeric",
    "numeric(12,3)", "decimal(38,38)", "string", "varchar(10)", "varchar(0)", "char(3)",
    "character(3)", "binary", "boolean", "date", "timestamp", "timestamp_ntz", "timestamp_ltz",
    "timestamp without time zone", "timestamp with local time zone", "time", "time(6)",
    "interval", "interval year", "interval year to month", "interval month", "interval day",
    "interval day to second", "interval hour to minute", "interval minute to second",
    "interval second", "array<string>", "Array<Int>", "array<decimal(10, 2)>",
    "map<string,int>", "map<string, array<bigint>>", "struct<a:int,b:string>",
    "struct<a int, b string>", "struct<a: int not null, `b c`: date>", "void", "variant",
    "string collate utf8_lcase",
]
REFUSED = [
    "timestmp", "text", "int64", "utf8", "datetime", "bool", "double precision", "varchar",
    "char", "character varying(5)", "timestamp with time zone", "decimal(39,0)",
    "decimal(10,11)", "binary(4)", "array<timestmp>", "map<string>", "struct<a>",
    "interval day to month", "interval second to minute", "json", "uuid", "long varchar",
]


def spark_accepts(spark, text: str):  # noqa: F811 - the fixture imported above
    from pyspark.sql.types import DataType

    try:
        return DataType.fromDDL(text)
    except Exception:  # noqa: BLE001 - Spark's parse errors come in several classes
        return None


@pytest.mark.parametrize("text", ACCEPTED)
def test_spark_and_the_catalog_accept(spark, text):  # noqa: F811
    parsed = spark_accepts(spark, text)
    assert parsed is not None, f"Spark refuses {text!r}"
    normalised, nullable = column_type(text)
    assert nullable is True
    assert spark_accepts(spark, normalised) == parsed


@pytest.mark.parametrize("text", REFUSED)
def test_spark_and_the_catalog_refuse(spark, text):  # noqa: F811
    assert spark_accepts(spark, text) is None, f"Spark accepts {text!r}"
    with pytest.raises(BadText):
        column_type(text)
