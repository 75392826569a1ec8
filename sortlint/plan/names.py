"""The name Spark gives an output column.

The fix contract compares output names before and after a rewrite, so they must be Spark's:
the alias when there is one, the column's own name for a column reference (without its
qualifier), and otherwise the name Spark's analyzer gives an unaliased select-list
expression (`output_name`), computed as follows.

A rewrite must not rename output columns (see *Fix contract* in the design), so before it
changes an unaliased expression - drops a key from a window's PARTITION BY, say - it needs
the name Spark gave the original, to write it as an alias. Spark names such a column with
the expression's "pretty SQL": every function name as the user wrote it, lower-cased (with
a few classes that print a name of their own, some upper-case); arguments Spark fills in by
default printed too; string literals unquoted; every binary operator and `NOT` in
parentheses; qualifiers dropped; a window with its complete, defaulted frame. The rules here
were read off Spark 4.3 (`spark.sql("SELECT <expr> FROM t").columns`), and the tests check
each against a real local Spark.

sqlglot's parser normalises what it reads - `nvl` becomes COALESCE, `date_sub(d, 1)`
becomes `DATE_ADD(d, 1 * -1)`, `to_date(s, 'yyyy-MM-dd')` loses its default format, `1L`
becomes a CAST - and Spark names the original. So the names are computed from a second,
verbatim parse of the expression's text (every function call kept as written) and from the
written text of literals. Pass that text as `source` when you have it (the select item's
span in the unit); without it the text is regenerated from the tree and whatever sqlglot's
normalisation lost stays lost.

Where the name depends on a column's type (`d + 1` is `date_add(d, 1)` for a date `d`,
`s.x` is a struct field only if `s` is a column), pass `column_types`; without it every
column is taken to be neither a date nor a struct.

Not modelled (`UnknownName`): subqueries, named windows (`OVER w`), multi-column generators,
`LIKE ANY`, intervals mixing months and days, casts to unlisted types. A unary `+` is lost
(sqlglot drops it; Spark prints `(+ a)`), and an unknown function - a UDF - is printed like
any other call, which Spark has not confirmed.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import cache, lru_cache
from typing import NamedTuple

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError
from sqlglot.tokens import Token, TokenType

from sortlint.plan.dialect import sql_dialect
from sortlint.plan.token_types import T


class UnknownName(ValueError):
    """The expression has no Spark name sortlint can compute: Spark would name it in a way
    not modelled here (a subquery, a multi-column generator, an unsupported literal), so a
    rewrite that needs its name must not be offered."""


def output_name(node: exp.Expression, written: str | None = None) -> str:
    """The output column name of a select item; `written` is its text as written (no
    alias), which keeps what sqlglot's tree normalises away (function spellings)."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    if isinstance(node, exp.Dot):
        return node.name
    try:
        return spark_output_name(node, source=written)
    except (UnknownName, ValueError):
        # Not modelled: the SQL text, which at least names the expression the same way
        # before and after a rewrite that does not touch it.
        return node.sql(dialect="spark", comments=False)


def spark_output_name(
    node: exp.Expression,
    dialect: str = "spark",
    *,
    source: str | None = None,
    column_types: Mapping[str, str] | None = None,
) -> str:
    """The name `spark.sql("SELECT <node> FROM ...").columns` reports for `node`.

    `source` is the text `node` was parsed from, exactly the select item as written (no alias,
    no trailing comma); it is checked against `node`. `column_types` maps input column names
    (any case) to Spark type names (`date`, `struct<x:int>`, ...). An `Alias` is named by its
    alias. Raises `UnknownName` for expressions whose Spark name is not modelled.
    """
    if isinstance(node, exp.Alias):
        return node.alias
    if source is None:
        source = node.sql(dialect=dialect)
    elif _parsed(source, dialect) != node:
        raise ValueError(f"{source!r} is not the text of {node.sql(dialect=dialect)!r}")
    types = {name.lower(): kind.lower() for name, kind in (column_types or {}).items()}
    return _source_name(source, dialect, tuple(types.items()))


# A file repeats its select items (`count(*)` in statement after statement), and a parse of
# even a short one costs as much as a small statement's analysis: the two parses a name
# needs are kept for the most recent texts. Their trees are only compared and read.
_RECENT_TEXTS = 256


@lru_cache(maxsize=_RECENT_TEXTS)
def _parsed(source: str, dialect: str) -> exp.Expression:
    return sqlglot.parse_one(source, read=sql_dialect(dialect))


@lru_cache(maxsize=_RECENT_TEXTS)
def _source_name(source: str, dialect: str, types: tuple[tuple[str, str], ...]) -> str:
    tree = _verbatim_tree(source, dialect)
    return _top_name(tree, _Context(source, dict(types)))


def alias_needed(name: str) -> str:
    """`name` as an alias in Spark SQL: bare when Spark reads it back as exactly that
    identifier, otherwise backquoted with inner backquotes doubled."""
    if _PLAIN_IDENTIFIER.fullmatch(name) and name.upper() not in _RESERVED:
        return name
    return "`" + name.replace("`", "``") + "`"


_PLAIN_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The keywords Spark 4.3 refuses as a bare alias when reserved keywords are enforced
# (`spark.sql.ansi.enforceReservedKeywords`); without it Spark accepts every keyword.
_RESERVED = frozenset("""
    ALL AND ANY AS AUTHORIZATION BOTH CALL CASE CAST CHECK COLLATE COLLATION COLLATIONS COLUMN
    CONSTRAINT CREATE CROSS CURRENT_DATE CURRENT_PATH CURRENT_SCHEMA CURRENT_TIME
    CURRENT_TIMESTAMP CURRENT_USER DISTINCT ELSE END ESCAPE EXCEPT EXECUTE FALSE FETCH FILTER
    FOR FOREIGN FROM FULL GRANT GROUP HAVING IN INNER INTERSECT INTO IS JOIN LATERAL LEADING
    LEFT LOCALTIME NATURAL NOT NULL OFFSET ON ONLY OR ORDER OUTER OVERLAPS PRIMARY RECURSIVE
    REFERENCES RIGHT SELECT SESSION_USER SOME SQL TABLE THEN TIME TO TRAILING UNION UNIQUE
    UNKNOWN USER USING WHEN WHERE WITH WITHIN
""".split())


