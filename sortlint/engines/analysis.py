"""One statement's analysis: the properties of every plan node's output, bottom-up.

A target (`sortlint.engines.spark`, `sortlint.engines.datafusion`) is a transfer table:
for each node type, the function that gives the node's output properties from its inputs'.
`propagate` runs a table over a plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sortlint.config import Config
from sortlint.engines.comparisons import Semantics
from sortlint.ordering import Permutation, Properties
from sortlint.plan import nodes as n

LineOf = Callable[["n.Span | None"], "int | None"]


@dataclass
class Analysis:
    """The properties of every node's output, and each aggregate's streaming mode."""

    config: Config
    line_of: LineOf
    semantics: Semantics
    properties: dict[int, Properties] = field(default_factory=dict)
    permutations: dict[int, Permutation] = field(default_factory=dict)
    parents: dict[int, n.Node] = field(default_factory=dict)
    # The window functions whose value something reads: an engine computes no other.
    read_windows: set[int] = field(default_factory=set)

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

    def permutation(self, node: n.Aggregate) -> Permutation:
        return self.permutations[id(node)]


# A node's output properties from its inputs' (each function takes one node type).
Transfer = Callable[[Any, Analysis], Properties]
TransferTable = Mapping[type, Transfer]


def propagate(node: n.Node, analysis: Analysis, table: TransferTable) -> Properties:
    """The properties of `node` and of everything below it, recorded in `analysis`. A node
    type the table does not name forgets every property."""
    for child in node.children:
        propagate(child, analysis, table)
    transfer = table.get(type(node))
    props = transfer(node, analysis) if transfer is not None else analysis.nothing_known()
    analysis.properties[id(node)] = props
    return props
