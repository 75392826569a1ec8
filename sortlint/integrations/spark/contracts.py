"""`sortlint contracts`: every declaration of every source checked against its data, on Spark.

Each check is a distributed job whose result is a handful of rows; no table is collected:

* `columns` — the declared names and types against the schema Spark reads (no job);
* `not_null` and `constant` — one aggregate pass per table counts the rows with a NULL in a
  `not null` column and the rows whose value is not the declared one (NULL-safe equality
  with the declared value cast to the column's type);
* `unique` — group by the key and count; the keys held by more than one row are counted and
  the five most repeated shown (NULLs compare equal, as in GROUP BY);
* `ordering` and `bucketing` — the layout: one pass that reads every file in one task, in
  stored order, and compares neighbours as they stream past (`stored_order`). A global
  ordering holds when every file is in order and the files' key ranges do not overlap; a
  `scope: partition` ordering when every file is in order within each `partitioned_by`
  group; a bucketed table when every file is sorted by `sorted_by` and holds the rows of
  exactly the bucket its name says, as `pmod(hash(by), buckets)` computes it.

Why the layout is read with Spark's own file scan, one file per task: Spark packs files (and
splits of large files) into tasks largest first, so a plain read interleaves files and cuts
them. With `spark.sql.files.maxPartitionBytes` and `spark.sql.files.openCostInBytes` both
huge for the duration of the job, every file becomes one split of its own, read start to end
by one task — the reader the table's users run (Parquet, ORC, CSV, JSON, Delta), on whatever
storage and credentials the cluster has. Reading the files with pyarrow in the executors
instead would keep the order too, but only for Parquet and only where pyarrow can reach the
storage (not `s3a://` with Hadoop's credentials, not Delta's deletion vectors). The premise
is not taken on trust: every row carries Spark's `_metadata` (file path, block start and
length, and for Parquet the row's index in the file), and the job refuses to judge — "not
checked" — if a file was split, read by two tasks, or (Parquet) read out of its stored order.
`tests/integrations/spark/test_contracts.py` measures this on files written out of size order.

With `--sample FRACTION`, every check reads a Bernoulli sample of the rows (in stored order:
sampling drops rows, it never reorders them). A violation found in a sample is a violation;
"holds" then says it was a sample.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cmp_to_key
from typing import TYPE_CHECKING, Literal

from sortlint.config.model import Config, Source
from sortlint.errors import UserError
from sortlint.integrations.spark import stored_order
from sortlint.integrations.spark.declarations import Declaration, declarations
from sortlint.integrations.spark.session import describe_source, first_line, read_source
from sortlint.integrations.spark.stored_order import Key, OrderCheck

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

Status = Literal["holds", "violated", "not_checked"]
SAMPLE_SEED = 20240301
SHOWN = 5  # offending keys shown for a unique key
# Larger than any file: every file one split of its own (see the module docstring).
WHOLE_FILES = str(1 << 62)
# Spark's bucket file names end in _<bucket id>, before the extensions (BucketingUtils).
_BUCKET_FILE = re.compile(r".*_(\d+)(?:\..*)?$")


@dataclass(frozen=True)
class Outcome:
    """What the data says about one declaration: `evidence` in words (values as SQL
    literals, rows counted from 1), `details` the same as data (values as JSON values)."""

    declaration: Declaration
    status: Status
    evidence: str
    details: dict[str, object] = field(default_factory=dict)

    def as_json(self) -> dict:
        location = self.declaration.location
        return {
            "table": self.declaration.table,
            "kind": self.declaration.kind,
            "declaration": self.declaration.text,
            "declared_at": {"file": None if location.path is None else str(location.path),
                            "line": location.line},
            "status": self.status,
            "evidence": {"text": self.evidence, **self.details},
        }


@dataclass
class TableResult:
    source: Source
    outcomes: list[Outcome] = field(default_factory=list)


def with_dbt_declarations(config: Config) -> Config:
    """The configuration with the declarations of the dbt projects it includes, as `check`
    sees them."""
    from sortlint.sources.registry import Reading, prepare
    from sortlint.workspace.discovery import discover

    return prepare(discover([config.root], config).files, Reading(config)).config


def selected_sources(config: Config, names: Sequence[str]) -> list[Source]:
    """The sources `--table` names (as queries name tables), or all of them."""
    if not names:
        return list(config.sources)
    chosen = []
    for name in names:
        source = config.source(name)
        if source is None:
            raise UserError(f"--table {name}: no such source in the catalog ({config.path or 'no configuration file'})")
        if source not in chosen:
            chosen.append(source)
    return chosen


def check_contracts(
    spark: SparkSession,
    sources: Sequence[Source],
    sample: float | None = None,
    progress: Callable[[int, int, Source], None] | None = None,
) -> list[TableResult]:
    """Check every declaration of every source, one table after the other."""
    results = []
    for index, source in enumerate(sources, 1):
        if progress is not None:
            progress(index, len(sources), source)
        results.append(TableResult(source, TableCheck(spark, source, sample).outcomes()))
    return results


class TableCheck:
    """The checks of one table."""

    def __init__(self, spark: SparkSession, source: Source, sample: float | None) -> None:
        self.spark = spark
        self.source = source
        self.sample = sample

    def outcomes(self) -> list[Outcome]:
        """The outcome of every declaration; a job Spark fails leaves them all not checked."""
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        try:
            return self.run()
        except (PySparkException, Py4JError) as error:
            reason = f"Spark failed while checking {describe_source(self.source)}: {first_line(error)}"
            return [Outcome(d, "not_checked", reason) for d in declarations(self.source)]

    def run(self) -> list[Outcome]:
        from pyspark.errors import AnalysisException

        wanted = declarations(self.source)
        if not wanted:
            return []
        try:
            self.table = read_source(self.spark, self.source)
            schema = self.table.schema
        except AnalysisException as error:
            reason = f"Spark cannot read {describe_source(self.source)}: {first_line(error)}"
            return [Outcome(d, "not_checked", reason) for d in wanted]
        self.fields = {f.name.lower(): f for f in schema.fields}
        outcomes: dict[Declaration, Outcome] = {}
        runnable = []
        for declaration in wanted:
            if declaration.kind == "columns":
                outcomes[declaration] = self.columns(declaration)
                continue
            missing = [c for c in _columns_named(declaration) if c not in self.fields]
            if missing:
                outcomes[declaration] = Outcome(
                    declaration,
                    "not_checked",
                    f"column {missing[0]!r} is not among the table's columns "
                    f"({', '.join(f.name for f in schema.fields)})",
                )
            else:
                runnable.append(declaration)
        outcomes.update(self.row_counts([d for d in runnable if d.kind in ("not_null", "constant")]))
        for declaration in runnable:
            if declaration.kind == "unique":
                outcomes[declaration] = self.unique(declaration)
        outcomes.update(self.layout([d for d in runnable if d.kind in ("ordering", "bucketing")]))
        return [outcomes[d] for d in wanted]

    # -- helpers --------------------------------------------------------------------------

    def column(self, name: str):
        from pyspark.sql import functions as F

        return F.col(_quoted(self.fields[name].name))

    def sampled(self, frame: DataFrame) -> DataFrame:
        if self.sample is None:
            return frame
        return frame.sample(withReplacement=False, fraction=self.sample, seed=SAMPLE_SEED)

    def rows_phrase(self, rows: int) -> str:
        noun = "row" if rows == 1 else "rows"
        return f"{rows} {noun}" + (f" of a {self.sample:g} sample" if self.sample is not None else "")

    def counted(self, rows: int, **more: object) -> dict[str, object]:
        """An outcome's details: the rows read (and the sample they are), and `more`."""
        sampled = {} if self.sample is None else {"sample": self.sample}
        return {"rows": rows, **sampled, **more}

    # -- columns --------------------------------------------------------------------------

    def columns(self, declaration: Declaration) -> Outcome:
        problems = []
        for column in self.source.columns:
            actual = self.fields.get(column.name)
            if actual is None:
                problems.append(f"column {column.name} is missing")
            elif column.type is not None and not same_type(column.type, actual.dataType.simpleString()):
                problems.append(
                    f"column {column.name} is {actual.dataType.simpleString()}, declared {column.type}"
                )
        declared = {c.name for c in self.source.columns}
        extra = [f.name for f in self.table.schema.fields if f.name.lower() not in declared]
        if extra:
            problems.append(
                f"the table has columns the catalog does not declare: {', '.join(extra)} "
                "(SELECT * reads them)"
            )
        if problems:
            return Outcome(declaration, "violated", "; ".join(problems))
        return Outcome(declaration, "holds", f"{len(declared)} columns, names and types as declared")

    # -- not null and constants: one pass -------------------------------------------------

    def row_counts(self, wanted: list[Declaration]) -> dict[Declaration, Outcome]:
        from pyspark.sql import functions as F

        outcomes: dict[Declaration, Outcome] = {}
        measures = [F.count(F.lit(1)).alias("rows")]
        measured: list[tuple[Declaration, Column, str]] = []
        for index, declaration in enumerate(wanted):
            if declaration.kind == "not_null":
                condition = self.column(declaration.subject).isNull()
            else:
                name, value = declaration.subject
                declared, problem = self.declared_value(name, value)
                if problem is not None:
                    outcomes[declaration] = Outcome(declaration, "violated", problem)
                    continue
                condition = ~self.column(name).eqNullSafe(declared)
            measures.append(F.count_if(condition).alias(f"m{index}"))
            measured.append((declaration, condition, f"m{index}"))
        if not measured:
            return outcomes
        data = self.sampled(self.table)
        counts = data.agg(*measures).collect()[0]
        rows = counts["rows"]
        for declaration, condition, alias in measured:
            bad = counts[alias]
            if declaration.kind == "not_null":
                if bad:
                    evidence = f"{bad} of {self.rows_phrase(rows)} have NULL in {declaration.subject}"
                    outcomes[declaration] = Outcome(declaration, "violated", evidence,
                                                    self.counted(rows, null_rows=bad))
                else:
                    evidence = f"{self.rows_phrase(rows)}, none NULL"
                    outcomes[declaration] = Outcome(declaration, "holds", evidence, self.counted(rows))
            elif bad:
                name = declaration.subject[0]
                others = (
                    data.where(condition).groupBy(self.column(name).alias("value")).count()
                    .orderBy(F.desc("count"), "value").limit(3).collect()
                )
                shown = ", ".join(f"{sql_literal(r['value'])} ({r['count']})" for r in others)
                evidence = f"{bad} of {self.rows_phrase(rows)} hold another value: {shown}"
                values = [{"value": json_value(r["value"]), "rows": r["count"]} for r in others]
                outcomes[declaration] = Outcome(declaration, "violated", evidence,
                                                self.counted(rows, other_rows=bad, other_values=values))
            else:
                outcomes[declaration] = Outcome(declaration, "holds", f"all {self.rows_phrase(rows)}",
                                                self.counted(rows))
        return outcomes

    def declared_value(self, name: str, value: object) -> tuple[Column | None, str | None]:
        """The declared constant as a value of the column's type, or why it is none."""
        from pyspark.sql import functions as F

        data_type = self.fields[name].dataType
        if value is None:
            return F.lit(None).cast(data_type), None
        typed = F.lit(value).try_cast(data_type)
        if self.spark.range(1).select(typed.alias("v")).collect()[0]["v"] is None:
            return None, (
                f"the declared value {value!r} is not a {data_type.simpleString()} "
                "(the column's type)"
            )
        return typed, None

    # -- unique keys ----------------------------------------------------------------------

    def unique(self, declaration: Declaration) -> Outcome:
        from pyspark.sql import functions as F

        key = [self.column(c) for c in declaration.subject]
        data = self.sampled(self.table)
        counted = data.groupBy(*key).count()
        totals = counted.agg(
            F.sum("count").alias("rows"), F.count_if(F.col("count") > 1).alias("shared")
        ).collect()[0]
        rows, shared = totals["rows"] or 0, totals["shared"]
        if not shared:
            return Outcome(declaration, "holds", f"no two of {self.rows_phrase(rows)} share a key",
                           self.counted(rows))
        shown = counted.where(F.col("count") > 1).orderBy(F.desc("count"), *key).limit(SHOWN).collect()
        names = declaration.subject
        examples = "; ".join(
            "(" + ", ".join(f"{n}={sql_literal(row[i])}" for i, n in enumerate(names)) + f") × {row['count']}"
            for row in shown
        )
        noun = "key is" if shared == 1 else "keys are"
        keys = [{"key": {n: json_value(row[i]) for i, n in enumerate(names)}, "rows": row["count"]}
                for row in shown]
        return Outcome(
            declaration,
            "violated",
            f"{shared} {noun} shared by several of {self.rows_phrase(rows)}: {examples}",
            self.counted(rows, shared_keys=shared, examples=keys),
        )

    # -- layout ---------------------------------------------------------------------------

    def layout(self, wanted: list[Declaration]) -> dict[Declaration, Outcome]:
        if not wanted:
            return {}
        from pyspark.errors import AnalysisException

        try:
            available = set(self.table.select("_metadata.*").columns)
        except AnalysisException:
            reason = (
                f"Spark does not say which file each row of {describe_source(self.source)} comes "
                "from (no _metadata column: not a file source), so its stored order cannot be read"
            )
            return {d: Outcome(d, "not_checked", reason) for d in wanted}
        plan = _LayoutPlan(self, wanted, "row_index" in available)
        summaries = plan.run()
        return plan.judge(summaries)


