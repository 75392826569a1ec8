"""What the builder may know about the relations a query names.

Catalog tables contribute their declared column names (so unqualified references resolve);
views created earlier in the repository contribute their query, which is inlined where a
later statement reads the view, so that what the view's query guarantees is seen through it.
A table another statement wrote (`CREATE TABLE ... AS`, a dbt model) contributes its columns
and what its rows are known to satisfy (`stored`): the row-set facts of the query that wrote
them, never their order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sortlint.units import Unit

if TYPE_CHECKING:
    from sqlglot import exp

    from sortlint.ordering import Properties

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

    def stored(self, table: str) -> Properties | None:
        """What the rows of a table written earlier in the repository satisfy, over its
        unqualified column names (see `sortlint.engines.stored`); None when nothing is known."""


def qualified(table: str) -> bool:
    """Whether a table's name says its database (`db.t`): a `USE` leaves what it names as it
    was, where a name without one then names another database's table."""
    return "." in table


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
        self._stored: dict[str, Properties] = {}

    def columns(self, table: str) -> tuple[str, ...] | None:
        return self._columns.get(table.lower())

    def view(self, table: str) -> ViewDefinition | None:
        return self._views.get(table.lower())

    def stored(self, table: str) -> Properties | None:
        return self._stored.get(table.lower())

    def forget_unqualified(self) -> None:
        """Forget the tables and views named without a database (after `USE`, such a name
        names another database's table)."""
        for names in (self._columns, self._views, self._stored):
            for name in [name for name in names if not qualified(name)]:
                del names[name]

    def register_view(self, definition: ViewDefinition) -> None:
        """A later `CREATE OR REPLACE VIEW` of the same name replaces the earlier one."""
        self._views[definition.name.lower()] = definition

    def register_table(self, name: str, columns: tuple[str, ...], stored: Properties | None = None) -> None:
        """A table a statement wrote (`CREATE TABLE ... AS`, `INSERT`): its columns are the
        query's outputs - a declaration in the catalog wins over what a statement shows -
        and `stored` is what its rows satisfy now: the latest write says (None: nothing)."""
        if self._columns.get(name.lower()) is None and columns:
            self._columns[name.lower()] = tuple(c.lower() for c in columns)
        if stored is None:
            self._stored.pop(name.lower(), None)
        else:
            self._stored[name.lower()] = stored
