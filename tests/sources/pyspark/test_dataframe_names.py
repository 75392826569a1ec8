"""Spark's DataFrame naming, as sortlint computes it, checked against a local Spark.

Each snippet is a DataFrame expression over `df = spark.table("t")`. sortlint reads it as a
job (`out = <snippet>; out.collect()`) and computes the pipeline's output names; Spark
evaluates the same snippet and reports `.columns`. They must be equal. Snippets whose names
sortlint does not claim to know (`None`) are listed apart and must stay unknown.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest


import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config import load_config
from sortlint.sources.frontend import Reading
from sortlint.sources.pyspark.units import pyspark_units
from sortlint.sources.registry import build
from sortlint.workspace.tables import FileTables, RepositoryTables

CATALOG = """\
sources:
  t:
    columns: {a: int, b: string, time: timestamp, amount: "decimal(12,2)", price: double, d: date}
  u:
    columns: {a: int, c: string}
"""

EXPRESSIONS = """
    F.count("*")  F.count(F.lit(1))  F.count("a")  F.sum("amount")  F.avg("a")  F.mean("a")
    F.max("a")  F.min("time")  F.countDistinct("a", "b")  F.count_distinct("a")
    F.sum_distinct("a")  F.approx_count_distinct("a")  F.first("a")  F.first("a", True)
    F.last("a")  F.collect_list("a")  F.collect_set("a")  F.stddev("a")  F.any_value("a")
    F.bool_and(F.col("a") > 1)  F.max_by("a", "time")  F.min_by("a", "time")
    F.percentile_approx("a", 0.5)  F.col("a")+1  F.col("price")*1.5  1+F.col("a")  2-F.col("a")
    F.col("b")=="x"  F.col("b")!="x"  (F.col("a")>1)&(F.col("b")=="x")  (F.col("a")>1)|(F.col("a")<0)
    ~(F.col("a")>1)  -F.col("a")  F.col("a").isNull()  F.col("a").isNotNull()  F.col("a").isin(1,2)
    F.col("a").isin([1,2])  F.col("a").between(1,3)  F.col("b").like("x%")  F.col("b").rlike("x")
    F.col("b").ilike("x")  F.col("b").contains("x")  F.col("b").startswith("x")
    F.col("b").endswith("x")  F.col("a").cast("string")  F.col("a").astype("double")
    F.date_trunc("hour",F.col("time"))  F.date_trunc("hour","time")  F.to_date("time")
    F.to_date("b","yyyy-MM-dd")  F.date_format("time","yyyy-MM-dd")  F.hour("time")
    F.year("time")  F.month("time")  F.dayofweek("time")  F.weekofyear("d")  F.lit(1)
    F.lit("x")  F.lit(1.5)  F.lit(True)  F.lit(None)  F.when(F.col("a")>1,"big").otherwise("small")
    F.when(F.col("a")>1,F.col("b"))  F.when(F.col("a")>1,1).when(F.col("a")>0,2)
    F.coalesce("a",F.lit(0))  F.round("price",2)  F.round("price")  F.bround("price")
    F.upper("b")  F.lower("b")  F.trim("b")  F.length("b")  F.concat("b",F.lit("-"))
    F.concat_ws("-","b","b")  F.substring("b",1,2)  F.col("b").substr(1,2)  F.abs("a")
    F.sqrt("a")  F.floor("price")  F.ceil("price")  F.greatest("a","a")  F.datediff("d","d")
    F.date_add("d",1)  F.date_sub("d",1)  F.add_months("d",1)  F.last_day("d")
    F.trunc("d","month")  F.unix_timestamp("time")  F.from_unixtime("a")
    F.timestamp_seconds("a")  F.current_date()  F.regexp_replace("b","x","y")
    F.regexp_extract("b","(x)",1)  F.split("b",",")  F.size(F.split("b",","))  F.struct("a","b")
    F.nvl("a",F.lit(0))  F.ifnull("a",F.lit(0))  F.isnan("price")  F.col("a")/2  F.col("a")%2
    F.col("a")**2  F.col("a").eqNullSafe(1)  F.col("a").bitwiseAND(1)  F.split("b",",")[0]
    F.split("b",",").getItem(0)  F.expr("a + 1")  F.expr("count(*)")  F.col("A")  df.a  df["b"]
    F.col("a").alias("x")  F.sum("a").alias("total")  F.row_number().over(w)  F.rank().over(w)
    F.dense_rank().over(w)  F.percent_rank().over(w)  F.cume_dist().over(w)  F.ntile(2).over(w)
    F.sum("a").over(w)  F.lag("a").over(w)  F.lag("a",2).over(w)  F.lead("a",1,0).over(w)
    F.sum("a").over(w.rowsBetween(Window.unboundedPreceding,Window.currentRow))
    F.sum("a").over(w.rowsBetween(-1,1))  F.sum("a").over(w.rangeBetween(Window.unboundedPreceding,0))
    F.row_number().over(Window.orderBy(F.col("time").desc()))
    F.row_number().over(Window.orderBy(F.desc_nulls_first("time")))
    F.max("a").over(Window.partitionBy("b"))  F.count("*").over(Window.partitionBy("b"))