class _LayoutPlan:
    """One scan of a table's files that checks all its ordering and bucketing declarations."""

    def __init__(self, check: TableCheck, wanted: list[Declaration], row_index: bool) -> None:
        self.check = check
        self.wanted = wanted
        self.row_index = row_index
        self.aliases: dict[str, str] = {}  # table column (lower-case) -> key column of the batches
        self.order_checks: dict[Declaration, OrderCheck] = {}
        for number, declaration in enumerate(wanted):
            order_check = self._order_check(f"o{number}", declaration)
            if order_check is not None:
                self.order_checks[declaration] = order_check
        self.bucketing = next((d for d in wanted if d.kind == "bucketing"), None)

    def _alias(self, column: str) -> str:
        return self.aliases.setdefault(column, f"k{len(self.aliases)}")

    def _order_check(self, name: str, declaration: Declaration) -> OrderCheck | None:
        if declaration.kind == "ordering":
            keys = tuple(
                Key(self._alias(item.column), item.descending, item.nulls_first)
                for item in declaration.subject.items
            )
            groups = tuple(self._alias(c) for c in declaration.groups)
            return OrderCheck(name, keys, groups)
        sorted_by = declaration.subject.sorted_by
        if not sorted_by:
            return None
        # Spark sorts bucket files ascending with its default NULLS FIRST (`sortBy`).
        return OrderCheck(name, tuple(Key(self._alias(c)) for c in sorted_by))

    def run(self) -> list:
        from pyspark.sql import functions as F

        check = self.check
        columns = [
            F.col("_metadata.file_path").alias(stored_order.FILE),
            F.col("_metadata.file_block_start").alias(stored_order.BLOCK_START),
            F.col("_metadata.file_block_length").alias(stored_order.BLOCK_LENGTH),
            F.col("_metadata.file_size").alias(stored_order.FILE_SIZE),
        ]
        if self.row_index:
            columns.append(F.col("_metadata.row_index").alias(stored_order.ROW_INDEX))
        if self.bucketing is not None:
            spec = self.bucketing.subject
            hashed = F.hash(*(check.column(c) for c in spec.by))
            columns.append(F.pmod(hashed, F.lit(spec.buckets)).cast("int").alias(stored_order.BUCKET))
        columns += [check.column(column).alias(alias) for column, alias in self.aliases.items()]
        scan = check.sampled(check.table.select(*columns))
        with _whole_files(check.spark):
            return summarise(scan, list(self.order_checks.values()), list(self.aliases.values()))

    # -- what the summaries say -----------------------------------------------------------

    def judge(self, summaries: list) -> dict[Declaration, Outcome]:
        problem = _unreadable_order(summaries)
        if problem is not None:
            return {d: Outcome(d, "not_checked", problem) for d in self.wanted}
        files = [s for s in summaries if s["rows"]]
        outcomes = {}
        for declaration in self.wanted:
            if declaration.kind == "ordering":
                outcomes[declaration] = self._ordering(declaration, files)
            else:
                outcomes[declaration] = self._bucketing(declaration, files)
        return outcomes

    def _rows(self, files: list) -> tuple[str, dict[str, object]]:
        """The files and rows read, in words and as details."""
        rows = sum(s["rows"] for s in files)
        noun = "file" if len(files) == 1 else "files"
        return f"{len(files)} {noun}, {self.check.rows_phrase(rows)}", self.check.counted(rows, files=len(files))

    def _disorder(self, declaration: Declaration, order_check: OrderCheck, files: list) -> Outcome | None:
        """The first file (by name) with out-of-order neighbours, or None. Rows are counted
        from 1 in the file's stored order (as Spark read them, where it cannot say)."""
        name = order_check.name
        bad = sorted((s for s in files if s[f"{name}_disorders"]), key=lambda s: s["file"])
        if not bad:
            return None
        first = bad[0]
        earlier, later = (position + 1 for position in first[f"{name}_bad_positions"])
        before, after = first[f"{name}_bad_before"], first[f"{name}_bad_after"]
        total = sum(s[f"{name}_disorders"] for s in bad)
        counted = "as stored" if self.row_index else "as Spark read them"
        evidence = (
            f"{first['file']}: rows {earlier} ({self._shown(order_check, before)}) and {later} "
            f"({self._shown(order_check, after)}) are out of order (rows counted from 1, {counted}); "
            f"{total} out-of-order neighbour{'s' if total != 1 else ''} in {len(bad)} of "
            f"{len(files)} files"
        )
        details = self.check.counted(
            sum(s["rows"] for s in files), file=first["file"], rows_out_of_order=[earlier, later],
            keys=[self._values(order_check, before), self._values(order_check, after)],
            rows_counted=counted, out_of_order=total, files_out_of_order=len(bad), files=len(files))
        return Outcome(declaration, "violated", evidence, details)

    def _values(self, order_check: OrderCheck, keys) -> dict[str, object]:
        names = {alias: column for column, alias in self.aliases.items()}
        return {names[k.column]: json_value(keys[k.column]) for k in order_check.keys}

    def _shown(self, order_check: OrderCheck, keys) -> str:
        names = {alias: column for column, alias in self.aliases.items()}
        return ", ".join(f"{names[k.column]}={sql_literal(keys[k.column])}" for k in order_check.keys)

    def _ordering(self, declaration: Declaration, files: list) -> Outcome:
        order_check = self.order_checks[declaration]
        disorder = self._disorder(declaration, order_check, files)
        if disorder is not None:
            return disorder
        read, details = self._rows(files)
        if self.check.source.scope == "partition":
            scope = "within each group" if order_check.groups else ""
            return Outcome(declaration, "holds", f"{read}; every file in order {scope}".rstrip(), details)
        overlap = self._overlap(declaration, order_check, files)
        if overlap is not None:
            return overlap
        return Outcome(
            declaration,
            "holds",
            f"{read}; every file in order and the files' key ranges do not overlap",
            details,
        )

    def _overlap(self, declaration: Declaration, order_check: OrderCheck, files: list) -> Outcome | None:
        name = order_check.name
        keys = order_check.keys

        def row(keys_row):
            return tuple(keys_row[k.column] for k in keys)

        def by_first(a, b):
            return stored_order.compare_rows(row(a[f"{name}_first"]), row(b[f"{name}_first"]), keys)

        ordered = sorted(files, key=cmp_to_key(by_first))
        for before, after in zip(ordered, ordered[1:]):
            last, first = before[f"{name}_last"], after[f"{name}_first"]
            if stored_order.compare_rows(row(last), row(first), keys) > 0:
                evidence = (
                    f"the key ranges of {before['file']} ({self._shown(order_check, before[f'{name}_first'])}"
                    f" … {self._shown(order_check, last)}) and {after['file']} "
                    f"({self._shown(order_check, first)} … "
                    f"{self._shown(order_check, after[f'{name}_last'])}) overlap: no order of the "
                    "files reads the table in order"
                )
                ranges = [{"file": summary["file"],
                           "first": self._values(order_check, summary[f"{name}_first"]),
                           "last": self._values(order_check, summary[f"{name}_last"])}
                          for summary in (before, after)]
                return Outcome(declaration, "violated", evidence, {"overlapping_files": ranges})
        return None

    def _bucketing(self, declaration: Declaration, files: list) -> Outcome:
        spec = declaration.subject
        catalog = self._catalog_mismatch(spec)
        if catalog is not None:
            return Outcome(declaration, "violated", catalog)
        for summary in sorted(files, key=lambda s: s["file"]):
            named = _BUCKET_FILE.match(summary["file"])
            if named is None:
                return Outcome(
                    declaration,
                    "violated",
                    f"{summary['file']} is not a bucket file (its name does not end in _<bucket>)",
                )
            bucket = int(named.group(1))
            low, high = summary["bucket_min"], summary["bucket_max"]
            if bucket >= spec.buckets or low != bucket or high != bucket:
                seen = f"{low}" if low == high else f"{low} to {high}"
                return Outcome(
                    declaration,
                    "violated",
                    f"{summary['file']} is bucket {bucket} but holds rows of bucket {seen} "
                    f"(pmod(hash({', '.join(spec.by)}), {spec.buckets}))",
                    {"file": summary["file"], "bucket": bucket, "buckets_held": [low, high]},
                )
        order_check = self.order_checks.get(declaration)
        if order_check is not None:
            disorder = self._disorder(declaration, order_check, files)
            if disorder is not None:
                return disorder
        sortedness = "; every bucket file sorted" if order_check is not None else ""
        read, details = self._rows(files)
        return Outcome(declaration, "holds", f"{read}; every file holds one bucket{sortedness}", details)

    def _catalog_mismatch(self, spec) -> str | None:
        """How Spark's catalog disagrees with the declared bucket spec (tables read by name)."""
        if self.check.source.storage is not None:
            return None
        from sortlint.integrations.spark.catalog_import import describe_table

        description = describe_table(self.check.spark, self.check.source.name)
        if description is None:
            return None
        actual = description.bucketing
        if actual is None:
            return "Spark's catalog says the table is not bucketed"
        if (actual.by, actual.buckets, actual.sorted_by) != (spec.by, spec.buckets, spec.sorted_by):
            sorted_by = f", sorted by ({', '.join(actual.sorted_by)})" if actual.sorted_by else ""
            return (
                f"Spark's catalog says: by ({', '.join(actual.by)}) into {actual.buckets} "
                f"buckets{sorted_by}"
            )
        return None


