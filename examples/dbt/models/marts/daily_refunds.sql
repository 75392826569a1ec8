-- SL103 (unsafe fix): status is 'REFUNDED' on every row of stg_refunds - its WHERE clause
-- says so, in another file: the fix rests on that model's code, which may change.
select order_date, status, count(*) as refunds, sum(amount) as amount
from {{ ref('stg_refunds') }}
group by order_date, status