"""
EXPRESSIONS = [e for e in re.split(r"\s{2,}|\n", EXPRESSIONS) if e.strip()]

FRAMES = [
    'df.groupBy("b").count()',
    'df.groupBy("b").sum("a")',
    'df.groupBy("b").avg("a")',
    'df.groupBy("b").mean("a")',
    'df.groupBy("b").max("a", "price")',
    'df.groupBy("B").count()',
    'df.groupBy("b").agg({"a": "sum"})',
    'df.groupBy("b").agg({"*": "count"})',
    'df.groupBy("b").agg({"price": "mean"})',
    'df.groupBy(F.date_trunc("hour", "time"), F.col("b").alias("bb")).count()',
    'df.groupBy("b", "a").agg(F.count("*").alias("n"), F.sum("amount"))',
    'df.groupby(["b", "a"]).agg(F.max("time"))',
    'df.rollup("b", "a").agg(F.sum("a"))',
    'df.cube("b").count()',
    'df.agg(F.max("a"))',
    'df.select(F.max("a"), F.count("*"))',
    'df.select("*")',
    'df.select("a", df.b, df["time"], F.col("A"))',
    'df.select(["a", "b"])',
    'df.selectExpr("a + 1", "count(1) over () as c", "b", "*")',
    'df.withColumn("b", F.lit(1))',
    'df.withColumn("B", F.lit(1)).withColumn("z", F.col("a") * 2)',
    'df.withColumns({"z": F.lit(1), "a": F.col("a") + 1})',
    'df.withColumnRenamed("a", "x")',
    'df.withColumnsRenamed({"a": "x", "b": "y"})',
    'df.drop("a", "price")',
    'df.drop(df.b)',
    'df.toDF("p", "q", "r", "s", "t", "u")',
    'df.dropDuplicates(["b"])',
    'df.distinct()',
    'df.alias("x").join(spark.table("u").alias("y"), "a")',
    'df.join(spark.table("u"), ["a"], "full")',
    'df.join(spark.table("u"), "a", "left_semi")',
    'df.join(spark.table("u"), df.a == spark.table("u").a)',
    'df.crossJoin(spark.table("u"))',
    'df.select("a", "b").union(spark.table("u"))',
    'df.select("a", "b").unionByName(spark.table("u").select("c", "a").toDF("b", "a"))',
    'df.select("a").intersect(spark.table("u").select("a"))',
    'df.orderBy("a").limit(3).repartition(2, "b").coalesce(1)',
    'df.filter(F.col("a") > 1).where("b = \'x\'").sortWithinPartitions("time")',
    'df.withColumn("seq", F.row_number().over(w)).select("seq", "a")',
    'df.na.fill(0)',
]


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    (root / "sortlint.yml").write_text(CATALOG)
    return load_config(start_paths=[root])


def ours(snippet: str, config) -> tuple[str, ...]:
    source = textwrap.dedent(f"""\
        from pyspark.sql import functions as F, Window
        w = Window.partitionBy("b").orderBy("time")
        df = spark.table("t")
        out = {snippet}
        out.collect()
    """)
    units = [u for u in pyspark_units(Path("job.py"), source, Reading(config))
             if u.kind == "pyspark" and "out.collect()" in u.text]
    assert len(units) == 1, units
    tables = FileTables(RepositoryTables(config))
    statement = build(units[0], tables, config)
    return statement.outputs


def spark_columns(spark, snippet: str) -> list[str]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    namespace = {"F": F, "Window": Window, "spark": spark, "w": Window.partitionBy("b").orderBy("time"),
                 "df": spark.table("t")}
    return list(eval(snippet, namespace).columns)


@pytest.fixture(scope="module")
def tables(spark, config):
    spark_support.create_tables(spark, config.sources)


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.spark
def test_expression_names_match_spark(expression, config, spark, tables):
    snippet = f"df.select({expression})"
    assert list(ours(snippet, config)) == spark_columns(spark, snippet)


@pytest.mark.parametrize("snippet", FRAMES)
@pytest.mark.spark
def test_dataframe_names_match_spark(snippet, config, spark, tables):
    expected = spark_columns(spark, snippet)
    computed = ours(snippet, config)
    if "agg({" in snippet and snippet.count(":") > 1:
        assert computed == ()  # a dict's aggregates come out in an order Spark does not promise
    else:
        assert list(computed) == expected


def test_dict_aggregates_of_several_columns_have_no_known_order(config):
    assert ours('df.groupBy("b").agg({"a": "sum", "price": "max"})', config) == ()


def test_a_function_sortlint_does_not_know_leaves_the_name_unknown(config):
    assert ours('df.select(F.sha1("b"))', config) == ()
    assert ours('df.select(F.sha1("b").alias("h"))', config) == ("h",)