def render_text(results: Sequence[TableResult]) -> str:
    """One line per declaration, where it is declared first, and a summary."""
    lines = []
    counts = {"holds": 0, "violated": 0, "not_checked": 0}
    for result in results:
        for outcome in result.outcomes:
            declaration = outcome.declaration
            counts[outcome.status] += 1
            status = outcome.status.replace("_", " ")
            lines.append(
                f"{declaration.location}: {declaration.table}: {declaration.kind.replace('_', ' ')} "
                f"{declaration.text}: {status}: {outcome.evidence}"
            )
    total = sum(counts.values())
    tables = len(results)
    lines.append(
        f"Checked {total} declaration{'s' if total != 1 else ''} of {tables} "
        f"table{'s' if tables != 1 else ''}: {counts['holds']} hold, {counts['violated']} "
        f"violated, {counts['not_checked']} not checked."
    )
    return "\n".join(lines) + "\n"


def summarise(scan: DataFrame, checks: list[OrderCheck], key_columns: list[str]) -> list:
    """Run `stored_order.check_files` over every task of `scan`: one summary row per file
    (per `_file` value) with the first and last keys and the first out-of-order pair of each
    check. `scan` has the `stored_order` input columns and the `key_columns`."""
    import pyarrow as pa
    from pyspark import cloudpickle
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
    from pyspark.sql.types import StructType

    key_schema = StructType([scan.schema[c] for c in key_columns])
    key_types = dict(zip(key_columns, to_arrow_schema(key_schema, timezone="UTC").types))
    arrow_schema = pa.schema(stored_order.summary_fields(checks, key_types))
    # Sent with the job by value, so the executors need pyarrow but no sortlint installed.
    cloudpickle.register_pickle_by_value(stored_order)

    def summaries(batches, checks=checks, schema=arrow_schema):
        return stored_order.check_files(batches, checks, schema)

    spark_schema = from_arrow_schema(arrow_schema, prefer_timestamp_ntz=True)
    return scan.mapInArrow(summaries, spark_schema).collect()


