-- Customer dimension exports. sales.customers is bucketed by customer_id and each bucket
-- file is sorted by it; the table as a whole is not, and Spark reads it in no order.

-- Look-alike, no finding: the ORDER BY is what sorts the export.
SELECT customer_id, name, country
FROM sales.customers
ORDER BY customer_id;

-- SL003 on country: constant under the WHERE clause.
SELECT customer_id, name, country
FROM sales.customers
WHERE country = 'DE'
ORDER BY country, name;

-- SL002: DISTINCT does not keep the order of its input (and Spark drops the sort itself).
SELECT DISTINCT country
FROM (SELECT country FROM sales.customers ORDER BY signup_date) c;

-- Look-alike, no finding: the final result's order is the point.
SELECT country, count(*) AS customers
FROM sales.customers
GROUP BY country
ORDER BY customers DESC;

-- SL002: a write into a bucketed table sorts each bucket file itself; Spark drops this sort
-- but still shuffles for it.
INSERT INTO sales.customers
SELECT customer_id, name, country, signup_date
FROM sales.customer_signups
ORDER BY signup_date;

-- Look-alike, suppressed on purpose.
SELECT customer_id, name FROM sales.customers WHERE country = 'DE' ORDER BY country, name; -- noqa: SL003
