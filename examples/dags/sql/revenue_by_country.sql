-- Revenue per customer for one country and day; Airflow renders the macros.
-- SL002: a join does not keep the order of its inputs, so the inner ORDER BY is wasted.
SELECT o.customer_id, c.name, sum(o.amount) AS revenue
FROM (
  SELECT customer_id, amount
  FROM sales.orders
  WHERE order_date = '{{ ds }}'
  ORDER BY created_at
) o
JOIN sales.customers c ON o.customer_id = c.customer_id
WHERE c.country = '{{ params.country }}'
GROUP BY o.customer_id, c.name
