-- Look-alike, no finding: stg_orders is stored in (order_date, created_at) order, but Spark
-- reads a table in no order, so this ORDER BY (half of it a template) is needed.
select order_id, customer_id, order_date, created_at
from {{ ref('stg_orders') }}
where order_date >= '{{ var("report_start") }}'
order by {{ var('day_column', 'order_date') }}, created_at
