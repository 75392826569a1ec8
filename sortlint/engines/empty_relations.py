"""Spark's empty relations: the parts of a plan its optimizer replaces with no rows at all.

A filter that can never hold is folded to `false` before anything runs, and the part of the
plan that can only return its rows goes with it - sorts, exchanges, aggregates and windows
included (`PropagateEmptyRelation`). A fix there changes nothing Spark runs. Measured on
Spark 4.3 (`tests/engines/test_empty_relations.py`):

* **Folding a filter.** In each conjunction, a `column = literal` (or `<=>`) puts the literal
  in place of the column in every comparison of the same conjunction, however deep
  (`ConstantPropagation`): `k = 0 AND k > 3`, `i = 1 AND (i = 2 OR i = 3)` and
  `s = 'a' AND NOT (s = 'a')` fold to false; comparisons of literals fold to their value, a
  comparison with NULL to NULL (`ConstantFolding`, `NullPropagation`); `false AND e` is
  false (`BooleanSimplification`), and a filter of false or NULL is an empty relation
  (`PruneFilters`). The column must be compared as its own type: `s = 1` on a string casts
  the column and propagates nothing. `IS NULL`, `IN` and `LIKE` receive no constant.
* **What an empty input empties**: a projection, filter, sort, limit, repartition, window,
  DISTINCT and grouped aggregate over it; a LIMIT 0; an inner, cross or semi join with an
  empty side; an anti or outer join whose preserved side is empty; a set operation of empty
  inputs.
* **What it does not**: an aggregate without GROUP BY (one row), a union with one empty
  input, an outer join with an empty other side, a write. Spark then reshapes the operator
  above (a union of one input is that input; a left join with an empty right side is a
  projection of nulls): its effects are not modelled.

Where sortlint cannot tell what Spark folds a condition to - a column compared as another
type (Spark may unwrap the cast and fold the comparison: `i = 0.5` on an int is false), a
function of a constant (`abs(i) > 3` with `i = 1`), a conjunction under NOT, a literal it
does not read, a comparison reading a constant column of unknown type - the answer is "not
known" (None). One assumption: a column of unknown type compared with a literal is a
condition on the rows - Spark folds such a comparison alone only where the literal is no
value of the column's type (`i = 0.5`, `tinyint_col < 1000`), which is checked where the
type is known, and a query comparing so is broken anyway.
"""

from __future__ import annotations

import datetime
import operator
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Any

from sqlglot import exp

from sortlint.engines.analysis import Analysis
from sortlint.engines.comparisons import Side
from sortlint.ordering import Expr, Properties
from sortlint.ordering.types import SqlType, exact_cast, sql_type
from sortlint.plan import nodes as n


class Truth(Enum):
    """What Spark's optimizer folds a condition to: a value, DATA (it stays a condition on
    the rows) or UNSURE (sortlint cannot tell)."""

    TRUE = "true"
    FALSE = "false"
    NULL = "null"
    DATA = "data"
    UNSURE = "unsure"


def empty(node: n.Node, analysis: Analysis) -> bool | None:
    """Whether Spark plans the node's output as an empty relation (None: it may)."""
    memo = analysis.empty_rows
    if id(node) not in memo:
        for each in reversed(list(n.walk(node))):  # children before parents
            if id(each) not in memo:
                memo[id(each)] = _empty(each, [memo[id(child)] for child in each.children], analysis)
    found: bool | None = memo[id(node)]
    return found


def _empty(node: n.Node, children: list[bool | None], analysis: Analysis) -> bool | None:
    rows = children[0] if children else False
    if isinstance(node, (n.Scan, n.Values)):
        return False
    if isinstance(node, n.Filter):
        folded = condition(node.conjuncts, analysis.of(node.children[0]), analysis)
        if folded in (Truth.FALSE, Truth.NULL) or rows:
            return True
        return None if folded is Truth.UNSURE or rows is None else False
    if isinstance(node, n.Limit):
        return True if node.limit == 0 else rows
    if isinstance(node, (n.Project, n.Alias, n.Sort, n.Window, n.Distinct, n.Repartition)):
        return rows
    if isinstance(node, n.Aggregate):
        if not node.keys:
            return False if rows is not None else None  # one row, empty input or not
        return rows if not node.grouping_sets or rows is False else None
    if isinstance(node, n.Join):
        return _empty_join(node, children, analysis)
    if isinstance(node, n.SetOp):
        if node.kind == "intersect" and True in children:
            return True
        if node.kind == "except" and children[0]:
            return True
        if all(children):
            return True
        return False if all(child is False for child in children) else None
    return False if all(child is False for child in children) else None