def _unreadable_order(summaries: list) -> str | None:
    """Why the scan did not show each file whole and in stored order, or None."""
    seen: set[str] = set()
    for summary in summaries:
        file = summary["file"]
        if file in seen:
            return f"Spark read {file} in more than one task, so its stored order cannot be read"
        seen.add(file)
        if summary["block_start"] != 0 or summary["block_length"] < summary["file_size"]:
            return (
                f"Spark split {file} (read bytes {summary['block_start']} to "
                f"{summary['block_start'] + summary['block_length']} of {summary['file_size']}), "
                "so its stored order cannot be read"
            )
        if not summary["stored_order"]:
            return f"Spark did not read the rows of {file} in their stored order"
    return None


class _whole_files:
    """Session settings under which every file is one split, restored afterwards."""

    SETTINGS = {
        "spark.sql.files.maxPartitionBytes": WHOLE_FILES,
        "spark.sql.files.openCostInBytes": WHOLE_FILES,
        "spark.sql.files.maxPartitionNum": None,  # would coalesce splits again
    }

    def __init__(self, spark: SparkSession) -> None:
        self.conf = spark.conf

    def __enter__(self) -> None:
        self.saved = {key: self.conf.get(key, None) for key in self.SETTINGS}
        for key, value in self.SETTINGS.items():
            if value is None:
                self.conf.unset(key)
            else:
                self.conf.set(key, value)

    def __exit__(self, *exc) -> None:
        for key, value in self.saved.items():
            if value is None:
                self.conf.unset(key)
            else:
                self.conf.set(key, value)


