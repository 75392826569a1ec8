"""The contracts report: what `sortlint contracts --write-report FILE` found, for `check` to cite.

The report is JSON. For every table it records when its declarations were checked, which
version of the table was read — a Delta table's version, an Iceberg table's snapshot, or else
the number of files, their newest modification time and a fingerprint of their paths and
times — and each declaration's status and evidence, named as `contracts` names them.

When the configuration says `contracts_report: FILE`, `check` reads it and every finding that
rests on a declaration says, per declaration it cites, whether that declaration held when it
was last checked, was violated, or was never checked. A finding names its declarations in its
evidence text ("declared ordering [...] of t (sortlint.yml:12)"); the texts are made by the
engine's own seeding of each declaration, so the two cannot drift apart. Reading the report
needs no Spark; writing it does (the versions).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config.model import Config, Source
from sortlint.errors import UserError
from sortlint.integrations.spark.declarations import Declaration, declarations

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from sortlint.diagnostics import Finding
    from sortlint.integrations.spark.contracts import TableResult

# /2: each declaration's `evidence` is an object (its `text`, and the same as data) and says
# where it is declared; a /1 report (evidence as text) is still read.
FORMAT = "sortlint-contracts-report/2"
READABLE = ("sortlint-contracts-report/1", FORMAT)


# --- writing ----------------------------------------------------------------------------------


def write_report(
    path: Path, spark: SparkSession, results: Sequence[TableResult], sample: float | None
) -> None:
    from sortlint.integrations.spark.session import read_source
    from sortlint.rewriters.apply import write_atomically

    checked_at = _now()
    tables = []
    for result in results:
        tables.append(
            {
                "table": result.source.name,
                "checked_at": checked_at,
                "version": table_version(spark, result.source, read_source),
                "declarations": [
                    {k: v for k, v in outcome.as_json().items() if k != "table"}
                    for outcome in result.outcomes
                ],
            }
        )
    report = {"format": FORMAT, "sample": sample, "tables": tables}
    text = json.dumps(report, indent=2, default=str) + "\n"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")
    write_atomically(path, text)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def table_version(spark: SparkSession, source: Source, read_source) -> dict | None:
    """Which state of the table was read: the format's own version where it has one, else
    what its files look like. None when Spark cannot tell."""
    from pyspark.errors import AnalysisException

    from sortlint.integrations.spark.catalog_import import describe_table

    storage = source.storage
    if storage is None:
        description = describe_table(spark, source.name)
        provider = description.provider if description is not None else None
        if provider == "iceberg" and description.snapshot is not None:
            return {"format": "iceberg", "snapshot": description.snapshot}
        if provider == "delta":
            version = _delta_version(spark, source.name)
            if version is not None:
                return {"format": "delta", "version": version}
    elif storage.format == "delta":
        version = _delta_version(spark, "delta.`" + storage.path.replace("`", "``") + "`")
        if version is not None:
            return {"format": "delta", "version": version}
    try:
        return _files_version(read_source(spark, source))
    except AnalysisException:
        return None


def _delta_version(spark: SparkSession, table: str) -> int | None:
    from pyspark.errors import AnalysisException

    try:
        rows = spark.sql(f"DESCRIBE HISTORY {table} LIMIT 1").collect()
    except AnalysisException:
        return None
    return int(rows[0]["version"]) if rows else None


def _files_version(frame: DataFrame) -> dict:
    """The files a table is read from: how many, the newest modification time, and a
    fingerprint of (path, modification time) over all of them. One pass over the file
    metadata; no data column is read."""
    from pyspark.sql import functions as F

    files = frame.select(
        F.col("_metadata.file_path").alias("path"),
        F.col("_metadata.file_modification_time").alias("modified"),
    ).distinct()
    row = files.agg(
        F.count(F.lit(1)).alias("files"),
        F.max("modified").alias("modified"),
        F.bit_xor(F.xxhash64("path", "modified")).cast("string").alias("fingerprint"),
    ).collect()[0]
    modified = row["modified"]
    return {
        "format": "files",
        "files": row["files"],
        "modified": modified.isoformat() if modified is not None else None,
        "fingerprint": row["fingerprint"],
    }


# --- reading, for check -----------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """What the report says about one declaration."""

    status: str
    evidence: str
    checked_at: str
    version: dict | None

    def phrase(self) -> str:
        when = f"on {self.checked_at}" + (f", {describe_version(self.version)}" if self.version else "")
        if self.status == "holds":
            return f"held {when}"
        if self.status == "violated":
            return f"VIOLATED {when}: {self.evidence}"
        return f"not checked {when}: {self.evidence}"


def describe_version(version: dict) -> str:
    if version.get("format") == "delta":
        return f"Delta version {version['version']}"
    if version.get("format") == "iceberg":
        return f"Iceberg snapshot {version['snapshot']}"
    files = version.get("files")
    modified = str(version.get("modified"))[:19]
    return f"{files} file{'' if files == 1 else 's'}, newest modified {modified}"


def read_report(path: Path) -> dict[tuple[str, str, str], Recorded] | None:
    """The report's entries by (table, kind, declaration); None when there is no report yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UserError(f"cannot read the contracts report: {error.strerror}", path) from None
    try:
        report = json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"not a contracts report (invalid JSON: {error.msg})", path, error.lineno) from None
    if not isinstance(report, dict) or report.get("format") not in READABLE:
        raise UserError(f"not a contracts report (no \"format\": \"{FORMAT}\")", path)
    entries = {}
    try:
        for table in report["tables"]:
            for entry in table["declarations"]:
                key = (table["table"], entry["kind"], entry["declaration"])
                evidence = entry["evidence"]
                text = evidence["text"] if isinstance(evidence, dict) else evidence
                entries[key] = Recorded(entry["status"], text, table["checked_at"], table.get("version"))
    except (KeyError, TypeError) as error:
        raise UserError(f"not a contracts report (malformed entry: {error})", path) from None
    return entries


