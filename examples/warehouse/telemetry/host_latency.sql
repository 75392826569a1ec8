-- Latency report for one host. The table is stored ordered by (host, time).

-- SL001: host is fixed by the WHERE clause, so rows already arrive ordered by time.
SELECT host, time, latency_ms
FROM telemetry.events
WHERE host = 'api-1.example.com'
ORDER BY time;

-- Look-alike, no finding: without the filter the table is ordered by host first.
SELECT host, time, latency_ms
FROM telemetry.events
ORDER BY time;

-- SL001: the declared ordering itself (time is NOT NULL, so NULLS LAST is irrelevant).
SELECT host, time, message
FROM telemetry.events
ORDER BY host, time NULLS LAST;

-- Look-alike, no finding: host DESC is not the stored direction.
SELECT host, time, message
FROM telemetry.events
ORDER BY host DESC, time;

-- Look-alike, no finding: level is nullable, and NULLS LAST is not Spark's ASC default.
SELECT host, level
FROM telemetry.events
WHERE host = 'api-1.example.com'
ORDER BY level NULLS LAST;

-- Look-alike, no finding: host_daily is sorted by host only inside each day's partition,
-- which says nothing about the order of the whole table.
SELECT day, host, requests
FROM telemetry.host_daily
ORDER BY host;
