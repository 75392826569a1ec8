"""One statement's analysis: the properties of every plan node's output, bottom-up, and what
the target engine decides on its own about the plan's sorts and aggregates.

A target (`sortlint.engines.spark`, `sortlint.engines.datafusion`) is an `Engine`: a transfer
table - for each node type, the function that gives the node's output properties from its
inputs' - and what it decides about the whole plan before that (which sorts its optimizer
removes). `propagate` runs a table over a plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sortlint.config import Config
from sortlint.engines.comparisons import Semantics
from sortlint.ordering import Evidence, Ordering, Properties
from sortlint.ordering.types import SqlType
from sortlint.plan import nodes as n

class Place(NamedTuple):
    """Where a clause was written, as evidence cites it: its line, and "line 4" - or
    "views/daily.sql:4" for a clause of a view defined in another file (`elsewhere`: what
    it makes rests on another file's code)."""

    line: int
    text: str
    elsewhere: bool = False


PlaceOf = Callable[["n.Span | None"], "Place | None"]


@dataclass(frozen=True)
class SortFate:
    """What the engine does with a sort the query writes, in words for a finding: `removed`
    when its optimizer drops the sort by itself (`keeps_exchange`: a global sort whose
    range shuffle stays; `keys_fold`: dropped because every key is a literal, whatever reads
    its rows), else the work it runs."""

    removed: bool
    text: str
    keeps_exchange: bool = False
    keys_fold: bool = False


@dataclass(frozen=True)
class AggregateStrategy:
    """How the engine runs a GROUP BY over the order it knows its input has.

    `streams`: it aggregates without a hash table as written. `key_order`: the GROUP BY key
    order (indices of the keys as written) that would let it stream, None when none would.
    `settings_off`: session settings it also needs that are off, each said as a sentence. `partially_ordered`: keys
    on which it streams while the others are not ordered (DataFusion's `PartiallySorted`).
    `input_ordering` and `evidence`: the order the engine knows, and what it comes from.
    """

    mode: str = "hash"  # in the engine's words, for `sortlint explain`
    streams: bool = False
    key_order: tuple[int, ...] | None = None
    settings_off: tuple[str, ...] = ()
    partially_ordered: tuple[int, ...] = ()
    input_ordering: Ordering = ()
    evidence: frozenset[Evidence] = frozenset()


@dataclass(frozen=True)
class Delivered:
    """The order the engine itself gives the rows a write receives: across all of them
    (`global`), or only inside each writing task (`partition`)."""

    keys: Ordering = ()
    scope: str = "partition"
    evidence: frozenset[Evidence] = frozenset()


@dataclass
class Analysis:
    """The properties of every node's output, each aggregate's streaming mode, and what the
    engine decides about sorts, aggregates and writes where its model says."""

    config: Config
    place_of: PlaceOf
    semantics: Semantics
    properties: dict[int, Properties] = field(default_factory=dict)
    parents: dict[int, n.Node] = field(default_factory=dict)
    # The window functions whose value something reads: an engine computes no other.
    read_windows: set[int] = field(default_factory=set)
    sort_fates: dict[int, SortFate] = field(default_factory=dict)
    strategies: dict[int, AggregateStrategy] = field(default_factory=dict)
    delivered: dict[int, Delivered] = field(default_factory=dict)
    # Windows that sort their input again by their own keys (a sort beneath is wasted).
    resorting_windows: set[int] = field(default_factory=set)
    # The engine's own bookkeeping for a node, computed on demand (Spark's reported ordering).
    engine_facts: dict[int, Any] = field(default_factory=dict)
    # Whether Spark plans a node's output as an empty relation (None: it may; `empty_relations`).
    empty_rows: dict[int, bool | None] = field(default_factory=dict)
    # The target's `Engine.hashes_any_value`.
    hashes_any_value: Callable[[SqlType], bool] = lambda value_type: True

    @property
    def target(self) -> str:
        return self.config.target

    def of(self, node: n.Node) -> Properties:
        return self.properties[id(node)]

    def parent(self, node: n.Node) -> n.Node | None:
        return self.parents.get(id(node))

    def computed(self, node: n.Window) -> list[n.WindowFunction]:
        """The window functions of the node the engine computes: those whose value is read
        (Spark's and DataFusion's optimizers prune the others, and their sorts with them)."""
        return [f for f in node.functions if id(f) in self.read_windows]

    def nothing_known(self) -> Properties:
        """The properties of rows nothing is known about, computed as the target computes."""
        return Properties(arithmetic=self.semantics.arithmetic)

    def sort_fate(self, node: n.Sort) -> SortFate | None:
        """What the engine does with the sort, when its model says."""
        return self.sort_fates.get(id(node))

    def strategy(self, node: n.Aggregate) -> AggregateStrategy:
        return self.strategies.get(id(node), AggregateStrategy())

    def window_resorts(self, node: n.Window) -> bool:
        """Whether the engine shuffles and sorts the window's input by the window's own keys
        whatever order it arrives in, when its model says."""
        return id(node) in self.resorting_windows

    def delivered_to(self, node: n.Write) -> Delivered | None:
        """The order the engine gives the rows of a write, when its model says."""
        return self.delivered.get(id(node))


# A node's output properties from its inputs' (each function takes one node type).
Transfer = Callable[[Any, Analysis], Properties]
TransferTable = Mapping[type, Transfer]


@dataclass(frozen=True)
class Engine:
    """A target: its transfer table, what it decides about the whole plan first, and whether
    a hash aggregate stays one with an `any_value` of a value of this type added (a rewrite
    that turns it into a sort aggregate costs a sort of every row)."""

    transfer: TransferTable
    prepare: Callable[[n.Node, Analysis], None] = lambda root, analysis: None
    hashes_any_value: Callable[[SqlType], bool] = lambda value_type: True


def propagate(node: n.Node, analysis: Analysis, table: TransferTable) -> Properties:
    """The properties of `node` and of everything below it, recorded in `analysis`. A node
    type the table does not name forgets every property."""
    # Children first, in order, without recursion: a plan is as deep as its chain of CTEs.
    stack = [(node, False)]
    while stack:
        each, children_done = stack.pop()
        if not children_done:
            stack.append((each, True))
            stack.extend((child, False) for child in reversed(each.children))
            continue
        transfer = table.get(type(each))
        analysis.properties[id(each)] = transfer(each, analysis) if transfer is not None else analysis.nothing_known()
    props: Properties = analysis.properties[id(node)]
    return props
