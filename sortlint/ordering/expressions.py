"""Expressions as hashable keys.

The engine compares expressions by their canonical Spark SQL text after normalisation:
identifiers folded to lower case (Spark resolves names case-insensitively), redundant
parentheses dropped (the tree already encodes precedence). `a + 1` written in SQL, in a
PySpark `selectExpr`, or built from `F.col("A") + 1` becomes the same key.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import cache, lru_cache
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

DIALECT = "spark"
# The dialect that prints keys, looked up once: `Expression.sql` looks it up by name on
# every call.
_PRINTER = Dialect.get_or_raise(DIALECT)


class _computed_once:
    """`functools.cached_property` without the lock Python 3.11 takes on every first read
    (a cost that shows: the engine makes and reads thousands of Exprs per file, in one
    thread). The value lands in the instance's dict, which later reads find first."""

    def __init__(self, compute) -> None:
        self.compute = compute
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


class Expr:
    """A normalised sqlglot expression, hashed and compared by its structure.

    Identity is a structural key built without copying or printing the tree: identifiers
    folded to lower case, parentheses ignored (the tree already encodes precedence). The
    canonical text is made only when someone reads it. The wrapped node is shared, not
    copied: callers hand over nodes they no longer mutate.
    """

    __slots__ = ("identity", "node", "_hash", "__dict__")

    def __init__(self, node: exp.Expression, identity: tuple | str) -> None:
        self.node = node
        self.identity = identity
        self._hash = hash(identity)

    @classmethod
    def of(cls, node: exp.Expression) -> Expr:
        while isinstance(node, exp.Paren):
            node = node.this
        return cls(node, _structure(node))

    @classmethod
    def parse(cls, text: str, dialect: str = DIALECT) -> Expr:
        return cls.of(cast(exp.Expression, sqlglot.parse_one(text, read=dialect)))

    @classmethod
    def column(cls, name: str, table: str | None = None) -> Expr:
        return _named_column(name, table)

    @_computed_once
    def key(self) -> str:
        """The canonical Spark SQL text, for people and for stable sorting."""
        return _PRINTER.generate(_normalise(_bare_copy(self.node)), copy=False, comments=False)

    @_computed_once
    def is_literal(self) -> bool:
        return _is_literal(self.node)

    @_computed_once
    def is_column(self) -> bool:
        return isinstance(self.node, exp.Column)

    @_computed_once
    def column_name(self) -> str | None:
        """The unqualified column name, for a plain column reference."""
        return self.node.name.lower() if isinstance(self.node, exp.Column) else None

    @_computed_once
    def columns(self) -> frozenset[Expr]:
        """The column references this expression reads."""
        if isinstance(self.node, exp.Column):
            return frozenset((self,))
        return frozenset(Expr.of(c) for c in self.node.find_all(exp.Column))

    @_computed_once
    def children(self) -> tuple[Expr, ...]:
        """Direct operand expressions (type and unit arguments excluded). Their identities
        are the parts of this one's, so none is walked again."""
        node, identity = self.node, self.identity
        if isinstance(node, exp.Column) or not isinstance(identity, tuple):
            return tuple(
                Expr.of(child) for child in node.iter_expressions() if not isinstance(child, _NOT_OPERANDS)
            )
        found: list[Expr] = []
        parts = iter(identity[1:])  # as `_structure` made them, one per argument it kept
        for name, value in node.args.items():
            if value is None or value is False or (isinstance(value, list) and not value):
                continue
            if isinstance(value, exp.Expression):
                part = next(parts)[1]
                if not isinstance(value, _NOT_OPERANDS):
                    found.append(Expr(_unwrap(value), part))
            elif isinstance(value, list):
                for item, part in zip(value, next(parts)[1]):
                    if isinstance(item, exp.Expression) and not isinstance(item, _NOT_OPERANDS):
                        found.append(Expr(_unwrap(item), part))
            elif name != "quoted":
                next(parts)
        return tuple(found)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, Expr) and other._hash == self._hash and other.identity == self.identity
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        # Made again from its node and identity: a string's hash differs from one process
        # to the next, and the values computed once (`columns` holds the Expr itself) would
        # be read back before the hash is set.
        return Expr, (self.node, self.identity)

    def __lt__(self, other: Expr) -> bool:
        return self.key < other.key

    def __repr__(self) -> str:
        return f"Expr({self.key!r})"

    def __str__(self) -> str:
        return self.key


class _NamedColumn(Expr):
    """A column named by the engine (a projection's output, an alias's column): most are
    only ever compared and hashed, so its node is made when first read. Its identity is
    the one `_structure` gives the node."""

    __slots__ = ()

    def __init__(self, name: str, table: str | None) -> None:
        self.identity = ("Column", name, table)
        self._hash = hash(self.identity)

    @_computed_once
    def node(self) -> exp.Column:
        return column_node(self.identity[1], self.identity[2])

    # plain class values: read hundreds of thousands of times, each first read of the
    # computed ones is a call
    is_literal = False
    is_column = True

    @_computed_once
    def column_name(self) -> str | None:
        return self.identity[1]


@lru_cache(maxsize=1 << 16)
def _named_column(name: str, table: str | None) -> Expr:
    """One `_NamedColumn` per name: the engine names the same few hundred columns millions of
    times in a project (every projection and every CTE's alias maps each of its columns), and
    the same object makes each lookup of it an identity test. Shared safely: its node is made
    once, and no reader mutates a key's node."""
    return _NamedColumn(name.lower(), table.lower() if table else None)


def column_node(name: str, table: str | None = None) -> exp.Column:
    """The column `exp.column(name, table=table)` makes of two plain names, built directly:
    the builder and the engine make thousands per file, and the general function's argument
    handling is most of its cost."""
    if table:
        return exp.Column(this=_identifier(name), table=_identifier(table))
    return exp.Column(this=_identifier(name))


