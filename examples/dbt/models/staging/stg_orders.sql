{{ config(materialized='incremental', unique_key='order_id') }}

-- Paid orders, amounts in cents.
select
    order_id,
    customer_id,
    order_date,
    created_at,
    {{ to_cents('amount') }} as amount_cents,
    currency
from {{ source('shop', 'orders') }}
where status = 'PAID'
{% if is_incremental() %}
  and created_at > (select max(created_at) from {{ this }})
{% endif %}
-- Keeps its declared layout: stg_orders is declared ordered by (order_date, created_at)
-- (models/schema.yml), and this ORDER BY is what writes it so.
order by order_date, created_at
