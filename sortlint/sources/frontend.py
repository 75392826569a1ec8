"""What a front end implements and receives: the per-check `Reading`, and the `FixShapes`
that write the rules' fixes in its kind of file (see `sortlint.sources.registry` for the
list of front ends)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sortlint.config import Config
from sortlint.diagnostics import Applicability, Edit
from sortlint.store import Store
from sortlint.units import Unit

# Where Jinja may render something (`{{`, `{%`, `{#`): a file without it is no template, for
# any front end that renders Jinja (dbt's, Airflow's).
JINJA_MARK = re.compile(r"\{[{%#]")
DBT_PROJECT_FILE = "dbt_project.yml"

# (folders to leave out) -> the files of the project a check reads (see `Reading`).
ProjectFiles = Callable[[Callable[[Path], bool]], Sequence[Path]]

if TYPE_CHECKING:
    from sortlint.ordering import SortOptions
    from sortlint.plan import nodes as n


@dataclass
class Reading:
    """What the front ends share during one check: its configuration, a memo for what they
    learn once per run and reuse across files (which template files the project's DAGs
    reference), and the persistent cache, when the run has one. A new check reads afresh.

    `project_files(skip)` lists the files of the project, resolved: those a check of the
    configuration's folder would read (its include and exclude globs, `.gitignore`), the
    folders `skip` says yes to left out, and the checked files; the checked files alone when
    there is no configuration file (the working directory is no project)."""

    config: Config
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    store: Store | None = field(default=None, repr=False)
    project_files: ProjectFiles = field(default=lambda skip: (), repr=False)
    # What the user should know of how a file was read, by file: (kind, text), a "note" (a
    # renderer's fallback, and why) or a "warning" (what in the configuration to correct).
    remarks: dict[Path, list[tuple[str, str]]] = field(default_factory=dict, repr=False)

    def remembered(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def note(self, path: Path, text: str) -> None:
        self._remark(path, ("note", text))

    def warn(self, path: Path, text: str) -> None:
        self._remark(path, ("warning", text))

    def _remark(self, path: Path, remark: tuple[str, str]) -> None:
        said = self.remarks.setdefault(path, [])
        if remark not in said:
            said.append(remark)


def dbt_project_root(reading: Reading, folder: Path) -> Path | None:
    """The nearest folder at or above a (resolved) folder that holds a dbt project, or None;
    each folder asked once per check. A dbt project's `.sql` files are dbt's."""
    known: dict[Path, Path | None] = reading.remembered(("dbt project roots",), dict)
    if folder not in known:
        above = folder.parent
        known[folder] = folder if holds_dbt_project(folder) else (
            None if above == folder else dbt_project_root(reading, above))
    return known[folder]


def holds_dbt_project(folder: Path) -> bool:
    return (folder / DBT_PROJECT_FILE).is_file()


def dbt_folders_key(root: Path) -> tuple[str, Path]:
    """Where in `Reading.memo` the dbt front end's preparation, which runs before the SQL
    front end's, records the folders of the dbt project at the configuration's root that are
    dbt's own (models, macros, `target/`): plain SQL beside them is read as SQL."""
    return ("dbt folders", root)