# --- the verbatim parse ----------------------------------------------------------------------

# Function syntax that is not a plain argument list keeps its own parser; every other call
# is parsed as an anonymous function, with its name and arguments as written.
_SYNTAX_FUNCTIONS = frozenset({"CAST", "TRY_CAST", "EXTRACT", "POSITION", "TRIM", "SUBSTRING"})
_MULTI_UNIT = "sortlint_interval_units"
# A token text the parser cannot recognise (no keyword, function or unit starts so): it stands
# for the text of a token the verbatim parse hides from sqlglot, `_KEY` and the text's number.
_KEY = "\x00"


@cache
def _verbatim(dialect: str) -> Dialect:
    """`dialect` with a tokenizer that reads `''` inside a string as a quote, as Spark does.

    Only the tokenizer is subclassed, never the parser: with sqlglot's compiled build
    (sqlglotc) installed its parsers are compiled classes, which Python classes cannot
    inherit from. The rest of the verbatim reading is done on the tokens (`_verbatim_tree`)."""
    base = type(sql_dialect(dialect))

    class Tokenizer(base.tokenizer_class):
        STRING_ESCAPES = [*base.tokenizer_class.STRING_ESCAPES, "'"]  # 'it''s' is one literal

    return type(f"_Verbatim{base.__name__}", (base,), {"Tokenizer": Tokenizer})()


@cache
def _normalised_functions(dialect: str) -> frozenset[str]:
    """The function names `dialect`'s parser turns into a node of its own (`nvl` into
    COALESCE), other than those with a syntax of their own and those parsed before any
    function lookup (`IF`, `CASE`): the names the verbatim parse hides."""
    parser = _verbatim(dialect).parser_class
    names = {*parser.FUNCTIONS, *parser.FUNCTION_PARSERS}
    return frozenset(names - _SYNTAX_FUNCTIONS - set(parser.NO_PAREN_FUNCTION_PARSERS))


