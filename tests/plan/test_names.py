"""Spark's names for unaliased select-list expressions, checked against Spark itself.

Every row of the tables below is asserted twice: `spark_output_name` must give the expected
name (a test of its own, which needs no Spark), and so must a real local Spark
(`spark.sql("SELECT <expr> FROM t").columns`). To keep the run short, Spark analyses each
group of expressions as one SELECT (falling back to one query per expression if the batch
fails, so a bad row fails only its own test); nothing is executed, the views are empty.
"""

from __future__ import annotations

import pytest
import sqlglot
from spark_support import spark  # noqa: F401 - the shared session fixture

from sortlint.plan.names import UnknownName, alias_needed, spark_output_name

COLUMNS = {
    "a": "int", "b": "int", "c": "int", "amount": "decimal(12,2)", "price": "double",
    "host": "string", "name": "string", "time": "timestamp", "d": "date",
    "s": "struct<x:int,y:string>", "arr": "array<int>", "m": "map<string,int>",
    "flag": "boolean", "my col": "int",
}

# (expression as written, the name Spark 4.3 gives it), one table per SELECT shape.
ROW = [
    # column references: the written case, no qualifier
    ("a", "a"), ("AMOUNT", "AMOUNT"), ("t.a", "a"), ("T.A", "A"), ("`a`", "a"),
    ("`my col`", "my col"), ("(a)", "a"),
    # struct fields, subscripts
    ("s.x", "x"), ("t.s.x", "x"), ("S.x", "x"), ("s['x']", "s.x"), ("s.x + 1", "(s.x + 1)"),
    ("t.s.x + 1", "(s.x + 1)"), ("upper(s.y)", "upper(s.y)"), ("upper(s['y'])", "upper(s.y)"),
    ("arr[0]", "arr[0]"), ("arr[a]", "arr[a]"), ("m['k']", "m[k]"), ("upper(m['k'])", "upper(m[k])"),
    ("struct(a, b).b", "struct(a, b).b"), ("named_struct('x', a, 'y', b).x", "named_struct(x, a, y, b).x"),
    # arithmetic and operators: every binary operator parenthesised
    ("amount + 1", "(amount + 1)"), ("a + b * c", "(a + (b * c))"), ("(a + b) * c", "((a + b) * c)"),
    ("((a + 1))", "(a + 1)"), ("a - b - c", "((a - b) - c)"), ("a - (b - c)", "(a - (b - c))"),
    ("a / b", "(a / b)"), ("a div b", "(a div b)"), ("a % b", "(a % b)"), ("mod(a, b)", "mod(a, b)"),
    ("a & b", "(a & b)"), ("a | b", "(a | b)"), ("a ^ b", "(a ^ b)"), ("a << 1", "(a << 1)"),
    ("~a", "~a"), ("-a", "(- a)"), ("-(a + 1)", "(- (a + 1))"), ("-a * b", "((- a) * b)"),
    ("- -a", "(- (- a))"), ("-amount", "(- amount)"), ("a - -1", "(a - -1)"), ("-(1)", "(- 1)"),
    ("a || host", "concat(a, host)"), ("a || host || name", "concat(concat(a, host), name)"),
    ("`my col` + 1", "(my col + 1)"), ("a + 1.5", "(a + 1.5)"), ("1 + 2", "(1 + 2)"),
    # comparisons and logic
    ("a = 1", "(a = 1)"), ("a == 1", "(a = 1)"), ("a <> 1", "(NOT (a = 1))"), ("a != 1", "(NOT (a = 1))"),
    ("a <= 1", "(a <= 1)"), ("a <=> 1", "(a <=> 1)"), ("a IS NOT DISTINCT FROM b", "(a <=> b)"),
    ("a IS DISTINCT FROM b", "(NOT (a <=> b))"), ("NOT flag", "(NOT flag)"), ("!flag", "(NOT flag)"),
    ("NOT NOT flag", "(NOT (NOT flag))"), ("flag AND a > 1", "(flag AND (a > 1))"),
    ("a > 1 AND b < 2 OR c = 3", "(((a > 1) AND (b < 2)) OR (c = 3))"),
    ("a > 1 AND (b < 2 OR c = 3)", "((a > 1) AND ((b < 2) OR (c = 3)))"),
    ("a > 1 = true", "((a > 1) = true)"),
    ("a IS NULL", "(a IS NULL)"), ("a IS NOT NULL", "(a IS NOT NULL)"), ("a IS UNKNOWN", "(a IS NULL)"),
    ("flag IS TRUE", "(flag <=> true)"), ("flag IS NOT TRUE", "(NOT (flag <=> true))"),
    ("flag IS FALSE", "(flag <=> false)"), ("isnull(a)", "(a IS NULL)"), ("isnotnull(a)", "(a IS NOT NULL)"),
    ("a IN (1, 2)", "(a IN (1, 2))"), ("a NOT IN (1, 2)", "(NOT (a IN (1, 2)))"),
    ("host IN ('a', 'b')", "(host IN (a, b))"), ("a IN (b, c + 1)", "(a IN (b, (c + 1)))"),
    ("a BETWEEN 1 AND 2", "between(a, 1, 2)"), ("a NOT BETWEEN 1 AND 2", "(NOT between(a, 1, 2))"),
    ("host LIKE 'a%'", "host LIKE a%"), ("host NOT LIKE 'a%'", "(NOT host LIKE a%)"),
    ("host LIKE 'a%' ESCAPE '/'", "host LIKE a% ESCAPE '/'"), ("like(host, 'a%')", "host LIKE a%"),
    ("host ILIKE 'a%'", "ilike(host, a%)"), ("host NOT ILIKE 'a'", "(NOT ilike(host, a))"),
    ("host RLIKE 'a'", "RLIKE(host, a)"), ("host REGEXP 'a'", "RLIKE(host, a)"),
    ("rlike(host, 'a')", "RLIKE(host, a)"), ("regexp_like(host, 'a')", "REGEXP_LIKE(host, a)"),
    # CASE and IF
    ("CASE WHEN a > 1 THEN b ELSE c END", "CASE WHEN (a > 1) THEN b ELSE c END"),
    ("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' END", "CASE WHEN (a > 1) THEN big WHEN (a > 0) THEN small END"),
    ("CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' ELSE 'z' END", "CASE WHEN (a = 1) THEN x WHEN (a = 2) THEN y ELSE z END"),
    ("CASE a + 1 WHEN 2 THEN 'x' END", "CASE WHEN ((a + 1) = 2) THEN x END"),
    ("CASE WHEN flag THEN 1 ELSE 0 END", "CASE WHEN flag THEN 1 ELSE 0 END"),
    ("IF(a > 1, b, c)", "(IF((a > 1), b, c))"), ("if(flag, 'y', 'n')", "(IF(flag, y, n))"),
    # literals
    ("1", "1"), ("'x'", "x"), ('"x"', "x"), ("''", ""), ("' x '", " x "), ("'it''s'", "it's"),
    ("'a\\\\b'", "a\\b"), ("1.5", "1.5"), ("1.50", "1.50"), (".5", "0.5"), ("1.", "1"),
    ("00012", "12"), ("10000000000", "10000000000"), ("100000000000000000000", "100000000000000000000"),
    ("1e3", "1000.0"), ("1e20", "1.0E20"), ("1e-5", "1.0E-5"), ("1E0", "1.0"),
    ("1L", "1"), ("1Y", "1"), ("1S", "1"), ("1BD", "1"), ("1.50BD", "1.50"), ("1.5D", "1.5"),
    ("1.5F", "1.5"), ("123456789.0D", "1.23456789E8"), ("0.0001D", "1.0E-4"), ("0.001D", "0.001"),
    ("-1", "-1"), ("- 1", "-1"), ("-1.5", "-1.5"), ("-0", "0"), ("-0.0", "0.0"), ("-0.0D", "-0.0"),
    ("-1e3", "-1000.0"), ("-1L", "-1"), ("-2147483648", "-2147483648"),
    ("true", "true"), ("FALSE", "false"), ("NULL", "NULL"), ("NOT true", "(NOT true)"),
    ("X'1F'", "X'1F'"), ("x'1f'", "X'1F'"),
    ("DATE '2024-01-01'", "DATE '2024-01-01'"), ("DATE '2024-1-1'", "DATE '2024-01-01'"),
    ("TIMESTAMP '2024-01-01 00:00:00'", "TIMESTAMP '2024-01-01 00:00:00'"),
    ("TIMESTAMP '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'"),
    ("TIMESTAMP '2024-1-1 1:2:3'", "TIMESTAMP '2024-01-01 01:02:03'"),
    ("TIMESTAMP '2024-01-01T10:00:00'", "TIMESTAMP '2024-01-01 10:00:00'"),
    ("TIMESTAMP '2024-01-01 10:00:00.500'", "TIMESTAMP '2024-01-01 10:00:00.5'"),
    ("TIMESTAMP_NTZ '2024-01-01'", "TIMESTAMP_NTZ '2024-01-01 00:00:00'"),
    # casts: a cast of a column keeps the column's name, any other prints CAST(...)
    ("CAST(amount AS INT)", "amount"), ("CAST(t.a AS STRING)", "a"), ("CAST(A AS STRING)", "A"),
    ("CAST(`my col` AS STRING)", "my col"), ("a::bigint", "a"), ("try_cast(a AS STRING)", "a"),
    ("CAST(a + 1 AS INT)", "CAST((a + 1) AS INT)"), ("CAST(s.x AS STRING)", "CAST(s.x AS STRING)"),
    ("CAST(1 AS BIGINT)", "CAST(1 AS BIGINT)"), ("CAST('2024-01-01' AS DATE)", "CAST(2024-01-01 AS DATE)"),
    ("CAST(CAST(a AS STRING) AS INT)", "CAST(CAST(a AS STRING) AS INT)"),
    ("upper(CAST(a AS STRING))", "upper(CAST(a AS STRING))"),
    ("upper(try_cast(a AS STRING))", "upper(TRY_CAST(a AS STRING))"),
    ("a::string = host", "(CAST(a AS STRING) = host)"),
    ("CAST(a AS DECIMAL) + 1", "(CAST(a AS DECIMAL(10,0)) + 1)"),
    ("CAST(a AS DECIMAL(10, 2)) + 1", "(CAST(a AS DECIMAL(10,2)) + 1)"),
    ("CAST(a AS LONG) + 1", "(CAST(a AS BIGINT) + 1)"), ("CAST(a AS INTEGER) + 1", "(CAST(a AS INT) + 1)"),
    ("CAST(a AS REAL) + 1", "(CAST(a AS FLOAT) + 1)"), ("CAST(a AS SHORT) + 1", "(CAST(a AS SMALLINT) + 1)"),
    ("CAST(a AS BYTE) + 1", "(CAST(a AS TINYINT) + 1)"), ("CAST(a AS TIMESTAMP) IS NULL", "(CAST(a AS TIMESTAMP) IS NULL)"),
    ("CAST(a AS BOOLEAN) AND flag", "(CAST(a AS BOOLEAN) AND flag)"),
    ("upper(CAST(a AS VARCHAR(10)))", "upper(CAST(a AS STRING))"),
    ("CAST(host AS CHAR(3)) = host", "(CAST(host AS STRING) = host)"),
    ("CAST(arr AS ARRAY<STRING>)", "arr"), ("size(CAST(arr AS ARRAY<BIGINT>))", "size(arr)"),
    ("CAST(array(a) AS ARRAY<STRING>)", "array(a)"), ("int(a)", "a"), ("upper(string(a))", "upper(a)"),
    ("int(a) + 1", "(a + 1)"), ("timestamp('2024-01-01')", "2024-01-01"),
    # functions: the written name lower-cased, string arguments unquoted, defaults filled in
    ("upper(host)", "upper(host)"), ("UPPER(host)", "upper(host)"), ("upper(HOST)", "upper(HOST)"),
    ("UPPER(T.HOST)", "upper(HOST)"), ("upper(`my col`)", "upper(my col)"), ("upper(lower(host))", "upper(lower(host))"),
    ("date_trunc('hour', time)", "date_trunc(hour, time)"), ("date_trunc('HOUR', time)", "date_trunc(HOUR, time)"),
    ("date_trunc('hour', time + INTERVAL 30 MINUTES)", "date_trunc(hour, time + INTERVAL '30' MINUTE)"),
    ("concat(a, '-', b)", "concat(a, -, b)"), ("concat(host, ' ', name)", "concat(host,  , name)"),
    ("concat_ws('-', host, name)", "concat_ws(-, host, name)"), ("coalesce(a, 0)", "coalesce(a, 0)"),
    ("coalesce(host, '')", "coalesce(host, )"), ("nvl(a, 0)", "nvl(a, 0)"), ("ifnull(a, 0)", "ifnull(a, 0)"),
    ("nullif(a, 0)", "nullif(a, 0)"), ("nvl2(a, b, c)", "nvl2(a, b, c)"), ("coalesce(a, b) + 1", "(coalesce(a, b) + 1)"),
    ("date_format(time, 'yyyy-MM-dd')", "date_format(time, yyyy-MM-dd)"), ("to_date(time)", "to_date(time)"),
    ("to_date(host, 'yyyy-MM-dd')", "to_date(host, yyyy-MM-dd)"), ("to_timestamp(host)", "to_timestamp(host)"),
    ("to_timestamp(host, 'yyyy-MM-dd')", "to_timestamp(host, yyyy-MM-dd)"), ("year(time)", "year(time)"),
    ("year(d)", "year(d)"), ("day(d)", "day(d)"), ("dayofmonth(d)", "dayofmonth(d)"), ("hour(time)", "hour(time)"),
    ("hour(time) >= 9", "(hour(time) >= 9)"), ("year(time) * 100 + month(time)", "((year(time) * 100) + month(time))"),
    ("extract(YEAR FROM time)", "extract(YEAR FROM time)"), ("extract(Hour FROM time)", "extract(Hour FROM time)"),
    ("date_part('year', time)", "date_part(year, time)"), ("date_add(d, 1)", "date_add(d, 1)"),
    ("date_sub(d, 1)", "date_sub(d, 1)"), ("dateadd(d, 1)", "date_add(d, 1)"), ("datediff(current_date(), d)", "datediff(current_date(), d)"),
    ("months_between(time, time)", "months_between(time, time, true)"), ("from_unixtime(a)", "from_unixtime(a, yyyy-MM-dd HH:mm:ss)"),
    ("unix_timestamp(time)", "unix_timestamp(time, yyyy-MM-dd HH:mm:ss)"),
    ("unix_timestamp()", "unix_timestamp(current_timestamp(), yyyy-MM-dd HH:mm:ss)"),
    ("substring(host, 1, 3)", "substring(host, 1, 3)"), ("substr(host, 1, 3)", "substr(host, 1, 3)"),
    ("substring(host FROM 1 FOR 3)", "substring(host, 1, 3)"), ("substring(host, 2)", "substring(host, 2, 2147483647)"),
    ("replace(host, 'a', 'b')", "replace(host, a, b)"), ("regexp_replace(host, 'a+', 'b')", "regexp_replace(host, a+, b, 1)"),
    ("regexp_extract(host, '(a)')", "regexp_extract(host, (a), 1)"), ("split(host, ',')", "split(host, ,, -1)"),
    ("split(host, ',', 2)", "split(host, ,, 2)"), ("locate('a', host)", "locate(a, host, 1)"),
    ("position('a' IN host)", "locate(a, host, 1)"), ("lpad(host, 5, '0')", "lpad(host, 5, 0)"), ("rpad(host, 5)", "rpad(host, 5,  )"),
    ("trim(host)", "trim(host)"), ("ltrim(host)", "ltrim(host)"), ("trim(BOTH 'x' FROM host)", "TRIM(BOTH x FROM host)"),
    ("trim('x' FROM host)", "TRIM(BOTH x FROM host)"), ("trim(LEADING FROM host)", "ltrim(host)"),
    ("trim(TRAILING FROM host)", "rtrim(host)"), ("ltrim('x', host)", "TRIM(LEADING x FROM host)"),
    ("trim('x', host)", "TRIM(BOTH x FROM host)"), ("concat(host, 'it''s')", "concat(host, it's)"),
    ("round(price)", "round(price, 0)"), ("round(amount, 1)", "round(amount, 1)"), ("floor(price)", "FLOOR(price)"),
    ("ceil(price)", "CEIL(price)"), ("ceil(price, 1)", "ceil(price, 1)"), ("ceiling(price)", "ceiling(price)"),
    ("sqrt(price)", "SQRT(price)"), ("pow(price, 2)", "pow(price, 2)"), ("power(price, 2)", "POWER(price, 2)"),
    ("exp(price)", "EXP(price)"), ("ln(price)", "ln(price)"), ("log(price)", "LOG(E(), price)"), ("log(10, price)", "LOG(10, price)"),
    ("log10(price)", "LOG10(price)"), ("sign(price)", "sign(price)"), ("signum(price)", "SIGNUM(price)"),
    ("cos(price)", "COS(price)"), ("atan2(price, price)", "ATAN2(price, price)"), ("degrees(price)", "DEGREES(price)"),
    ("rint(price)", "rint(price)"), ("abs(-a)", "abs((- a))"), ("e()", "E()"), ("pi()", "PI()"),
    ("acos(price)", "ACOS(price)"), ("asin(price)", "ASIN(price)"), ("atan(price)", "ATAN(price)"),
    ("cbrt(price)", "CBRT(price)"), ("cosh(price)", "COSH(price)"), ("sin(price)", "SIN(price)"),
    ("sinh(price)", "SINH(price)"), ("tan(price)", "TAN(price)"), ("tanh(price)", "TANH(price)"),
    ("cot(price)", "COT(price)"), ("sec(price)", "SEC(price)"), ("csc(price)", "CSC(price)"),
    ("acosh(price)", "ACOSH(price)"), ("asinh(price)", "ASINH(price)"), ("atanh(price)", "ATANH(price)"),
    ("log2(price)", "LOG2(price)"), ("log1p(price)", "LOG1P(price)"), ("expm1(price)", "EXPM1(price)"),
    ("radians(price)", "RADIANS(price)"), ("hypot(price, price)", "HYPOT(price, price)"),
    ("bround(price)", "bround(price, 0)"), ("regexp_extract_all(host, '(a)')", "regexp_extract_all(host, (a), 1)"),
    ("rtrim('x', host)", "TRIM(TRAILING x FROM host)"), ("btrim(host)", "btrim(host)"),
    ("greatest(a, b, c)", "greatest(a, b, c)"), ("struct(a, b)", "struct(a, b)"), ("struct(a + 1, b)", "struct((a + 1), b)"),
    ("struct(a AS x, b AS y)", "struct(a AS x, b AS y)"), ("named_struct('x', a)", "named_struct(x, a)"),
    ("array(a, b)", "array(a, b)"), ("map('k', a)", "map(k, a)"), ("element_at(arr, 1)", "element_at(arr, 1)"),
    ("size(arr)", "size(arr)"), ("sort_array(arr)", "sort_array(arr, true)"),
    ("array_sort(arr)", "array_sort(arr, lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < namedlambdavariable()), -1, (IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), namedlambdavariable()))"),
    ("transform(arr, x -> x + 1)", "transform(arr, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))"),
    ("transform(arr, x -> x + a)", "transform(arr, lambdafunction((namedlambdavariable() + a), namedlambdavariable()))"),
    ("filter(arr, x -> x > 1)", "filter(arr, lambdafunction((namedlambdavariable() > 1), namedlambdavariable()))"),
    ("aggregate(arr, 0, (acc, x) -> acc + x)", "aggregate(arr, 0, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(), namedlambdavariable()))"),
    ("from_json(host, 'a INT')", "from_json(host)"), ("get_json_object(host, '$.a')", "get_json_object(host, $.a)"),
    ("current_date()", "current_date()"), ("current_date", "current_date()"), ("current_timestamp", "current_timestamp()"),
    ("now()", "now()"), ("current_user", "current_user()"), ("current_database()", "current_schema()"),
    ("rand()", "rand()"), ("rand(42)", "rand(42)"), ("random()", "rand()"), ("uuid()", "uuid()"),
    ("spark_partition_id()", "SPARK_PARTITION_ID()"), ("hash(a)", "hash(a)"),
    # intervals and date arithmetic (the operand types matter)
    ("INTERVAL 1 DAY", "INTERVAL '1' DAY"), ("INTERVAL 2 HOURS", "INTERVAL '02' HOUR"),
    ("INTERVAL '1' HOUR", "INTERVAL '01' HOUR"), ("INTERVAL 36 HOURS", "INTERVAL '36' HOUR"),
    ("INTERVAL 90 MINUTES", "INTERVAL '90' MINUTE"), ("INTERVAL 1 SECOND", "INTERVAL '01' SECOND"),
    ("INTERVAL 1.5 SECOND", "INTERVAL '01.5' SECOND"), ("INTERVAL 10 SECONDS", "INTERVAL '10' SECOND"),
    ("INTERVAL 1 MILLISECOND", "INTERVAL '00.001' SECOND"), ("INTERVAL 1 WEEK", "INTERVAL '7' DAY"),
    ("INTERVAL -1 DAY", "INTERVAL '-1' DAY"), ("INTERVAL '-2' HOUR", "INTERVAL '-02' HOUR"),
    ("INTERVAL 1 YEAR", "INTERVAL '1' YEAR"), ("INTERVAL 14 MONTHS", "INTERVAL '14' MONTH"),
    ("INTERVAL 1 YEAR 2 MONTHS", "INTERVAL '1-2' YEAR TO MONTH"), ("INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '1-2' YEAR TO MONTH"),
    ("INTERVAL 1 DAY 2 HOURS", "INTERVAL '1 02' DAY TO HOUR"), ("INTERVAL 1 DAY 30 MINUTES", "INTERVAL '1 00:30' DAY TO MINUTE"),
    ("INTERVAL 1 DAY 1 SECOND", "INTERVAL '1 00:00:01' DAY TO SECOND"), ("INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '01:30' HOUR TO MINUTE"),
    ("INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '1 02:03:04.5' DAY TO SECOND"),
    ("INTERVAL 1 DAY + INTERVAL 2 HOURS", "(INTERVAL '1' DAY + INTERVAL '02' HOUR)"),
    ("time + INTERVAL 1 DAY", "time + INTERVAL '1' DAY"), ("time - INTERVAL '1' HOUR", "time - INTERVAL '01' HOUR"),
    ("time + INTERVAL 1 MONTH", "time + INTERVAL '1' MONTH"), ("time - INTERVAL 1 DAY 2 HOURS", "time - INTERVAL '1 02' DAY TO HOUR"),
    ("time + INTERVAL 1 DAY + INTERVAL 1 HOUR", "time + INTERVAL '1' DAY + INTERVAL '01' HOUR"),
    ("current_timestamp() + INTERVAL 1 HOUR", "current_timestamp() + INTERVAL '01' HOUR"),
    ("d + INTERVAL 1 DAY", "date_add(d, extractansiintervaldays(INTERVAL '1' DAY))"),
    ("d - INTERVAL 1 DAY", "date_add(d, (- extractansiintervaldays(INTERVAL '1' DAY)))"),
    ("d + INTERVAL 2 HOURS", "d + INTERVAL '02' HOUR"), ("d - INTERVAL '1' YEAR", "d - INTERVAL '1' YEAR"),
    ("d + 1", "date_add(d, 1)"), ("d - 1", "date_sub(d, 1)"), ("d + a", "date_add(d, a)"), ("d - d", "(d - d)"),
    ("time - time", "(time - time)"), ("to_date(time) + 1", "date_add(to_date(time), 1)"),
    ("current_date() - 1", "date_sub(current_date(), 1)"), ("CAST(time AS DATE) + 1", "date_add(CAST(time AS DATE), 1)"),
    ("DATE '2024-01-01' - 1", "date_sub(DATE '2024-01-01', 1)"),
    ("DATE '2024-01-01' + INTERVAL 1 DAY", "date_add(DATE '2024-01-01', extractansiintervaldays(INTERVAL '1' DAY))"),
    ("date_add(d, 1) - 1", "date_sub(date_add(d, 1), 1)"),
    ("date_trunc('day', time) + INTERVAL 1 HOUR", "date_trunc(day, time) + INTERVAL '01' HOUR"),
]

