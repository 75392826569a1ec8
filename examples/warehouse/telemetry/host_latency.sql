-- Latency report for one host. telemetry.events is *stored* ordered by (host, time), but
-- Spark reads a table's files largest first: only the order a query makes counts.

-- Look-alike, no finding: the table's layout is not the order Spark reads it in.
SELECT host, time, latency_ms
FROM telemetry.events
WHERE host = 'api-1.example.com'
ORDER BY time;

-- SL001: host is fixed by the WHERE clause, so sorting by it sorts nothing.
SELECT host, time, latency_ms
FROM telemetry.events
WHERE host = 'api-1.example.com'
ORDER BY host;

-- SL002: Spark removes the inner sort itself (the outer ORDER BY sorts again); the outer
-- one is the order the query guarantees.
SELECT host, time, latency
FROM (SELECT host, time, latency_ms AS latency FROM telemetry.events ORDER BY latency_ms DESC) e
ORDER BY host, time;

-- SL001: a window without PARTITION BY sorts every row by time, in one partition.
SELECT time, latency_ms, row_number() OVER (ORDER BY time) AS seq
FROM telemetry.events
WHERE host = 'api-1.example.com'
ORDER BY time;

-- Look-alike, no finding: with two window specifications Spark chooses which runs last.
SELECT time, count(*) OVER (PARTITION BY level) AS same_level, row_number() OVER (ORDER BY time) AS seq
FROM telemetry.events
ORDER BY time;

-- Look-alike, no finding: host_daily is sorted by host only inside each day's files.
SELECT day, host, requests
FROM telemetry.host_daily
ORDER BY host;
