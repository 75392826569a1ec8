"""The relational IR every front end builds: SQL statements and DataFrame pipelines alike.

Expressions are normalised `Expr` keys resolved against the node's input columns. Inside a
FROM scope a column is qualified by its table alias (`e.time`); the outputs of a
projection are bare names (`hour`), re-qualified by an `Alias` node when the projection
is a subquery or CTE read as `s`. Every node keeps the span of the clause or call it came
from, as offsets into its unit's text, so findings and fixes can point at it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Literal

from sqlglot import exp

from sortlint.ordering import Expr, Properties, SortOptions
from sortlint.plan.aggregates import needs_order
from sortlint.units import Unit


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of a unit's text: the unit it was written in when that is
    known (a view's clauses, inlined into the statements that read it, keep their own unit),
    else the unit the statement being built comes from."""

    start: int
    end: int
    unit: Unit | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SortItem:
    """One key of an ORDER BY / SORT BY / window ORDER BY, as resolved and as written."""

    expr: Expr
    options: SortOptions  # null placement resolved with the target's defaults
    span: Span  # the key with its ASC/DESC/NULLS words
    text: str  # as written
    ordinal: int | None = None  # `ORDER BY 2`


@dataclass(frozen=True)
class GroupKey:
    """One key of a GROUP BY or a window PARTITION BY."""

    expr: Expr
    span: Span
    text: str
    ordinal: int | None = None


@dataclass(frozen=True)
class OutputColumn:
    """One output of a projection: the expression and the name Spark gives the column."""

    name: str
    expr: Expr
    span: Span | None = None
    aliased: bool = False  # written with AS
    node: exp.Expression | None = field(default=None, compare=False)  # as written


@dataclass(eq=False)
class Node:
    """A plan operator. `children[0]` is the input; a Filter or Project may have more
    children after it: the `Subquery` nodes of its predicates and scalar subqueries."""

    children: tuple[Node, ...] = ()
    span: Span | None = None  # the clause or call this node came from

    @property
    def child(self) -> Node:
        return self.children[0]

    @property
    def label(self) -> str:
        return type(self).__name__


@dataclass(eq=False)
class Scan(Node):
    table: str = ""  # as the catalog names it, lower case (db.table allowed)
    alias: str = ""  # the qualifier of its columns
    columns: tuple[str, ...] = ()  # known column names; empty when unknown
    # What the table's rows are known to satisfy because another statement of the repository
    # wrote them (`TableLookup.stored`): facts over its unqualified column names.
    stored: Properties | None = field(default=None, repr=False)


@dataclass(eq=False)
class Filter(Node):
    conjuncts: tuple[Expr, ...] = ()
    clause: Literal["WHERE", "HAVING", "QUALIFY"] = "WHERE"


@dataclass(eq=False)
class Project(Node):
    """The select list. `passthrough` names the relations (by qualifier) whose columns a
    `*` or `t.*` passes through when they are not known: each `q.c` of them becomes the
    output `c`, unchanged. When it is not empty, `columns` are only the outputs that are
    known, and the full list (and order) of outputs is not."""

    columns: tuple[OutputColumn, ...] = ()
    passthrough: tuple[str, ...] = ()


@dataclass(eq=False)
class Alias(Node):
    """A subquery, CTE or view read under a name: its outputs become `alias.name`."""

    alias: str = ""
    columns: tuple[str, ...] = ()  # the child's output names, in order; () when not known
    # Set when the child is an inlined view: the spans below are offsets into this unit
    # (the view's CREATE VIEW statement), and what is found there belongs to it.
    origin: Unit | None = None


@dataclass(eq=False)
class AggregateCall:
    expr: Expr  # the aggregate expression, e.g. COUNT(*), SUM(e.amount)
    order_sensitive: bool = False  # first, last, collect_list, ...
    # sum, avg, stddev, ...: order-insensitive for exact types only; floating-point
    # addition is not associative (Spark keeps a sort below a sum of doubles).
    arithmetic: bool = False


@dataclass(eq=False)
class Aggregate(Node):
    """GROUP BY. Outputs: the group key expressions and the aggregate expressions."""

    keys: tuple[GroupKey, ...] = ()
    aggregates: tuple[AggregateCall, ...] = ()
    grouping_sets: bool = False  # ROLLUP / CUBE / GROUPING SETS: keys may be null-filled
    # GROUP BY ALL: the keys are the select list's items without an aggregate call, and are
    # not written in the GROUP BY (a key's span is its select item's).
    implicit_keys: bool = False


@dataclass(eq=False)
class WindowFunction:
    expr: Expr  # the whole `f(...) OVER (...)` expression: the column it adds
    partition_by: tuple[GroupKey, ...] = ()
    order_by: tuple[SortItem, ...] = ()
    ranking: bool = False  # row_number, rank, dense_rank
    span: Span | None = None  # the OVER (...) clause
    partition_span: Span | None = None  # PARTITION BY ... keys
    order_span: Span | None = None  # ORDER BY ... keys

    def key_list(self, index: int) -> tuple[tuple[GroupKey, ...] | tuple[SortItem, ...], Span | None, int]:
        """Where key `index` of PARTITION BY + ORDER BY is written: its list, the list's
        clause (or call), and its position in the list."""
        if index < len(self.partition_by):
            return self.partition_by, self.partition_span, index
        return self.order_by, self.order_span, index - len(self.partition_by)

    def needs_key(self, index: int) -> bool:
        """Whether key `index` is the only ORDER BY key of a function that needs one (or a
        frame): the window cannot lose it."""
        return index >= len(self.partition_by) and len(self.order_by) == 1 and needs_order(self.expr.node)


