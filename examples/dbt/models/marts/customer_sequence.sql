-- SL201: customer_id is a partition key, constant inside each window partition.
select
    customer_id,
    order_id,
    row_number() over (partition by customer_id order by customer_id, created_at) as order_number,
    {% for currency in ['EUR', 'USD'] -%}
    sum(case when currency = '{{ currency }}' then amount_cents end)
        over (partition by customer_id) as {{ currency | lower }}_lifetime_cents{{ ',' if not loop.last }}
    {% endfor %}
from {{ ref('stg_orders') }}
