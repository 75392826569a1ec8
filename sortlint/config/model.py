"""The resolved catalog and settings: typed, immutable, and free of raw YAML.

Everything downstream (the ordering engine seeding a Scan, the rules, the reports) reads these
objects only, so the parsing rules live in one place and a declaration can be compared, hashed
and shown with its location. Tuples, not lists, keep every object hashable.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property, lru_cache
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar, Literal, TypeVar

from sortlint.config.citations import cited
from sortlint.config.globs import excluded, excludes_folder, selected
from sortlint.config.syntax import BadText, table_parts
from sortlint.errors import ConfigError

Target = Literal["spark", "datafusion"]
Scope = Literal["global", "partition"]
StorageFormat = Literal["parquet", "orc", "delta", "csv", "json"]
STORAGE_FORMATS: tuple[StorageFormat, ...] = ("parquet", "orc", "delta", "csv", "json")
DbtRenderer = Literal["auto", "dbt", "builtin"]

DEFAULT_INCLUDE: tuple[str, ...] = ("**/*.sql", "**/*.py")


@dataclass(frozen=True)
class Location:
    """Where a declaration was written, so a finding that rests on it can point back at it."""

    path: Path | None = None
    line: int | None = None

    def __str__(self) -> str:
        path = cited(self.path) if self.path is not None else None
        if path is not None and self.line is not None:
            return f"{path}:{self.line}"
        if path is not None:
            return str(path)
        if self.line is not None:
            return f"line {self.line}"
        return "<unknown location>"


@dataclass(frozen=True)
class Column:
    """A declared column. Nullability matters: null placement is irrelevant only when not nullable.

    ``type`` is lower-cased and whitespace-normalised (``decimal(10,2)``), or None when unknown.
    """

    name: str
    type: str | None
    nullable: bool = True


@dataclass(frozen=True)
class OrderingItem:
    """One key of a declared ordering, with null placement always resolved.

    ``nulls_defaulted`` records that the user left placement to the target's default, so a
    message can say "Spark's default NULLS FIRST" rather than pretend the user wrote it.
    """

    column: str
    descending: bool
    nulls_first: bool
    nulls_defaulted: bool

    def __str__(self) -> str:
        direction = "DESC" if self.descending else "ASC"
        nulls = "NULLS FIRST" if self.nulls_first else "NULLS LAST"
        return f"{self.column} {direction} {nulls}"


@dataclass(frozen=True)
class DeclaredOrdering:
    """A lexicographic ordering the table's rows are declared to satisfy."""

    items: tuple[OrderingItem, ...]
    location: Location = Location()

    def __str__(self) -> str:
        return "[" + ", ".join(str(item) for item in self.items) + "]"


@dataclass(frozen=True)
class Bucketing:
    """A bucketed table's layout (``df.write.bucketBy(buckets, *by).sortBy(*sorted_by)``).

    Spark writes each bucket's rows, hash-partitioned on ``by``, to files of their own, each
    file sorted by ``sorted_by`` (empty: not sorted). Nothing is said about the order of the
    buckets or of the files of one bucket.
    """

    by: tuple[str, ...]
    buckets: int
    sorted_by: tuple[str, ...] = ()
    location: Location = Location()