class _Hidden:
    """Token texts the verbatim parse hides from sqlglot's parser behind keys (`_KEY`), and
    gives back to the tree afterwards: a key is a name the parser knows nothing of."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}  # key -> the text the tree gets back
        self.continued: set[str] = set()  # keys of the first unit of a multi-unit interval

    def hide(self, token: Token, text: str) -> str:
        """Hide `token` behind a key; the tree gets `text` in its place."""
        key = f"{_KEY}{len(self.texts)}"
        self.texts[key] = text
        token.text = key
        return key

    def restore(self, tree: exp.Expression) -> None:
        """Put the hidden texts back, and mark each sum of intervals that is one Spark
        literal (`_MULTI_UNIT`)."""
        for node in tree.walk():
            for name, value in list(node.args.items()):
                if not (isinstance(value, str) and value in self.texts):
                    continue
                node.set(name, self.texts[value])
                interval = node.parent
                if value in self.continued and isinstance(interval, exp.Interval):
                    if isinstance(interval.parent, exp.Add) and interval.parent.this is interval:
                        interval.parent.meta[_MULTI_UNIT] = True


def _verbatim_tree(source: str, dialect: str) -> exp.Expression:
    """`source` parsed with every function call kept as written (an anonymous function:
    name, case and arguments as written, where sqlglot would normalise `nvl` into COALESCE),
    EXTRACT's unit as written, and `INTERVAL 1 DAY 2 HOURS` - one literal to Spark - marked
    apart from a sum of two intervals.

    sqlglot's parser is left as it is: the tokens it reads hide from it what it would
    normalise. A function name becomes a name it does not know, EXTRACT's unit a name it
    cannot upper-case, and the first unit of a multi-unit interval is recognisable in the
    tree."""
    verbatim = _verbatim(dialect)
    tokens = verbatim.tokenize(source)
    hidden = _Hidden()
    functions = _normalised_functions(dialect)
    function_tokens = verbatim.parser_class.FUNC_TOKENS
    for index, token in enumerate(tokens):
        following = tokens[index + 1].token_type if index + 1 < len(tokens) else None
        if following == T.L_PAREN and token.token_type in function_tokens:
            if token.text.upper() in functions:
                hidden.hide(token, token.text)
            elif token.text.upper() == "EXTRACT" and index + 2 < len(tokens):
                hidden.hide(tokens[index + 2], tokens[index + 2].text)
        elif token.token_type == T.INTERVAL:
            unit = _continued_unit(tokens, index)
            if unit is not None:
                hidden.continued.add(hidden.hide(unit, unit.text.upper()))
    trees = verbatim.parser().parse(tokens, source)
    if not trees or trees[0] is None:
        raise ParseError(f"No expression was parsed from {source!r}")
    hidden.restore(trees[0])
    return trees[0]


_INTERVAL_VALUES = (T.NUMBER, T.STRING)


def _continued_unit(tokens: list[Token], index: int) -> Token | None:
    """The unit of the interval whose `INTERVAL` is at `index` when another value follows it
    (`INTERVAL 1 DAY 2 HOURS`, Spark's multi-unit literal, which sqlglot reads as a sum), and
    the unit is a plain name (which the parser takes as a unit whatever its text). Spark's
    values are literals, with a sign or without: any other is not looked at."""
    position = index + 1
    if _kind(tokens, position) in (T.PLUS, T.DASH):
        position += 1
    if _kind(tokens, position) not in _INTERVAL_VALUES or _kind(tokens, position + 1) != T.VAR:
        return None
    after = position + 2
    if _kind(tokens, after) == T.PLUS:
        after += 1
    return tokens[position + 1] if _kind(tokens, after) in _INTERVAL_VALUES else None


def _kind(tokens: list[Token], index: int) -> TokenType | None:
    return tokens[index].token_type if index < len(tokens) else None


class _Context(NamedTuple):
    source: str  # the text the verbatim tree was parsed from; literal positions index it
    types: Mapping[str, str]  # lower-cased column name -> lower-cased Spark type
    lambda_depth: int = 0


# --- the name of a select item ---------------------------------------------------------------

_GENERATOR_NAMES = {"explode": "col", "explode_outer": "col", "window": "window",
                    "session_window": "session_window"}
_MULTI_COLUMN = frozenset({"posexplode", "posexplode_outer", "inline", "inline_outer", "stack",
                           "json_tuple"})
# Functions that are casts: Spark prints only their argument.
_FUNCTION_CASTS = frozenset({"int", "bigint", "smallint", "tinyint", "double", "float",
                             "decimal", "string", "boolean", "date", "timestamp", "binary"})


def _top_name(node: exp.Expression, ctx: _Context) -> str:
    """Spark names a column reference (or a struct field) by its last part, a cast of a column
    by the column, a generator by its output, and everything else by its pretty SQL."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    if _is_cast(node, ctx) and _is_plain_column(_cast_operand(node), ctx):
        return _cast_operand(node).name
    name = node.name.lower() if isinstance(node, exp.Anonymous) else None
    if name in _GENERATOR_NAMES:
        return _GENERATOR_NAMES[name]
    if name in _MULTI_COLUMN:
        raise UnknownName(f"{name} produces several columns")
    return _sql(node, ctx)


def _is_cast(node: exp.Expression, ctx: _Context) -> bool:
    return (isinstance(node, exp.Cast) and _typed_literal(node, ctx) is None) or (
        isinstance(node, exp.Anonymous) and node.name.lower() in _FUNCTION_CASTS
        and len(node.expressions) == 1)


def _cast_operand(node: exp.Expression) -> exp.Expression:
    operand = node.this if isinstance(node, exp.Cast) else node.expressions[0]
    while isinstance(operand, exp.Paren):
        operand = operand.this
    return operand


def _is_plain_column(node: exp.Expression, ctx: _Context) -> bool:
    """A reference to an input column itself, not to a field inside one."""
    return isinstance(node, exp.Column) and len(_field_path(node, ctx)) == 1


def _field_path(column: exp.Column, ctx: _Context) -> list[str]:
    """The column and the struct fields under it: the parts from the first that names an
    input column (qualifiers before it are tables). Without types, only the last part."""
    parts = [part.name for part in column.parts]
    for index, part in enumerate(parts):
        if part.lower() in ctx.types:
            return parts[index:]
    return parts[-1:]


# --- pretty SQL, one rule per node class ------------------------------------------------------


def _sql(node: exp.Expression, ctx: _Context) -> str:
    for cls in type(node).__mro__:
        rule = _RULES.get(cls)
        if rule is not None:
            return rule(node, ctx)
    raise UnknownName(f"no Spark name for {type(node).__name__}: {node.sql()}")


def _args(nodes, ctx: _Context) -> list[str]:
    return [_sql(node, ctx) for node in nodes]


def _column(node: exp.Column, ctx: _Context) -> str:
    if isinstance(node.this, exp.Star):
        raise UnknownName("a star is not one column")
    return ".".join(_field_path(node, ctx))


def _identifier(node: exp.Identifier, ctx: _Context) -> str:
    """A bare identifier in an expression is a lambda variable; Spark prints them all alike."""
    if ctx.lambda_depth:
        return "namedlambdavariable()"
    return node.name


def _lambda(node: exp.Lambda, ctx: _Context) -> str:
    inner = ctx._replace(lambda_depth=ctx.lambda_depth + 1)
    variables = ["namedlambdavariable()"] * len(node.expressions)
    return f"lambdafunction({', '.join([_sql(node.this, inner), *variables])})"


def _literal(node: exp.Literal, ctx: _Context) -> str:
    if node.is_string:
        return node.this
    return _number(node.this, None)


def _number(digits: str, suffix: str | None) -> str:
    """A numeric literal as Spark prints its value. Unsuffixed, an exponent makes a double, a
    point a decimal (which keeps its scale), and the rest is an integer; `D`, `F` and `BD`
    make a double, a float and a decimal, `L`, `S` and `Y` integers."""
    if suffix == "D" or (suffix is None and "e" in digits.lower()):
        return java_double(float(digits))
    if suffix == "F":
        return _java_float(float(digits))
    if suffix == "BD" or (suffix is None and "." in digits):
        return _plain_decimal(Decimal(digits))
    return str(int(Decimal(digits)))


def _numeric(node: exp.Expression, ctx: _Context) -> tuple[str, str | None] | None:
    """The digits and suffix of a numeric literal, plain or suffixed (`1L`, which sqlglot
    reads as a cast)."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return node.this, None
    if isinstance(node, exp.Cast):
        suffix = _typed_literal(node, ctx)
        if suffix is not None and suffix not in _TYPED_LITERAL_WORDS:
            literal = node.this
            if "start" not in literal.meta:
                return literal.name, suffix
            written = ctx.source[literal.meta["start"]: literal.meta["end"] + 1]
            return _NUMBER_SUFFIX.fullmatch(written).group(1), suffix
    return None


def _plain_decimal(value: Decimal) -> str:
    text = format(abs(value) if value.is_zero() else value, "f")
    return text.rstrip(".") if text.endswith(".") else text


def java_double(value: float, digits: str | None = None) -> str:
    """Java's Double.toString, which Spark uses: plain between 1e-3 and 1e7, otherwise
    `d.dddE<n>`; always at least one digit after the point."""
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    sign = "-" if value < 0 else ""
    shortest = Decimal(digits or repr(abs(value)))
    if 1e-3 <= abs(value) < 1e7:
        text = format(shortest, "f")
        return sign + (text if "." in text else text + ".0")
    mantissa = shortest.as_tuple().digits
    exponent = len(mantissa) - 1 + shortest.as_tuple().exponent
    fraction = "".join(map(str, mantissa[1:])).rstrip("0") or "0"
    return f"{sign}{mantissa[0]}.{fraction}E{exponent}"


def _java_float(value: float) -> str:
    """Java's Float.toString: the shortest decimal that reads back as the same float."""
    single = _float32(value)
    texts = (f"{single:.{precision}g}" for precision in range(1, 10))  # 9 digits always do
    text = next(text for text in texts if _float32(float(text)) == single)
    return java_double(float(text), text.lstrip("-"))


def _float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _neg(node: exp.Neg, ctx: _Context) -> str:
    """Spark's parser folds the sign into a numeric literal; any other negation prints as an
    operator."""
    number = _numeric(node.this, ctx)
    if number is not None:
        digits, suffix = number
        return _number(digits[1:] if digits.startswith("-") else "-" + digits, suffix)
    return f"(- {_sql(node.this, ctx)})"


_OPERATORS = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.IntDiv: "div",
    exp.EQ: "=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.NullSafeEQ: "<=>",
    exp.And: "AND", exp.Or: "OR", exp.BitwiseAnd: "&", exp.BitwiseOr: "|",
    exp.BitwiseXor: "^", exp.BitwiseLeftShift: "<<", exp.BitwiseRightShift: ">>",
}


