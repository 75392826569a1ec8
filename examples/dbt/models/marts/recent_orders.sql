-- SL001 without a fix: stg_orders is declared in (order_date, created_at) order, but the
-- ORDER BY is half template; sortlint never edits a template expression.
select order_id, customer_id, order_date, created_at
from {{ ref('stg_orders') }}
where order_date >= '{{ var("report_start") }}'
order by {{ var('day_column', 'order_date') }}, created_at
