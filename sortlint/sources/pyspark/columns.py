"""Column expressions of the DataFrame API: as SQL text, and by the name Spark gives them.

A `CExpr` is rendered twice:

* `sql(expr, ref)` writes Spark SQL that sqlglot parses into the same tree as the equivalent
  SQL, so that `F.col("a") + 1`, `selectExpr("a + 1")` and `a + 1` in a SQL file become one
  `Expr` key. `ref` writes each column reference (the plan builder gives it a placeholder it
  later replaces by the resolved, qualified column).
* `pretty(expr)` is the output name Spark's analyzer gives an unaliased DataFrame column,
  which differs from SQL's in places (`-col` is `negative(a)`, `!=` is `(NOT (a = b))`,
  `between` expands, `lag` prints its defaults). Every rule here was read off PySpark 4.3
  (`df.select(e).columns`); tests/plan/test_dataframe_names.py checks them against a local
  Spark. A name that is not certain (a function missing from `FUNCTIONS`, a double printed
  in scientific notation) comes back with `certain=False`: fixes that would have to write
  it are unsafe.

`FUNCTIONS` lists the functions of `pyspark.sql.functions` the reader understands, with the
kind of each argument: `c` a column or column name (a Python string is a column), `l` a
literal (a Python value is a literal; a Column stays a column), and a trailing kind repeated
for varargs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sortlint.sources.pyspark.values import (
    CAlias, CCall, CCase, CExpr, CLit, Column, COp, COpaque, CRef, CSort, CSql, CStar, CWindow,
    PyValue, Value, WindowSpec,
)


@dataclass(frozen=True)
class Function:
    params: str = "c"  # one kind per positional parameter: c (column or name) or l (literal)
    varargs: str = ""  # the kind of further arguments, "" when there are none
    pretty: str | None = None  # the name Spark prints, when not the PySpark name
    sql: str | None = None  # the SQL function, when not the PySpark name
    defaults: tuple[str, ...] = ()  # printed for the last parameters when they are omitted
    aggregate: bool = False
    ranking: bool = False  # row_number, rank, dense_rank
    window_only: bool = False  # needs an OVER clause


def _agg(params: str = "c", **kwargs) -> Function:
    return Function(params, aggregate=True, **kwargs)


_FORMAT = "yyyy-MM-dd HH:mm:ss"

FUNCTIONS: dict[str, Function] = {
    # aggregates
    "sum": _agg(), "avg": _agg(), "mean": _agg(pretty="avg", sql="avg"), "max": _agg(),
    "min": _agg(), "count": _agg(), "first": _agg("cl"), "last": _agg("cl"),
    "collect_list": _agg(), "collect_set": _agg(), "stddev": _agg(), "stddev_samp": _agg(),
    "stddev_pop": _agg(), "variance": _agg(), "var_samp": _agg(), "var_pop": _agg(),
    "any_value": _agg("cl"), "approx_count_distinct": _agg("cl"),
    "countDistinct": _agg("c", varargs="c"), "count_distinct": _agg("c", varargs="c"),
    "sum_distinct": _agg(), "sumDistinct": _agg(), "bool_and": _agg(), "bool_or": _agg(),
    "every": _agg(), "some": _agg(), "max_by": _agg("cc"), "min_by": _agg("cc"),
    "median": _agg(), "kurtosis": _agg(), "skewness": _agg(), "corr": _agg("cc"),
    "covar_pop": _agg("cc"), "covar_samp": _agg("cc"), "count_if": _agg(),
    "percentile_approx": _agg("cll", defaults=("10000",)),
    # window functions
    "row_number": Function("", pretty="row_number", ranking=True, window_only=True),
    "rank": Function("", pretty="RANK", ranking=True, window_only=True),
    "dense_rank": Function("", pretty="DENSE_RANK", ranking=True, window_only=True),
    "percent_rank": Function("", pretty="PERCENT_RANK", window_only=True),
    "cume_dist": Function("", window_only=True),
    "ntile": Function("l", window_only=True),
    "lag": Function("cll", defaults=("1", "NULL"), window_only=True),
    "lead": Function("cll", defaults=("1", "NULL"), window_only=True),
    # scalar functions
    "coalesce": Function("", varargs="c"), "greatest": Function("", varargs="c"),
    "least": Function("", varargs="c"), "concat": Function("", varargs="c"),
    "concat_ws": Function("l", varargs="c"), "struct": Function("", varargs="c"),
    "array": Function("", varargs="c"), "abs": Function(), "sqrt": Function(pretty="SQRT"),
    "floor": Function(pretty="FLOOR"), "ceil": Function(pretty="CEIL"),
    "round": Function("cl", defaults=("0",)), "bround": Function("cl", defaults=("0",)),
    "exp": Function(pretty="EXP"), "signum": Function(pretty="SIGNUM"),
    "upper": Function(), "lower": Function(), "trim": Function(), "ltrim": Function(),
    "rtrim": Function(), "length": Function(), "initcap": Function(), "reverse": Function(),
    "substring": Function("cll"), "instr": Function("cl"), "lpad": Function("cll"),
    "rpad": Function("cll"), "repeat": Function("cl"), "md5": Function(),
    "sha2": Function("cl"), "hash": Function("", varargs="c"),
    "regexp_replace": Function("clll", defaults=("1",)), "regexp_extract": Function("cll"),
    "split": Function("cll", defaults=("-1",)), "size": Function(), "isnan": Function(),
    "nvl": Function("cc"), "ifnull": Function("cc"), "nanvl": Function("cc"),
    "date_trunc": Function("lc"), "trunc": Function("cl"), "to_date": Function("cl"),
    "to_timestamp": Function("cl"), "date_format": Function("cl"), "year": Function(),
    "quarter": Function(), "month": Function(), "dayofmonth": Function(),
    "dayofweek": Function(), "dayofyear": Function(), "hour": Function(), "minute": Function(),
    "second": Function(), "weekofyear": Function(), "date_add": Function("cl"),
    "date_sub": Function("cl"), "add_months": Function("cl"), "datediff": Function("cc"),
    "months_between": Function("ccl"), "last_day": Function(),
    "current_date": Function(""), "current_timestamp": Function(""),
    "unix_timestamp": Function("cl", defaults=(_FORMAT,)),
    "from_unixtime": Function("cl", defaults=(_FORMAT,)), "timestamp_seconds": Function(),
    "to_utc_timestamp": Function("cl"), "from_utc_timestamp": Function("cl"),
    # generators: a select of one becomes a Generate node (sortlint.plan.generators)
    "explode": Function(), "explode_outer": Function(), "posexplode": Function(),
    "posexplode_outer": Function(), "inline": Function(), "inline_outer": Function(),
}

# Functions that Spark names differently from `name(args)`, beside the table's `pretty`.
_DISTINCT_AGGREGATES = {"countDistinct": "count", "count_distinct": "count",
                        "sum_distinct": "sum", "sumDistinct": "sum"}
_IGNORED_OPTION = {"first": 1, "last": 1, "any_value": 1}  # `ignorenulls` is not printed


def is_aggregate_call(expr: CExpr) -> bool:
    return isinstance(expr, CCall) and expr.name in FUNCTIONS and FUNCTIONS[expr.name].aggregate


def is_ranking_call(expr: CExpr) -> bool:
    return isinstance(expr, CCall) and expr.name in FUNCTIONS and FUNCTIONS[expr.name].ranking


# --- Python values as columns --------------------------------------------------------------------


def column_name(name: str) -> CExpr:
    if name == "*":
        return CStar()
    if name.endswith(".*") and "`" not in name:
        return CStar(qualifier=name[:-2])
    return CRef(name)


def name_or_column(value: Value) -> CExpr:
    """An argument where a string names a column."""
    if isinstance(value, Column):
        return value.expr
    if isinstance(value, PyValue) and isinstance(value.value, str):
        return column_name(value.value)
    return COpaque("a column known at run time")


def literal_or_column(value: Value) -> CExpr:
    """An argument where a Python value is a literal."""
    if isinstance(value, Column):
        return value.expr
    if isinstance(value, PyValue) and value.known:
        return CLit(value.value)
    return COpaque("a value known at run time")


# --- SQL text -----------------------------------------------------------------------------------

Ref = Callable[[CExpr], str]


_BINARY_SQL = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "==": "=", "!=": "<>",
               "<": "<", "<=": "<=", ">": ">", ">=": ">=", "&": "AND", "|": "OR",
               "<=>": "<=>", "bitwiseAND": "&", "bitwiseOR": "|", "bitwiseXOR": "^"}


class Opaques:
    """Unique function names for the parts of an expression nothing is known about."""

    def __init__(self) -> None:
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"sortlint_opaque_{self.count}()"


def sql(expr: CExpr, ref: Ref, opaques: Opaques) -> str:
    """Spark SQL for the expression; `ref` writes column references and stars."""

    def go(e: CExpr) -> str:
        if isinstance(e, (CRef, CStar)):
            return ref(e)
        if isinstance(e, CLit):
            return sql_literal(e.value)
        if isinstance(e, CAlias):
            return go(e.expr)
        if isinstance(e, CSort):
            return go(e.expr)
        if isinstance(e, CSql):
            return f"({e.text})"
        if isinstance(e, COpaque):
            return opaques.next()
        if isinstance(e, CCase):
            return case_text(e, go)
        if isinstance(e, CWindow):
            return f"{go(e.function)} OVER ({window_sql(e.spec, go)})"
        if isinstance(e, CCall):
            return call_sql(e, go)
        if isinstance(e, COp):
            return op_sql(e, go)
        return opaques.next()

    return go(expr)


def sql_literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def call_sql(e: CCall, go: Callable[[CExpr], str]) -> str:
    spec = FUNCTIONS.get(e.name, Function())
    if e.name in _DISTINCT_AGGREGATES:
        return _distinct_call(e, go)
    if e.name == "count" and len(e.args) == 1 and isinstance(e.args[0], CStar):
        return "count(*)"
    return f"{spec.sql or e.name}({', '.join(go(a) for a in _kept_args(e))})"


def _distinct_call(e: CCall, go: Callable[[CExpr], str]) -> str:
    """`countDistinct(a, b)` and friends: the SQL text and Spark's name spell them alike."""
    return f"{_DISTINCT_AGGREGATES[e.name]}(DISTINCT {', '.join(go(a) for a in e.args)})"