def _binary(node: exp.Binary, ctx: _Context) -> str:
    if type(node) not in _OPERATORS:
        raise UnknownName(f"no Spark name for {type(node).__name__}: {node.sql()}")
    return f"({_sql(node.this, ctx)} {_OPERATORS[type(node)]} {_sql(node.expression, ctx)})"


def _plus_minus(node: exp.Add | exp.Sub, ctx: _Context) -> str:
    """`+`/`-` depend on their operands' types: a date plus days is `date_add`, a timestamp
    plus an interval prints without parentheses, and the rest is arithmetic."""
    if node.meta.get(_MULTI_UNIT):
        return _interval(node, ctx)
    left, right = node.this, node.expression
    if _is_interval(right) and not _is_interval(left):
        if _is_date(left, ctx) and _interval_fields(right) == ("DAY", "DAY"):
            days = f"extractansiintervaldays({_sql(right, ctx)})"
            days = days if isinstance(node, exp.Add) else f"(- {days})"
            return f"date_add({_sql(left, ctx)}, {days})"
        return f"{_sql(left, ctx)} {_OPERATORS[type(node)]} {_sql(right, ctx)}"
    if _is_date(left, ctx) and not _is_date(right, ctx) and not _is_interval(right):
        function = "date_add" if isinstance(node, exp.Add) else "date_sub"
        return f"{function}({_sql(left, ctx)}, {_sql(right, ctx)})"
    return _binary(node, ctx)


def _not_equal(node: exp.Binary, ctx: _Context) -> str:
    operator = "=" if isinstance(node, exp.NEQ) else "<=>"
    return f"(NOT ({_sql(node.this, ctx)} {operator} {_sql(node.expression, ctx)}))"


def _not(node: exp.Not, ctx: _Context) -> str:
    if isinstance(node.this, exp.Is) and isinstance(node.this.expression, exp.Null):
        return f"({_sql(node.this.this, ctx)} IS NOT NULL)"
    return f"(NOT {_sql(node.this, ctx)})"


def _is(node: exp.Is, ctx: _Context) -> str:
    """`x IS NULL` stays; `x IS TRUE` / `IS FALSE` are null-safe equalities to Spark."""
    if isinstance(node.expression, exp.Null):
        return f"({_sql(node.this, ctx)} IS NULL)"
    return f"({_sql(node.this, ctx)} <=> {_sql(node.expression, ctx)})"


def _in(node: exp.In, ctx: _Context) -> str:
    if not node.expressions:
        raise UnknownName("IN with a subquery")
    return f"({_sql(node.this, ctx)} IN ({', '.join(_args(node.expressions, ctx))}))"


def _between(node: exp.Between, ctx: _Context) -> str:
    return f"between({', '.join(_args([node.this, node.args['low'], node.args['high']], ctx))})"


def _like(node: exp.Like, ctx: _Context) -> str:
    text = f"{_sql(node.this, ctx)} LIKE {_sql(node.expression, ctx)}"
    return f"(NOT {text})" if node.args.get("negate") else text


def _escape(node: exp.Escape, ctx: _Context) -> str:
    """The escape character is the one literal Spark prints quoted."""
    return f"{_sql(node.this, ctx)} ESCAPE '{node.expression.name}'"


def _function_operator(name: str) -> Callable[[exp.Expression, _Context], str]:
    def rule(node: exp.Expression, ctx: _Context) -> str:
        text = f"{name}({_sql(node.this, ctx)}, {_sql(node.expression, ctx)})"
        return f"(NOT {text})" if node.args.get("negate") else text

    return rule


def _case(node: exp.Case, ctx: _Context) -> str:
    """A simple CASE (`CASE x WHEN 1 ...`) prints as the searched CASE it means."""
    operand = node.this
    parts = ["CASE"]
    for branch in node.args.get("ifs") or []:
        condition = _sql(branch.this, ctx)
        if operand is not None:
            condition = f"({_sql(operand, ctx)} = {condition})"
        parts += ["WHEN", condition, "THEN", _sql(branch.args["true"], ctx)]
    if node.args.get("default") is not None:
        parts += ["ELSE", _sql(node.args["default"], ctx)]
    return " ".join([*parts, "END"])


def _if(node: exp.If, ctx: _Context) -> str:
    branches = [node.this, node.args.get("true"), node.args.get("false")]
    return f"(IF({', '.join(_args([part for part in branches if part is not None], ctx))}))"


# --- casts and typed literals -----------------------------------------------------------------