@dataclass(frozen=True)
class Storage:
    """Where Spark reads a table that is not in its catalog: ``spark.read.format(format)
    .options(**options).load(path)``. ``path`` is a URI (``s3a://...``) or an absolute path
    (relative paths are resolved against the declaring file's directory when parsed)."""

    path: str
    format: StorageFormat = "parquet"
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Source:
    """What the catalog declares about one table: the facts that seed properties at a Scan.

    ``columns`` empty means the columns are unknown (nothing is checked against them).
    ``constants`` keeps declaration order as (column, value) pairs so the object stays hashable.
    """

    name: str
    columns: tuple[Column, ...] = ()
    orderings: tuple[DeclaredOrdering, ...] = ()
    constants: tuple[tuple[str, object], ...] = ()
    unique: tuple[tuple[str, ...], ...] = ()
    scope: Scope = "global"
    partitioned_by: tuple[str, ...] = ()
    engine_known: bool = False
    bucketing: Bucketing | None = None
    storage: Storage | None = None  # None: Spark reads the table by name from its catalog
    unbounded: bool = False  # DataFusion's CREATE UNBOUNDED EXTERNAL TABLE
    # `statistics: {rows: N}` (target datafusion): the row count DataFusion reads from the
    # Parquet files' footers, which decides which side of a hash join it builds.
    rows: int | None = None
    location: Location = Location()

    def column(self, name: str) -> Column | None:
        """The declared column of that name (case-insensitive, as Spark resolves columns)."""
        wanted = name.lower()
        return next((c for c in self.columns if c.name == wanted), None)


@dataclass(frozen=True)
class ColumnTypes:
    """The types of some of a table's columns, learned rather than declared: a dbt property
    file's `data_type`, the catalog `dbt docs generate` wrote. Not the list of the table's
    columns (a property file names those it documents) and no contract: nothing checks it.
    A column's type declared in the catalog (`Source.columns`) wins over these."""

    table: str
    types: tuple[tuple[str, str], ...]  # (column, type as the catalog writes it), lower case

    def as_dict(self) -> dict[str, str]:
        return dict(self.types)


@dataclass(frozen=True)
class SparkSettings:
    """Spark session settings that change what the planner does with an ordered input, or
    what an expression computes.

    Defaults are those of the Spark version declared (`spark: {version: "3.5"}`), else of
    Spark 4.3 (the version the model is measured on; tests/engines/test_spark_rules.py asks
    the installed Spark for its defaults): `spark.sql.execution.replaceHashWithSortAgg` is on
    since 4.3 (SPARK-58210; off from 3.3 to 4.2), `spark.sql.legacy.bucketedTableScan.outputOrdering`
    off since 3.0, `spark.sql.ansi.enabled` on since 4.0 (off, integer arithmetic wraps around
    and decimal overflow is NULL). Adaptive query execution is not a setting here: a
    finding's `effect` is the same with it on or off (tests/engines/test_spark_rules.py
    measures both), where AQE's choices of join strategy from sizes are not the fix's.
    """

    replace_hash_with_sort_agg: bool = True
    legacy_bucketed_scan_ordering: bool = False
    ansi: bool = True

    @classmethod
    def of_version(cls, major: int, minor: int) -> SparkSettings:
        """The defaults of Spark `major.minor`."""
        return cls(replace_hash_with_sort_agg=(major, minor) >= (4, 3), ansi=major >= 4)

    # Each field and the session setting it mirrors, as messages name it.
    SESSION_KEYS: ClassVar[dict[str, str]] = {
        "replace_hash_with_sort_agg": "spark.sql.execution.replaceHashWithSortAgg",
        "legacy_bucketed_scan_ordering": "spark.sql.legacy.bucketedTableScan.outputOrdering",
        "ansi": "spark.sql.ansi.enabled",
    }


@dataclass(frozen=True)
class DataFusionSettings:
    """DataFusion session settings that change what its planner does with an ordered input.

    `target_partitions` is `datafusion.execution.target_partitions`. DataFusion's default is
    the number of CPUs of the machine that runs the query - not the one sortlint runs on
    (a CI runner is not the cluster) - so when it is not given (None) sortlint knows no
    count and claims only what holds for every count: that of several partitions. The
    result never depends on the machine sortlint runs on, and the cache keyed by the
    configuration stays valid across machines.
    """

    target_partitions: int | None = None
    # `datafusion.optimizer.*`, defaults those of DataFusion (checked on the datafusion package).
    prefer_hash_join: bool = True
    repartition_joins: bool = True
    prefer_existing_sort: bool = False

    @property
    def join_algorithm(self) -> Literal["hash", "sort-merge"] | None:
        """The join DataFusion's physical planner picks for an equi-join: a sort-merge join
        only with several partitions, `repartition_joins` and not `prefer_hash_join`. None
        when that rests on a partition count not given."""
        if self.prefer_hash_join or not self.repartition_joins or self.target_partitions == 1:
            return "hash"
        return None if self.target_partitions is None else "sort-merge"

    @property
    def one_partition(self) -> bool:
        """Whether DataFusion reads each table as one stream (`target_partitions` 1): a
        declared `WITH ORDER` is then the order of all the table's rows, not of each
        partition's."""
        return self.target_partitions == 1