@dataclass(frozen=True)
class Preparation:
    """What a front end learns of the checked files' projects before any file is read.

    `config` is the run's configuration with what the projects declare (dbt's `meta`).
    `definers` maps a table name (lower case, as a query names it) to the file whose
    analysis defines it, for a file read from any other to be analysed first, on demand:
    checking one file reads only the files it depends on. `contexts` gives, for a file, a
    digest of everything outside the file that its analysis may depend on (a dbt project's
    macros, property files, configs); the cache keys a file's results by it, and by what
    `file_context` adds for the file itself (the models a dbt model resolves). `upstream`
    helps parallel work along."""

    config: Config
    definers: Mapping[str, Path] = field(default_factory=dict)
    contexts: Mapping[Path, str] = field(default_factory=dict)
    # The files a (resolved) file most likely reads what they define from, by a glance at
    # its text: the order worker processes take files in, upstream first. Never a result:
    # a file's analysis holds only where what it read holds.
    upstream: Mapping[Path, tuple[Path, ...]] = field(default_factory=dict)
    file_context: Callable[[Path, str], str | None] | None = None  # a (resolved) file, its text
    _folder_contexts: dict[Path, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def context(self, resolved: Path, raw: str) -> str:
        """The digests of the folders above a (resolved) path that have one (a project's
        root), and the file's own."""
        folder = resolved.parent
        if folder not in self._folder_contexts:
            self._folder_contexts[folder] = " ".join(
                self.contexts[f] for f in (folder, *folder.parents) if f in self.contexts
            )
        own = self.file_context(resolved, raw) if self.file_context is not None else None
        return self._folder_contexts[folder] if own is None else f"{self._folder_contexts[folder]} {own}"


class FixContext(Protocol):
    """What a fix shape may ask about the statement a rule is fixing."""

    @property
    def unit(self) -> Unit: ...

    def parent(self, node: n.Node) -> n.Node | None: ...


@dataclass(frozen=True)
class KeptColumn:
    """What the output column of a dropped group key may show instead, as the rule decided,
    each keeping the column's type and values: nothing new when another key shows the same
    column (`duplicate`); the key's constant (`constant`, SQL text of a value of the key's
    type); the kept key it equals and shares its type with (`equal_to`, its index); any
    value of the group (`any_value`: the same in every row, and of a type whose grouping
    shows the value as it is - not a float, whose -0.0 a GROUP BY shows as 0.0 - and whose
    `any_value` the engine still hashes: not a string under Spark). A shape takes the first
    it can write, and writes nothing when none is given."""

    duplicate: bool = False
    constant: str | None = None
    equal_to: int | None = None
    any_value: bool = False


@dataclass(frozen=True)
class WrittenKey:
    """A sort key a fix writes: an output column, and its direction and null placement."""

    column: str
    options: SortOptions


@dataclass(frozen=True)
class Rewrite:
    """Edits a shape writes when asked (they may be refused: `UneditableRegion`), what they
    do beyond what the rule asked (for the fix's message), and how far they can be trusted."""

    edits: Callable[[], "list[Edit] | None"]
    also: str = ""
    trust: Applicability = Applicability.SAFE


class FixShapes(Protocol):
    """How the edits a rule decides on are written in one kind of file. The rule decides
    what changes (which sort, which key, what a dropped key's column becomes); the shape
    writes it - a SQL clause, or a DataFrame call - keeping layout and comments. Each
    method returns None when the rewrite cannot be written exactly."""

    group_by: str  # how the file kind names its grouping, for messages

    def remove_sort(self, context: FixContext, sort: n.Sort) -> list[Edit] | None: ...

    def drop_sort_key(self, context: FixContext, sort: n.Sort, index: int) -> list[Edit] | None: ...

    def reorder_group_keys(
        self, context: FixContext, aggregate: n.Aggregate, order: list[int]
    ) -> Rewrite | None: ...

    def drop_group_key(
        self, context: FixContext, aggregate: n.Aggregate, index: int, kept: KeptColumn
    ) -> list[Edit] | None: ...

    def drop_window_key(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, index: int
    ) -> list[Edit] | None: ...

    def break_window_ties(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        """Order the window function's rows by `keys` after its own ORDER BY keys."""
        ...

    def sort_text(self, scope: str, keys: list[WrittenKey]) -> str:
        """How the file kind writes a sort of the rows (`global`: ORDER BY / orderBy, else
        each partition: SORT BY / sortWithinPartitions), for messages."""
        ...

    def establish_order(
        self, context: FixContext, write: n.Write, scope: str, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        """Make the rows a write receives sorted by `keys`: the query's final sort takes
        them, or such a sort is added."""
        ...
