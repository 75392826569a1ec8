"""The tables a query can name across a repository: the catalog's, and the views and tables
the statements of files read so far created."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sortlint.config import Config
from sortlint.plan.tables import Tables, ViewDefinition, qualified

if TYPE_CHECKING:
    from sortlint.ordering import Properties
    from sortlint.plan.statement import Statement


class RepositoryTables:
    """The tables a query can name: the catalog's (matched as `Config.source` matches
    names, so `events` finds `db.events`), and the views and tables statements created.

    `define(name)` is asked, once per name, before a name is looked up: it may analyse the
    file that defines the table (a dbt model), which registers it here."""

    def __init__(self, config: Config, define: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.created = Tables()
        self.define = define
        self.asked: set[str] = set()
        self.spanned: dict[str, ViewDefinition] = {}  # the views handed out, with their spans
        # `records.answer` of each name asked since `created` last changed: a check the cache
        # answers asks of the same catalog tables for every record it reads.
        self.answers: dict[str, str] = {}

    def columns(self, table: str) -> tuple[str, ...] | None:
        self._defined(table)
        created = self.created.columns(table)
        if created is not None:
            return created
        return self.declared_columns(table)

    def declared_columns(self, table: str) -> tuple[str, ...] | None:
        """The table's columns as the catalog declares them, whatever the files created."""
        source = self.config.source(table)
        return tuple(c.name for c in source.columns) or None if source else None

    def view(self, table: str) -> ViewDefinition | None:
        """The view as a statement inlines it, with its span lookups: made once per view
        here, not by every statement that inlines it (a view published by another file's
        record comes without them)."""
        view = self.defined_view(table)
        if view is None or view.spans is not None:
            return view
        spanned = self.spanned.get(view.name)
        if spanned is None or spanned.query is not view.query or spanned.unit is not view.unit:
            from sortlint.plan.parse import view_spans  # sqlglot: not for a check the cache answers

            spanned = self.spanned[view.name] = replace(view, spans=view_spans(view, self.config.dialect))
        return spanned

    def defined_view(self, table: str) -> ViewDefinition | None:
        """The view as it was defined (what a record's answer digests: no parsing)."""
        self._defined(table)
        return self.created.view(table)

    def stored(self, table: str) -> Properties | None:
        self._defined(table)
        return self.created.stored(table)

    def _defined(self, table: str) -> None:
        name = table.lower()
        if self.define is not None and name not in self.asked:
            self.asked.add(name)
            self.define(name)


class FileTables:
    """What one file's statements see: the repository's tables, plus what the file
    itself creates. Kept apart so a file can be analysed again (to prove a fix) from
    the same starting point."""

    def __init__(self, repository: RepositoryTables) -> None:
        self.repository = repository
        self.local = Tables()
        self.creators: list[Statement] = []
        self.written: set[str] = set()  # the tables its statements wrote: what they know now
        # The names the file asked the repository about: what it read from files before it.
        self.read: set[str] = set()
        # Whether a `USE` switched the database: a name without one is then another
        # database's table than the same name in other files (or before the switch), known
        # by the catalog's declarations and by what the file's statements after it write.
        self.switched = False

    def columns(self, table: str) -> tuple[str, ...] | None:
        local = self.local.columns(table)
        if local is not None:
            return local
        if self._elsewhere(table):
            return self.repository.declared_columns(table)
        self.read.add(table.lower())
        return self.repository.columns(table)

    def view(self, table: str) -> ViewDefinition | None:
        local = self.local.view(table)
        if local is not None or self._elsewhere(table):
            return local
        self.read.add(table.lower())
        return self.repository.view(table)

    def stored(self, table: str) -> Properties | None:
        if table.lower() in self.written:
            return self.local.stored(table)
        if self._elsewhere(table):
            return None
        self.read.add(table.lower())
        return self.repository.stored(table)

    def register(self, statement: Statement) -> None:
        if statement.switches_database:
            self.switched = True
            self.local.forget_unqualified()
            self.written = {name for name in self.written if qualified(name)}
            return
        name = statement.defined
        if name is not None:
            statement.register(self.local)
            self.written.add(name.lower())
            if not self._elsewhere(name):  # what other files mean by the name: theirs to see
                self.creators.append(statement)

    def _elsewhere(self, table: str) -> bool:
        """Whether the name, after a `USE`, is not the table other files name so."""
        return self.switched and not qualified(table)