def _empty_join(node: n.Join, children: list[bool | None], analysis: Analysis) -> bool | None:
    left, right = children[0], children[1]
    # its equalities compare a column of each side: conditions on the rows, folding to nothing
    folded = condition(node.residual, analysis.of(node), analysis) if node.residual else Truth.DATA
    preserved = {"inner": (left, right), "cross": (left, right), "semi": (left, right),
                 "anti": (left,), "left": (left,), "right": (right,), "full": (left and right,)}
    if any(preserved[node.kind]) or (folded in (Truth.FALSE, Truth.NULL) and node.kind in ("inner", "cross", "semi")):
        return True
    if left is False and right is False and folded in (Truth.TRUE, Truth.DATA):
        return False
    return None  # an empty side Spark reshapes the join around, or a condition not known


def pruned(node: n.Node, analysis: Analysis) -> bool | None:
    """Whether Spark removes the node with an empty relation around it: True where it or
    what reads it is empty; None where the plan has a part Spark may find empty, or does
    and reshapes what reads it (the model's plan is then not Spark's); False otherwise."""
    above: n.Node | None = node
    while above is not None:
        if empty(above, analysis):
            return True
        above = analysis.parent(above)
    root = node
    while (parent := analysis.parent(root)) is not None:
        root = parent
    for each in n.walk(root):
        if empty(each, analysis) is not False:
            return None
    return False


# --- folding a condition ------------------------------------------------------------------

# A column's constant: the literal, with the column's type (None: not known); None where Spark
# may or may not propagate it.
Constants = dict[Expr, "tuple[exp.Expression, SqlType | None] | None"]


def condition(conjuncts: tuple[Expr, ...], props: Properties | None, analysis: Analysis) -> Truth:
    """What Spark folds the conjunction of `conjuncts` to, in a filter over rows of `props`
    (None: rows whose types are not known)."""
    nodes = [c.node for c in conjuncts]
    if not _may_fold(nodes):
        return Truth.DATA
    return _Folding(props, analysis).conjunction(nodes, {}, negated=False)


def _may_fold(conjuncts: list[exp.Expression]) -> bool:
    """A cheap look at the condition, before its types are read: whether it may fold at all -
    a literal TRUE, FALSE or NULL, a condition or comparison of no column, a column made constant by an
    equality and read again, or a column compared with a literal its type may not hold (a
    decimal, a float, a cast, a number beyond a small integer's range: `i = 0.5`)."""
    constant = {
        (side.table, side.name) for c in conjuncts for part in c.find_all(exp.EQ, exp.NullSafeEQ)
        for side, other in ((_bare(part.this), part.expression), (_bare(part.expression), part.this))
        if isinstance(side, exp.Column) and _is_value(other)
    }
    read: set[tuple[str, str]] = set()
    for conjunct in conjuncts:
        for node in conjunct.walk():
            if isinstance(node, (exp.Boolean, exp.Null)):
                return True
            # a condition of no column (`array_contains(array(1), 2)`): folded to a value
            if node is conjunct and not _on_rows(conjunct):
                return True
            if isinstance(node, (exp.And, exp.Or, exp.Not)) and not all(map(_on_rows, node.iter_expressions())):
                return True
            if isinstance(node, exp.Column) and (node.table, node.name) in constant:
                if (node.table, node.name) in read:
                    return True
                read.add((node.table, node.name))
            if isinstance(node, (*_COMPARISONS, exp.Between)):
                sides = [_bare(side) for side in node.iter_expressions()]
                if not any(_on_rows(side) for side in sides):
                    return True
                if any(isinstance(side, exp.Column) for side in sides) and any(
                        _is_value(side) and _unusual(side) for side in sides):
                    return True
    return False


def _unusual(literal: exp.Expression) -> bool:
    """A literal some column types cannot hold: not a string nor an integer up to 127."""
    literal = _bare(literal)
    if isinstance(literal, exp.Neg):
        literal = _bare(literal.this)
    if not isinstance(literal, exp.Literal):
        return True
    return not literal.is_string and not (literal.this.isdigit() and int(literal.this) < 128)


