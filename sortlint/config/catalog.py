"""One table's declaration, read from a node: one function per section of a source.

``parse_source`` is the entry point for every place a table can be declared (``sources:`` in
sortlint.yml, ``[tool.sortlint.sources.*]`` in pyproject.toml, a dbt ``meta: {sortlint: ...}``
block), so the same checks apply everywhere and a broken declaration is never skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sortlint.config import nodes
from sortlint.config.model import (
    STORAGE_FORMATS,
    Bucketing,
    Column,
    DeclaredOrdering,
    Location,
    OrderingItem,
    Source,
    Storage,
    Target,
)
from sortlint.config.syntax import BadText, column_name, column_type, ordering_item, table_name
from sortlint.errors import ConfigError, Problems

SOURCE_KEYS = (
    "columns",
    "orderings",
    "constants",
    "unique",
    "scope",
    "partitioned_by",
    "engine_known",
    "bucketing",
    "location",
    "format",
    "options",
    "unbounded",
    "statistics",
)
STATISTICS_KEYS = ("rows",)
COLUMN_KEYS = ("type", "nullable")
BUCKETING_KEYS = ("by", "buckets", "sorted_by")
# A path with a scheme (s3a://, hdfs://, file:/, abfss://...) is a URI Spark resolves itself.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")


def parse_source(
    name: str,
    node: yaml.Node,
    path: Path | None,
    target: Target,
    *,
    line: int | None = None,
) -> Source:
    """Resolve one table's declaration; ``line`` is where its name is written, if not at ``node``.

    The target decides the defaults: null placement of orderings and ``engine_known``.
    """
    at = line if line is not None else nodes.line_of(node)
    table = parse_table_name(name, path, at)
    what = f"source {table!r}"
    given = {} if nodes.is_null(node) else nodes.fields(node, path, what, SOURCE_KEYS)

    problems = Problems()

    def section(key, parse, default, *args):
        """The section's parsed value, or its default when the key is absent or null, or
        wrong (then the error joins the others: a source is validated whole)."""
        if key in given:
            with problems.part():
                return parse(given[key], path, table, *args)
        return default

    storage = None
    with problems.part():
        storage = parse_storage(given, path, table)
    columns = section("columns", parse_columns, (), problems)
    scope = section("scope", parse_scope, "global")
    source = Source(
        name=table,
        columns=columns,
        orderings=section("orderings", parse_orderings, (), columns, target),
        constants=section("constants", parse_constants, (), columns),
        unique=section("unique", parse_unique, (), columns),
        scope=scope,
        partitioned_by=section("partitioned_by", parse_partitioned_by, (), columns, scope),
        engine_known=section("engine_known", parse_engine_known, target == "datafusion"),
        bucketing=section("bucketing", parse_bucketing, None, columns),
        storage=storage,
        unbounded=section("unbounded", parse_unbounded, False, target),
        rows=section("statistics", parse_statistics, None, target),
        location=Location(path, at),
    )
    if target == "spark" and source.engine_known:
        with problems.part():
            check_known_to_spark(source, given["engine_known"], path)
    problems.raise_any()
    return source


def parse_table_name(name: str, path: Path | None, line: int | None) -> str:
    """The canonical (lower-cased) spelling of a declared table's name."""
    return _checked(table_name, name, path, line)


def parse_columns(
    entry: nodes.Entry, path: Path | None, table: str, problems: Problems | None = None
) -> tuple[Column, ...]:
    """``columns: {name: type [not null]}`` or ``{name: {type: ..., nullable: ...}}``. With
    `problems`, a wrong column's error goes there and the column is declared with no type,
    so that the source's other sections are still checked against every column."""
    first_at: dict[str, nodes.Entry] = {}
    result = []
    found = problems if problems is not None else Problems()
    for column_entry in nodes.entries(entry.value, path, f"columns of source {table!r}"):
        name = _checked(column_name, column_entry.key, path, nodes.line_of(column_entry.key_node))
        earlier = first_at.get(name)
        if earlier is not None:
            nodes.fail(
                f"duplicate column {column_entry.key!r} in source {table!r}: {earlier.key!r} is "
                f"already declared at line {nodes.line_of(earlier.key_node)} "
                "(column names are case-insensitive)",
                column_entry.key_node,
                path,
            )
        first_at[name] = column_entry
        with found.part():
            result.append(parse_column(name, column_entry.value, path, table))
            continue
        result.append(Column(name, None))
    if problems is None:
        found.raise_any()
    return tuple(result)