def _kept_args(e: CCall) -> list[CExpr]:
    """The arguments Spark keeps: options such as `first(x, ignorenulls)` are dropped."""
    args = list(e.args)
    if e.name in _IGNORED_OPTION:
        args = args[: _IGNORED_OPTION[e.name]]
    return args


def _common_op(op: str, a: list[str]) -> str | None:
    """The operator forms SQL text and Spark's column names print alike."""
    if op == "**":
        return f"POWER({a[0]}, {a[1]})"
    if op == "~":
        return f"(NOT {a[0]})"
    if op == "isNull":
        return f"({a[0]} IS NULL)"
    if op == "isNotNull":
        return f"({a[0]} IS NOT NULL)"
    if op == "isin":
        return f"({a[0]} IN ({', '.join(a[1:])}))"
    if op == "item":
        return f"{a[0]}[{a[1]}]"
    return None


def op_sql(e: COp, go: Callable[[CExpr], str]) -> str:
    a = [go(arg) for arg in e.args]
    op = e.op
    if op in _BINARY_SQL:
        return f"({a[0]} {_BINARY_SQL[op]} {a[1]})"
    common = _common_op(op, a)
    if common is not None:
        return common
    if op == "neg":
        return f"(-{a[0]})"
    if op == "between":
        return f"({a[0]} BETWEEN {a[1]} AND {a[2]})"
    if op in ("like", "rlike", "ilike"):
        return f"({a[0]} {op.upper()} {a[1]})"
    if op == "cast":
        return f"CAST({a[0]} AS {e.args[1].value})"  # type: ignore[attr-defined]
    if op in ("contains", "startswith", "endswith", "substr"):
        return f"{op}({', '.join(a)})"
    raise ValueError(f"unknown operator {op}")


