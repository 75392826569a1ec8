"""Name resolution: which relation of a FROM scope a column reference reads.

Every column in the IR is qualified by the alias of the relation it comes from (`e.time`),
so that the same column written `time`, `e.time` or `E.TIME` is one key. What a relation's
columns are is known for catalog tables that declare them and for subqueries whose select
list is known; otherwise a relation may have any column. A reference is qualified only when
that is certain, or when exactly one relation could hold it; anything else stays as written,
where it matches no fact - which is safe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlglot import exp

from sortlint.ordering.expressions import column_node


@dataclass(frozen=True)
class Source:
    """A relation visible in a scope, under its qualifier."""

    alias: str  # lower case
    columns: tuple[str, ...] = ()  # known column names, lower case
    complete: bool = False  # `columns` is every column it has

    def has(self, name: str) -> bool:
        return name in self.columns

    def may_have(self, name: str) -> bool:
        return name in self.columns or not self.complete


@dataclass(frozen=True)
class Scope:
    """The relations of one FROM clause, and the scopes around it (for correlated references)."""

    sources: tuple[Source, ...] = ()
    outer: Scope | None = None
    # A USING / NATURAL join column referenced without qualifier: the qualifier Spark reads it
    # from (the left side of an inner or left join, the right side of a right join), or ""
    # when it is both sides coalesced (a full join) and so stays as written.
    merged: tuple[tuple[str, str], ...] = field(default=())
    # `qualifier`'s answers: a scope is asked about the same few names again and again.
    _qualifiers: dict[str, str | None] = field(default_factory=dict, init=False, compare=False, repr=False)

    def source(self, alias: str) -> Source | None:
        for source in self.sources:
            if source.alias == alias:
                return source
        return None

    def qualifier(self, name: str) -> str | None:
        """The alias an unqualified `name` reads from, or None when that is not certain."""
        if name not in self._qualifiers:
            self._qualifiers[name] = self._qualifier(name)
        return self._qualifiers[name]

    def _qualifier(self, name: str) -> str | None:
        for column, alias in self.merged:
            if column == name:
                return alias
        certain = [s for s in self.sources if s.has(name)]
        if len(certain) == 1:
            return certain[0].alias
        possible = [s for s in self.sources if s.may_have(name)]
        if not certain and len(possible) == 1:
            return possible[0].alias
        if not possible and self.outer is not None:
            return self.outer.qualifier(name)
        return None

    def knows(self, qualifier: str) -> bool:
        return self.source(qualifier) is not None or (
            self.outer is not None and self.outer.knows(qualifier)
        )


def resolve(column: exp.Column, scope: Scope) -> exp.Column:
    """The column qualified by its relation's alias, or as written when that is not certain."""
    name = column.name.lower()
    table = column.table.lower()
    if isinstance(column.this, exp.Star):
        return column
    if table:
        return column_node(name, table) if scope.knows(table) else column
    qualifier = scope.qualifier(name)
    return column_node(name, qualifier) if qualifier else column


def qualify(
    node: exp.Expression,
    scope: Scope,
    replace: Callable[[exp.Column], exp.Expression | None] | None = None,
) -> exp.Expression:
    """A copy of `node` with each column resolved in `scope`.

    `replace` may substitute a column first (a select alias, an output name); it is handed
    the column in a copy of `node`, so what it sees above the column ends at `node`.
    Subqueries keep their own columns: they are resolved when their plans are built. Lambda
    parameters are not columns.
    """
    if replace is None:
        return copy_replacing_columns(node, lambda column: _resolved_copy(column, scope))
    copy, columns = copy_with_columns(node)
    if isinstance(copy, exp.Column):
        return _replacement(copy, scope, replace)
    for column in columns:
        column.replace(_replacement(column, scope, replace))
    return copy


def _resolved_copy(column: exp.Column, scope: Scope) -> exp.Expression:
    resolved = resolve(column, scope)
    return uncommented_copy(column) if resolved is column else resolved