_TYPED_LITERAL_WORDS = ("DATE", "TIMESTAMP", "TIMESTAMP_NTZ")
_TYPED_LITERAL_WORD = re.compile(rf"\b({'|'.join(_TYPED_LITERAL_WORDS)})\s*$", re.IGNORECASE)
_NUMBER_SUFFIX = re.compile(r"(.*?)(BD|[LSYDF])", re.IGNORECASE)


def _typed_literal(node: exp.Cast, ctx: _Context) -> str | None:
    """The written keyword of `DATE '...'`-style literals and the suffix of `1L`-style
    ones, both of which sqlglot turns into casts: read back from the source. (A `BD` literal
    is the one cast of a string that sqlglot builds without a position.)"""
    literal = node.this
    if not isinstance(literal, exp.Literal):
        return None
    if "start" not in literal.meta:
        decimal = literal.is_string and node.to.this == exp.DataType.Type.DECIMAL
        return "BD" if decimal else None
    written = ctx.source[literal.meta["start"]: literal.meta["end"] + 1]
    if literal.is_string and written[:1] in "'\"":
        word = _TYPED_LITERAL_WORD.search(ctx.source[: literal.meta["start"]])
        return word.group(1).upper() if word else None
    suffix = _NUMBER_SUFFIX.fullmatch(written)
    return suffix.group(2).upper() if suffix else None


def _cast(node: exp.Cast, ctx: _Context) -> str:
    kind = _typed_literal(node, ctx)
    if kind is not None:
        return _typed_literal_text(kind, node, ctx)
    if node.to.is_type(*exp.DataType.NESTED_TYPES):
        return _sql(node.this, ctx)  # Spark prints a cast to a complex type as its operand
    function = "TRY_CAST" if isinstance(node, exp.TryCast) and node.args.get("safe") else "CAST"
    return f"{function}({_sql(node.this, ctx)} AS {_spark_type(node.to)})"


def _typed_literal_text(kind: str, node: exp.Cast, ctx: _Context) -> str:
    if kind == "DATE":
        return f"DATE '{_date_text(node.this.name)}'"
    if kind in _TYPED_LITERAL_WORDS:
        return f"{kind} '{_timestamp_text(node.this.name)}'"
    return _number(*_numeric(node, ctx))


_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})")
_TIME = re.compile(r"[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*")


def _date_text(text: str) -> str:
    match = _DATE.fullmatch(text.rstrip())
    if not match:
        raise UnknownName(f"date literal {text!r}")
    return "{:04d}-{:02d}-{:02d}".format(*map(int, match.groups()))


def _timestamp_text(text: str) -> str:
    """Spark prints a timestamp literal as `yyyy-MM-dd HH:mm:ss[.fraction]`."""
    date = _DATE.match(text)
    time = _TIME.fullmatch(text[date.end():]) if date else None
    if not date or (text[date.end():].strip() and not time):
        raise UnknownName(f"timestamp literal {text!r}")
    hour, minute, second, fraction = time.groups() if time else ("0", "0", None, None)
    clock = f"{int(hour):02d}:{int(minute):02d}:{int(second or 0):02d}"
    fraction = (fraction or "").rstrip("0")
    return f"{_date_text(date.group(0))} {clock}" + (f".{fraction}" if fraction else "")


_TYPE_NAMES = {
    exp.DataType.Type.INT: "INT", exp.DataType.Type.BIGINT: "BIGINT",
    exp.DataType.Type.SMALLINT: "SMALLINT", exp.DataType.Type.TINYINT: "TINYINT",
    exp.DataType.Type.FLOAT: "FLOAT", exp.DataType.Type.DOUBLE: "DOUBLE",
    exp.DataType.Type.BOOLEAN: "BOOLEAN", exp.DataType.Type.DATE: "DATE",
    exp.DataType.Type.TIMESTAMP: "TIMESTAMP", exp.DataType.Type.TIMESTAMPTZ: "TIMESTAMP",
    exp.DataType.Type.TIMESTAMPLTZ: "TIMESTAMP",
    exp.DataType.Type.TIMESTAMPNTZ: "TIMESTAMP_NTZ", exp.DataType.Type.BINARY: "BINARY",
    exp.DataType.Type.TEXT: "STRING", exp.DataType.Type.VARCHAR: "STRING",
    exp.DataType.Type.CHAR: "STRING",
}


def _spark_type(kind: exp.DataType) -> str:
    """Spark's SQL name for a cast's target type (char and varchar are strings to it)."""
    if kind.this == exp.DataType.Type.DECIMAL:
        params = [param.name for param in kind.expressions] or ["10", "0"]
        return f"DECIMAL({','.join(params + ['0'] * (2 - len(params)))})"
    if kind.this not in _TYPE_NAMES:
        raise UnknownName(f"cast to {kind.sql()}")
    return _TYPE_NAMES[kind.this]


# --- intervals --------------------------------------------------------------------------------

_UNITS = {  # unit -> (field Spark reports, microseconds or months in one unit)
    "YEAR": ("YEAR", 12), "MONTH": ("MONTH", 1),
    "WEEK": ("DAY", 7 * 86_400_000_000), "DAY": ("DAY", 86_400_000_000),
    "HOUR": ("HOUR", 3_600_000_000), "MINUTE": ("MINUTE", 60_000_000),
    "SECOND": ("SECOND", 1_000_000), "MILLISECOND": ("SECOND", 1_000),
    "MICROSECOND": ("SECOND", 1),
}
_FIELDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
# The shape of an `INTERVAL '...' <from> TO <to>` string, one number per field.
_SPAN_SEPARATORS = re.compile(r"[-: ]")


def _is_interval(node: exp.Expression) -> bool:
    return isinstance(node, exp.Interval) or bool(node.meta.get(_MULTI_UNIT))


def _interval_parts(node: exp.Expression) -> list[exp.Interval]:
    if isinstance(node, exp.Interval):
        return [node]
    return _interval_parts(node.this) + _interval_parts(node.expression)


