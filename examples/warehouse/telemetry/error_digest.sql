-- Daily digest of errors.

-- SL003 on `level` (constant: WHERE level = 'ERROR') and on the repeated `host`.
SELECT host, level, time, message
FROM telemetry.events
WHERE level = 'ERROR'
ORDER BY level, host, time DESC, host
LIMIT 100;

-- SL003 on `latency_ms`: event_id is a declared unique key, nothing sorts after it.
SELECT event_id, latency_ms
FROM telemetry.events
ORDER BY event_id DESC, latency_ms;

-- Look-alike, no finding: without the filter level varies.
SELECT host, level, time
FROM telemetry.events
ORDER BY level, time;

-- SL002: the inner ORDER BY feeds an aggregate that does not care about order.
SELECT level, count(*) AS events
FROM (
  SELECT level, latency_ms FROM telemetry.events ORDER BY latency_ms
) e
GROUP BY level;

-- Look-alike, no finding: collect_list keeps the order it is fed.
SELECT host, collect_list(message) AS messages
FROM (
  SELECT host, message FROM telemetry.events WHERE level = 'ERROR' ORDER BY latency_ms DESC
) e
GROUP BY host;

-- Look-alike, no finding: ORDER BY ... LIMIT picks rows, the order matters.
SELECT count(*) AS slow
FROM (
  SELECT event_id FROM telemetry.events ORDER BY latency_ms DESC LIMIT 10
) top_latency;