def window_sql(spec: WindowSpec, go: Callable[[CExpr], str]) -> str:
    parts = []
    if spec.partition:
        parts.append("PARTITION BY " + ", ".join(go(key.expr) for key in spec.partition))
    if spec.order:
        parts.append("ORDER BY " + ", ".join(sort_sql(key.expr, go) for key in spec.order))
    if spec.frame is not None:
        kind, start, end = spec.frame
        parts.append(f"{kind} BETWEEN {_bound_sql(start)} AND {_bound_sql(end)}")
    return " ".join(parts)


def sort_sql(expr: CExpr, go: Callable[[CExpr], str]) -> str:
    descending, nulls_first = direction(expr)
    text = go(expr.expr if isinstance(expr, CSort) else expr)
    text += " DESC" if descending else " ASC"
    if nulls_first is not None:
        text += " NULLS FIRST" if nulls_first else " NULLS LAST"
    return text


def direction(expr: CExpr) -> tuple[bool, bool | None]:
    if isinstance(expr, CSort):
        return expr.descending, expr.nulls_first
    return False, None


def _bound_sql(bound: object) -> str:
    if bound in ("UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING", "CURRENT ROW"):
        return str(bound)
    value = int(bound)  # type: ignore[call-overload]
    if value == 0:
        return "CURRENT ROW"
    return f"{abs(value)} {'PRECEDING' if value < 0 else 'FOLLOWING'}"