def annotate(findings: Sequence[Finding], config: Config) -> list[Finding]:
    """The findings, each one that rests on declarations saying what the report knows of them."""
    if config.contracts_report is None:
        return list(findings)
    report = read_report(config.contracts_report)
    cited = _evidence_texts(config)
    result = []
    for finding in findings:
        if finding.basis != "declared":
            result.append(finding)
            continue
        notes = []
        for text, declaration in cited:
            if text not in finding.message:
                continue
            what = f"{declaration.kind.replace('_', ' ')} {declaration.text} of {declaration.table}"
            recorded = report.get(declaration.key) if report is not None else None
            if recorded is None:
                notes.append(f"{what} never verified")
            else:
                notes.append(f"{what} {recorded.phrase()}")
        if notes:
            finding = replace(finding, message=f"{finding.message} (contracts: {'; '.join(notes)})")
        result.append(finding)
    return result


def _evidence_texts(config: Config) -> list[tuple[str, Declaration]]:
    """Each declaration the engine cites, with the evidence text it cites it by.

    Each declaration is seeded alone, so the text found is that declaration's own.
    """
    from sortlint.engines.seeding import seed

    cited = []
    for source in config.sources:
        for declaration in declarations(source):
            alone = _only(source, declaration)
            if alone is None:
                continue
            for text in _texts(seed(alone, "t")):
                cited.append((text, declaration))
    return cited


def _only(source: Source, declaration: Declaration) -> Source | None:
    """The source with nothing declared but `declaration` (and its columns), when the engine
    cites that kind of declaration by text."""
    bare = replace(source, orderings=(), constants=(), unique=())
    if declaration.kind == "ordering":
        return replace(bare, orderings=(declaration.subject,))
    if declaration.kind == "constant":
        return replace(bare, constants=(declaration.subject,))
    if declaration.kind == "unique":
        return replace(bare, unique=(declaration.subject,))
    return None


def _texts(properties) -> set[str]:
    evidence = [e for c in properties.constants.values() for e in c.evidence]
    evidence += [e for fact in properties.orderings for e in fact.evidence]
    evidence += [e for key in properties.unique_keys for e in key.evidence]
    return {str(e) for e in evidence if e.basis == "declared"}
