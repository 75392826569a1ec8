-- Refunded orders.
select order_id, customer_id, order_date, status, amount
from {{ source('shop', 'orders') }}
where status = 'REFUNDED'
