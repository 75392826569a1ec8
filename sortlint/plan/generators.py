"""Generators: calls that turn each row into zero or more rows - `explode`, `posexplode`,
`inline`, `stack`, `json_tuple` and their `_outer` forms - written as a `LATERAL VIEW`, as an
item of a select list, or as a table in FROM. Each becomes a `Generate` node over the rows it
is applied to, and the query reads the generated columns by name.

A generated column is a new column: nothing is known of it, even when the generator's
arguments are constants (`explode(array(3, 1, 2))` is three rows, 3, 1 and 2, in that order).
When a query does not name the generated columns, Spark does: `col` for the elements of an
array, `key` and `value` for a map, `pos` before them for `posexplode`, `col0`, `col1`, ...
for `stack`, `c0`, `c1`, ... for `json_tuple`. Where that depends on a type sortlint cannot
see (an array or a map column, the fields of `inline`'s structs), the names are not known.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sortlint.ordering import Expr
from sortlint.plan.aggregates import walk_outside_queries
from sortlint.plan.built import NotUnderstood
from sortlint.plan.nodes import Generate, Node, Span

# The generators sqlglot reads into classes of their own (`_outer` forms are subclasses).
CLASSES = (exp.Explode, exp.Posexplode, exp.Inline, exp.Stack)
# Those it reads as plain calls.
ANONYMOUS = frozenset({"inline_outer", "json_tuple", "variant_explode", "variant_explode_outer"})
ARRAYS = (exp.Array, exp.GenerateSeries, exp.RegexpSplit, exp.ArrayAgg, exp.Split)
MAPS = (exp.VarMap, exp.Map)


@dataclass(frozen=True)
class GeneratorCall:
    """A generator as written: the call, and the names the query reads its columns by."""

    call: exp.Expression
    names: tuple[str, ...]
    outer: bool


def is_generator(node: exp.Expression) -> bool:
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in ANONYMOUS
    return isinstance(node, CLASSES)


def contains_generator(node: exp.Expression) -> bool:
    """A generator call anywhere in `node`, outside nested queries."""
    return any(is_generator(n) for n in walk_outside_queries(node))


def alias_names(written: exp.Expression) -> tuple[str, ...]:
    """The names a select item gives its columns: `AS x`, `AS (p, x)`."""
    if isinstance(written, exp.Alias):
        return (written.alias,)
    if isinstance(written, exp.Aliases):
        return tuple(e.name for e in written.expressions)
    return ()


def generator_call(call: exp.Expression, names: tuple[str, ...] = (), outer: bool = False) -> GeneratorCall:
    """The generator `call` whose columns the query names `names` (Spark's names when none
    are given); NotUnderstood when neither is known. `outer`: written LATERAL VIEW OUTER."""
    names = names or spark_names(call) or ()
    if not names:
        raise NotUnderstood(f"the columns of {function_name(call)}(...), named by types not known")
    outer = outer or function_name(call).endswith("_outer")
    return GeneratorCall(call, tuple(n.lower() for n in names), outer)


def generate(input_node: Node, generator: GeneratorCall, resolved: exp.Expression, qualifier: str | None,
             span: Span | None) -> Generate:
    """The Generate node of a generator whose call, resolved against the input's scope, is
    `resolved`; its columns are read as `qualifier.name` (bare without a qualifier)."""
    columns = tuple(Expr.column(name, qualifier) for name in generator.names)
    return Generate(children=(input_node,), span=span, generator=Expr.of(resolved), columns=columns,
                    outer=generator.outer)


def function_name(call: exp.Expression) -> str:
    if isinstance(call, exp.Anonymous):
        return call.name.lower()
    return call.sql_name().lower()


def spark_names(call: exp.Expression) -> tuple[str, ...] | None:
    """The names Spark gives a generator's columns when the query gives none."""
    name = function_name(call)
    if isinstance(call, (exp.Explode, exp.Posexplode)):
        argument = call.this
        elements: tuple[str, ...] | None = None
        if isinstance(argument, ARRAYS):
            elements = ("col",)
        elif isinstance(argument, MAPS):
            elements = ("key", "value")
        if elements is None:
            return None
        return ("pos", *elements) if isinstance(call, exp.Posexplode) else elements
    if isinstance(call, exp.Stack):
        arguments = call.expressions if call.expressions else []
        count = call.this
        if isinstance(count, exp.Literal) and count.is_int and int(count.this) > 0:
            rows = int(count.this)
            width = -(-len(arguments) // rows)
            return tuple(f"col{i}" for i in range(width))
        return None
    if name == "json_tuple" and isinstance(call, exp.Anonymous):
        return tuple(f"c{i}" for i in range(len(call.expressions) - 1))
    return None