def _replacement(
    column: exp.Column,
    scope: Scope,
    replace: Callable[[exp.Column], exp.Expression | None],
) -> exp.Expression:
    substitute = replace(column)
    if substitute is None:
        return resolve(column, scope)
    if isinstance(substitute, (exp.Column, exp.Literal, exp.Func, exp.Paren)):
        return substitute.copy()
    return exp.Paren(this=substitute.copy())  # keeps its precedence where the name stood


def columns_of(node: exp.Expression) -> Iterable[exp.Column]:
    """The column references of an expression, outside nested queries and lambda bodies'
    parameters."""
    stack = [(node, frozenset[str]())]
    while stack:
        current, bound = stack.pop()
        if _is_reference(current, bound):
            yield current
        inside = _bound_inside(current, bound, node)
        if inside is not None:
            stack.extend((child, inside) for child in current.iter_expressions())


def _is_reference(node: exp.Expression, bound: frozenset[str]) -> bool:
    return isinstance(node, exp.Column) and bool(node.table or node.name.lower() not in bound)


def _bound_inside(
    node: exp.Expression, bound: frozenset[str], root: exp.Expression
) -> frozenset[str] | None:
    """The lambda parameters in scope below `node`; None when no column reference is looked
    for below it (a column, a nested query)."""
    if isinstance(node, exp.Column) or (isinstance(node, (exp.Subquery, exp.Query)) and node is not root):
        return None
    if isinstance(node, exp.Lambda):
        return bound | {p.name.lower() for p in node.expressions}
    return bound


def uncommented_copy(node: exp.Expression) -> exp.Expression:
    """A copy of `node` without its comments: an expression's key is its text, and a comment
    written inside a clause is not part of what the expression means."""
    return copy_replacing_columns(node, None)


def copy_with_columns(node: exp.Expression) -> tuple[exp.Expression, list[exp.Column]]:
    """An `uncommented_copy` of `node` and its column references (`columns_of` the copy)."""
    columns: list[exp.Column] = []

    def copied(column: exp.Column) -> exp.Column:
        columns.append(uncommented_copy(column))
        return columns[-1]

    return copy_replacing_columns(node, copied), columns


def copy_replacing_columns(
    node: exp.Expression, substitute: Callable[[exp.Column], exp.Expression] | None
) -> exp.Expression:
    """A copy of `node` without its comments, in which each column reference (`columns_of`
    `node`) is `substitute(column)`, a new node made from the original column.

    The copy is what sqlglot's `copy()` makes, less its generic deep copy of every node's
    comments and metadata (positions), which is most of its cost: the metadata is copied
    one level deep, and the children are linked without `set`'s bookkeeping.
    """
    if substitute is not None and _is_reference(node, frozenset()):
        return substitute(node)
    root = type(node)()
    # (original, its copy, the lambda parameters in scope or None when not looking)
    stack: list[tuple[exp.Expression, exp.Expression, frozenset[str] | None]] = [
        (node, root, frozenset())
    ]

    def child_of(original: exp.Expression, bound: frozenset[str] | None) -> exp.Expression:
        if substitute is not None and bound is not None and _is_reference(original, bound):
            return substitute(original)
        child = type(original)()
        stack.append((original, child, bound))
        return child

    while stack:
        original, copy, bound = stack.pop()
        inside = _bound_inside(original, bound, node) if bound is not None else None
        if original._meta is not None:
            copy._meta = dict(original._meta)
        if original._type is not None:
            copy._type = original._type.copy()
        args = copy.args
        for key, value in original.args.items():
            if isinstance(value, exp.Expression):
                child = args[key] = child_of(value, inside)
                child.parent, child.arg_key, child.index = copy, key, None
            elif type(value) is list:
                items = args[key] = []
                for index, item in enumerate(value):
                    if isinstance(item, exp.Expression):
                        item = child_of(item, inside)
                        item.parent, item.arg_key, item.index = copy, key, index
                    items.append(item)
            else:
                args[key] = value
    return root
