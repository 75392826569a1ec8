"""`sortlint catalog import`: what Spark's catalog knows about tables, as catalog YAML.

For each table: its columns with types and nullability (as Spark reads them), its partition
columns (`partitioned_by`, with `scope: partition`: each file holds one value of them), its
bucket spec (`bucketing: {by, buckets, sorted_by}`), and an Iceberg table's sort order
(`WRITE ORDERED BY`, imported as a `scope: partition` ordering: it says how each data file is
written). Nothing is read but metadata: `DESCRIBE TABLE EXTENDED ... AS JSON` for tables of
the session catalog; for other catalogs (Iceberg's, for example), which do not describe
themselves as JSON, the table's schema, `DESCRIBE TABLE EXTENDED`'s partitioning rows and
`SHOW TBLPROPERTIES`.

Printed, the result is a `sources:` mapping to paste. With `--merge FILE` it is written into an
existing configuration with a round-trip YAML library, so the user's own declarations,
comments and layout stay; where the file already says something else than the catalog (a
column's type, a bucket spec), the file wins and the disagreement is reported. The merged
file is validated as sortlint reads it before it replaces the old one.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config.model import Bucketing
from sortlint.config.syntax import BadText, column_type, table_name
from sortlint.errors import UserError
from sortlint.integrations.spark.session import first_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SESSION_CATALOG = "spark_catalog"
# One field of Iceberg's `sort-order` table property (Spark3Util.describe(SortOrder)):
# "<term> ASC|DESC NULLS FIRST|LAST", the term a column or a transform such as bucket(16, id).
_SORT_FIELD = re.compile(r"\s*(.+?)\s+(ASC|DESC)\s+NULLS[ _](FIRST|LAST)\s*", re.IGNORECASE)
_PLAIN_NAME = re.compile(r"`?(\w+)`?")


@dataclass(frozen=True)
class ImportedColumn:
    name: str
    type: str | None  # None: a type the catalog grammar cannot say (see `note`)
    nullable: bool
    note: str = ""


@dataclass(frozen=True)
class TableDescription:
    """What the catalog says about one table, in the catalog's own terms."""

    name: str
    columns: tuple[ImportedColumn, ...]
    partition_columns: tuple[str, ...] = ()
    bucketing: Bucketing | None = None
    sort_order: tuple[str, ...] = ()  # ordering items, e.g. "ts desc nulls last"
    notes: tuple[str, ...] = ()
    provider: str | None = None  # parquet, delta, iceberg, ...
    snapshot: str | None = None  # an Iceberg table's current snapshot

    def declaration(self) -> dict:
        """The source's declaration as plain data, keys in the catalog's usual order."""
        result: dict = {"columns": {c.name: column_text(c) for c in self.columns}}
        if self.sort_order:
            result["orderings"] = [list(self.sort_order)]
        if self.partition_columns or self.sort_order:
            result["scope"] = "partition"
        if self.partition_columns:
            result["partitioned_by"] = list(self.partition_columns)
        if self.bucketing is not None:
            bucketing = {"by": list(self.bucketing.by), "buckets": self.bucketing.buckets}
            if self.bucketing.sorted_by:
                bucketing["sorted_by"] = list(self.bucketing.sorted_by)
            result["bucketing"] = bucketing
        return result


def column_text(column: ImportedColumn) -> str | None:
    if column.type is None:
        return None
    return column.type + ("" if column.nullable else " not null")


# --- reading the catalog ----------------------------------------------------------------------


def table_names(spark: SparkSession, tables: Sequence[str], database: str | None) -> list[str]:
    """The tables to import: those named, else every table (and view) of the database."""
    if tables:
        return list(tables)
    from pyspark.errors import AnalysisException

    database = database or spark.catalog.currentDatabase()
    try:
        listed = spark.catalog.listTables(database)
    except AnalysisException as error:
        raise UserError(f"--database {database}: {first_line(error)}") from None
    return sorted(
        ".".join([*(t.namespace or [database])[-1:], t.name]) for t in listed if not t.isTemporary
    )


def describe_table(spark: SparkSession, name: str) -> TableDescription | None:
    """The catalog's description of a table, or None when it is not in the catalog."""
    from pyspark.errors import AnalysisException

    try:
        schema = spark.table(name).schema
    except AnalysisException:
        return None
    try:
        described = json.loads(spark.sql(f"DESCRIBE TABLE EXTENDED {name} AS JSON").collect()[0][0])
    except AnalysisException:
        described = None
    columns = tuple(_column(f.name, f.dataType.simpleString(), f.nullable) for f in schema.fields)
    if described is not None:
        catalog = described.get("catalog_name", SESSION_CATALOG)
        parts = [*described.get("namespace", []), described["table_name"]]
        if catalog != SESSION_CATALOG:
            parts.insert(0, catalog)
        bucketing = None
        if described.get("num_buckets"):
            bucketing = Bucketing(
                tuple(c.lower() for c in described.get("bucket_columns", ())),
                int(described["num_buckets"]),
                tuple(c.lower() for c in described.get("sort_columns", ())),
            )
        partitions = tuple(c.lower() for c in described.get("partition_columns", ()))
        return TableDescription(
            _canonical(".".join(_quoted(p) for p in parts)),
            columns,
            partitions,
            bucketing,
            provider=(described.get("provider") or "").lower() or None,
        )
    return _describe_v2(spark, name, columns)