def _unit_name(unit: exp.Expression) -> str:
    name = unit.name.upper()
    name = name[:-1] if name.endswith("S") else name
    if name not in _UNITS:
        raise UnknownName(f"interval unit {unit.name}")
    return name


def _interval_fields(node: exp.Expression) -> tuple[str, str]:
    """The first and last field of the ANSI interval type Spark gives the literal."""
    fields = []
    for part in _interval_parts(node):
        unit = part.args.get("unit")
        if unit is None:
            raise UnknownName(f"interval without a unit: {part.sql()}")
        units = [unit.this, unit.expression] if isinstance(unit, exp.IntervalSpan) else [unit]
        fields += [_UNITS[_unit_name(one)][0] for one in units]
    fields.sort(key=_FIELDS.index)
    if fields[0] in ("YEAR", "MONTH") and fields[-1] not in ("YEAR", "MONTH"):
        raise UnknownName("an interval mixing months and days")
    return fields[0], fields[-1]


def _interval(node: exp.Expression, ctx: _Context) -> str:
    """Spark prints an interval literal in ANSI form, normalised: `INTERVAL 2 HOURS` is
    `INTERVAL '02' HOUR`, `INTERVAL 1 DAY 30 MINUTES` is `INTERVAL '1 00:30' DAY TO MINUTE`."""
    first, last = _interval_fields(node)
    amount = sum(_interval_amount(part) for part in _interval_parts(node))
    if first in ("YEAR", "MONTH"):
        text = _year_month_text(amount, first, last)
    else:
        text = _day_time_text(amount, first, last)
    fields = first if first == last else f"{first} TO {last}"
    return f"INTERVAL '{text}' {fields}"


def _interval_amount(part: exp.Interval) -> int:
    """Months for a year-month interval, microseconds for a day-time one."""
    unit = part.args["unit"]
    text = part.this.name.strip()
    if not isinstance(unit, exp.IntervalSpan):
        return int(Decimal(text) * _UNITS[_unit_name(unit)][1])
    first, last = _unit_name(unit.this), _unit_name(unit.expression)
    sign = -1 if text.startswith("-") else 1
    numbers = _SPAN_SEPARATORS.split(text.lstrip("+-"))
    fields = _FIELDS[_FIELDS.index(first): _FIELDS.index(last) + 1]
    if len(numbers) != len(fields):
        raise UnknownName(f"interval string {text!r} for {first} TO {last}")
    return sign * sum(int(Decimal(number) * _UNITS[field][1])
                      for number, field in zip(numbers, fields))


def _year_month_text(months: int, first: str, last: str) -> str:
    sign, months = ("-" if months < 0 else ""), abs(months)
    if first == last:
        return f"{sign}{months // 12 if first == 'YEAR' else months}"
    return f"{sign}{months // 12}-{months % 12}"


def _day_time_text(micros: int, first: str, last: str) -> str:
    """Spark's IntervalUtils.toDayTimeIntervalString: the first field unpadded for days and
    two digits for the others, then each later field padded to two digits."""
    sign, rest = ("-" if micros < 0 else ""), abs(micros)
    text = ""
    for field in _FIELDS[_FIELDS.index(first): _FIELDS.index(last) + 1]:
        size = _UNITS[field][1]
        separator = "" if field == first else (" " if field == "HOUR" else ":")
        if field == "SECOND":
            seconds = Decimal(rest) / size
            value = format(seconds.normalize(), "f") if seconds else "0"
            text += separator + ("0" if seconds < 10 else "") + value
        elif field == "DAY":
            text += str(rest // size)
        else:
            text += f"{separator}{rest // size:02d}"
        rest %= size
    return sign + text


# --- functions --------------------------------------------------------------------------------

# Names Spark prints in place of the written one (keyed by name, or by name and arity).
_SPARK_NAMES: dict[str | tuple[str, int], str] = {
    "random": "rand", "dateadd": "date_add", "array_agg": "collect_list",
    "current_database": "current_schema", "regexp": "RLIKE", "rlike": "RLIKE",
    "regexp_like": "REGEXP_LIKE", "rank": "RANK", "dense_rank": "DENSE_RANK",
    "percent_rank": "PERCENT_RANK", "spark_partition_id": "SPARK_PARTITION_ID",
    ("ceil", 1): "CEIL", ("floor", 1): "FLOOR", "power": "POWER", "log": "LOG",
    **{name: name.upper() for name in (
        "sqrt", "exp", "log10", "log2", "log1p", "expm1", "signum", "e", "pi", "acos", "asin",
        "atan", "atan2", "cbrt", "cos", "cosh", "sin", "sinh", "tan", "tanh", "cot", "degrees",
        "radians", "hypot", "acosh", "asinh", "atanh", "sec", "csc")},
}
_TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"
_IDENTITY = "lambdafunction(namedlambdavariable(), namedlambdavariable())"
_NULLS_LAST_COMPARATOR = (  # array_sort's default: ascending, nulls last
    "lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0,"
    " (IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1,"
    " (IF((namedlambdavariable() < namedlambdavariable()), -1,"
    " (IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))),"
    " namedlambdavariable(), namedlambdavariable())"
)
# Arguments Spark fills in: name -> (how many are required, the defaults of the others).
_DEFAULTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "round": (1, ("0",)), "bround": (1, ("0",)),
    "lag": (1, ("1", "NULL")), "lead": (1, ("1", "NULL")),
    "regexp_replace": (3, ("1",)), "regexp_extract": (2, ("1",)),
    "regexp_extract_all": (2, ("1",)), "split": (2, ("-1",)),
    "percentile_approx": (2, ("10000",)), "approx_percentile": (2, ("10000",)),
    "percentile": (2, ("1",)), "months_between": (2, ("true",)),
    "substring": (2, ("2147483647",)), "substr": (2, ("2147483647",)), "locate": (2, ("1",)),
    "lpad": (2, (" ",)), "rpad": (2, (" ",)), "sort_array": (1, ("true",)),
    "from_unixtime": (1, (_TIMESTAMP_FORMAT,)), "to_unix_timestamp": (1, (_TIMESTAMP_FORMAT,)),
    "unix_timestamp": (0, ("current_timestamp()", _TIMESTAMP_FORMAT)),
    "aggregate": (3, (_IDENTITY,)), "reduce": (3, (_IDENTITY,)),
    "array_sort": (1, (_NULLS_LAST_COMPARATOR,)),
}
# Spark keeps only the first argument (`first(x, true)` is `first(x)`).
_FIRST_ARGUMENT_ONLY = frozenset({"first", "last", "first_value", "last_value", "any_value",
                                  "from_json"})
