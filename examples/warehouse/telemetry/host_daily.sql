-- Writers of telemetry.host_daily, declared sorted by host inside each day's partition.

-- SL301: Spark sorts a partitioned write by its partition column first and drops this
-- SORT BY: the files would not be sorted by host. The fix sorts by day, then host.
INSERT OVERWRITE TABLE telemetry.host_daily
SELECT to_date(time) AS day, host, count(*) AS requests, count_if(level = 'ERROR') AS errors
FROM telemetry.events
GROUP BY to_date(time), host
DISTRIBUTE BY day SORT BY host;

-- Look-alike, no finding: sorted by the partition column first, the write keeps the layout.
INSERT OVERWRITE TABLE telemetry.host_daily
SELECT to_date(time) AS day, host, count(*) AS requests, count_if(level = 'ERROR') AS errors
FROM telemetry.events
GROUP BY to_date(time), host
DISTRIBUTE BY day SORT BY day, host;
