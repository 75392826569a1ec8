-- SL002: a join does not keep the order of its inputs.
select l.order_id, l.line_no, o.customer_id, l.quantity * l.price as line_total
from {{ ref('stg_order_lines') }} l
join (
    select order_id, customer_id
    from {{ ref('stg_orders') }}
    order by created_at
) o on l.order_id = o.order_id