# --- Spark's names ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    text: str | None  # None: not known
    certain: bool = True


class _Unknown(Exception):
    pass


def pretty(expr: CExpr, sql_name: Callable[[CSql], Name] | None = None) -> Name:
    """The name Spark gives the column `expr` (its alias when it has one)."""
    if isinstance(expr, CAlias):
        return Name(expr.name)
    if isinstance(expr, CRef):
        return Name(expr.name.split(".")[-1] if "`" not in expr.name else None, "`" not in expr.name)
    if isinstance(expr, COp) and expr.op == "cast" and isinstance(expr.args[0], CRef):
        return pretty(expr.args[0])
    if isinstance(expr, CSql):
        return sql_name(expr) if sql_name is not None else Name(None)
    certain = [True]

    def uncertain() -> None:
        certain[0] = False

    try:
        return Name(_pretty(expr, uncertain, sql_name), certain[0])
    except _Unknown:
        return Name(None, False)


def _pretty(expr: CExpr, uncertain: Callable[[], None], sql_name) -> str:
    def go(e: CExpr) -> str:
        if isinstance(e, CRef):
            return e.name
        if isinstance(e, CStar):
            return "*"
        if isinstance(e, CLit):
            return _pretty_literal(e.value, uncertain)
        if isinstance(e, CAlias):
            return go(e.expr)  # Spark prints an inner alias's child
        if isinstance(e, CSort):
            return go(e.expr)
        if isinstance(e, CSql):
            name = sql_name(e) if sql_name is not None else Name(None)
            if name.text is None:
                raise _Unknown
            if not name.certain:
                uncertain()
            return name.text
        if isinstance(e, CCase):
            return case_text(e, go)
        if isinstance(e, CWindow):
            return _pretty_window(e, go)
        if isinstance(e, CCall):
            return _pretty_call(e, go, uncertain)
        if isinstance(e, COp):
            return _pretty_op(e, go, uncertain)
        raise _Unknown

    return go(expr)


def _pretty_literal(value: object, uncertain: Callable[[], None]) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(2**31) <= value < 2**31:
            uncertain()
        return str(value)
    if isinstance(value, float):
        from sortlint.plan.names import java_double

        if not (value == 0 or 1e-3 <= abs(value) < 1e7):
            uncertain()
        return java_double(value)
    return str(value)


def _pretty_call(e: CCall, go: Callable[[CExpr], str], uncertain: Callable[[], None]) -> str:
    spec = FUNCTIONS.get(e.name)
    if spec is None:
        uncertain()
        spec = Function()
    if e.name in _DISTINCT_AGGREGATES:
        return _distinct_call(e, go)
    if e.name == "count" and len(e.args) == 1 and isinstance(e.args[0], CStar):
        return "count(1)"
    texts = [go(a) for a in _kept_args(e)]
    missing = len(spec.params) - len(texts)
    if spec.defaults and missing > 0:
        texts += list(spec.defaults[len(spec.defaults) - missing :])
    return f"{spec.pretty or e.name}({', '.join(texts)})"