_TRIM_SIDES = {"trim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}


def _special_form(name: str, args: list[str]) -> str | None:
    """Calls that Spark prints as something other than `name(args)`."""
    if name in ("isnull", "isnotnull") and len(args) == 1:
        return f"({args[0]} IS {'NOT ' if name == 'isnotnull' else ''}NULL)"
    if name == "if":
        return f"(IF({', '.join(args)}))"
    if name == "like" and len(args) == 2:
        return f"{args[0]} LIKE {args[1]}"
    if name in _TRIM_SIDES and len(args) == 2:
        return f"TRIM({_TRIM_SIDES[name]} {args[0]} FROM {args[1]})"
    if name == "log" and len(args) == 1:
        return f"LOG(E(), {args[0]})"
    return None


def _function(node: exp.Anonymous, ctx: _Context) -> str:
    written = node.name.lower()
    if written in _FUNCTION_CASTS and len(node.expressions) == 1:
        return _sql(node.expressions[0], ctx)
    return _call(written, list(node.expressions), ctx)


def _call(written: str, arguments: list[exp.Expression], ctx: _Context) -> str:
    if written in _FIRST_ARGUMENT_ONLY:
        arguments = arguments[:1]
    if written == "count" and len(arguments) == 1 and isinstance(arguments[0], exp.Star):
        args = ["1"]
    else:
        args = _args(arguments, ctx)
    required, defaults = _DEFAULTS.get(written, (len(args), ()))
    args += defaults[max(len(args) - required, 0):]
    special = _special_form(written, args)
    if special is not None:
        return special
    name = _SPARK_NAMES.get((written, len(args))) or _SPARK_NAMES.get(written, written)
    return f"{name}({', '.join(args)})"


def _distinct(node: exp.Distinct, ctx: _Context) -> str:
    return "DISTINCT " + ", ".join(_args(node.expressions, ctx))


def _ignore_nulls(node: exp.IgnoreNulls, ctx: _Context) -> str:
    """IGNORE NULLS turns `first_value`/`last_value` into `first`/`last`, is printed after
    `nth_value`, and is not printed at all for the others."""
    function = node.this
    written = function.name.lower() if isinstance(function, exp.Anonymous) else ""
    renamed = {"first_value": "first", "last_value": "last"}.get(written)
    if renamed:
        return _call(renamed, list(function.expressions), ctx)
    text = _sql(function, ctx)
    return text + " ignore nulls" if written == "nth_value" else text


def _filter(node: exp.Filter, ctx: _Context) -> str:
    return f"{_sql(node.this, ctx)} FILTER (WHERE {_sql(node.expression.this, ctx)})"


def _trim(node: exp.Trim, ctx: _Context) -> str:
    """`TRIM([side] [chars] FROM x)`: with characters Spark keeps the syntax, without them it
    is `trim`, `ltrim` or `rtrim`."""
    side = (node.args.get("position") or "BOTH").upper()
    if node.expression is None:
        name = {"BOTH": "trim", "LEADING": "ltrim", "TRAILING": "rtrim"}[side]
        return f"{name}({_sql(node.this, ctx)})"
    return f"TRIM({side} {_sql(node.expression, ctx)} FROM {_sql(node.this, ctx)})"


def _substring(node: exp.Substring, ctx: _Context) -> str:
    arguments = [node.this, node.args.get("start"), node.args.get("length")]
    return _call("substring", [arg for arg in arguments if arg is not None], ctx)


def _position(node: exp.StrPosition, ctx: _Context) -> str:
    return _call("locate", [node.args["substr"], node.this], ctx)


def _extract(node: exp.Extract, ctx: _Context) -> str:
    return f"extract({node.this.name} FROM {_sql(node.expression, ctx)})"


_NO_PAREN_FUNCTIONS = {exp.CurrentDate: "current_date", exp.CurrentTimestamp: "current_timestamp",
                       exp.CurrentUser: "current_user"}


def _no_paren_function(node: exp.Func, ctx: _Context) -> str:
    """`current_date` and friends, written without parentheses."""
    return f"{_NO_PAREN_FUNCTIONS[type(node)]}()"


def _any(node: exp.Any, ctx: _Context) -> str:
    inner = node.this.this if isinstance(node.this, exp.Paren) else node.this
    return f"any({_sql(inner, ctx)})"


def _transform(node: exp.Transform, ctx: _Context) -> str:
    return f"transform({_sql(node.this, ctx)}, {_sql(node.expression, ctx)})"


def _alias(node: exp.Alias, ctx: _Context) -> str:
    """An alias inside `struct(...)`."""
    return f"{_sql(node.this, ctx)} AS {node.alias}"


def _dot(node: exp.Dot, ctx: _Context) -> str:
    return f"{_sql(node.this, ctx)}.{node.name}"


def _bracket(node: exp.Bracket, ctx: _Context) -> str:
    """A string subscript of a struct is a field access to Spark (`s['x']` is `s.x`)."""
    base, (key,) = node.this, node.expressions
    if isinstance(base, exp.Column) and isinstance(key, exp.Literal) and key.is_string:
        column_type = ctx.types.get(_field_path(base, ctx)[0].lower(), "")
        if column_type.startswith("struct"):
            return f"{_sql(base, ctx)}.{key.this}"
    return f"{_sql(base, ctx)}[{_sql(key, ctx)}]"


# --- windows ----------------------------------------------------------------------------------

# Window functions whose frame Spark fixes, whatever the query says.
_ROW_FRAME_FUNCTIONS = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "ntile"})
_RANGE_TO_CURRENT = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"


