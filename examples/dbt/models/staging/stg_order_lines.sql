select order_id, line_no, sku, quantity, price
from {{ source('shop', 'order_lines') }}