_BINARY_PRETTY = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "==": "=", "<": "<",
                  "<=": "<=", ">": ">", ">=": ">=", "&": "AND", "|": "OR", "<=>": "<=>",
                  "bitwiseAND": "&", "bitwiseOR": "|", "bitwiseXOR": "^"}


def _pretty_op(e: COp, go: Callable[[CExpr], str], uncertain: Callable[[], None]) -> str:
    op = e.op
    a = [go(arg) for arg in e.args] if op != "cast" else [go(e.args[0])]
    if op in _BINARY_PRETTY:
        return f"({a[0]} {_BINARY_PRETTY[op]} {a[1]})"
    if op == "!=":
        return f"(NOT ({a[0]} = {a[1]}))"
    common = _common_op(op, a)
    if common is not None:
        return common
    if op == "neg":
        return f"negative({a[0]})"
    if op == "between":
        return f"(({a[0]} >= {a[1]}) AND ({a[0]} <= {a[2]}))"
    if op == "like":
        return f"{a[0]} LIKE {a[1]}"
    if op == "rlike":
        return f"RLIKE({a[0]}, {a[1]})"
    if op in ("ilike", "contains", "startswith", "endswith", "substr"):
        return f"{op}({', '.join(a)})"
    if op == "cast":
        uncertain()
        return f"CAST({a[0]} AS {str(e.args[1].value).upper()})"  # type: ignore[attr-defined]
    raise _Unknown


def _pretty_window(e: CWindow, go: Callable[[CExpr], str]) -> str:
    spec = e.spec
    parts = []
    if spec.partition:
        parts.append("PARTITION BY " + ", ".join(go(key.expr) for key in spec.partition))
    if spec.order:
        keys = []
        for key in spec.order:
            descending, nulls_first = direction(key.expr)
            if nulls_first is None:
                nulls_first = not descending
            inner = key.expr.expr if isinstance(key.expr, CSort) else key.expr
            keys.append(f"{go(inner)} {'DESC' if descending else 'ASC'} NULLS {'FIRST' if nulls_first else 'LAST'}")
        parts.append("ORDER BY " + ", ".join(keys))
    parts.append(_pretty_frame(e.function, spec, go))
    return f"{go(e.function)} OVER ({' '.join(parts)})"


def _pretty_frame(function: CExpr, spec: WindowSpec, go: Callable[[CExpr], str]) -> str:
    name = function.name if isinstance(function, CCall) else ""
    if name == "cume_dist":
        return "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    if name in ("row_number", "rank", "dense_rank", "percent_rank", "ntile"):
        return "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    if name in ("lag", "lead"):
        offset = go(function.args[1]) if len(function.args) > 1 else "1"  # type: ignore[attr-defined]
        if name == "lag":
            offset = offset[1:] if offset.startswith("-") else "-" + offset
        return f"ROWS BETWEEN {offset} FOLLOWING AND {offset} FOLLOWING"
    if spec.frame is not None:
        kind, start, end = spec.frame
        return f"{kind} BETWEEN {_pretty_bound(start)} AND {_pretty_bound(end)}"
    if spec.order:
        return "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    return "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"


def _pretty_bound(bound: object) -> str:
    if bound in ("UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING", "CURRENT ROW"):
        return str(bound)
    value = int(bound)  # type: ignore[call-overload]
    return "CURRENT ROW" if value == 0 else f"{value} FOLLOWING"


def case_text(case: CCase, go) -> str:
    """`CASE WHEN .. THEN .. [ELSE ..] END` with each part printed by `go`: the SQL text
    and Spark's column name spell a CASE the same way around their parts."""
    parts = ["CASE"]
    for condition, value in case.whens:
        parts += ["WHEN", go(condition), "THEN", go(value)]
    if case.default is not None:
        parts += ["ELSE", go(case.default)]
    return " ".join([*parts, "END"])
