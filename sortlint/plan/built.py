"""The result of building a query or relation, and the signal that a part is not understood."""

from __future__ import annotations

from dataclasses import dataclass

from sortlint.plan.nodes import Node


@dataclass(frozen=True)
class Built:
    """A plan and what is known of its output names: `names` in order, and whether they are
    all of them (`complete`). A `SELECT *` over a table of unknown columns knows only the
    names it adds."""

    node: Node
    names: tuple[str, ...] = ()
    complete: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        """The names when complete, else () - the convention of `Alias.columns` and others."""
        return self.names if self.complete else ()


class NotUnderstood(Exception):
    """Raised where a construct cannot be modelled faithfully; the nearest enclosing query
    becomes `Opaque` with this reason, keeping the relations already built below it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