def _identifier(name: str) -> exp.Identifier:
    return exp.Identifier(this=name, quoted=_needs_quotes(name))


@cache
def _needs_quotes(name: str) -> bool:
    """Whether sqlglot quotes `name` when it makes an identifier of it."""
    return not exp.SAFE_IDENTIFIER_RE.match(name)

# Arguments that are parts of a call, not operands: types and units.
_NOT_OPERANDS = (exp.DataType, exp.Var)

# Spark parses CAST as TRY_CAST unless in ANSI mode; both order values the same way.
_SAME_CLASS = {"TryCast": "Cast"}


def every_part(node: exp.Expression, kinds: Collection[str | None]) -> Iterator[Expr]:
    """An `Expr` of `node` and of every node below it whose key is of one of `kinds` (the
    class name a key begins with: `Column`, `Window`), in `walk` order. A node's structure
    holds its children's, so each is made once here: keying each node on its own walks
    every subtree again for each node above it."""
    memo: dict[int, tuple | str] = {}
    for sub in cast(Iterator[exp.Expression], node.walk()):
        inner = _unwrap(sub)
        if (
            (_KINDS.get(type(inner)) or _kind(type(inner))) in kinds
            and not isinstance(inner, (exp.Identifier, exp.DataType))  # parts of keys, not expressions
        ):
            yield Expr(inner, _structure(inner, memo))


def kind_of(expr: Expr) -> str | None:
    """The class name `expr`'s key begins with (None for a bare name)."""
    return expr.identity[0] if isinstance(expr.identity, tuple) else None


def _structure(node: exp.Expression, memo: dict[int, tuple | str] | None = None) -> tuple | str:
    """A hashable picture of the tree: classes, argument names, lower-cased names. With
    `memo`, the pictures of the nodes met are kept there by `id`, and taken from it."""
    if memo is not None and id(node) in memo:
        return memo[id(node)]
    if isinstance(node, exp.Identifier):
        return node.this.lower()
    args = node.args
    if isinstance(node, exp.Column) and not args.get("db") and not args.get("catalog"):
        name, table = node.this, args.get("table")
        found: tuple = (
            "Column",
            name.this.lower() if isinstance(name, exp.Identifier) else _structure(name, memo),
            table.this.lower() if isinstance(table, exp.Identifier) else None,
        )
    else:
        parts: list = [_KINDS.get(type(node)) or _kind(type(node))]
        for key, value in args.items():
            if value is None or value is False:
                continue
            if isinstance(value, exp.Expression):
                while isinstance(value, exp.Paren):
                    value = value.this
                parts.append((key, _structure(value, memo)))
            elif isinstance(value, list):
                if value:
                    parts.append((key, tuple([
                        _structure(_unwrap(v), memo) if isinstance(v, exp.Expression) else v for v in value
                    ])))
            elif key != "quoted":
                parts.append((key, value))
        found = tuple(parts)
    if memo is not None:
        memo[id(node)] = found
    return found


def _kind(cls: type) -> str:
    """The class name a key begins with (kept in `_KINDS`: asked for every node keyed)."""
    kind = _KINDS[cls] = _SAME_CLASS.get(cls.__name__, cls.__name__)
    return kind


_KINDS: dict[type, str] = {}


def _unwrap(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_literal(node: exp.Expression) -> bool:
    if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
        return True
    if isinstance(node, exp.Neg):
        return _is_literal(node.this)
    if isinstance(node, exp.Interval):
        return isinstance(node.this, exp.Literal)
    return False


def literal_number(node: exp.Expression) -> float | None:
    """The value of a numeric literal (`-2` included), None for anything else."""
    if isinstance(node, exp.Neg):
        inner = literal_number(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def literal_sign(node: exp.Expression) -> int | None:
    """-1, 0 or 1 for a numeric literal, None for anything else."""
    value = literal_number(node)
    return None if value is None else (value > 0) - (value < 0)


def _bare_copy(node: exp.Expression) -> exp.Expression:
    """A copy of the tree for `_normalise` to change, without comments: `node.copy()` also
    deep-copies every node's comments and metadata, three quarters of a key's cost, and a
    key prints neither (the metadata is copied one level deep, as a printer may read it)."""
    root = type(node)()
    stack = [(node, root)]
    while stack:
        original, copy = stack.pop()
        if original._meta is not None:
            copy._meta = dict(original._meta)
        if original._type is not None:
            copy._type = original._type.copy()
        for key, value in original.args.items():
            if isinstance(value, exp.Expression):
                child = type(value)()
                stack.append((value, child))
                copy.set(key, child)
            elif type(value) is list:
                items = [type(v)() if isinstance(v, exp.Expression) else v for v in value]
                stack.extend((v, c) for v, c in zip(value, items) if isinstance(v, exp.Expression))
                copy.set(key, items)
            else:
                copy.set(key, value)
    return root


def _normalise(node: exp.Expression) -> exp.Expression:
    """Fold identifiers to lower case and drop parentheses that carry no precedence.

    sqlglot prints a tree as it is, without adding parentheses, so the ones around an
    operator inside another operator must stay; the others go.
    """
    for sub in list(node.walk()):
        if isinstance(sub, exp.Identifier):
            name = sub.this.lower()
            sub.set("this", name)
            sub.set("quoted", _needs_quotes(name))
    for paren in list(node.find_all(exp.Paren)):
        inner = paren.this
        keeps_precedence = isinstance(paren.parent, (exp.Binary, exp.Unary)) and isinstance(
            inner, (exp.Binary, exp.Unary)
        )
        if paren is not node and not keeps_precedence:
            paren.replace(inner)
    while isinstance(node, exp.Paren):
        node = node.this
    return node
