{#- sortlint's own set of dbt's cross-database macros, for the spark adapter: what
    `dbt.<macro>(...)` renders when dbt-core is not installed (with dbt-core installed, its
    global project and the spark adapter's macros are read instead). Each dispatches as
    dbt's does (`adapter.dispatch('<macro>', 'dbt')`), so a project's `dispatch:` config
    and its own `spark__`/`default__` overrides still apply. The SQL is Spark's for the
    same result as dbt-spark's macro. -#}

{% macro type_string() %}{{ return(adapter.dispatch('type_string', 'dbt')()) }}{% endmacro %}
{% macro default__type_string() %}{{ return(api.Column.translate_type("string")) }}{% endmacro %}
{% macro type_timestamp() %}{{ return(adapter.dispatch('type_timestamp', 'dbt')()) }}{% endmacro %}
{% macro default__type_timestamp() %}{{ return(api.Column.translate_type("timestamp")) }}{% endmacro %}
{% macro type_float() %}{{ return(adapter.dispatch('type_float', 'dbt')()) }}{% endmacro %}
{% macro default__type_float() %}{{ return(api.Column.translate_type("float")) }}{% endmacro %}
{% macro type_numeric() %}{{ return(adapter.dispatch('type_numeric', 'dbt')()) }}{% endmacro %}
{% macro default__type_numeric() %}{{ return(api.Column.numeric_type("numeric", 28, 6)) }}{% endmacro %}
{% macro type_bigint() %}{{ return(adapter.dispatch('type_bigint', 'dbt')()) }}{% endmacro %}
{% macro default__type_bigint() %}{{ return(api.Column.translate_type("bigint")) }}{% endmacro %}
{% macro type_int() %}{{ return(adapter.dispatch('type_int', 'dbt')()) }}{% endmacro %}
{% macro default__type_int() %}{{ return(api.Column.translate_type("integer")) }}{% endmacro %}
{% macro type_boolean() %}{{ return(adapter.dispatch('type_boolean', 'dbt')()) }}{% endmacro %}
{% macro default__type_boolean() %}{{ return(api.Column.translate_type("boolean")) }}{% endmacro %}

{% macro concat(fields) %}{{ return(adapter.dispatch('concat', 'dbt')(fields)) }}{% endmacro %}
{% macro spark__concat(fields) -%}concat({{ fields|join(', ') }}){%- endmacro %}

{% macro hash(field) %}{{ return(adapter.dispatch('hash', 'dbt')(field)) }}{% endmacro %}
{% macro default__hash(field) -%}md5(cast({{ field }} as {{ api.Column.translate_type('string') }})){%- endmacro %}

{% macro cast(field, type) %}{{ return(adapter.dispatch('cast', 'dbt')(field, type)) }}{% endmacro %}
{% macro default__cast(field, type) -%}cast({{ field }} as {{ type }}){%- endmacro %}

{% macro safe_cast(field, type) %}{{ return(adapter.dispatch('safe_cast', 'dbt')(field, type)) }}{% endmacro %}
{% macro spark__safe_cast(field, type) -%}cast({{ field }} as {{ type }}){%- endmacro %}

{% macro cast_bool_to_text(field) %}{{ return(adapter.dispatch('cast_bool_to_text', 'dbt')(field)) }}{% endmacro %}
{% macro default__cast_bool_to_text(field) -%}cast({{ field }} as {{ api.Column.translate_type('string') }}){%- endmacro %}

{% macro date_trunc(datepart, date) %}{{ return(adapter.dispatch('date_trunc', 'dbt')(datepart, date)) }}{% endmacro %}
{% macro default__date_trunc(datepart, date) -%}date_trunc('{{ datepart }}', {{ date }}){%- endmacro %}

{% macro dateadd(datepart, interval, from_date_or_timestamp) %}{{ return(adapter.dispatch('dateadd', 'dbt')(datepart, interval, from_date_or_timestamp)) }}{% endmacro %}
{% macro spark__dateadd(datepart, interval, from_date_or_timestamp) -%}
{%- set months = {'month': 1, 'quarter': 3, 'year': 12} -%}
{%- set seconds = {'hour': 3600, 'minute': 60, 'second': 1} -%}
{%- if datepart in ('day', 'week') -%}
to_timestamp(to_unix_timestamp(date_add(date({{ from_date_or_timestamp }}), cast({{ interval }} * {{ 7 if datepart == 'week' else 1 }} as int))) + to_unix_timestamp(to_timestamp({{ from_date_or_timestamp }})) - to_unix_timestamp(date({{ from_date_or_timestamp }})))
{%- elif datepart in months -%}
to_timestamp(to_unix_timestamp(add_months(date({{ from_date_or_timestamp }}), cast({{ interval }} * {{ months[datepart] }} as int))) + to_unix_timestamp(to_timestamp({{ from_date_or_timestamp }})) - to_unix_timestamp(date({{ from_date_or_timestamp }})))
{%- elif datepart in seconds -%}
to_timestamp(to_unix_timestamp({{ from_date_or_timestamp }}) + cast({{ interval }} * {{ seconds[datepart] }} as int))
{%- else -%}
{{ exceptions.raise_compiler_error("macro dateadd not implemented for datepart ~ '" ~ datepart ~ "' ~ on Spark") }}
{%- endif -%}
{%- endmacro %}

{% macro datediff(first_date, second_date, datepart) %}{{ return(adapter.dispatch('datediff', 'dbt')(first_date, second_date, datepart)) }}{% endmacro %}
{% macro spark__datediff(first_date, second_date, datepart) -%}
{%- if datepart == 'day' -%}
datediff(date({{ second_date }}), date({{ first_date }}))
{%- elif datepart == 'year' -%}
year(date({{ second_date }})) - year(date({{ first_date }}))
{%- elif datepart == 'month' -%}
(year(date({{ second_date }})) - year(date({{ first_date }}))) * 12 + month(date({{ second_date }})) - month(date({{ first_date }}))
{%- elif datepart in ('hour', 'minute', 'second') -%}
{%- set divisor = {'hour': 3600, 'minute': 60, 'second': 1}[datepart] -%}
case when {{ first_date }} < {{ second_date }} then ceil((to_unix_timestamp(to_timestamp({{ second_date }})) - to_unix_timestamp(to_timestamp({{ first_date }}))) / {{ divisor }}) else floor((to_unix_timestamp(to_timestamp({{ second_date }})) - to_unix_timestamp(to_timestamp({{ first_date }}))) / {{ divisor }}) end
{%- else -%}
{{ exceptions.raise_compiler_error("macro datediff not implemented in sortlint's own set for datepart '" ~ datepart ~ "' on Spark") }}
{%- endif -%}
{%- endmacro %}

{% macro last_day(date, datepart) %}{{ return(adapter.dispatch('last_day', 'dbt')(date, datepart)) }}{% endmacro %}
{% macro default__last_day(date, datepart) -%}
cast({{ dbt.dateadd('day', '-1', dbt.dateadd(datepart, '1', dbt.date_trunc(datepart, date))) }} as date)
{%- endmacro %}

{% macro date(year, month, day) %}{{ return(adapter.dispatch('date', 'dbt')(year, month, day)) }}{% endmacro %}
{% macro spark__date(year, month, day) -%}
to_date('{{ modules.datetime.date(year, month, day).strftime('%Y-%m-%d') }}', 'yyyy-MM-dd')
{%- endmacro %}

{% macro split_part(string_text, delimiter_text, part_number) %}{{ return(adapter.dispatch('split_part', 'dbt')(string_text, delimiter_text, part_number)) }}{% endmacro %}
{% macro spark__split_part(string_text, delimiter_text, part_number) -%}
{%- set delimiter_expr -%}case when regexp_extract({{ delimiter_text }}, '([^A-Za-z0-9])(.*)', 1) != '_' then concat('\\', {{ delimiter_text }}) else {{ delimiter_text }} end{%- endset -%}
{%- if part_number >= 0 -%}
split({{ string_text }}, {{ delimiter_expr }})[({{ part_number - 1 if part_number > 0 else part_number }})]
{%- else -%}
split({{ string_text }}, {{ delimiter_expr }})[(length({{ string_text }}) - length(replace({{ string_text }}, {{ delimiter_text }}, '')) + 1 + {{ part_number }})]
{%- endif -%}
{%- endmacro %}

{% macro length(expression) %}{{ return(adapter.dispatch('length', 'dbt')(expression)) }}{% endmacro %}
{% macro default__length(expression) -%}length({{ expression }}){%- endmacro %}

{% macro position(substring_text, string_text) %}{{ return(adapter.dispatch('position', 'dbt')(substring_text, string_text)) }}{% endmacro %}
{% macro default__position(substring_text, string_text) -%}position({{ substring_text }} in {{ string_text }}){%- endmacro %}

{% macro replace(field, old_chars, new_chars) %}{{ return(adapter.dispatch('replace', 'dbt')(field, old_chars, new_chars)) }}{% endmacro %}
{% macro default__replace(field, old_chars, new_chars) -%}replace({{ field }}, {{ old_chars }}, {{ new_chars }}){%- endmacro %}

{% macro right(string_text, length_expression) %}{{ return(adapter.dispatch('right', 'dbt')(string_text, length_expression)) }}{% endmacro %}
{% macro default__right(string_text, length_expression) -%}right({{ string_text }}, {{ length_expression }}){%- endmacro %}

{% macro listagg(measure, delimiter_text="','", order_by_clause=none, limit_num=none) %}{{ return(adapter.dispatch('listagg', 'dbt')(measure, delimiter_text, order_by_clause, limit_num)) }}{% endmacro %}
{% macro spark__listagg(measure, delimiter_text, order_by_clause, limit_num) -%}
{%- set collected = 'slice(collect_list(' ~ measure ~ '), 1, ' ~ limit_num ~ ')' if limit_num else 'collect_list(' ~ measure ~ ')' -%}
array_join({{ collected }}, {{ delimiter_text }})
{%- endmacro %}

{% macro bool_or(expression) %}{{ return(adapter.dispatch('bool_or', 'dbt')(expression)) }}{% endmacro %}
{% macro spark__bool_or(expression) -%}max({{ expression }}){%- endmacro %}

{% macro any_value(expression) %}{{ return(adapter.dispatch('any_value', 'dbt')(expression)) }}{% endmacro %}
{% macro spark__any_value(expression) -%}first({{ expression }}){%- endmacro %}

{% macro escape_single_quotes(expression) %}{{ return(adapter.dispatch('escape_single_quotes', 'dbt')(expression)) }}{% endmacro %}
{% macro spark__escape_single_quotes(expression) -%}{{ expression | replace("'", "\\'") }}{%- endmacro %}

{% macro string_literal(value) %}{{ return(adapter.dispatch('string_literal', 'dbt')(value)) }}{% endmacro %}
{% macro default__string_literal(value) -%}'{{ value }}'{%- endmacro %}

{% macro current_timestamp() %}{{ return(adapter.dispatch('current_timestamp', 'dbt')()) }}{% endmacro %}
{% macro spark__current_timestamp() -%}current_timestamp(){%- endmacro %}

{% macro except() %}{{ return(adapter.dispatch('except', 'dbt')()) }}{% endmacro %}
{% macro default__except() %}except{% endmacro %}
{% macro intersect() %}{{ return(adapter.dispatch('intersect', 'dbt')()) }}{% endmacro %}
{% macro default__intersect() %}intersect{% endmacro %}

{% macro array_construct(inputs=[], data_type=api.Column.translate_type('integer')) %}{{ return(adapter.dispatch('array_construct', 'dbt')(inputs, data_type)) }}{% endmacro %}
{% macro spark__array_construct(inputs, data_type) -%}array( {{ inputs|join(' , ') }} ){%- endmacro %}
{% macro array_concat(array_1, array_2) %}{{ return(adapter.dispatch('array_concat', 'dbt')(array_1, array_2)) }}{% endmacro %}
{% macro spark__array_concat(array_1, array_2) -%}concat({{ array_1 }}, {{ array_2 }}){%- endmacro %}
{% macro array_append(array, new_element) %}{{ return(adapter.dispatch('array_append', 'dbt')(array, new_element)) }}{% endmacro %}
{% macro spark__array_append(array, new_element) -%}{{ dbt.array_concat(array, dbt.array_construct([new_element])) }}{%- endmacro %}

{% macro equals(expr1, expr2) %}{{ return(adapter.dispatch('equals', 'dbt')(expr1, expr2)) }}{% endmacro %}
{% macro default__equals(expr1, expr2) -%}
{%- if adapter.behavior.enable_truthy_nulls_equals_macro.no_warn -%}
case when (({{ expr1 }} = {{ expr2 }}) or ({{ expr1 }} is null and {{ expr2 }} is null)) then 0 else 1 end = 0
{%- else -%}
({{ expr1 }} = {{ expr2 }})
{%- endif -%}
{%- endmacro %}
