"""Units that stand for code sortlint does not analyse: a `sql=` built at run time, a
template with control flow, SQL a PySpark job assembles with `+` or `.format`.

Such code is not silently dropped: it is a unit whose plan is one `Opaque` node saying why
(`sortlint explain` prints it), and which reports nothing. Nothing in it may be edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sortlint.config import Config
from sortlint.plan.nodes import Opaque, Span
from sortlint.plan.statement import Statement
from sortlint.plan.tables import TableLookup
from sortlint.units import Unit

KIND = "opaque"


@dataclass(frozen=True)
class OpaqueSource:
    """The offset map of an opaque unit: its text is raw text, and every edit is refused."""

    start: int
    reason: str

    def to_raw(self, offset: int) -> int:
        return self.start + offset

    def uneditable(self, start: int, end: int) -> str:
        return self.reason


def opaque_unit(path: Path, raw: str, start: int, end: int, reason: str) -> Unit:
    """The unit of raw [start, end), not analysed for `reason`."""
    return Unit(path=path, text=raw[start:end], start=start, raw=raw, kind=KIND,
                offsets=OpaqueSource(start, reason), payload=reason)


def build(unit: Unit, tables: TableLookup, config: Config) -> Statement:
    """The plan of an opaque unit: one Opaque node saying why."""
    return Statement(unit, Opaque(span=Span(0, len(unit.text)), reason=str(unit.payload)))
