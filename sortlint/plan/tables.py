"""What the builder may know about the relations a query names.

Catalog tables contribute their declared column names (so unqualified references resolve);
views created earlier in the repository contribute their query, which is inlined where a
later statement reads the view, so that what the view's query guarantees is seen through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sortlint.units import Unit

if TYPE_CHECKING:
    from sqlglot import exp

    from sortlint.plan.spans import Spans


@dataclass(frozen=True)
class ViewDefinition:
    """`CREATE VIEW name [(columns)] AS query`, as parsed from its own unit."""

    name: str  # lower case
    query: exp.Expression
    unit: Unit
    columns: tuple[str, ...] = ()  # the names of `CREATE VIEW v (a, b)`; () when not given
    # The span lookups of the statement `query` was parsed from, for the statements that
    # inline the view; None: made again from the unit's text.
    spans: Spans | None = field(default=None, compare=False, repr=False)


class TableLookup(Protocol):
    def columns(self, table: str) -> tuple[str, ...] | None:
        """Lower-case column names of a catalog table, or None when they are not known."""

    def view(self, table: str) -> ViewDefinition | None:
        """A view defined earlier in the repository under this (lower-case) name."""


class Tables:
    """A dict-backed `TableLookup`; the repository's statements add to it as they are read."""

    def __init__(
        self,
        catalog_columns: dict[str, tuple[str, ...] | None] | None = None,
        views: dict[str, ViewDefinition] | None = None,
    ) -> None:
        self._columns = {
            name.lower(): tuple(c.lower() for c in columns) if columns else None
            for name, columns in (catalog_columns or {}).items()
        }
        self._views = {name.lower(): view for name, view in (views or {}).items()}

    def columns(self, table: str) -> tuple[str, ...] | None:
        return self._columns.get(table.lower())

    def view(self, table: str) -> ViewDefinition | None:
        return self._views.get(table.lower())

    def register_view(self, definition: ViewDefinition) -> None:
        """A later `CREATE OR REPLACE VIEW` of the same name replaces the earlier one."""
        self._views[definition.name.lower()] = definition

    def register_table(self, name: str, columns: tuple[str, ...]) -> None:
        """A table created by `CREATE TABLE ... AS`: its columns are the query's outputs.
        A declaration in the catalog wins over what a statement shows."""
        if self._columns.get(name.lower()) is None and columns:
            self._columns[name.lower()] = tuple(c.lower() for c in columns)