def _describe_v2(spark: SparkSession, name: str, columns) -> TableDescription:
    """A table of another catalog (Iceberg's...): partitioning rows and table properties."""
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
    partitions, notes = [], []
    in_partitioning = False
    for row in rows:
        label, value = (row[0] or "").strip(), (row[1] or "").strip()
        if label.startswith("#"):
            in_partitioning = label == "# Partitioning"
            continue
        if in_partitioning and label.startswith("Part "):
            plain = _PLAIN_NAME.fullmatch(value)
            if plain is not None:
                partitions.append(plain.group(1).lower())
            else:
                notes.append(f"partition transform {value} is not a column: not imported")
    properties = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {name}").collect()}
    sort_order, dropped = iceberg_sort_order(properties.get("sort-order", ""))
    if dropped:
        notes.append(f"sort order fields from {dropped} on are transforms, not columns: not imported")
    snapshot = properties.get("current-snapshot-id")
    return TableDescription(
        _canonical(name),
        columns,
        tuple(partitions),
        None,
        sort_order,
        tuple(notes),
        provider=(properties.get("provider") or "").lower() or None,
        snapshot=snapshot if snapshot not in (None, "none") else None,
    )


def iceberg_sort_order(text: str) -> tuple[tuple[str, ...], str | None]:
    """Iceberg's `sort-order` property as ordering items: the leading fields that are plain
    columns (a transform such as `bucket(16, id)` orders by something else), and the first
    field not imported, if any."""
    items: list[str] = []
    if not text.strip():
        return (), None
    for part in _split_fields(text):
        match = _SORT_FIELD.fullmatch(part)
        plain = _PLAIN_NAME.fullmatch(match.group(1)) if match else None
        if plain is None:
            return tuple(items), part.strip()
        items.append(f"{plain.group(1).lower()} {match.group(2).lower()} nulls {match.group(3).lower()}")
    return tuple(items), None


def _split_fields(text: str) -> list[str]:
    """Split on the commas between fields, not those inside a transform's parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _column(name: str, spark_type: str, nullable: bool) -> ImportedColumn:
    try:
        declared, _ = column_type(spark_type)
    except BadText:
        return ImportedColumn(name.lower(), None, nullable, f"type {spark_type} cannot be declared")
    return ImportedColumn(name.lower(), declared, nullable)


def _quoted(part: str) -> str:
    return part if re.fullmatch(r"\w+", part) else "`" + part.replace("`", "``") + "`"


def _canonical(name: str) -> str:
    try:
        return table_name(name)
    except BadText:
        return name


# --- printing ---------------------------------------------------------------------------------


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def _node(value, flow: bool = False):
    """Plain data as ruamel's commented containers; lists and small mappings in flow style."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = _node(item, flow=key in ("bucketing", "orderings") or flow)
        if flow:
            node.fa.set_flow_style()
        return node
    if isinstance(value, list):
        node = CommentedSeq(_node(item, flow=True) for item in value)
        node.fa.set_flow_style()
        return node
    return value


def _annotated(description: TableDescription):
    """The description's declaration node, with comments saying what was left out and why."""
    node = _node(description.declaration())
    for column in description.columns:
        if column.note:
            node["columns"].yaml_add_eol_comment(column.note, column.name)
    if description.partition_columns:
        node.yaml_add_eol_comment("each file holds one value of these (partition directories)", "partitioned_by")
    if description.sort_order:
        node.yaml_add_eol_comment("the table's sort order: each data file is written in it", "orderings")
    if description.notes:
        node.yaml_set_start_comment("\n".join(description.notes), indent=4)
    return node


def render(descriptions: Sequence[TableDescription]) -> str:
    """A `sources:` mapping holding every description."""
    from ruamel.yaml.comments import CommentedMap

    sources = CommentedMap()
    for description in descriptions:
        sources[description.name] = _annotated(description)
    out = io.StringIO()
    _yaml().dump(CommentedMap(sources=sources), out)
    return out.getvalue()


# --- merging into a configuration -------------------------------------------------------------


