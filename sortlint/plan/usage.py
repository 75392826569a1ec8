"""Which window functions the engine computes: those whose value something reads.

Spark's and DataFusion's optimizers prune a column nothing above reads, and a window
function's value is a column: `SELECT s.c FROM (SELECT c, count(*) OVER (ORDER BY c) AS w
FROM t) s` computes no window, so nothing sorts the rows by `c`. A window's order can only be
counted on when its value reaches the result, through every projection above it.

`read_window_functions` walks the plan from the result down, carrying the expressions each
node's parent reads. Where it cannot tell (a subquery of a predicate, a node it does not
understand), it says nothing is read: a window taken for pruned loses only an order.
"""

from __future__ import annotations

from sortlint.ordering import Expr
from sortlint.ordering.expressions import every_part, kind_of
from sortlint.plan import nodes as n

# What a parent reads of a node's output: every column (None), or these expressions.
Read = "set[Expr] | None"


def read_window_functions(root: n.Node) -> set[int]:
    """The ids of the `WindowFunction`s whose value something above reads."""
    found: set[int] = set()
    nodes = list(n.walk(root))
    # What is read is only ever asked of columns and of window functions, so only those
    # are kept of what an expression reads.
    kinds = {"Column"} | {kind_of(f.expr) for w in nodes if isinstance(w, n.Window) for f in w.functions}
    # Only nodes with a window at or below them are visited: what is read of the others
    # decides nothing (in a chain of CTEs, most of the plan).
    windowed: set[int] = set()
    for node in reversed(nodes):  # children before their parents
        if isinstance(node, n.Window) or any(id(child) in windowed for child in node.children):
            windowed.add(id(node))
    # Without recursion: a plan is as deep as its chain of CTEs.
    stack: list[tuple[n.Node, set[Expr] | None]] = [(root, None)]
    while stack:
        node, read = stack.pop()
        if id(node) in windowed:
            stack.extend(_children_read(node, read, found, kinds))
    return found


def _children_read(node: n.Node, read: set[Expr] | None, found: set[int], kinds: set[str | None]):
    """(child, what is read of it) for each child of `node`, of which `read` is read; of
    what it reads, the expressions of `kinds`."""
    nothing: set[Expr] = set()
    extra = [(child, nothing) for child in node.children[1:]]  # predicate subqueries
    if isinstance(node, n.Project):
        if node.passthrough or read is None:
            every = None if node.passthrough else _parts([c.expr for c in node.columns], kinds)
            return [(node.children[0], every), *extra]
        used = [c.expr for c in node.columns if Expr.column(c.name) in read]
        return [(node.children[0], _parts(used, kinds)), *extra]
    if isinstance(node, n.Alias):
        if read is None or not node.columns:
            return [(node.children[0], None if read is None else nothing)]
        names = {Expr.column(name) for name in node.columns if Expr.column(name, node.alias) in read}
        return [(node.children[0], names)]
    if isinstance(node, n.Window):
        computed = [f for f in node.functions if read is None or f.expr in read]
        found.update(id(f) for f in computed)
        return [(node.children[0], _more(read, _parts([f.expr for f in computed], kinds)))]
    if isinstance(node, n.Filter):
        return [(node.children[0], _more(read, _parts(node.conjuncts, kinds))), *extra]
    if isinstance(node, n.Sort):
        return [(node.children[0], _more(read, _parts([item.expr for item in node.keys], kinds)))]
    if isinstance(node, n.Repartition):
        return [(node.children[0], _more(read, _parts(node.keys, kinds)))]
    if isinstance(node, n.Aggregate):
        exprs = [key.expr for key in node.keys] + [call.expr for call in node.aggregates]
        return [(node.children[0], _parts(exprs, kinds))]
    if isinstance(node, n.Join):
        on = [e for pair in node.equalities for e in pair] + list(node.residual)
        both = _more(read, _parts(on, kinds))
        return [(child, both) for child in node.children]
    if isinstance(node, n.SetOp):
        return [(child, _branch_read(node, child, read)) for child in node.children]
    if isinstance(node, (n.Limit, n.Write)):
        return [(child, read) for child in node.children]
    if isinstance(node, n.Distinct):
        return [(child, None) for child in node.children]
    # Subquery (its value is a predicate's), Opaque, leaves: nothing known to be read.
    return [(child, nothing) for child in node.children]


def _branch_read(node: n.SetOp, branch: n.Node, read: set[Expr] | None) -> set[Expr] | None:
    """A set operation's outputs are its branches' columns by position."""
    names = n.output_names(branch)
    if len(names) != len(node.columns):
        return set()
    if read is None or node.kind != "union" or node.distinct:
        return None  # every column decides which rows are distinct, or kept
    return {Expr.column(mine) for mine, out in zip(names, node.columns) if Expr.column(out) in read}


def _parts(exprs, kinds: set[str | None]) -> set[Expr]:
    """The expressions of `kinds` inside `exprs`: the columns and calls they read. A column
    is its only part: most are columns of a `*`, whose node is not made to be walked."""
    found: set[Expr] = set()
    for expr in exprs:
        if expr.is_column:
            found.add(expr)
        else:
            found.update(every_part(expr.node, kinds))
    return found


def _more(read: set[Expr] | None, extra: set[Expr]) -> set[Expr] | None:
    return None if read is None else read | extra