AGGREGATE = [
    ("count(amount)", "count(amount)"), ("COUNT(amount)", "count(amount)"), ("count(*)", "count(1)"),
    ("count(1)", "count(1)"), ("count(DISTINCT amount)", "count(DISTINCT amount)"),
    ("count(distinct a, b)", "count(DISTINCT a, b)"), ("count(DISTINCT upper(host))", "count(DISTINCT upper(host))"),
    ("sum(amount)", "sum(amount)"), ("sum(DISTINCT a + 1)", "sum(DISTINCT (a + 1))"), ("sum(a + b)", "sum((a + b))"),
    ("avg(price)", "avg(price)"), ("mean(price)", "mean(price)"), ("max(a)", "max(a)"), ("min(a)", "min(a)"),
    ("max(date_trunc('hour', time))", "max(date_trunc(hour, time))"), ("first(a)", "first(a)"),
    ("first(a, true)", "first(a)"), ("first(a) IGNORE NULLS", "first(a)"), ("last(a, true)", "last(a)"),
    ("first_value(a)", "first_value(a)"), ("any_value(a)", "any_value(a)"), ("any_value(a, true)", "any_value(a)"),
    ("collect_list(a)", "collect_list(a)"), ("collect_set(a)", "collect_set(a)"), ("array_agg(a)", "collect_list(a)"),
    ("collect_list(DISTINCT a)", "collect_list(DISTINCT a)"), ("count_if(flag)", "count_if(flag)"),
    ("count(a) FILTER (WHERE a > 1)", "count(a) FILTER (WHERE (a > 1))"), ("sum(a) FILTER (WHERE flag)", "sum(a) FILTER (WHERE flag)"),
    ("count(IF(flag, 1, NULL))", "count((IF(flag, 1, NULL)))"), ("sum(CASE WHEN flag THEN 1 ELSE 0 END)", "sum(CASE WHEN flag THEN 1 ELSE 0 END)"),
    ("avg(CAST(a AS DOUBLE))", "avg(CAST(a AS DOUBLE))"), ("count(a) + 1", "(count(a) + 1)"), ("count(*) + 1", "(count(1) + 1)"),
    ("sum(a) / count(a)", "(sum(a) / count(a))"), ("max(a) - min(a)", "(max(a) - min(a))"),
    ("percentile_approx(price, 0.5)", "percentile_approx(price, 0.5, 10000)"), ("percentile(price, 0.5)", "percentile(price, 0.5, 1)"),
    ("approx_count_distinct(a)", "approx_count_distinct(a)"), ("stddev(price)", "stddev(price)"), ("max_by(a, b)", "max_by(a, b)"),
    ("bool_and(flag)", "bool_and(flag)"), ("every(flag)", "every(flag)"), ("some(flag)", "some(flag)"), ("any(flag)", "any(flag)"),
    ("string_agg(host, ',')", "string_agg(host, ,)"),
]