class _Folding:
    def __init__(self, props: Properties | None, analysis: Analysis) -> None:
        self.props = props
        self.comparison = analysis.semantics.comparison

    def type_of(self, node: exp.Expression) -> SqlType | None:
        return sql_type(self.props.type_of(Expr.of(node))) if self.props is not None else None

    def conjunction(self, parts: list[exp.Expression], outer: Constants, negated: bool) -> Truth:
        """`parts` ANDed, each comparison reading the constants their equalities make (and
        `outer`'s). An equality that makes a constant is kept as it is (a condition on the
        rows); a second one on the same column compares the two literals."""
        flat = [c for part in parts for c in _conjuncts(part)]
        constants = dict(outer)
        making = []
        for part in flat:
            found = self.constant(part)
            if found is None or found[0] in constants:
                continue
            column, value = found
            # Under NOT Spark propagates only a column that is never null (not known here).
            constants[column] = None if negated else value
            if value is not None:  # else it may fold itself (`i = 0.5` on an int)
                making.append(part)
        return _and([Truth.DATA if any(part is m for m in making) else self.truth(part, constants, negated)
                     for part in flat])

    def constant(self, node: exp.Expression) -> tuple[Expr, tuple[exp.Expression, SqlType | None] | None] | None:
        """The column an equality with a literal makes constant, and the literal with the
        column's type (None: Spark may or may not propagate it)."""
        if not isinstance(node, (exp.EQ, exp.NullSafeEQ)):
            return None
        for column, literal in ((node.this, node.expression), (node.expression, node.this)):
            column, literal = _bare(column), _bare(literal)
            if isinstance(column, exp.Column) and _is_value(literal) and not isinstance(_bare(literal), exp.Null):
                column_type = self.type_of(column)
                if column_type is None:
                    return Expr.of(column), (literal, None)
                if not self.casts(column, literal):
                    return Expr.of(column), (literal, column_type)
                if not _unwraps(column_type):
                    return None  # a string cast to the literal's type: no constant
                # Spark takes the cast off where the literal is a value of the column's type
                exact = self.value_as(literal, column_type) is not _UNREAD
                return Expr.of(column), (literal, column_type) if exact else None
        return None

    def value_as(self, literal: exp.Expression, target: SqlType) -> object:
        """The literal's value (read as its own type) as one of `target`, where exact."""
        own = self.type_of(literal)
        if own is None or own.family == "string":  # a string Spark casts to the target
            return _value(literal, target)
        value = _value(literal, own)
        return _UNREAD if value is _UNREAD or value is None else _converted(value, target)

    def casts(self, column: exp.Expression, literal: exp.Expression) -> bool:
        """Whether comparing the column with the literal casts the column."""
        column_type = self.type_of(column)
        types = self.comparison(Side(Expr.of(column), column_type),
                                Side(Expr.of(literal), self.type_of(literal), True))
        return types is None or types[0] != column_type

    def truth(self, node: exp.Expression, constants: Constants, negated: bool) -> Truth:
        """What Spark folds the condition to. Outside NOT, NULL is false in a filter
        (`ReplaceNullWithFalseInPredicate`)."""
        found = self._truth(_bare(node), constants, negated)
        return Truth.FALSE if found is Truth.NULL and not negated else found

    def _truth(self, node: exp.Expression, constants: Constants, negated: bool) -> Truth:
        if isinstance(node, exp.And):
            return self.conjunction([node], constants, negated)
        if isinstance(node, exp.Or):
            return _or([self.truth(side, constants, negated) for side in (node.this, node.expression)])
        if isinstance(node, exp.Not):
            return _not(self.truth(node.this, constants, True))
        if isinstance(node, exp.Boolean):
            return Truth.TRUE if node.this else Truth.FALSE
        if isinstance(node, exp.Null):
            return Truth.NULL
        if isinstance(node, exp.Between):  # Spark reads it as `e >= low AND e <= high`
            low = exp.GTE(this=node.this.copy(), expression=node.args["low"].copy())
            high = exp.LTE(this=node.this.copy(), expression=node.args["high"].copy())
            return _and([self.truth(low, constants, negated), self.truth(high, constants, negated)])
        if isinstance(node, _COMPARISONS):
            return self.compared(node, constants)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null) and _is_value(node.this):
            return Truth.TRUE if isinstance(_bare(node.this), exp.Null) else Truth.FALSE
        # Any other condition: a comparison inside it receives the constants, then folds.
        if any(_reads(c, constants) for c in node.find_all(exp.Binary) if isinstance(c, _COMPARISONS)):
            return Truth.UNSURE
        return Truth.DATA if _on_rows(node) else Truth.UNSURE

    def compared(self, node: exp.Expression, constants: Constants) -> Truth:
        """A comparison, its columns' constants in place."""
        sides: list[tuple[exp.Expression, SqlType | None, exp.Expression]] = []  # value, type, as written
        for side in (_bare(node.this), _bare(node.expression)):
            if isinstance(side, exp.Column) and Expr.of(side) in constants:
                found = constants[Expr.of(side)]
                if found is None:
                    return Truth.UNSURE
                sides.append((found[0], found[1], side))
            elif _reads(side, constants):
                return Truth.UNSURE  # a function of a constant: folded, to a value not computed here
            else:
                sides.append((side, self.type_of(side) if _is_value(side) else None, side))
        values = [value for value, _, _ in sides]
        if any(isinstance(_bare(value), exp.Null) for value in values) and not isinstance(node, exp.NullSafeEQ):
            return Truth.NULL  # NullPropagation, whatever the other side
        if any(_on_rows(value) for value in values):
            return self._on_rows(node, sides[0][2], sides[1][2])
        if not all(_is_value(value) for value in values):
            return Truth.UNSURE  # a function of literals: folded, to a value not computed here
        (left, left_type, written_left), (right, right_type, written_right) = sides
        if _bare(left).sql() == _bare(right).sql():  # the same literal, whatever its type
            return Truth.TRUE if isinstance(node, (exp.EQ, exp.NullSafeEQ, exp.GTE, exp.LTE)) else Truth.FALSE
        types = self.comparison(Side(Expr.of(written_left), left_type, True),
                                Side(Expr.of(written_right), right_type, True))
        if types is None or types[0] != types[1]:
            return Truth.UNSURE
        a, b = (_converted(self.value_as(value, value_type), types[0]) if value_type is not None and written is not value
                else _value(value, types[0]) for value, value_type, written in sides)
        if a is _UNREAD or b is _UNREAD:
            return Truth.UNSURE
        return _comparing(node, a, b)

    def _on_rows(self, node: exp.Expression, left: exp.Expression, right: exp.Expression) -> Truth:
        """A comparison that reads the rows: it stays one, unless Spark takes the cast off a
        column compared with a literal and finds no value of the column's type can hold it
        (`UnwrapCastInBinaryComparison`: `i = 0.5` on an int is false)."""
        for column, literal in ((left, right), (right, left)):
            if not (isinstance(column, exp.Column) and not _on_rows(literal) and self.casts(column, literal)):
                continue
            column_type = self.type_of(column)
            if column_type is None or not _unwraps(column_type):
                continue  # a type not known: taken as one the literal is a value of
            if not _is_value(literal) or self.value_as(literal, column_type) is _UNREAD and (
                    isinstance(node, (exp.EQ, exp.NullSafeEQ, exp.NEQ)) or not _within(literal, column_type)):
                return Truth.UNSURE
        return Truth.DATA


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
_UNREAD = object()  # a literal whose value sortlint does not compute
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        return [*_conjuncts(node.this), *_conjuncts(node.expression)]
    return [node]


