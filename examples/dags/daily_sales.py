"""Daily sales marts on the Spark Thrift server, refreshed after the orders load."""

import os
from datetime import datetime

from airflow import DAG
from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

SQL_DIR = os.path.join(os.path.dirname(__file__), "sql")

with DAG(
    dag_id="daily_sales",
    start_date=datetime(2024, 1, 1),
    schedule="@daily",
    catchup=False,
    template_searchpath=[SQL_DIR],
    params={"country": "DE"},
) as dag:
    # SL003: the WHERE clause pins order_date to the run's date, so sorting by it sorts
    # nothing; created_at is what orders the rows (sales.orders is stored that way, but Spark
    # does not read it in order).
    daily_orders = SQLExecuteQueryOperator(
        task_id="daily_orders",
        conn_id="spark_thrift",
        sql="""
            INSERT OVERWRITE TABLE marts.daily_orders
            SELECT order_id, customer_id, amount, created_at
            FROM sales.orders
            WHERE order_date = '{{ ds }}'
            ORDER BY order_date, created_at
        """,
    )

    # A list of statements. Look-alike, no finding: sales.customers is bucketed and each
    # bucket file sorted by customer_id, but Spark reads the table in no order: the snapshot's
    # ORDER BY is what sorts it.
    customer_snapshot = SQLExecuteQueryOperator(
        task_id="customer_snapshot",
        conn_id="spark_thrift",
        sql=[
            "DROP TABLE IF EXISTS marts.customers_{{ ds_nodash }}",
            "CREATE TABLE marts.customers_{{ ds_nodash }} AS "
            "SELECT customer_id, name, country FROM sales.customers "
            "ORDER BY customer_id",
        ],
    )

    # A template file, found through template_searchpath (see sql/revenue_by_country.sql).
    revenue_by_country = SQLExecuteQueryOperator(
        task_id="revenue_by_country",
        conn_id="spark_thrift",
        sql="revenue_by_country.sql",
    )

    daily_orders >> [customer_snapshot, revenue_by_country]