def _window(node: exp.Window, ctx: _Context) -> str:
    """`f(...) OVER (PARTITION BY ... ORDER BY ... <frame>)`, every sort key with its
    direction and null placement and the frame always spelled out."""
    if node.args.get("alias") is not None:
        raise UnknownName("a named window")
    spec = []
    partition = node.args.get("partition_by") or []
    if partition:
        spec.append("PARTITION BY " + ", ".join(_args(partition, ctx)))
    order = node.args.get("order")
    if order is not None:
        spec.append("ORDER BY " + ", ".join(_sort_key(key, ctx) for key in order.expressions))
    spec.append(_frame(node, ctx))
    return f"{_sql(node.this, ctx)} OVER ({' '.join(spec)})"


def _sort_key(node: exp.Ordered, ctx: _Context) -> str:
    direction = "DESC" if node.args.get("desc") else "ASC"
    nulls = "FIRST" if node.args.get("nulls_first") else "LAST"
    return f"{_sql(node.this, ctx)} {direction} NULLS {nulls}"


def _window_function(node: exp.Expression) -> exp.Expression:
    while isinstance(node, (exp.IgnoreNulls, exp.RespectNulls, exp.Filter)):
        node = node.this
    return node


def _frame(node: exp.Window, ctx: _Context) -> str:
    """The frame Spark resolves: fixed for ranking and offset functions, else the written one,
    else the whole partition without ORDER BY and up to the current row (RANGE) with it."""
    function = _window_function(node.this)
    written = function.name.lower() if isinstance(function, exp.Anonymous) else ""
    if written in _ROW_FRAME_FUNCTIONS:
        return "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    if written in ("lag", "lead"):
        offset = _sql(function.expressions[1], ctx) if len(function.expressions) > 1 else "1"
        if written == "lag":
            offset = offset[1:] if offset.startswith("-") else "-" + offset
        return f"ROWS BETWEEN {offset} FOLLOWING AND {offset} FOLLOWING"
    spec = node.args.get("spec")
    if spec is not None:
        start = _frame_bound(spec.args.get("start"), spec.args.get("start_side"), ctx)
        end = _frame_bound(spec.args.get("end") or "CURRENT ROW", spec.args.get("end_side"), ctx)
        return f"{spec.args['kind'].upper()} BETWEEN {start} AND {end}"
    if node.args.get("order") is not None:
        return _RANGE_TO_CURRENT
    return "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"


def _frame_bound(value: str | exp.Expression, side: str | None, ctx: _Context) -> str:
    if isinstance(value, str):
        return f"{value.upper()} {side.upper()}" if side else value.upper()
    return f"{_sql(value, ctx)} {side.upper()}"


_RULES: dict[type, Callable[[exp.Expression, _Context], str]] = {
    exp.Column: _column, exp.Identifier: _identifier, exp.Lambda: _lambda,
    exp.Literal: _literal, exp.Neg: _neg, exp.Paren: lambda node, ctx: _sql(node.this, ctx),
    exp.Boolean: lambda node, ctx: "true" if node.this else "false",
    exp.Null: lambda node, ctx: "NULL",
    exp.HexString: lambda node, ctx: f"X'{node.this.upper()}'",
    exp.Binary: _binary, exp.Add: _plus_minus, exp.Sub: _plus_minus,
    exp.NEQ: _not_equal, exp.NullSafeNEQ: _not_equal, exp.Not: _not, exp.Is: _is,
    exp.BitwiseNot: lambda node, ctx: f"~{_sql(node.this, ctx)}",
    exp.DPipe: lambda node, ctx: f"concat({_sql(node.this, ctx)}, {_sql(node.expression, ctx)})",
    exp.In: _in, exp.Between: _between, exp.Like: _like, exp.Escape: _escape,
    exp.ILike: _function_operator("ilike"), exp.RegexpLike: _function_operator("RLIKE"),
    exp.Case: _case, exp.If: _if, exp.Cast: _cast, exp.Interval: _interval,
    exp.Anonymous: _function, exp.Distinct: _distinct, exp.IgnoreNulls: _ignore_nulls,
    exp.RespectNulls: lambda node, ctx: _sql(node.this, ctx), exp.Filter: _filter,
    exp.Trim: _trim, exp.Substring: _substring, exp.StrPosition: _position,
    exp.Extract: _extract, exp.CurrentDate: _no_paren_function,
    exp.CurrentTimestamp: _no_paren_function, exp.CurrentUser: _no_paren_function,
    exp.Any: _any, exp.Transform: _transform, exp.Alias: _alias, exp.Dot: _dot,
    exp.Bracket: _bracket, exp.Window: _window,
}


# --- types ------------------------------------------------------------------------------------

_DATE_FUNCTIONS = frozenset({"to_date", "date", "current_date", "date_add", "date_sub",
                             "dateadd", "add_months", "last_day", "next_day", "make_date",
                             "trunc", "date_from_unix_date"})


def _is_date(node: exp.Expression, ctx: _Context) -> bool:
    """Whether Spark types `node` as DATE - which changes how `+` and `-` print."""
    if isinstance(node, exp.Paren):
        return _is_date(node.this, ctx)
    if isinstance(node, exp.Column):
        return ctx.types.get(".".join(_field_path(node, ctx)).lower()) == "date"
    if isinstance(node, exp.Cast):
        kind = _typed_literal(node, ctx)
        return kind == "DATE" or (kind is None and node.to.this == exp.DataType.Type.DATE)
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in _DATE_FUNCTIONS
    return isinstance(node, exp.CurrentDate) or (
        isinstance(node, (exp.Add, exp.Sub)) and _is_date(node.this, ctx)
        and not _is_date(node.expression, ctx) and not _is_interval(node.expression))
