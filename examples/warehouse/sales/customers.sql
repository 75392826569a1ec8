-- Customer dimension exports.

-- SL001 (safe fix): sales.customers is bucketed and sorted by customer_id, and Spark knows it.
SELECT customer_id, name, country
FROM sales.customers
ORDER BY customer_id;

-- SL003 on country: constant under the WHERE clause.
SELECT customer_id, name, country
FROM sales.customers
WHERE country = 'DE'
ORDER BY country, name;

-- SL002: DISTINCT does not keep the order of its input.
SELECT DISTINCT country
FROM (SELECT country FROM sales.customers ORDER BY signup_date) c;

-- Look-alike, no finding: the final result's order is the point.
SELECT country, count(*) AS customers
FROM sales.customers
GROUP BY country
ORDER BY customers DESC;

-- Look-alike, suppressed on purpose.
SELECT customer_id, name FROM sales.customers ORDER BY customer_id; -- noqa: SL001