def _bare(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_value(node: exp.Expression) -> bool:
    """A literal, NULL, or casts of one (`DATE '2024-01-02'`, `CAST(0.0 AS DOUBLE)`)."""
    node = _bare(node)
    while isinstance(node, exp.Cast):
        node = _bare(node.this)
    if isinstance(node, exp.Neg):
        node = _bare(node.this)
    return isinstance(node, (exp.Literal, exp.Null, exp.Boolean))


def _unwraps(column_type: SqlType | None) -> bool:
    """Whether Spark may take a cast off a column of this type to compare it with a literal
    (`UnwrapCastInBinaryComparison`: numbers, dates; never a string, which it casts)."""
    return column_type is None or column_type.family != "string"


def _reads(node: exp.Expression, constants: Constants) -> bool:
    """Whether the expression reads a constant column (not inside a subquery, whose plan is
    its own: Spark propagates no constant into it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, exp.Column) and Expr.of(current) in constants:
            return True
        if current is node or not isinstance(current, exp.Query):
            stack.extend(current.iter_expressions())
    return False


def _on_rows(node: exp.Expression) -> bool:
    """Whether the expression reads the rows (a column, an aggregate, a subquery): Spark cannot
    fold it to a value."""
    return any(True for _ in node.find_all(exp.Column, exp.AggFunc, exp.Window, exp.Query, exp.Star))


def _value(node: exp.Expression, target: SqlType) -> object:
    """The literal as a value of the type it is compared as (a Python number, string, date or
    bool; None: NULL); `_UNREAD` where its conversion is not computed here."""
    node = _bare(node)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Cast):
        inner_type = sql_type(node.to.sql(dialect="spark"))
        if inner_type is None or not exact_cast(inner_type, target):
            return _UNREAD
        inner = _value(node.this, inner_type)
        return inner if inner is _UNREAD or inner is None else _converted(inner, target)
    if isinstance(node, exp.Neg):
        inner = _value(node.this, target)
        return -inner if isinstance(inner, (int, float, Decimal)) and not isinstance(inner, bool) else _UNREAD
    if isinstance(node, exp.Boolean):
        return node.this if target.family == "boolean" else _UNREAD
    if not isinstance(node, exp.Literal):
        return _UNREAD
    text = node.this
    if target.family in ("integer", "decimal", "floating"):
        if not _NUMBER.fullmatch(text):
            return _UNREAD  # exponents, NaN, Spark's lenient string casts: not computed
        return _converted(Decimal(text), target)
    if target.family == "string":
        return text if node.is_string else _UNREAD
    if target.family == "date" and node.is_string and _DATE.fullmatch(text):
        try:
            return datetime.date.fromisoformat(text)
        except ValueError:
            return _UNREAD
    return _UNREAD


def _converted(value: object, target: SqlType) -> object:
    """A value as one of `target`, where that conversion is exact (or a double's)."""
    numeric = target.family in ("integer", "decimal", "floating")
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return _UNREAD if numeric else value
    if target.family == "floating":
        return float(value) if target.bits == 53 else _UNREAD
    if not numeric or isinstance(value, float) and not value.is_integer():
        return _UNREAD
    number = Decimal(value)
    if target.family == "integer":
        limit = 2 ** target.bits
        return int(number) if number == number.to_integral_value() and -limit <= number < limit else _UNREAD
    try:
        fits = number == number.quantize(Decimal(1).scaleb(-target.scale))
    except InvalidOperation:
        return _UNREAD
    return number if fits and abs(number) < Decimal(10) ** target.integer_digits else _UNREAD


def _within(literal: exp.Expression, column_type: SqlType) -> bool:
    """Whether a number lies within the range of an integer or decimal type (a comparison of
    a value beyond it Spark folds: `tinyint_col < 1000` is true where not null)."""
    number = _value(literal, SqlType("decimal", precision=38, scale=18))
    if not isinstance(number, Decimal):
        return False
    if column_type.family == "integer":
        return -(2 ** column_type.bits) <= number < 2 ** column_type.bits
    return column_type.family == "decimal" and abs(number) < Decimal(10) ** column_type.integer_digits


_HOLDS: dict[type[exp.Expression], Callable[[Any, Any], bool]] = {
    exp.EQ: operator.eq, exp.NEQ: operator.ne, exp.GT: operator.gt, exp.GTE: operator.ge,
    exp.LT: operator.lt, exp.LTE: operator.le,
}


def _comparing(node: exp.Expression, a: object, b: object) -> Truth:
    if isinstance(node, exp.NullSafeEQ):
        return Truth.TRUE if (a is None) == (b is None) and (a is None or a == b) else Truth.FALSE
    if a is None or b is None:
        return Truth.NULL
    try:
        held = _HOLDS[type(node)](a, b)
    except TypeError:  # values of two kinds the comparison's type does not make one
        return Truth.UNSURE
    return Truth.TRUE if held else Truth.FALSE


def _and(parts: list[Truth]) -> Truth:
    for truth in (Truth.FALSE, Truth.UNSURE, Truth.DATA, Truth.NULL):
        if truth in parts:
            return truth
    return Truth.TRUE


def _or(parts: list[Truth]) -> Truth:
    for truth in (Truth.TRUE, Truth.UNSURE, Truth.DATA, Truth.NULL):
        if truth in parts:
            return truth
    return Truth.FALSE


def _not(truth: Truth) -> Truth:
    return {Truth.TRUE: Truth.FALSE, Truth.FALSE: Truth.TRUE}.get(truth, truth)
