-- Revenue per day in the reporting currency (a var of dbt_project.yml).
select order_date, currency, sum(amount_cents) as amount_cents, count(*) as orders
from {{ ref('stg_orders') }}
where currency = '{{ var("reporting_currency") }}'
  and order_date >= '{{ var("report_start") }}'
-- SL103, no fix: currency is pinned by the WHERE clause, but keeping the column would write
-- the var's value ('EUR') into the model: sortlint never freezes a rendering of a template.
group by order_date, currency
-- SL003: the same constant; dropping it leaves the template expression after it alone.
order by currency, {{ var('day_column', 'order_date') }}
