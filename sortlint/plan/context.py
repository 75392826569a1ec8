"""What building one unit's plan needs, threaded through the builder unchanged.

A context is immutable: entering a WITH clause or inlining a view makes a new one, so the
CTEs a query sees are exactly those defined before it, and a view cannot inline itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlglot import exp

from sortlint.ordering import SortOptions
from sortlint.plan.built import Built
from sortlint.plan.nodes import Span
from sortlint.plan.spans import Spans
from sortlint.plan.tables import TableLookup
from sortlint.units import Unit


@dataclass(frozen=True)
class CteDefinition:
    """`name [(columns)] AS (query)`, with the CTEs visible where it was defined. A CTE
    read twice is two subtrees: built at its first use, copied at the next (`cte_plans`)."""

    name: str
    query: exp.Expression
    columns: tuple[str, ...]
    visible: tuple[CteDefinition, ...]


@dataclass(frozen=True)
class Context:
    unit: Unit
    tables: TableLookup
    dialect: str
    target: str
    spans: Spans
    ctes: tuple[CteDefinition, ...] = ()  # innermost (latest) last
    inlining: frozenset[str] = frozenset()  # views being inlined, to stop a view reading itself
    # The plans of the CTEs built so far, by `id` of their definition (kept in the entry),
    # shared by every context derived from this one: a CTE's plan depends on nothing else.
    # The flag says whether a reader has the plan itself; the next reader gets a copy.
    cte_plans: dict[int, tuple[CteDefinition, Built, bool]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def cte(self, name: str) -> CteDefinition | None:
        for definition in reversed(self.ctes):
            if definition.name == name:
                return definition
        return None

    def with_ctes(self, with_: exp.With | None) -> Context:
        if with_ is None:
            return self  # most queries: no new context to make
        ctes = self.ctes
        for cte in with_.expressions:
            alias = cte.args.get("alias")
            columns = tuple(c.name for c in alias.columns) if alias is not None else ()
            ctes = (*ctes, CteDefinition(cte.alias.lower(), cte.this, columns, ctes))
        return replace(self, ctes=ctes)

    def text(self, span: Span | None, node: exp.Expression) -> str:
        """The text of a span as written; the node's SQL when there is no span."""
        if span is None:
            return node.sql(dialect=self.dialect)
        return self.unit.text[span.start : span.end]

    def default_options(self, descending: bool) -> SortOptions:
        """Null placement when the query does not spell it out: the target engine's."""
        return SortOptions.default(self.target, descending)
