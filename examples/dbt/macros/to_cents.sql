{#- Money as whole cents: decimals do not survive every export. -#}
{% macro to_cents(column) -%}
    cast(round({{ column }} * 100) as bigint)
{%- endmacro %}