WINDOW = [
    ("row_number() OVER (PARTITION BY host ORDER BY time)", "row_number() OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("row_number() OVER (PARTITION BY host ORDER BY time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", "row_number() OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("row_number() OVER (ORDER BY a DESC NULLS LAST)", "row_number() OVER (ORDER BY a DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("row_number() OVER (PARTITION BY t.host ORDER BY time, a DESC)", "row_number() OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST, a DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("row_number() OVER (ORDER BY a + 1, upper(host))", "row_number() OVER (ORDER BY (a + 1) ASC NULLS FIRST, upper(host) ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("rank() OVER (ORDER BY a)", "RANK() OVER (ORDER BY a ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("dense_rank() OVER (PARTITION BY host ORDER BY time)", "DENSE_RANK() OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("percent_rank() OVER (ORDER BY a)", "PERCENT_RANK() OVER (ORDER BY a ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("cume_dist() OVER (ORDER BY a)", "cume_dist() OVER (ORDER BY a ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("ntile(4) OVER (ORDER BY c)", "ntile(4) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (PARTITION BY b ORDER BY c)", "sum(a) OVER (PARTITION BY b ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(c) OVER (PARTITION BY a ORDER BY b)", "sum(c) OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (PARTITION BY b)", "sum(a) OVER (PARTITION BY b ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("sum(a) OVER ()", "sum(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("count(*) OVER (PARTITION BY b)", "count(1) OVER (PARTITION BY b ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("sum(a) OVER (ORDER BY c DESC)", "sum(a) OVER (ORDER BY c DESC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY c DESC NULLS FIRST)", "sum(a) OVER (ORDER BY c DESC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (PARTITION BY host ORDER BY time ASC NULLS LAST)", "sum(a) OVER (PARTITION BY host ORDER BY time ASC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY c ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)", "sum(a) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)"),
    ("sum(a) OVER (ORDER BY c RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)", "sum(a) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY c ROWS 2 PRECEDING)", "sum(a) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY c ROWS UNBOUNDED PRECEDING)", "sum(a) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY a ROWS CURRENT ROW)", "sum(a) OVER (ORDER BY a ASC NULLS FIRST ROWS BETWEEN CURRENT ROW AND CURRENT ROW)"),
    ("sum(a) OVER (ORDER BY c ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)", "sum(a) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"),
    ("sum(a) OVER (PARTITION BY host ORDER BY time ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING)", "sum(a) OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING)"),
    ("sum(a) OVER (PARTITION BY host ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)", "sum(a) OVER (PARTITION BY host ORDER BY a ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("sum(a) OVER (PARTITION BY host ROWS UNBOUNDED PRECEDING)", "sum(a) OVER (PARTITION BY host ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "sum(a) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"),
    ("sum(price) OVER (ORDER BY time RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW)", "sum(price) OVER (ORDER BY time ASC NULLS FIRST RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND CURRENT ROW)"),
    ("sum(a) OVER (PARTITION BY upper(host) ORDER BY a + 1)", "sum(a) OVER (PARTITION BY upper(host) ORDER BY (a + 1) ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a + 1) OVER (PARTITION BY host)", "sum((a + 1)) OVER (PARTITION BY host ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("avg(a) OVER (DISTRIBUTE BY host SORT BY time)", "avg(a) OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("sum(a) FILTER (WHERE flag) OVER (PARTITION BY host)", "sum(a) FILTER (WHERE flag) OVER (PARTITION BY host ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"),
    ("collect_list(a) OVER (PARTITION BY host ORDER BY time)", "collect_list(a) OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("lag(a) OVER (ORDER BY c)", "lag(a, 1, NULL) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)"),
    ("lag(a, 2, 0) OVER (ORDER BY c)", "lag(a, 2, 0) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN -2 FOLLOWING AND -2 FOLLOWING)"),
    ("lead(a, 1) OVER (ORDER BY c)", "lead(a, 1, NULL) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING)"),
    ("lead(a, 2, a) OVER (ORDER BY c)", "lead(a, 2, a) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN 2 FOLLOWING AND 2 FOLLOWING)"),
    ("lag(a) IGNORE NULLS OVER (ORDER BY c)", "lag(a, 1, NULL) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)"),
    ("lag(a) RESPECT NULLS OVER (ORDER BY c)", "lag(a, 1, NULL) OVER (ORDER BY c ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)"),
    ("first_value(a) OVER (ORDER BY c)", "first_value(a) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("first_value(a, true) OVER (ORDER BY c)", "first_value(a) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("first_value(a) IGNORE NULLS OVER (ORDER BY c)", "first(a) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("last_value(a) IGNORE NULLS OVER (ORDER BY c)", "last(a) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("nth_value(a, 2) OVER (ORDER BY c)", "nth_value(a, 2) OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("nth_value(a, 2) IGNORE NULLS OVER (ORDER BY c)", "nth_value(a, 2) ignore nulls OVER (ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
]

# Expressions Spark must see alone: a generator is the only one of its kind in a SELECT.
ALONE = [("explode(arr)", "col"), ("explode_outer(arr)", "col")]

GROUPS = {"row": ROW, "aggregate": AGGREGATE, "window": WINDOW, "alone": ALONE}
CASES = [(group, index, expr, name) for group, table in GROUPS.items()
         for index, (expr, name) in enumerate(table)]
EVERY_ROW = pytest.mark.parametrize(("group", "index", "expr", "expected"), CASES,
                                    ids=[f"{group}:{expr}" for group, _, expr, _ in CASES])


def name_of(expr: str) -> str:
    return spark_output_name(sqlglot.parse_one(expr, read="spark"), source=expr,
                             column_types=COLUMNS)


@pytest.fixture(scope="module")
def spark_names(spark):  # noqa: F811 - the fixture imported above
    """Spark's column names for every group, computed once: {group: [name per row]}."""
    schema = ", ".join(f"`{column}` {kind}" for column, kind in COLUMNS.items())
    spark.createDataFrame([], schema).createOrReplaceTempView("t")
    names = {}
    for group, table in GROUPS.items():
        exprs = [expr for expr, _ in table]
        names[group] = [columns(spark, [expr]) for expr in exprs] if group == "alone" else (
            batch_columns(spark, exprs))
    return names


def columns(spark, exprs: list[str]) -> list[str]:  # noqa: F811
    return spark.sql(f"SELECT {', '.join(exprs)} FROM t").columns


def batch_columns(spark, exprs: list[str]) -> list:  # noqa: F811
    """One name per expression from one query; if Spark rejects the batch, each expression
    alone (its name, or the error as text, which fails only its own test)."""
    try:
        return columns(spark, exprs)
    except Exception:  # noqa: BLE001 - any analysis error: find the culprit below
        pass
    names = []
    for expr in exprs:
        try:
            (name,) = columns(spark, [expr])
        except Exception as error:  # noqa: BLE001
            name = f"<Spark rejected it: {str(error).splitlines()[0]}>"
        names.append(name)
    return names


@EVERY_ROW
def test_spark_output_name(group, index, expr, expected):
    assert name_of(expr) == expected


@pytest.mark.spark
@EVERY_ROW
def test_spark_gives_the_name(group, index, expr, expected, spark_names):
    got = spark_names[group][index]
    assert (got if group != "alone" else got[0]) == expected


# --- without the source text -----------------------------------------------------------------

@pytest.mark.parametrize(("expr", "expected"), [
    ("count(amount)", "count(amount)"),
    ("sum(a) OVER (PARTITION BY b ORDER BY c)",
     "sum(a) OVER (PARTITION BY b ORDER BY c ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
    ("date_trunc('hour', time)", "date_trunc(HOUR, time)"),  # sqlglot upper-cases the unit
    ("nvl(a, 0)", "coalesce(a, 0)"),  # sqlglot reads nvl as COALESCE
    ("CAST(a + 1 AS INT)", "CAST((a + 1) AS INT)"),
    ("1L", "CAST(1 AS BIGINT)"),  # the suffix is gone: what remains is a cast
])
def test_without_source_the_tree_is_named_as_sqlglot_normalised_it(expr, expected):
    node = sqlglot.parse_one(expr, read="spark")
    assert spark_output_name(node, column_types=COLUMNS) == expected


def test_an_alias_is_the_name():
    node = sqlglot.parse_one("SELECT count(*) AS n FROM t", read="spark").expressions[0]
    assert spark_output_name(node) == "n"


def test_a_select_item_inside_a_statement_with_its_own_text():
    sql = "SELECT host, nvl(a, 0), row_number() OVER (PARTITION BY host ORDER BY time) FROM t"
    items = sqlglot.parse_one(sql, read="spark").expressions
    assert spark_output_name(items[1], source="nvl(a, 0)") == "nvl(a, 0)"
    assert spark_output_name(items[2], source=sql[sql.index("row_number"):sql.index(" FROM")]) == (
        "row_number() OVER (PARTITION BY host ORDER BY time ASC NULLS FIRST "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)")


def test_source_that_is_not_the_node_is_refused():
    with pytest.raises(ValueError, match="not the text"):
        spark_output_name(sqlglot.parse_one("upper(host)", read="spark"), source="lower(host)")


def test_without_column_types_a_qualifier_is_taken_for_a_table():
    node = sqlglot.parse_one("upper(s.y)", read="spark")
    assert spark_output_name(node, source="upper(s.y)") == "upper(y)"
    assert spark_output_name(node, source="upper(s.y)", column_types=COLUMNS) == "upper(s.y)"


@pytest.mark.parametrize("expr", [
    "posexplode(arr)",  # two columns
    "json_tuple(host, 'a')",
    "host LIKE ANY ('a%', 'b%')",
    "a IN (SELECT 1)",
    "sum(a) OVER w",  # a named window: its spec is elsewhere in the statement
    "*",
    "INTERVAL 1 YEAR 1 DAY",  # months and days in one literal: not an ANSI interval
])
def test_unmodelled_expressions_are_refused(expr):
    with pytest.raises(UnknownName):
        name_of(expr)


# --- alias_needed ----------------------------------------------------------------------------

ALIASES = [
    ("a", "a"), ("my_col", "my_col"), ("A1", "A1"), ("_x", "_x"),
    ("count(amount)", "`count(amount)`"), ("my col", "`my col`"), ("select", "`select`"),
    ("FROM", "`FROM`"), ("1x", "`1x`"), ("a`b", "`a``b`"), ("", "``"), ("é", "`é`"),
    ("(a + 1)", "`(a + 1)`"),
]


@pytest.mark.parametrize(("name", "alias"), ALIASES)
def test_alias_needed(name, alias):
    assert alias_needed(name) == alias


def test_spark_reads_each_alias_back_as_the_name(spark_names, spark):  # noqa: F811
    """Every keyword Spark knows, and the names above, come back unchanged - with reserved
    keywords enforced too (the stricter mode: it refuses more bare keywords)."""
    keywords = [row.keyword.lower() for row in spark.sql("SELECT * FROM sql_keywords()").collect()]
    names = [*keywords, *(name for name, _ in ALIASES if name)]  # Spark refuses an empty alias
    items = ", ".join(f"a AS {alias_needed(name)}" for name in names)
    setting = "spark.sql.ansi.enforceReservedKeywords"
    before = spark.conf.get(setting)
    try:
        for enforced in ("false", "true"):
            spark.conf.set(setting, enforced)
            assert columns(spark, [items]) == names
    finally:
        spark.conf.set(setting, before)