def parse_column(name: str, node: yaml.Node, path: Path | None, table: str) -> Column:
    """One column's type and nullability; null means the type is unknown."""
    what = f"column {name!r} of source {table!r}"
    if nodes.is_null(node):
        return Column(name, None)
    if not isinstance(node, yaml.MappingNode):
        return Column(name, *_type(node, path, what))
    given = nodes.fields(node, path, what, COLUMN_KEYS)
    type_, nullable = _type(given["type"].value, path, what) if "type" in given else (None, True)
    if "nullable" in given:
        declared = nodes.boolean(given["nullable"].value, path, f"nullable of {what}")
        if declared and not nullable:
            nodes.fail(
                f"{what} says both 'not null' and nullable: true", given["nullable"].value, path
            )
        nullable = declared
    return Column(name, type_, nullable)


def _type(node: yaml.Node, path: Path | None, what: str) -> tuple[str, bool]:
    text = nodes.string(node, path, f"type of {what}")
    try:
        return column_type(text)
    except BadText as error:
        nodes.fail(f"{what}: {error}", node, path)


def parse_orderings(
    entry: nodes.Entry,
    path: Path | None,
    table: str,
    columns: tuple[Column, ...],
    target: Target,
) -> tuple[DeclaredOrdering, ...]:
    """``orderings: [[time], [amount, price desc nulls last]]``: a list of lists of items."""
    return tuple(
        parse_ordering(node, path, table, columns, target)
        for node in nodes.items(entry.value, path, f"orderings of source {table!r}")
    )


def parse_ordering(
    node: yaml.Node,
    path: Path | None,
    table: str,
    columns: tuple[Column, ...],
    target: Target,
) -> DeclaredOrdering:
    """One ordering: a non-empty list of items, no column twice."""
    item_nodes = nodes.items(node, path, f"each ordering of source {table!r}")
    if not item_nodes:
        nodes.fail(f"empty ordering in source {table!r}; list at least one column", node, path)
    items: list[OrderingItem] = []
    for item_node in item_nodes:
        item = parse_ordering_item(item_node, path, table, columns, target)
        if any(earlier.column == item.column for earlier in items):
            nodes.fail(
                f"column {item.column!r} appears twice in an ordering of source {table!r}",
                item_node,
                path,
            )
        items.append(item)
    return DeclaredOrdering(tuple(items), Location(path, nodes.line_of(node)))


def parse_ordering_item(
    node: yaml.Node,
    path: Path | None,
    table: str,
    columns: tuple[Column, ...],
    target: Target,
) -> OrderingItem:
    """``col [asc|desc] [nulls first|last]``, with the target's null placement when not written."""
    text = nodes.name(node, path, f"each item of an ordering of source {table!r}")
    column, descending, nulls_first = _checked(ordering_item, text, path, nodes.line_of(node))
    _require_column(column, node, path, columns, table, f"ordering item {text!r}")
    return OrderingItem(
        column=column,
        descending=descending,
        nulls_first=default_nulls_first(target, descending) if nulls_first is None else nulls_first,
        nulls_defaulted=nulls_first is None,
    )


def default_nulls_first(target: Target, descending: bool) -> bool:
    """The target's placement when none is written.

    Spark treats null as the smallest value (ASC NULLS FIRST, DESC NULLS LAST); DataFusion as
    the largest (ASC NULLS LAST, DESC NULLS FIRST).
    """
    return descending if target == "datafusion" else not descending


def parse_constants(
    entry: nodes.Entry, path: Path | None, table: str, columns: tuple[Column, ...]
) -> tuple[tuple[str, object], ...]:
    """``constants: {currency: USD}``: columns with one value on every row (null is a value)."""
    result: dict[str, object] = {}
    for constant in nodes.entries(entry.value, path, f"constants of source {table!r}"):
        column = _checked(column_name, constant.key, path, nodes.line_of(constant.key_node))
        _require_column(column, constant.key_node, path, columns, table, "constants")
        if column in result:
            nodes.fail(
                f"column {column!r} appears twice in constants of source {table!r}",
                constant.key_node,
                path,
            )
        what = f"constant {column!r} of source {table!r}"
        result[column] = nodes.scalar(constant.value, path, what)
    return tuple(result.items())


