-- Revenue marts.

CREATE OR REPLACE TEMP VIEW paid_orders AS
SELECT order_id, customer_id, order_date, created_at, amount
FROM sales.orders
WHERE status = 'PAID';

-- SL301: sales.orders is declared stored ordered by (order_date, created_at), and this load
-- writes it in no order. The fix adds the ORDER BY.
INSERT INTO sales.orders
SELECT order_id, customer_id, order_date, created_at, amount, currency, status
FROM sales.orders_staging;

-- Look-alike, no finding: this load writes the declared layout (its ORDER BY is never
-- reported as unnecessary).
INSERT INTO sales.orders
SELECT order_id, customer_id, order_date, created_at, amount, currency, status
FROM sales.orders_staging
ORDER BY order_date, created_at;

-- Look-alike, no finding: the view reads sales.orders in no order.
SELECT order_date, created_at, amount
FROM paid_orders
ORDER BY order_date, created_at;

-- SL103: customer_id is determined by order_id, a declared unique key.
SELECT order_id, customer_id, sum(amount) AS amount
FROM sales.orders
GROUP BY order_id, customer_id;

-- SL103: the join makes o.customer_id equal to c.customer_id.
SELECT c.customer_id, o.customer_id AS order_customer, count(*) AS orders
FROM sales.orders o
JOIN sales.customers c ON o.customer_id = c.customer_id
GROUP BY c.customer_id, o.customer_id;

-- SL002: a join does not keep the order of its inputs.
SELECT o.order_id, c.name
FROM (SELECT order_id, customer_id FROM sales.orders ORDER BY created_at) o
JOIN sales.customers c ON o.customer_id = c.customer_id;

-- Look-alike, no finding: the sort shapes the written files.
INSERT OVERWRITE TABLE sales.orders_by_customer
SELECT order_id, customer_id, amount
FROM sales.orders
ORDER BY customer_id;

-- SL003 on region: a declared constant of sales.eu_orders.
SELECT order_id, region, amount
FROM sales.eu_orders
ORDER BY region, amount DESC;

-- SL101 (safe fix): order_lines is bucketed by order_id and each bucket sorted by
-- (order_id, line_no), which Spark reports with the legacy setting sortlint.yml names;
-- only the GROUP BY order keeps Spark from a sort aggregate.
SELECT line_no, order_id, sum(quantity * price) AS revenue
FROM sales.order_lines
GROUP BY line_no, order_id;

-- Look-alike, no finding: the keys already follow the buckets' order.
SELECT order_id, line_no, sum(quantity) AS quantity
FROM sales.order_lines
GROUP BY order_id, line_no;
