"""A source's declarations one by one, each named as the contracts report names it.

`sortlint contracts` checks them, `--write-report` records them, and `check` looks them up
again when it says whether an unsafe finding's declaration was verified: one list, one
spelling, so the three always agree. Pure Python: no Spark here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sortlint.config.model import Bucketing, DeclaredOrdering, Location, Source

Kind = Literal["ordering", "unique", "constant", "not_null", "columns", "bucketing"]
KINDS: tuple[Kind, ...] = ("columns", "not_null", "constant", "unique", "ordering", "bucketing")


@dataclass(frozen=True)
class Declaration:
    """One checkable statement of the catalog about one table."""

    table: str
    kind: Kind
    text: str
    location: Location
    subject: object  # what is checked: the ordering, the key's columns, (column, value), ...
    groups: tuple[str, ...] = ()  # an ordering's partitioned_by (scope: partition)

    @property
    def key(self) -> tuple[str, str, str]:
        """How a report entry is matched to the declaration it was made for."""
        return (self.table, self.kind, self.text)


def declarations(source: Source) -> list[Declaration]:
    """Every declaration of `source`, in the order the report lists them."""
    where = source.location
    result: list[Declaration] = []

    def add(kind: Kind, text: str, subject: object, location: Location = where, groups=()) -> None:
        result.append(Declaration(source.name, kind, text, location, subject, groups))

    if source.columns:
        add("columns", columns_text(source), source.columns)
    for column in source.columns:
        if not column.nullable:
            add("not_null", column.name, column.name)
    for name, value in source.constants:
        add("constant", constant_text(name, value), (name, value))
    for key in source.unique:
        add("unique", unique_text(key), key)
    for ordering in source.orderings:
        groups = source.partitioned_by if source.scope == "partition" else ()
        add("ordering", ordering_text(ordering, source), ordering, ordering.location, groups)
    if source.bucketing is not None:
        add("bucketing", bucketing_text(source.bucketing), source.bucketing, source.bucketing.location)
    return result


def columns_text(source: Source) -> str:
    return ", ".join(
        f"{c.name} {c.type or '(any type)'}{'' if c.nullable else ' not null'}" for c in source.columns
    )


def constant_text(name: str, value: object) -> str:
    return f"{name} = {'NULL' if value is None else repr(value)}"


def unique_text(key: tuple[str, ...]) -> str:
    return f"({', '.join(key)})"


def ordering_text(ordering: DeclaredOrdering, source: Source) -> str:
    if source.scope == "global":
        return str(ordering)
    if source.partitioned_by:
        return f"{ordering} within partitions of ({', '.join(source.partitioned_by)})"
    return f"{ordering} within each partition"


def bucketing_text(bucketing: Bucketing) -> str:
    text = f"by ({', '.join(bucketing.by)}) into {bucketing.buckets} buckets"
    if bucketing.sorted_by:
        text += f", sorted by ({', '.join(bucketing.sorted_by)})"
    return text