@dataclass(frozen=True)
class AirflowSettings:
    """What the Airflow front end reads besides the operators and hooks it knows:
    `sql_arguments` names, for a class of the project's own, the argument holding the SQL it
    runs - `(ClassName, keyword)` for an operator or a hook made with the SQL, and
    `(ClassName.method, keyword)` for a method given the SQL (as its first argument, or by
    that keyword)."""

    sql_arguments: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DbtOptions:
    """What a run renders dbt models with beyond the project's files: `--var` values (they win
    over `dbt_project.yml`, as in dbt) and the value of `is_incremental()` (false: a first
    build, which is what a model's full query describes); and, from `sortlint.yml`'s `dbt:`,
    what one rendering may cost: a template runs code of its own, which may never end or
    produce gigabytes (`render_timeout` seconds, `render_max_bytes` of output)."""

    vars: tuple[tuple[str, object], ...] = ()
    incremental: bool = False
    # Who renders a dbt project's models, "dbt" or "builtin": the command line's choice
    # (`renderer`), else $SORTLINT_DBT_RENDERER, else the configuration's
    # (`configured_renderer`), else the built-in renderer; "auto" is no choice
    # (`sortlint.sources.dbt.compiled.renderer` decides).
    renderer: DbtRenderer = "auto"
    configured_renderer: DbtRenderer = "auto"
    render_timeout: int = 10
    render_max_bytes: int = 50_000_000

    def __hash__(self) -> int:  # var values may be lists or mappings; renders are cached by this
        return hash(repr(self))


