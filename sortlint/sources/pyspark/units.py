"""PySpark jobs: one unit per consumed DataFrame, and one per `spark.sql` statement.

The job is read by `sortlint.sources.pyspark.reader` (libcst, positions kept): every
DataFrame that is written, made a view, collected, returned, handed to unknown code or left
unused is a *pipeline*, and becomes one unit of kind `"pyspark"` whose text is the part of
the file its calls span (from the first line to the last, verbatim: spans are plain offsets)
and whose payload (`Pipeline`) is what `sortlint.sources.pyspark.build.build_unit` builds a plan
from. Pipelines are taken in the order they are consumed; a DataFrame two pipelines share
belongs to the first, and the later ones build it under an `Alias` whose origin is that
first unit, so what is found in it is reported once.

The SQL of `spark.sql("...")` - a literal, an implicit concatenation, an f-string, or a name
bound to one - is a SQL unit (kind `"sql"`) whose text is the string's value, with a map into
the literal (`sortlint.sources.python.strings`): findings point inside the string and fixes
are written there, escaped for its quoting. An f-string field is a placeholder, an opaque
name no fix may edit (as for Airflow). A query built at run time (`+`, `%`, `.format`, a
parameter) is not analysable: it becomes an opaque unit that `sortlint explain` shows, and
reports nothing.

Checking a file that never mentions Spark does not import libcst.
"""

from __future__ import annotations

import re
from pathlib import Path

from sortlint.errors import UserError
from sortlint.sources.frontend import Reading
from sortlint.sources.opaque import opaque_unit
from sortlint.sources.pyspark.values import Column, Pipeline, PyDict, PyList, SqlText, window_calls
from sortlint.sources.python.strings import decode, is_bytes
from sortlint.sources.sql.files import mapped_statements
from sortlint.sources.sql.placeholders import field_placeholder
from sortlint.units import Unit

KIND = "pyspark"
_MENTIONS_SPARK = re.compile(r"pyspark|\bspark\b|SparkSession|\.sql\(|\.table\(")


def pyspark_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """The file's pipelines and `spark.sql` statements, or None when it is not a PySpark job."""
    if not _MENTIONS_SPARK.search(raw):
        return None
    from sortlint.sources.pyspark.reader import JobReader, ReadError

    dialect = reading.config.dialect
    try:
        reader = JobReader(raw, lambda reader, node: _sql_text(reader, node, dialect))
        reader.run()
    except ReadError as error:
        if "pyspark" not in raw:
            return None  # not ours to report: another front end may say it
        raise UserError(error.message, path, error.line) from None
    except RecursionError:
        raise UserError("too deeply nested to analyse", path) from None
    units = _sql_units(path, raw, reader, dialect)
    units += _pipeline_units(path, raw, reader)
    units.sort(key=lambda unit: unit.location(0))
    return units


# --- spark.sql strings ----------------------------------------------------------------------------


def _sql_text(reader, node, dialect: str) -> SqlText | None:
    """The SQL of a string literal node, with its map into the file (None for bytes). An
    f-string field of unknown value is a placeholder: kept as written inside a SQL string or
    comment, a word when glued to one, a quoted name elsewhere - a name nothing is known
    about."""
    if is_bytes(node):
        return None

    def field_text(info) -> str:
        constant = reader.constant_field(info)
        return constant if constant is not None else field_placeholder(info, reader.raw, dialect)

    mapped = decode(node, reader.raw, reader.range, field_text)
    return SqlText(mapped.text, mapped, mapped.to_raw(0), reader.range(node))


def _sql_units(path: Path, raw: str, reader, dialect: str) -> list[Unit]:
    """One SQL unit per statement of each analysable `spark.sql` string; the pipeline that
    reads the string finds its unit on the `SqlText` (`units`). A `spark.sql` of a query
    built at run time is an opaque unit."""
    units: list[Unit] = []
    for sql in reader.sql_texts:
        made = mapped_statements(path, raw, sql.offsets, dialect)
        sql.units = tuple(made)
        units += made
    for op in reader.ops:
        source = op.detail
        if op.kind == "sql" and source.sql is None and op.extent is not None:
            start, end = op.extent
            units.append(opaque_unit(path, raw, start, end, source.reason))
    return units


# --- pipelines ------------------------------------------------------------------------------------


def _pipeline_units(path: Path, raw: str, reader) -> list[Unit]:
    units: list[Unit] = []
    owner_of: dict[int, Unit] = {}
    readers: dict[int, set[int]] = {}
    for index, sink in enumerate(reader.sinks):
        for op in _reachable(sink.op):
            readers.setdefault(id(op), set()).add(index)
    frozen = {key: frozenset(value) for key, value in readers.items()}
    for index, sink in enumerate(reader.sinks):
        owners: dict[int, Unit] = {}
        ranges: list[tuple[int, int]] = []
        claimed: list = []
        _collect(sink.op, owner_of, owners, ranges, claimed, set())
        for span in (sink.extent, sink.call):
            if span is not None:
                ranges.append(span)
        start = raw.rfind("\n", 0, min(s for s, _ in ranges)) + 1
        end = max(e for _, e in ranges)
        line_end = raw.find("\n", end)
        end = len(raw) if line_end < 0 else line_end
        payload = Pipeline(sink, owners, reader.functions, frozen, index)
        unit = Unit(path=path, text=raw[start:end], start=start, raw=raw, kind=KIND, payload=payload)
        for op in claimed:
            owner_of[id(op)] = unit
        units.append(unit)
    return units


def _reachable(op, seen=None):
    seen = set() if seen is None else seen
    if id(op) in seen:
        return
    seen.add(id(op))
    yield op
    for child in op.inputs:
        yield from _reachable(child, seen)


def _collect(op, owner_of, owners, ranges, claimed, seen) -> None:
    """The operations a pipeline owns (not held by an earlier one) and the text they span."""
    if id(op) in seen:
        return
    seen.add(id(op))
    if id(op) in owner_of:
        owners[id(op)] = owner_of[id(op)]
        return
    claimed.append(op)
    for span in (op.extent, op.call):
        if span is not None:
            ranges.append(span)
    for arg in [*op.args, *(a for _, a in op.kwargs)]:
        _arg_ranges(arg, ranges)
    detail = op.detail
    for arg in getattr(detail, "keys", ()) or ():
        _arg_ranges(arg, ranges)
    for span in (getattr(detail, "group_call", None),):
        if span is not None:
            ranges.append(span)
    for child in op.inputs:
        _collect(child, owner_of, owners, ranges, claimed, seen)


def _arg_ranges(arg, ranges) -> None:
    if not arg.indirect:
        ranges.append(arg.span)
    value = arg.value
    if isinstance(value, PyList):
        for item in value.items:
            _arg_ranges(item, ranges)
    elif isinstance(value, PyDict):
        for key, item in value.items:
            _arg_ranges(key, ranges)
            _arg_ranges(item, ranges)
    elif isinstance(value, Column):
        for window in window_calls(value.expr):
            ranges.extend(span for _, span in window.spec.calls)