@dataclass
class Merge:
    """What merging did: tables added, declarations added, and disagreements left as they were."""

    added_tables: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def merge_into(path: Path, descriptions: Sequence[TableDescription]) -> Merge:
    """Write the descriptions into the configuration at `path`, keeping what it says."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    from sortlint.config import load_config

    if path.suffix not in (".yml", ".yaml"):
        raise UserError("--merge writes into a YAML configuration (sortlint.yml)", path)
    load_config(path)  # refuse to merge into a configuration that is already broken
    text = path.read_text(encoding="utf-8-sig")
    yaml = _yaml()
    try:
        document = yaml.load(text)
    except YAMLError as error:
        raise UserError(f"not valid YAML: {first_line(error)}", path) from None
    if document is None:
        document = CommentedMap()
    if not isinstance(document, dict):
        raise UserError("the configuration is not a mapping", path)
    if document.get("sources") is None:
        document["sources"] = CommentedMap()
    sources = document["sources"]
    result = Merge()
    for description in descriptions:
        key = next((k for k in sources if _canonical(str(k)) == description.name), None)
        if key is None:
            sources[description.name] = _annotated(description)
            result.added_tables.append(description.name)
            continue
        if sources[key] is None:
            sources[key] = CommentedMap()
        _merge_table(path, str(key), sources[key], description, result)
    out = io.StringIO()
    yaml.dump(document, out)
    _replace_validated(path, out.getvalue())
    return result


def _merge_table(path: Path, key: str, entry, description: TableDescription, result: Merge) -> None:
    imported = description.declaration()
    where = f"sources.{key}"

    def line_of(mapping, name) -> str:
        try:
            line = mapping.lc.key(name)[0] + 1
        except (AttributeError, KeyError, TypeError):
            return f"{path}"
        return f"{path}:{line}"

    def conflict(mapping, name, what: str, within: str = "") -> None:
        result.conflicts.append(f"{line_of(mapping, name)}: {where}.{within}{name}: {what} (kept yours)")

    columns = imported["columns"]
    declared_columns = entry.get("columns")
    if declared_columns is None:
        unknown = _names_used(entry) - set(columns)
        if unknown:
            conflict(
                entry,
                next(k for k in ("orderings", "unique", "constants", "bucketing", "partitioned_by") if k in entry),
                f"names column(s) {', '.join(sorted(unknown))}, which the table lacks; columns not imported",
            )
        else:
            entry["columns"] = _node(columns)
            result.added.append(f"{where}.columns")
    else:
        declared = {str(k).strip("`").lower(): k for k in declared_columns}
        for name, text in columns.items():
            if name not in declared:
                declared_columns[name] = text
                result.added.append(f"{where}.columns.{name}")
                continue
            yours = declared_columns[declared[name]]
            yours_type = yours.get("type") if isinstance(yours, dict) else yours
            if text is not None and yours_type is not None and not _same_column_type(str(yours_type), text):
                conflict(
                    declared_columns,
                    declared[name],
                    f"yours says {yours_type}, Spark's catalog says {text}",
                    "columns.",
                )
        for name, original in declared.items():
            if name not in columns:
                conflict(declared_columns, original, "the table has no such column", "columns.")
    for name in ("bucketing", "orderings"):
        if name not in imported:
            continue
        if entry.get(name) is None:
            entry[name] = _node(imported[name], flow=True)
            result.added.append(f"{where}.{name}")
        elif _plain(entry[name]) != imported[name] and name == "bucketing":
            conflict(entry, name, f"Spark's catalog says {_flow(imported[name])}")
        elif name == "orderings" and imported[name][0] not in _plain(entry[name]):
            conflict(entry, name, f"Spark's catalog has the sort order {_flow(imported[name][0])}")
    if "partitioned_by" in imported:
        if entry.get("partitioned_by") is None:
            if str(entry.get("scope", "partition")).lower() == "global":
                conflict(entry, "scope", f"the table is partitioned by {_flow(imported['partitioned_by'])}")
            else:
                entry["scope"] = "partition"
                entry["partitioned_by"] = _node(imported["partitioned_by"])
                result.added.append(f"{where}.partitioned_by")
        elif [str(c).lower() for c in entry["partitioned_by"]] != imported["partitioned_by"]:
            conflict(entry, "partitioned_by", f"Spark's catalog says {_flow(imported['partitioned_by'])}")
    elif "orderings" in imported and entry.get("scope") is None:
        entry["scope"] = "partition"


def _names_used(entry) -> set[str]:
    """The column names a declaration without `columns` uses."""
    names: set[str] = set()
    for ordering in entry.get("orderings") or ():
        names |= {str(item).split()[0].strip("`").lower() for item in ordering}
    for key in entry.get("unique") or ():
        names |= {str(c).lower() for c in key}
    names |= {str(c).lower() for c in (entry.get("constants") or {})}
    names |= {str(c).lower() for c in (entry.get("partitioned_by") or ())}
    bucketing = entry.get("bucketing") or {}
    for key in ("by", "sorted_by"):
        names |= {str(c).lower() for c in bucketing.get(key) or ()}
    return names


def _same_column_type(yours: str, catalog: str) -> bool:
    try:
        return column_type(yours)[0] == column_type(catalog)[0]
    except BadText:
        return False


def _plain(node):
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _flow(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return str(value)


def _replace_validated(path: Path, text: str) -> None:
    """Replace the file with `text` only if sortlint reads it without error."""
    from sortlint.config.discovery import parse_config_text
    from sortlint.rewriters.apply import write_atomically

    try:
        parse_config_text(path, text)
    except UserError as error:
        raise UserError(
            f"merging would make the configuration invalid ({error}); nothing written", path
        ) from None
    write_atomically(path, text)