def parse_unique(
    entry: nodes.Entry, path: Path | None, table: str, columns: tuple[Column, ...]
) -> tuple[tuple[str, ...], ...]:
    """``unique: [[event_id], [host, time]]``: each inner list is a key no two rows share."""
    result = []
    for key_node in nodes.items(entry.value, path, f"unique of source {table!r}"):
        what = f"each unique key of source {table!r}"
        if isinstance(key_node, yaml.SequenceNode) and not key_node.value:
            nodes.fail(
                f"empty unique key in source {table!r}; list at least one column", key_node, path
            )
        result.append(_column_list(key_node, path, table, columns, what, "unique key"))
    return tuple(result)


def parse_scope(entry: nodes.Entry, path: Path | None, table: str) -> str:
    """``global``: the whole table reads in order; ``partition``: only within each partition."""
    value = nodes.string(entry.value, path, f"scope of source {table!r}").strip().lower()
    if value not in ("global", "partition"):
        nodes.fail(
            f"bad scope {entry.value.value!r} for source {table!r}; expected global or partition",
            entry.value,
            path,
        )
    return value


def parse_partitioned_by(
    entry: nodes.Entry,
    path: Path | None,
    table: str,
    columns: tuple[Column, ...],
    scope: str,
) -> tuple[str, ...]:
    """Columns whose rows share a partition; meaningful only for a partition-scoped ordering."""
    what = f"partitioned_by of source {table!r}"
    result = _column_list(entry.value, path, table, columns, what, "partitioned_by")
    if result and scope != "partition":
        nodes.fail(
            f"partitioned_by requires scope: partition (source {table!r})", entry.key_node, path
        )
    return result


def parse_engine_known(entry: nodes.Entry, path: Path | None, table: str) -> bool:
    """Whether the engine itself knows the order (and so fixes resting on it can be safe)."""
    return nodes.boolean(entry.value, path, f"engine_known of source {table!r}")


def parse_unbounded(entry: nodes.Entry, path: Path | None, table: str, target: str) -> bool:
    """`unbounded: true`: DataFusion's `CREATE UNBOUNDED EXTERNAL TABLE`, an infinite stream.
    Spark's batch queries read no such table."""
    unbounded = nodes.boolean(entry.value, path, f"unbounded of source {table!r}")
    if unbounded and target != "datafusion":
        nodes.fail(f"unbounded: true on source {table!r} needs target: datafusion", entry.key_node, path)
    return unbounded


def parse_statistics(entry: nodes.Entry, path: Path | None, table: str, target: str) -> int | None:
    """`statistics: {rows: N}`: what DataFusion knows of the table's files without reading
    them (a Parquet footer's row counts), which its JoinSelection compares to pick the side
    of a hash join it builds. Spark's join choice rests on other sizes: not taken there."""
    what = f"statistics of source {table!r}"
    if target != "datafusion":
        nodes.fail(f"{what} needs target: datafusion", entry.key_node, path)
    given = nodes.fields(entry.value, path, what, STATISTICS_KEYS)
    if "rows" not in given:
        return None
    node = given["rows"].value
    rows = nodes.scalar(node, path, what) if isinstance(node, yaml.ScalarNode) and node.tag == nodes.INT else None
    if not isinstance(rows, int) or rows < 0:
        nodes.fail(f"rows of {what} must be a whole number, 0 or more, got {nodes.describe(node)}", node, path)
    return rows


def check_known_to_spark(source: Source, entry: nodes.Entry, path: Path | None) -> None:
    """`engine_known: true` under Spark: only an order Spark itself reports can be known, and
    Spark reports a table's order per partition at most - never a global one."""
    what = f"engine_known: true on source {source.name!r}"
    if source.orderings and source.scope == "global":
        nodes.fail(
            f"{what}: Spark never reads a table in a global order (its file scan reads the "
            "largest files first); declare the ordering with scope: partition if the data "
            "source reports it to Spark, or drop engine_known (the ordering is then the "
            "table's layout, which writers must keep)",
            entry.key_node,
            path,
        )
    if source.scope != "partition" and source.bucketing is None:
        nodes.fail(
            f"{what} needs scope: partition (an ordering the data source reports to Spark) "
            "or bucketing: Spark knows no other order of a table",
            entry.key_node,
            path,
        )


