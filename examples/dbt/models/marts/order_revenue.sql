-- SL101 (safe fix): stg_order_lines is sorted by (order_id, line_no) and Spark knows it;
-- with replaceHashWithSortAgg on, only the GROUP BY order keeps Spark from a sort aggregate.
select line_no, order_id, sum(quantity * price) as revenue
from {{ ref('stg_order_lines') }}
group by line_no, order_id