@dataclass(eq=False)
class Generate(Node):
    """A generator - `LATERAL VIEW [OUTER] explode(...) t AS c`, `explode(...)` in a select
    list or in FROM, `posexplode`, `inline`, `stack`, `json_tuple`: each input row becomes
    zero or more rows (with OUTER at least one), which repeat the input row's columns and add
    the generated ones."""

    generator: Expr | None = None  # the call
    columns: tuple[Expr, ...] = ()  # the generated columns, as the query reads them
    outer: bool = False


@dataclass(eq=False)
class Window(Node):
    functions: tuple[WindowFunction, ...] = ()


@dataclass(eq=False)
class Sort(Node):
    keys: tuple[SortItem, ...] = ()
    scope: Literal["global", "partition"] = "global"  # ORDER BY / SORT BY, sortWithinPartitions
    clause: str = "ORDER BY"


@dataclass(eq=False)
class Limit(Node):
    limit: int | None = None
    offset: int | None = None


JoinKind = Literal["inner", "left", "right", "full", "semi", "anti", "cross"]


@dataclass(eq=False)
class Join(Node):
    kind: JoinKind = "inner"
    equalities: tuple[tuple[Expr, Expr], ...] = ()  # ON l = r conjuncts, left side first
    residual: tuple[Expr, ...] = ()  # the other ON conjuncts
    # A RIGHT SEMI / ANTI JOIN, built with the side it returns first: the engine's plan
    # has it on the right, where a hash join streams it.
    written_right: bool = False


@dataclass(eq=False)
class SetOp(Node):
    kind: Literal["union", "intersect", "except"] = "union"
    distinct: bool = False
    columns: tuple[str, ...] = ()  # output names (the first child's)


@dataclass(eq=False)
class Distinct(Node):
    pass


@dataclass(eq=False)
class Repartition(Node):
    """DISTRIBUTE BY, repartition(), coalesce(): rows move between partitions."""

    keys: tuple[Expr, ...] = ()
    clause: str = "DISTRIBUTE BY"  # or "CLUSTER BY", "REPARTITION hint", ...


@dataclass(eq=False)
class Values(Node):
    """Inline rows. A SELECT without FROM reads one row of no columns (Spark's
    OneRowRelation): `Values(rows=1)`."""

    columns: tuple[str, ...] = ()
    rows: int = 0


@dataclass(eq=False)
class Write(Node):
    """INSERT ... SELECT, CREATE TABLE ... AS, CREATE VIEW: the statement's sink.

    `rows` is what the write leaves in the target: only the query's rows (`replace`: CREATE
    TABLE AS, a dbt table model), the query's rows with some or all of what was there
    (`append`: INSERT INTO, and INSERT OVERWRITE, which keeps the partitions its rows do not
    touch under dynamic partition overwrite), rows of this query from every run (`increments`: a
    dbt incremental model), or something the statement does not show (`unknown`: a
    partition overwritten, a table created only if it does not exist). `columns` names the
    target's columns in the order of the query's outputs, when the statement shows them."""

    target: str = ""
    kind: Literal["insert", "table", "view"] = "insert"
    rows: Literal["replace", "append", "increments", "unknown"] = "unknown"
    columns: tuple[str, ...] = ()


@dataclass(eq=False)
class Subquery(Node):
    """A subquery used in a predicate (IN, EXISTS, scalar): its order is never seen."""


@dataclass(eq=False)
class Opaque(Node):
    """Something the front end does not understand: every property is forgotten.

    Its children, if any, are the inputs it was applied to, built as usual: what they hold
    is still linted, but nothing about them is known above the Opaque node. `columns` are
    its output names when known."""

    reason: str = ""
    columns: tuple[str, ...] = ()


def copied(node: Node) -> Node:
    """The plan again, node for node (the rest, immutable, is shared): a plan is a tree, and
    what is said of its nodes is said by identity."""
    # Without recursion: a plan is as deep as its chain of CTEs and inlined views.
    root = copy.copy(node)
    stack = [root]
    while stack:
        twin = stack.pop()
        twin.children = tuple(copy.copy(child) for child in twin.children)
        stack.extend(twin.children)
    return root


def walk(node: Node):
    """Pre-order traversal (without recursion: see `copied`)."""
    stack = [node]
    while stack:
        visited = stack.pop()
        yield visited
        stack.extend(reversed(visited.children))


def output_names(node: Node) -> tuple[str, ...]:
    """The bare output column names of a query's top node, () when unknown."""
    if isinstance(node, Project):
        return tuple(column.name for column in node.columns) if not node.passthrough else ()
    if isinstance(node, (SetOp, Values, Opaque)):
        return node.columns
    if isinstance(node, (Sort, Limit, Filter, Distinct, Repartition, Write, Window)):
        return output_names(node.children[0]) if node.children else ()
    return ()
