"""Hourly telemetry digests, run with spark-sql."""

from datetime import datetime

from airflow.decorators import dag
from airflow.providers.apache.spark.operators.spark_sql import SparkSqlOperator

EVENTS = "telemetry.events"


@dag(
    schedule="@hourly",
    start_date=datetime(2024, 1, 1),
    catchup=False,
    params={"host": "api-1.example.com"},
)
def telemetry_hourly():
    # Look-alike, no finding: events are stored sorted by host, then time, but Spark reads
    # them in no order, so the ORDER BY is needed even with the host pinned.
    # An f-string: {EVENTS} is the module constant, {{{{ ... }}}} are Airflow's macros.
    SparkSqlOperator(
        task_id="host_latency",
        sql=f"""
            SELECT host, time, latency_ms
            FROM {EVENTS}
            WHERE host = '{{{{ params.host }}}}'
              AND to_date(time) = '{{{{ ds }}}}'
            ORDER BY time
        """,
    )

    # SL003: level is constant and host is repeated; escapes stay as they are written.
    SparkSqlOperator(
        task_id="error_digest",
        sql='SELECT host, time, message FROM telemetry.events WHERE level = \'ERROR\' '
            'ORDER BY level, host, time DESC, host',
    )


telemetry_hourly()
