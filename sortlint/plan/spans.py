"""Exact spans of clauses, keys and relations, read from the unit's tokens.

sqlglot gives positions to leaves only. Each span here starts from those leaves to find the
right place in the token stream, then reads the extent from the tokens themselves: a clause
from its keyword (`ORDER BY`, `GROUP BY`, `PARTITION BY`, `WHERE`, ...) to the end of its
last item; an item between the commas of its clause, so a sort key keeps its enclosing
parentheses and its `ASC`/`DESC`/`NULLS ...` words. When the tokens and the tree disagree
(a keyword used as a name, say), a span falls back to the extent of the item's leaves.

The positioned leaves under every node are found in one pass over the tree, when the lookups
are made: a clause, its items and the query around them all ask about the same nodes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.tokens import TokenType

from sortlint.plan.nodes import Span
from sortlint.plan.token_types import T
from sortlint.plan.tokens import CLAUSE_KEYWORDS, TokenIndex

Range = tuple[int, int]  # first and last token index, inclusive

SET_OPERATORS = frozenset({T.UNION, T.INTERSECT, T.EXCEPT})
SORT_WORDS = frozenset({"ASC", "DESC", "NULLS", "FIRST", "LAST"})


@dataclass(frozen=True)
class Clause:
    """A keyword clause: its whole span and one span per item (None when not found)."""

    span: Span
    items: tuple[Span | None, ...]


@dataclass(frozen=True)
class WindowSpans:
    over: Span | None  # OVER (...)
    partition: Clause | None
    order: Clause | None


def tree_nodes(tree: exp.Expression) -> tuple[list[exp.Expression], list[int]]:
    """Every node of a tree once, breadth first, and the index of each one's parent in that
    list (-1 for the root). Hints are not entered: sqlglot parses a hint's text on its own,
    so positions inside it are not offsets into the statement.

    The order of sqlglot's `walk(prune=...)`, read from the arguments directly: its
    generators cost ~2% of a check (valgrind instruction counts over TPC-DS)."""
    nodes = [tree]
    parents = [-1]
    add, add_parent = nodes.append, parents.append
    for at, node in enumerate(nodes):  # grows as it is read
        if isinstance(node, exp.Hint):
            continue
        for value in node.args.values():
            if isinstance(value, exp.Expression):
                add(value)
                add_parent(at)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, exp.Expression):
                        add(item)
                        add_parent(at)
    return nodes, parents


def position(node: exp.Expression) -> Range | None:
    meta = node._meta  # read without `node.meta`, which gives every node a dict
    if meta and "start" in meta and "end" in meta:
        return meta["start"], meta["end"]
    return None


def merged(a: Range | None, b: Range | None) -> Range | None:
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), max(a[1], b[1])


class Spans:
    """Span lookups for one parsed unit."""

    def __init__(self, index: TokenIndex, tree: exp.Expression) -> None:
        self.index = index
        # What `positioned` and `leaves` found for the nodes of the tree, by `id`: the tree
        # is kept (and never changed), so no other node can have one of these ids.
        self.tree = tree
        nodes, parents = tree_nodes(tree)
        self._positioned = self._positioned_all(nodes, parents)
        self._leaves: dict[int, Range | None] = {}
        self.selects = select_anchors(self, [n for n in nodes if isinstance(n, exp.Select)])

    # --- generic extents -------------------------------------------------------------

    def leaves(self, node: exp.Expression) -> Range | None:
        """Tokens from the first to the last positioned leaf, function calls with their
        argument lists, widened until the brackets inside are balanced."""
        if id(node) in self._leaves:
            return self._leaves[id(node)]
        found = self.positioned(node)
        if found is not None:
            found = self.balanced(*found)
        if id(node) in self._positioned:  # a node of the tree, not one made for the asking
            self._leaves[id(node)] = found
        return found

    def positioned(self, node: exp.Expression) -> Range | None:
        """The first and last token of the positioned nodes under `node` (itself included),
        function calls with their argument lists; None when there is none."""
        if id(node) in self._positioned:
            return self._positioned[id(node)]
        if isinstance(node, exp.Hint):
            return None
        found = self._own_position(node)  # a node made for the asking, around tree nodes
        for child in node.iter_expressions():
            found = merged(found, self.positioned(child))
        return found

    def _positioned_all(self, nodes: list[exp.Expression], parents: list[int]) -> dict[int, Range | None]:
        """`positioned` of every node of a tree listed by `tree_nodes`: children before
        parents, each merged into its parent's entry when it is done. Entries are kept by
        place in the list until the end: this runs for every node of every statement."""
        found: list[Range | None] = [None] * len(nodes)
        for at in range(len(nodes) - 1, -1, -1):
            node = nodes[at]
            here = found[at]
            if node._meta is not None and not isinstance(node, exp.Hint):  # most nodes have none
                own = self._own_position(node)
                if own is not None:
                    here = found[at] = own if here is None else (
                        min(own[0], here[0]), max(own[1], here[1])
                    )
            if here is not None and at:
                parent = parents[at]
                above = found[parent]
                found[parent] = here if above is None else (
                    min(above[0], here[0]), max(above[1], here[1])
                )
        return dict(zip(map(id, nodes), found))

    def _own_position(self, node: exp.Expression) -> Range | None:
        where = position(node)
        if where is None:
            return None
        index = self.index
        first, last = index.at(where[0]), index.at(where[1])
        if index.tokens[first].start != where[0]:
            return None  # not a position in this text
        if isinstance(node, exp.Func) and index.is_open(last + 1):
            last = index.partners[last + 1]
        return first, last

    def balanced(self, first: int, last: int) -> Range:
        partners = self.index.partners
        changed = True
        while changed:
            changed = False
            for i in range(first, last + 1):
                partner = partners[i]
                if partner > last:
                    last, changed = partner, True
                elif 0 <= partner < first:
                    first, changed = partner, True
        return first, last

    def range_of(self, node: exp.Expression) -> Range | None:
        """The tokens of an expression or relation, as exactly as the tree allows."""
        if isinstance(node, (exp.Subquery, exp.Select, exp.SetOperation, exp.Values)):
            return self.query_range(node)
        found = self.leaves(node)
        if found is None:
            return None
        first, last = found
        if isinstance(node, (exp.Paren, exp.Tuple)):
            first, last = self.wrapped(first, last)
        if isinstance(node, exp.Window):
            over = self.over(node)
            last = max(last, over[1]) if over else last
        if isinstance(node, exp.Lateral):
            keyword = self.index.find_back(first, {T.LATERAL})
            first = keyword if keyword is not None else first
        if isinstance(node, exp.Ordered):
            while self.index.word(last + 1) in SORT_WORDS:
                last += 1
        return first, last

    def extent(self, node: exp.Expression | None) -> Span | None:
        found = self.range_of(node) if node is not None else None
        return self.index.span(*found) if found else None

    def wrapped(self, first: int, last: int) -> Range:
        """first..last widened by the brackets right around it, if they match each other."""
        if self.index.is_open(first - 1) and self.index.partners[first - 1] == last + 1:
            return first - 1, last + 1
        return first, last

    # --- queries -----------------------------------------------------------------------

    def query_first(self, node: exp.Expression) -> int | None:
        """The first token of a query: its WITH, SELECT, VALUES or opening parenthesis."""
        if isinstance(node, exp.Subquery):
            inner = self.query_first(node.this)
            return inner - 1 if inner is not None and self.index.is_open(inner - 1) else inner
        if isinstance(node, exp.SetOperation):
            first = self.query_first(node.this)
        elif isinstance(node, exp.Select):
            first = self.selects.get(id(node))
        else:
            found = self.leaves(node)
            first = None if found is None else self.index.find_back(found[0] + 1, {T.VALUES})
        with_ = node.args.get("with_")
        if first is not None and with_ is not None and with_.expressions:
            leaf = self.leaves(with_.expressions[0].args.get("alias") or with_)
            keyword = self.index.find_back(leaf[0], {T.WITH}) if leaf else None
            first = keyword if keyword is not None else first
        return first

    def query_range(self, node: exp.Expression) -> Range | None:
        """A query's tokens; a parenthesised one with its parentheses and alias."""
        first = self.query_first(node)
        if first is None:
            return self.leaves(node)
        found = self.leaves(node)
        last = found[1] if found else first
        if isinstance(node, exp.Subquery) and self.index.is_open(first):
            last = max(last, self.index.partners[first])
        return self.balanced(first, last)

    # --- clauses -----------------------------------------------------------------------

    def clause(
        self,
        node: exp.Expression | None,
        keywords: Collection[TokenType],
        items: Sequence[exp.Expression],
    ) -> Clause | None:
        """The clause of `node` (an Order, Group, Where, ...) that starts with one of
        `keywords`, with one span per item."""
        if node is None:
            return None
        found = self.leaves(node)
        keyword = self.index.find_back(found[0] + 1, keywords) if found else None
        if keyword is None:
            return None
        last = max(self.index.clause_end(keyword), found[1])
        return Clause(self.index.span(keyword, last), self.items(keyword + 1, last, items))

    def items(self, first: int, last: int, items: Sequence[exp.Expression]) -> tuple[Span | None, ...]:
        pieces = self.index.split(first, last) if first <= last else []
        if len(pieces) == len(items):
            return tuple(self.index.span(a, b) for a, b in pieces)
        return tuple(self.extent(item) for item in items)

    def select_list(self, select: exp.Select) -> Clause | None:
        """SELECT [DISTINCT] and the select items."""
        anchor = self.selects.get(id(select))
        if anchor is None:
            return None
        first = anchor + 1
        while self.index.type(first) in (T.HINT, T.DISTINCT, T.ALL):
            first += 1
        last = self.index.clause_end(first - 1)
        # The items' leaves together, read without wrapping them in a node: a new node
        # takes its children as its own (their `parent`), which would change the tree.
        found = None
        for item in select.expressions:
            found = merged(found, self.positioned(item))
        if found is not None:
            found = self.balanced(*found)
        if found and found[1] > last:
            last = found[1]
        return Clause(self.index.span(anchor, max(last, anchor)), self.items(first, last, select.expressions))

    def keyword_after_select(self, select: exp.Select, kind: TokenType) -> Span | None:
        """A word right after SELECT (its hint skipped): `DISTINCT`, or the hint itself."""
        anchor = self.selects.get(id(select))
        if anchor is None:
            return None
        i = anchor + 1
        if kind != T.HINT and self.index.type(i) == T.HINT:
            i += 1
        return self.index.span(i, i) if self.index.type(i) == kind else None

    def from_items(self, select: exp.Select) -> tuple[Span | None, ...]:
        """One span per relation of the FROM clause: the first table, then each join with its
        keywords (or comma) and its ON/USING condition."""
        from_ = select.args.get("from_")
        joins = list(select.args.get("joins") or [])
        wanted = [from_.this, *joins] if from_ is not None else joins
        found = self.leaves(from_) if from_ is not None else None
        keyword = self.index.find_back(found[0] + 1, {T.FROM}) if found else None
        if keyword is None:
            return tuple(self.extent(node) for node in wanted)
        last = max(self.index.clause_end(keyword), found[1])
        if joins:
            tail = self.leaves(joins[-1])
            last = max(last, tail[1]) if tail else last
        pieces = self.relation_pieces(keyword + 1, last)
        if len(pieces) != len(wanted):
            return tuple(self.extent(node) for node in wanted)
        return tuple(self.index.span(a, b) for a, b in pieces)

    def relation_pieces(self, first: int, last: int) -> list[Range]:
        """Split a FROM clause at its commas and at the words that start each join."""
        index = self.index
        starts = [first]
        i = first
        while i <= last:
            if i > first and (index.type(i) == T.COMMA or index.join_start(i)):
                starts.append(i)
            i = index.close_of(i) + 1
        return [(a, b - 1) for a, b in zip(starts, [*starts[1:], last + 1])]

    def limit(self, query: exp.Expression) -> Span | None:
        """LIMIT n [OFFSET m] (or OFFSET alone)."""
        parts = [query.args.get("limit"), query.args.get("offset")]
        clauses = [self.clause(p, {T.LIMIT, T.OFFSET}, ()) for p in parts if p]
        spans = [c.span for c in clauses if c is not None]
        if not spans:
            return None
        return Span(min(s.start for s in spans), max(s.end for s in spans), spans[0].unit)

    def operator_before(self, query: exp.Expression) -> Span | None:
        """`UNION ALL`, `EXCEPT`, ...: the words before a right-hand query of a set
        operation."""
        right = self.query_first(query)
        if right is None:
            return None
        first = right - 1
        while self.index.type(first) not in SET_OPERATORS and first > right - 4:
            first -= 1
        if self.index.type(first) not in SET_OPERATORS:
            return None
        return self.index.span(first, right - 1)

    def window(self, node: exp.Window) -> WindowSpans:
        over = self.over(node)
        if over is None:
            return WindowSpans(None, None, None)
        first, last = over
        inside = (first + 2, last - 1) if self.index.is_open(first + 1) else (last + 1, last)
        return WindowSpans(
            self.index.span(first, last),
            self.window_clause(inside, T.PARTITION_BY, node.args.get("partition_by") or []),
            self.window_clause(
                inside, T.ORDER_BY, (node.args.get("order") or exp.Order()).expressions
            ),
        )

    def window_clause(
        self, inside: Range, keyword_type: TokenType, items: Sequence[exp.Expression]
    ) -> Clause | None:
        keyword = self.index.find(inside[0], inside[1], {keyword_type}) if items else None
        if keyword is None:
            return None
        last = min(self.index.clause_end(keyword), inside[1])
        return Clause(self.index.span(keyword, last), self.items(keyword + 1, last, items))

    def over(self, node: exp.Window) -> Range | None:
        """OVER (...) or OVER name, found after the window's function call."""
        call = self.leaves(node.this)
        if call is None:
            return None
        stops = {T.OVER, T.COMMA, *CLAUSE_KEYWORDS}
        keyword = self.index.find(call[1] + 1, len(self.index) - 1, stops)
        if keyword is None or self.index.type(keyword) != T.OVER:
            return None
        return keyword, self.index.close_of(keyword + 1)

    def explicit_nulls(self, span: Span | None) -> bool:
        """Whether a sort key spells out NULLS FIRST / NULLS LAST (sqlglot fills the placement
        in from the dialect's default, so the tree cannot tell)."""
        if span is None:
            return False
        first = self.index.at(span.start)
        last = self.index.at(span.end - 1)
        words = [self.index.word(i) for i in range(first, last + 1)]
        return any(
            a == "NULLS" and b in ("FIRST", "LAST") for a, b in zip(words, words[1:])
        )

    def head(self, query: exp.Expression | None) -> Span | None:
        """The statement's words before its query: `INSERT INTO t`, `CREATE VIEW v AS`."""
        first = self.query_first(query) if query is not None else None
        last = (first - 1) if first is not None else len(self.index) - 1
        return self.index.span(0, last) if last >= 0 and len(self.index) else None

    def whole(self) -> Span | None:
        return self.index.span(0, len(self.index) - 1) if len(self.index) else None



def select_anchors(spans: Spans, selects: list[exp.Select]) -> dict[int, int]:
    """The SELECT keyword of each Select of a tree (listed breadth first), by `id` of the
    node.

    A Select's keyword is the nearest SELECT before its first leaf (its WITH clause aside)
    that no Select nested in it has claimed: nested ones are matched first, so a select list
    that opens with a scalar subquery does not take the subquery's keyword.
    """
    index = spans.index
    anchors: dict[int, int] = {}
    claimed: set[int] = set()
    for select in reversed(selects):  # children before parents
        first = _first_leaf(spans, select)
        i = first
        while i is not None:
            i = index.find_back(i, {T.SELECT})
            if i is not None and i not in claimed:
                anchors[id(select)] = i
                claimed.add(i)
                break
    return anchors


def _first_leaf(spans: Spans, select: exp.Select) -> int | None:
    firsts = [
        found[0]
        for key, value in select.args.items()
        if key != "with_"
        for arg in (value if isinstance(value, list) else [value])
        if isinstance(arg, exp.Expression) and (found := spans.positioned(arg)) is not None
    ]
    return min(firsts) if firsts else None