# --- types ------------------------------------------------------------------------------------

# Spellings Spark's parser accepts for one type, and the name its schema prints.
_TYPE_ALIASES = {
    "integer": "int",
    "long": "bigint",
    "short": "smallint",
    "byte": "tinyint",
    "real": "float",
    "double precision": "double",
    "dec": "decimal",
    "numeric": "decimal",
    "bool": "boolean",
    "timestamp_ltz": "timestamp",
}


def same_type(declared: str, actual: str) -> bool:
    """Whether a declared type names Spark's type (aliases and decimal's defaults allowed)."""
    return _canonical_type(declared) == _canonical_type(actual)


def _canonical_type(text: str) -> str:
    text = text.lower().replace(" ", "")
    for alias, name in sorted(_TYPE_ALIASES.items(), key=lambda item: -len(item[0])):
        alias = alias.replace(" ", "")
        if text == alias or text.startswith(alias + "("):
            text = name + text[len(alias):]
            break
    if text == "decimal":
        return "decimal(10,0)"
    if re.fullmatch(r"decimal\(\d+\)", text):
        return text[:-1] + ",0)"
    return text


# --- small pieces -----------------------------------------------------------------------------


def _columns_named(declaration: Declaration) -> tuple[str, ...]:
    subject = declaration.subject
    if declaration.kind == "not_null":
        return (subject,)
    if declaration.kind == "constant":
        return (subject[0],)
    if declaration.kind == "unique":
        return tuple(subject)
    if declaration.kind == "ordering":
        return tuple(item.column for item in subject.items) + declaration.groups
    if declaration.kind == "bucketing":
        return (*subject.by, *subject.sorted_by)
    return ()


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value: object) -> str:
    """A value Spark returned, as Spark SQL writes it: what a reader can paste into a query."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (bytes, bytearray)):
        return f"X'{value.hex().upper()}'"
    if isinstance(value, float):  # a plain 2.5 is a DECIMAL to Spark: D makes it a double
        return f"{value!r}D" if math.isfinite(value) else f"CAST('{_SPARK_FLOATS[str(value)]}' AS DOUBLE)"
    if isinstance(value, (int, Decimal)):
        return str(value)
    text = str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_SPARK_FLOATS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def json_value(value: object) -> object:
    """A value Spark returned, as JSON holds it: numbers, strings, booleans and null as
    themselves; dates and times in ISO 8601, decimals as text (exact), bytes in hex."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _SPARK_FLOATS[str(value)]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)


