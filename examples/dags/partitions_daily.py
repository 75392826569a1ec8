"""Daily partitions of the telemetry marts, built the way most of our Hive DAGs build their
SQL: a function formats the day's statement, the task's callable puts the partition's DDL in
front of it and runs the whole text with the Hive CLI. A report reads the partition with
spark.sql."""

from datetime import datetime, timedelta

from airflow import DAG
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook
from pyspark.sql import SparkSession

db_name = "marts"
table_name = "host_errors_daily"
config = "SET hive.exec.compress.output=true;"


def alter_partition(ds):
    return "ALTER TABLE {db}.{table} ADD IF NOT EXISTS PARTITION (pt='{pt}');".format(
        db=db_name, table=table_name, pt=ds)


# SL002: the inner ORDER BY feeds an aggregate. sortlint formats the template as the code
# does - {db}, {table} and {config} are constants, {pt} and {v_date} are known only at run
# time - and the fix edits the literal.
def x_sql_task(ds, v_date):
    HQL = '''
    {config}
    INSERT OVERWRITE TABLE {db}.{table} PARTITION (pt='{pt}')
    SELECT host, count(*) AS errors, max(latency_ms) AS worst_latency_ms
    FROM (
        SELECT host, latency_ms
        FROM telemetry.events
        WHERE to_date(time) = '{v_date}' AND level = 'ERROR'
        ORDER BY time
    ) e
    GROUP BY host
    '''.format(pt=ds, v_date=v_date, table=table_name, db=db_name, config=config)
    return HQL


def load_partition(ds, **context):
    v_date = (datetime.strptime(ds, "%Y-%m-%d") - timedelta(days=1)).strftime("%Y-%m-%d")
    _sql = "\n" + alter_partition(ds) + "\n" + x_sql_task(ds, v_date)
    hive_hook = HiveCliHook()
    hive_hook.run_cli(_sql)


# SL003: the WHERE clause pins host, so sorting by it sorts nothing. The key is an argument,
# so the text to drop runs from one string into the next: the fix is withheld.
def build_sql(day, host, key="host"):
    return ("SELECT host, day, requests, errors FROM telemetry.host_daily "
            "WHERE day = '" + day + "' AND host = '" + host + "' "
            "ORDER BY " + key + ", errors DESC")


def host_report(ds, **context):
    spark = SparkSession.builder.enableHiveSupport().getOrCreate()
    spark.sql(build_sql(ds, "api-1.example.com")).show(20)


with DAG(
    dag_id="partitions_daily",
    start_date=datetime(2024, 1, 1),
    schedule="@daily",
    catchup=False,
) as dag:
    load = PythonOperator(task_id="load_partition", python_callable=load_partition)
    report = PythonOperator(task_id="host_report", python_callable=host_report)
    load >> report
