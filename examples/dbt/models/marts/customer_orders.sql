-- SL103: customer_id is determined by order_id, a unique key declared for stg_orders.
select order_id, customer_id, sum(amount_cents) as amount_cents
from {{ ref('stg_orders') }}
group by order_id, customer_id
