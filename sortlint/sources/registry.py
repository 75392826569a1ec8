"""The front ends: which files each reads, how it cuts them into units, how a unit becomes
a plan, and how a fix is written in its kind of file.

Each front end is one package of `sortlint.sources` and one `FrontEnd` record in
`FRONT_ENDS`, the only place that names them (as sqlglot bundles a dialect). Functions are
named as "module:function" strings and imported on first use, so checking plain SQL never
loads libcst or sqlfluff.

A file is read by the front ends whose suffixes match it, in the order of `FRONT_ENDS`. A
front end returns its units, or None when the file is not its kind. An *exclusive* front end
that claims a file owns it (`.sql`: an Airflow template, else a Jinja or dbt file, else plain
SQL); the units of non-exclusive ones are concatenated (`.py`: the SQL of DAG operators and
the DataFrame pipelines of one file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sortlint.config import Config
# Preparation and Reading are also what the workspace takes from here (it names no front end).
from sortlint.sources.frontend import FixShapes, Preparation, Reading
from sortlint.units import Unit

if TYPE_CHECKING:
    from sortlint.plan.statement import Statement
    from sortlint.plan.tables import TableLookup


# (path, raw, reading) -> the file's units, or None when the file is not this front end's.
UnitsOf = Callable[[Path, str, Reading], "list[Unit] | None"]
# (unit, tables, config) -> the unit's plan.
Build = Callable[[Unit, "TableLookup", Config], "Statement"]


@dataclass(frozen=True)
class UnitKind:
    """How a kind of unit becomes a plan, and how fixes are written in it ("module:object")."""

    build: str
    fixes: str


@dataclass(frozen=True)
class FrontEnd:
    name: str
    suffixes: tuple[str, ...]
    exclusive: bool
    units: str
    kinds: Mapping[str, UnitKind] = field(default_factory=dict)
    # (files, reading) -> Preparation: what the front end learns of the checked files'
    # projects before any file is read ("module:function"), if anything.
    prepare: str | None = None
    # (path, raw, reading, units of an earlier text) -> units, as `units` cuts them, from
    # what was cut before: only what an edit touched is cut again (the language server).
    resplit: str | None = None


SQL = UnitKind("sortlint.sources.sql.files:build", "sortlint.sources.sql.fixes:FIXES")
# A unit that stands for code sortlint does not analyse: its plan is one Opaque node saying
# why, and nothing in it may be edited.
OPAQUE = UnitKind("sortlint.sources.opaque:build", "sortlint.sources.sql.fixes:FIXES")

FRONT_ENDS: tuple[FrontEnd, ...] = (
    # Before dbt: claims only the templates a DAG of the project references.
    FrontEnd("airflow-templates", (".sql", ".hql"), True,
             "sortlint.sources.airflow.preparation:template_file_units", {"opaque": OPAQUE},
             prepare="sortlint.sources.airflow.preparation:prepare"),
    FrontEnd("dbt", (".sql", ".hql"), True, "sortlint.sources.dbt.preparation:template_units",
             {"dbt_model": UnitKind("sortlint.sources.dbt.models:build_model",
                                    "sortlint.sources.sql.fixes:FIXES")},
             prepare="sortlint.sources.dbt.preparation:prepare"),
    FrontEnd("sql", (".sql", ".hql"), True, "sortlint.sources.sql.files:sql_units", {"sql": SQL},
             prepare="sortlint.sources.sql.preparation:prepare",
             resplit="sortlint.sources.sql.files:resplit_sql_units"),
    FrontEnd("airflow", (".py",), False, "sortlint.sources.airflow.dags:dag_units", {"opaque": OPAQUE}),
    FrontEnd("pyspark", (".py",), False, "sortlint.sources.pyspark.units:pyspark_units",
             {"pyspark": UnitKind("sortlint.sources.pyspark.build:build_unit",
                                  "sortlint.sources.pyspark.fixes:FIXES"),
              "opaque": OPAQUE}),
)

SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(s for f in FRONT_ENDS for s in f.suffixes))


def prepare(files: Sequence[Path], reading: Reading) -> Preparation:
    """What every front end learns of the files' projects, merged: each sees the
    configuration the ones before it extended. A name two front ends give different
    definers has none (two files write it)."""
    preparation = Preparation(reading.config)
    shared: set[str] = set()
    for front_end in FRONT_ENDS:
        if front_end.prepare is None:
            continue
        reading.config = preparation.config
        found: Preparation = load(front_end.prepare)(files, reading)
        shared |= {name for name, path in found.definers.items()
                   if name in preparation.definers and preparation.definers[name].resolve() != path.resolve()}
        preparation = Preparation(
            found.config,
            {name: path for name, path in {**preparation.definers, **found.definers}.items() if name not in shared},
            {**preparation.contexts, **found.contexts},
            {**preparation.upstream, **found.upstream},
            found.file_context or preparation.file_context,
        )
    reading.config = preparation.config
    return preparation


def units_of(path: Path, raw: str, reading: Reading, before: Sequence[Unit] = ()) -> list[Unit]:
    """The file's units, as the front ends that read its suffix cut it; `before`, the units
    of an earlier text of it, spare a front end that can (`FrontEnd.resplit`) cutting
    again what no edit touched."""
    units: list[Unit] = []
    for front_end in FRONT_ENDS:
        if path.suffix not in front_end.suffixes:
            continue
        if before and front_end.resplit is not None:
            found = load(front_end.resplit)(path, raw, reading, before)
        else:
            found = load(front_end.units)(path, raw, reading)
        if found is None:
            continue
        if front_end.exclusive:
            return found
        units += found
    return units


def build(unit: Unit, tables: TableLookup, config: Config) -> Statement:
    """A unit's plan, made by the builder of its kind."""
    builder: Build = load(unit_kind(unit.kind).build)
    return builder(unit, tables, config)


def fixes_for(kind: str) -> FixShapes:
    return load(unit_kind(kind).fixes)


def unit_kind(kind: str) -> UnitKind:
    return _kinds()[kind]


@cache
def _kinds() -> dict[str, UnitKind]:
    kinds: dict[str, UnitKind] = {}
    for front_end in FRONT_ENDS:
        for name, made in front_end.kinds.items():
            if kinds.setdefault(name, made) != made:
                raise ValueError(f"two front ends define the unit kind {name!r} differently")
    return kinds


@cache
def load(name: str) -> Any:
    """The object a "module:object" string names, imported on first use."""
    module, attribute = name.split(":")
    return getattr(import_module(module), attribute)


def referenced_modules() -> Iterator[str]:
    """Every module the registry names, for the import-layering test."""
    for front_end in FRONT_ENDS:
        yield front_end.units.split(":")[0]
        if front_end.prepare is not None:
            yield front_end.prepare.split(":")[0]
        for made in front_end.kinds.values():
            yield made.build.split(":")[0]
            yield made.fixes.split(":")[0]
