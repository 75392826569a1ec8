"""Nightly rollups of the sales warehouse: revenue per country and day, per order line,
per customer, and the day's top customers."""

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def daily_revenue(spark: SparkSession) -> None:
    paid = spark.table("sales.orders").filter(F.col("status") == "PAID")
    customers = spark.table("sales.customers")

    # SL002: a join does not keep the order of its inputs; this sort is paid for nothing.
    biggest_first = paid.orderBy(F.col("amount").desc())

    revenue = (
        biggest_first.join(customers, "customer_id")
        .groupBy("country", "order_date")
        .agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders"))
    )
    revenue.write.mode("overwrite").saveAsTable("sales.daily_revenue")


def line_revenue(spark: SparkSession) -> None:
    # SL101: order_lines is bucketed by order_id and each bucket sorted by (order_id, line_no),
    # which Spark reports with the legacy setting sortlint.yml names; with the keys in that
    # order Spark aggregates without a hash table. The fix keeps the output's column order
    # with a trailing .select.
    per_line = (
        spark.table("sales.order_lines")
        .groupBy("line_no", "order_id")
        .agg(F.sum(F.col("quantity") * F.col("price")).alias("revenue"))
    )
    per_line.write.mode("overwrite").saveAsTable("sales.line_revenue")


def customer_days(spark: SparkSession) -> None:
    orders = spark.table("sales.orders")

    # SL301: sales.customer_days is declared stored by (customer_id, order_date), and the
    # aggregate writes its rows in no order. The fix sorts them before the write.
    per_day = orders.groupBy("customer_id", "order_date").agg(F.sum("amount").alias("amount"))
    per_day.write.mode("overwrite").saveAsTable("sales.customer_days")

    # SL103: order_id is a declared unique key, so customer_id adds nothing to the groups.
    per_order = orders.groupBy("order_id", "customer_id").agg(F.sum("amount").alias("amount"))
    per_order.write.mode("overwrite").saveAsTable("sales.order_totals")


def eu_report(spark: SparkSession) -> None:
    # SL003: region is a declared constant of sales.eu_orders.
    spark.table("sales.eu_orders").orderBy("region", F.col("amount").desc()).show(20)


def top_customers(spark: SparkSession):
    # SL002 inside the SQL string: the inner ORDER BY feeds an aggregate.
    return spark.sql("""
        SELECT customer_id, sum(amount) AS revenue
        FROM (
            SELECT customer_id, amount
            FROM sales.orders
            ORDER BY created_at
        ) o
        GROUP BY customer_id
    """)


def main(spark: SparkSession) -> None:
    daily_revenue(spark)
    line_revenue(spark)
    customer_days(spark)
    eu_report(spark)
    top_customers(spark).write.mode("overwrite").saveAsTable("sales.top_customers")


if __name__ == "__main__":
    main(SparkSession.builder.getOrCreate())
