-- Hourly statistics per host.

-- SL101: the input is ordered by (host, time), so also by (host, hour); Spark still
-- hashes, and GROUP BY lists the keys in the other order.
SELECT date_trunc('hour', time) AS hour, host, count(*) AS events, avg(latency_ms) AS latency
FROM telemetry.events
GROUP BY date_trunc('hour', time), host;

-- SL102: host is ordered, level is not; put host first.
SELECT level, host, count(*) AS events
FROM telemetry.events
GROUP BY level, host;

-- Look-alike, no SL102: the ordered key already leads.
SELECT host, level, count(*) AS events
FROM telemetry.events
GROUP BY host, level;

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
