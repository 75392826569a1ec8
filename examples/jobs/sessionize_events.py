"""Daily sessions of the telemetry events.

A session is a run of one host's events with no gap longer than SESSION_GAP_SECONDS. The
job numbers each host's sessions with a running sum over the host's events in time order,
then rolls every session up to one row.
"""

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

SESSION_GAP_SECONDS = 30 * 60
ON_CALL_HOST = "api-1.example.com"


def sessionize(spark: SparkSession, day: str):
    events = (
        spark.table("telemetry.events")
        .filter(F.to_date("time") == F.lit(day))
        .select("event_id", "host", "time", "level", "latency_ms")
    )

    # One window per host, in event order. SL201: host, the partition key, is constant
    # inside each partition, so ordering by it again sorts for nothing.
    by_host = Window.partitionBy("host").orderBy("host", "time")
    running = by_host.rowsBetween(Window.unboundedPreceding, Window.currentRow)

    marked = (
        events
        .withColumn("previous_time", F.lag("time").over(by_host))
        .withColumn(
            "new_session",
            F.when(
                F.col("previous_time").isNull()
                | (F.unix_timestamp("time") - F.unix_timestamp("previous_time") > SESSION_GAP_SECONDS),
                1,
            ).otherwise(0),
        )
        .withColumn("session_seq", F.sum("new_session").over(running))
    )

    return (
        marked
        .groupBy("host", "session_seq")
        .agg(
            F.min("time").alias("session_start"),
            F.max("time").alias("session_end"),
            F.count("*").alias("events"),
            F.sum(F.when(F.col("level") == "ERROR", 1).otherwise(0)).alias("errors"),
        )
    )


def on_call_sample(spark: SparkSession):
    """The on-call dashboard's view of one host: its slowest recent requests."""
    return (
        spark.table("telemetry.events")
        .filter(F.col("host") == ON_CALL_HOST)
        # SL003: host is fixed by the filter; the events are stored by (host, time), but Spark
        # reads them in no order, so the sort by time stays.
        .orderBy("host", "time")
        .select("time", "latency_ms", "message")
    )


def main(spark: SparkSession, day: str) -> None:
    sessions = sessionize(spark, day)
    sessions.write.mode("overwrite").saveAsTable("telemetry.sessions")

    on_call_sample(spark).limit(50).write.mode("overwrite").saveAsTable("telemetry.on_call_sample")

    # Look-alike, no finding: the sort shapes the files this job writes.
    (
        spark.table("telemetry.events")
        .filter(F.col("level") == "ERROR")
        .repartition("host")
        .sortWithinPartitions("host", F.col("time").desc())
        .write.mode("overwrite")
        .saveAsTable("telemetry.errors_by_host")
    )


if __name__ == "__main__":
    import sys

    main(SparkSession.builder.getOrCreate(), sys.argv[1])