@dataclass(frozen=True)
class Config:
    """The whole configuration: which files and rules, which engine, and the catalog."""

    target: Target = "spark"
    dialect: str = "spark"
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ("SL",)
    ignore: tuple[str, ...] = ()
    # Leave out the findings whose fix changes nothing in Spark's plan (`Finding.effect`).
    ignore_noop: bool = False
    spark: SparkSettings = SparkSettings()
    datafusion: DataFusionSettings = DataFusionSettings()
    airflow: AirflowSettings = AirflowSettings()
    dbt: DbtOptions = DbtOptions()  # the command line's, and the budget of `dbt:` in the catalog
    sources: tuple[Source, ...] = ()
    column_types: tuple[ColumnTypes, ...] = ()  # learned from dbt (`with_column_types`)
    contracts_report: Path | None = None  # what `sortlint contracts --write-report` recorded
    # the documentation site rule links point at (a team's own mirror); None: the project's
    docs_url: str | None = None
    root: Path = field(default_factory=Path.cwd)
    path: Path | None = None

    def source(self, name: str) -> Source | None:
        """The declaration a query's table name refers to, or None.

        Names compare case-insensitively, part by part from the right, over the shorter of the
        two: a query's ``events`` finds a declared ``db.events`` (the query's database is not
        known here), a query's ``db.events`` finds a declared ``events``, but ``db.events`` never
        finds ``other.events``. An exact match wins; otherwise the declaration sharing the most
        parts wins; if two share as many (``a.events`` and ``b.events`` for ``events``), the
        reference is ambiguous and nothing is returned, because guessing a contract is unsafe.
        """
        return _named(self._named_sources, name)

    def types_of(self, table: str) -> dict[str, str]:
        """The column types learned for a table (`column_types`), found as `source` finds
        a declaration: column -> type."""
        found = _named(self._named_column_types, table)
        return found.as_dict() if found is not None else {}

    @cached_property
    def _named_sources(self) -> dict[str, list[tuple[tuple[str, ...], Source]]]:
        """Each declaration with its name's parts, parsed once, by the last part (a large
        project declares hundreds of tables, and every table a query names is looked up)."""
        return _by_last_part((source.name, source) for source in self.sources)

    @cached_property
    def _named_column_types(self) -> dict[str, list[tuple[tuple[str, ...], ColumnTypes]]]:
        return _by_last_part((types.table, types) for types in self.column_types)

    def with_column_types(self, extra: Iterable[ColumnTypes]) -> Config:
        """This config with more learned column types (from dbt)."""
        return replace(self, column_types=self.column_types + tuple(extra))

    def with_sources(self, extra: Iterable[Source]) -> Config:
        """This config with more declarations (from dbt ``meta``), refusing a second declaration.

        Two declarations of one table are never merged: which one is the contract would be a
        guess, so the error names both places.
        """
        merged = list(self.sources)
        seen = {source.name: source for source in merged}
        for source in extra:
            earlier = seen.get(source.name)
            if earlier is not None:
                raise ConfigError(
                    f"conflicting declarations of table {source.name!r} "
                    f"at {earlier.location} and {source.location}",
                    source.location.path,
                    source.location.line,
                )
            seen[source.name] = source
            merged.append(source)
        return replace(self, sources=tuple(merged))

    def selects(self, file: Path, resolved: Path | None = None) -> bool:
        """Whether the include/exclude globs (relative to `root`) select the file (whose
        resolved path is `resolved`, when known)."""
        return selected(file, self.root, self.include, self.exclude, resolved)

    def excludes(self, file: Path, resolved: Path | None = None) -> bool:
        """Whether an exclude glob matches the file (one named on the command line; its
        resolved path is `resolved`, when known)."""
        return excluded(file, self.root, self.exclude, resolved)

    def excludes_folder(self, folder: Path) -> bool:
        """Whether no file below `folder` can be selected (it need not be listed)."""
        return excludes_folder(folder, self.root, self.exclude)

    def rule_enabled(self, code: str) -> bool:
        return rule_selected(code, self.select, self.ignore)


def rule_selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """Whether a rule runs: the longest matching prefix in select/ignore decides, as in ruff.

    A code no ``select`` entry matches is off; on a tie, ``ignore`` wins.
    """
    selected = max((len(p) for p in select if code.startswith(p)), default=-1)
    ignored = max((len(p) for p in ignore if code.startswith(p)), default=-1)
    return selected > ignored


_Named = TypeVar("_Named")


def _by_last_part(named: Iterable[tuple[str, _Named]]) -> dict[str, list[tuple[tuple[str, ...], _Named]]]:
    found: dict[str, list[tuple[tuple[str, ...], _Named]]] = {}
    for name, value in named:
        parts = _name_parts(name)
        found.setdefault(parts[-1], []).append((parts, value))
    return found


def _named(found: dict[str, list[tuple[tuple[str, ...], _Named]]], name: str) -> _Named | None:
    """What `name` refers to among names by their last part (`Config.source` says how)."""
    wanted = _name_parts(name)
    best: _Named | None = None
    best_length = 0
    tied = False
    for have, value in found.get(wanted[-1], ()):
        if have == wanted:
            return value
        length = min(len(have), len(wanted))
        if have[-length:] != wanted[-length:]:
            continue
        if length > best_length:
            best, best_length, tied = value, length, False
        elif length == best_length:
            tied = True
    return None if tied else best


@lru_cache(maxsize=4096)  # asked for every table every statement names
def _name_parts(name: str) -> tuple[str, ...]:
    """A table name's parts, lower-cased; a name that is not valid syntax is split on dots."""
    try:
        return table_parts(name)
    except BadText:
        return tuple(name.lower().split("."))