def parse_bucketing(
    entry: nodes.Entry, path: Path | None, table: str, columns: tuple[Column, ...]
) -> Bucketing:
    """``bucketing: {by: [cols], buckets: N, sorted_by: [cols]}``, as Spark's bucket spec."""
    what = f"bucketing of source {table!r}"
    given = nodes.fields(entry.value, path, what, BUCKETING_KEYS)
    for required in ("by", "buckets"):
        if required not in given:
            nodes.fail(f"{what} needs {required!r}", entry.value, path)
    by = _column_list(given["by"].value, path, table, columns, f"by of {what}", "bucketing by")
    if not by:
        nodes.fail(f"empty 'by' in {what}; list at least one column", given["by"].value, path)
    buckets_node = given["buckets"].value
    if not (isinstance(buckets_node, yaml.ScalarNode) and buckets_node.tag == nodes.INT):
        nodes.fail(
            f"buckets of {what} must be a whole number, got {nodes.describe(buckets_node)}",
            buckets_node,
            path,
        )
    buckets = nodes.scalar(buckets_node, path, f"buckets of {what}")
    if buckets < 1:
        nodes.fail(f"buckets of {what} must be at least 1, got {buckets}", buckets_node, path)
    sorted_by: tuple[str, ...] = ()
    if "sorted_by" in given:
        sorted_by = _column_list(
            given["sorted_by"].value, path, table, columns, f"sorted_by of {what}", "bucketing sorted_by"
        )
    return Bucketing(by, buckets, sorted_by, Location(path, nodes.line_of(entry.key_node)))


def parse_storage(given: dict[str, nodes.Entry], path: Path | None, table: str) -> Storage | None:
    """``location: PATH`` with optional ``format`` (default parquet) and reader ``options``:
    the table is files Spark reads by path rather than a name in its catalog."""
    if "location" not in given:
        for key in ("format", "options"):
            if key in given:
                nodes.fail(
                    f"{key} of source {table!r} needs a location (a table Spark reads by name "
                    "has its own format)",
                    given[key].key_node,
                    path,
                )
        return None
    node = given["location"].value
    text = nodes.string(node, path, f"location of source {table!r}").strip()
    if not text:
        nodes.fail(f"empty location for source {table!r}", node, path)
    if not _URI.match(text) and not Path(text).is_absolute() and path is not None:
        text = str((path.parent / text).resolve())
    format_ = "parquet"
    if "format" in given:
        format_node = given["format"].value
        format_ = nodes.string(format_node, path, f"format of source {table!r}").strip().lower()
        if format_ not in STORAGE_FORMATS:
            nodes.fail(
                f"bad format {format_node.value!r} for source {table!r}; expected one of "
                f"{', '.join(STORAGE_FORMATS)}",
                format_node,
                path,
            )
    options: tuple[tuple[str, str], ...] = ()
    if "options" in given:
        options = tuple(
            (option.key, _option_value(option, path, table))
            for option in nodes.entries(given["options"].value, path, f"options of source {table!r}")
        )
    return Storage(text, format_, options)  # type: ignore[arg-type]


def _option_value(option: nodes.Entry, path: Path | None, table: str) -> str:
    """A reader option as Spark takes it: text (``header: true`` is the string "true")."""
    value = nodes.scalar(option.value, path, f"option {option.key!r} of source {table!r}")
    if value is None:
        nodes.fail(f"option {option.key!r} of source {table!r} has no value", option.value, path)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _column_list(
    node: yaml.Node,
    path: Path | None,
    table: str,
    columns: tuple[Column, ...],
    what: str,
    context: str,
) -> tuple[str, ...]:
    """A list of distinct column names, each checked against the declared columns."""
    result: list[str] = []
    for item in nodes.items(node, path, what):
        text = nodes.name(item, path, f"each item of {what}")
        column = _checked(column_name, text, path, nodes.line_of(item))
        _require_column(column, item, path, columns, table, context)
        if column in result:
            nodes.fail(f"column {column!r} appears twice in {what}", item, path)
        result.append(column)
    return tuple(result)


def _require_column(
    column: str,
    node: yaml.Node,
    path: Path | None,
    columns: tuple[Column, ...],
    table: str,
    context: str,
) -> None:
    """When the columns are declared, every name the declaration uses must be one of them."""
    if columns and all(c.name != column for c in columns):
        nodes.fail(
            f"{context} names column {column!r}, which is not among the columns of source "
            f"{table!r} ({', '.join(c.name for c in columns)})",
            node,
            path,
        )


def _checked(parse, text: str, path: Path | None, line: int | None):
    """Run a text grammar, turning its complaint into an error at the given line."""
    try:
        return parse(text)
    except BadText as error:
        raise ConfigError(str(error), path, line) from None
