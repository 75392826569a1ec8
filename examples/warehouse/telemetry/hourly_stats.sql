-- Per-host statistics.

-- SL101: the window leaves each host's events in one partition, sorted by (host, time);
-- with the GROUP BY keys in that order Spark aggregates without a hash table.
SELECT host, time, max(gap_ms) AS gap_ms
FROM (
  SELECT host, time, latency_ms - lag(latency_ms) OVER (PARTITION BY host ORDER BY time) AS gap_ms
  FROM telemetry.events
) g
GROUP BY time, host;

-- Look-alike, no finding: the table's declared order is not read, so Spark hashes whatever
-- the key order (and a sort aggregate would need every key ordered anyway).
SELECT level, host, count(*) AS events
FROM telemetry.events
GROUP BY level, host;

-- SL103: host is constant under the WHERE clause.
SELECT host, date_trunc('hour', time) AS hour, count(*) AS events
FROM telemetry.events
WHERE host = 'api-1.example.com'
GROUP BY host, date_trunc('hour', time);

-- SL201: the window's ORDER BY repeats its partition key, which is constant in each partition.
SELECT host, time, row_number() OVER (PARTITION BY host ORDER BY host, time) AS seq
FROM telemetry.events;

-- Look-alike, no finding.
SELECT host, time, row_number() OVER (PARTITION BY host ORDER BY time) AS seq
FROM telemetry.events;
