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
from collections import Counter
from dataclasses import replace
from pathlib import Path

from sortlint.files import decode_source, input_digest, note_input, read_bytes
from sortlint.errors import UserError
from sortlint.sources.frontend import Reading
from sortlint.sources.opaque import opaque_unit
from sortlint.sources.pyspark.values import Column, Pipeline, PyDict, PyList, PyValue, SqlText, window_calls
from sortlint.sources.python.constants import UNKNOWN, format_text
from sortlint.sources.runtime_sql import (
    Built, Interpreter, Known, PyModule, Statements, literal_keys, pieces, with_refusals,
)
from sortlint.sources.python.strings import FormatField, SourceSpans, apply_formatting, decode, is_bytes
from sortlint.sources.python.syntax import check_syntax
from sortlint.sources.sql.files import embedded_units, mapped_statements
from sortlint.sources.sql.placeholders import FormatSource, field_placeholder
from sortlint.units import Unit

KIND = "pyspark"
_MENTIONS_SPARK = re.compile(r"pyspark|\bspark\b|SparkSession|\.sql\(|\.table\(")


def pyspark_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """The file's pipelines and `spark.sql` statements, or None when it is not a PySpark job.
    Any Python file that does not parse is an error (`sortlint.sources.python.syntax`)."""
    check_syntax(path, raw)
    if not _MENTIONS_SPARK.search(raw):
        return None
    from sortlint.sources.pyspark.reader import JobReader, ReadError

    dialect = reading.config.dialect
    modules = RepositoryModules(path, reading.config.root, dialect)
    try:
        reader = JobReader(raw, lambda reader, value: _sql_text(reader, value, dialect), modules, path=path,
                           built=BuiltSql(path, reading.config.root, dialect))
        reader.run()
    except ReadError as error:  # Python parses it, libcst does not (newer syntax than it knows)
        raise UserError(error.message, path, error.line) from None
    except RecursionError:
        raise UserError("too deeply nested to analyse", path) from None
    units = _sql_units(path, raw, reader, dialect)
    units += _pipeline_units(path, raw, reader)
    runs = _where_they_run(units, reader)
    units.sort(key=lambda unit: runs.get(id(unit), unit.start))
    return units


def _where_they_run(units: list[Unit], reader) -> dict[int, int]:
    """Where each unit runs among the job's statements, by unit: a pipeline where it is
    consumed (not where its first DataFrame was made: `df = spark.table(...)` long before
    `df.write...`), a `spark.sql` statement at its call (not where its string stands). The
    units are analysed in that order, each seeing the tables the units before it wrote."""
    runs = {id(unit): unit.payload.sink.at for unit in units if isinstance(unit.payload, Pipeline)}
    for sql in reader.sql_texts:
        if sql.run_at is not None:
            runs.update((id(unit), sql.run_at[0]) for unit in sql.units)
    return runs


# --- modules of the repository ---------------------------------------------------------------------


class RepositoryModules:
    """The modules of the repository a job imports, found as Python finds them from the job's
    folder or from the repository's root (or its `src/`), each read once per process: their
    functions are followed where the job calls them."""

    cache: dict[tuple, object] = {}  # (path, root, dialect, digest) -> its JobReader, or None while read

    def __init__(self, path: Path, root: Path, dialect: str) -> None:
        self.folder = path.resolve().parent
        self.root = root.resolve()
        self.dialect = dialect

    def __call__(self, dotted: str, level: int):
        found = self.find(dotted, level)
        if found is None:
            return None
        try:  # what the job's findings rest on, cached or not
            data = read_bytes(found)
        except OSError:
            note_input(found, None)
            return None
        note_input(found, data)
        # By content (a file rewritten within one tick of the clock keeps its size and time)
        # and by what reading it depends on.
        key = (found, self.root, self.dialect, input_digest(data))
        if key in self.cache:
            return self.cache[key]  # None while it is being read: an import cycle
        self.cache[key] = None
        self.cache[key] = self.read(found, data)
        return self.cache[key]

    def find(self, dotted: str, level: int) -> Path | None:
        parts = [p for p in dotted.split(".") if p]
        if level:
            bases = [self.folder.parents[level - 2] if level > 1 else self.folder]
        else:
            bases = [self.folder, *self.folder.parents, self.root / "src"]
            bases = [b for b in bases if b == self.root / "src" or b == self.root or self.root in b.parents]
        for base in bases:
            candidate = base.joinpath(*parts)
            for path in (candidate.with_suffix(".py") if parts else None, candidate / "__init__.py"):
                if path is not None and path.is_file():
                    return path.resolve()
                if path is not None:
                    note_input(path, None)  # a module written here later is imported first
        return None

    def read(self, path: Path, data: bytes):
        from sortlint.sources.pyspark.reader import JobReader, ReadError

        try:
            raw = decode_source(data, path)
            reader = JobReader(raw, lambda reader, value: _sql_text(reader, value, self.dialect),
                               RepositoryModules(path, self.root, self.dialect), imported=True, path=path,
                               built=BuiltSql(path, self.root, self.dialect))
            reader.run()
        except (UserError, ReadError, RecursionError):
            return None
        _sql_units(path, raw, reader, self.dialect)  # the SQL its functions run, for their callers
        return reader


# --- spark.sql strings ----------------------------------------------------------------------------


def _sql_text(reader, value: PyValue, dialect: str) -> SqlText | None:
    """The SQL of a string literal, formatted when it is (`.format(...)`, `%`), with its map
    into the file (None for bytes, or a template Python would not format). An f-string field
    or a format field of unknown value is a placeholder: kept as written inside a SQL string
    or comment, a word when glued to one, a quoted name elsewhere - a name nothing is known
    about."""
    node = value.literal
    if is_bytes(node):
        return None

    def field_text(info) -> str:
        constant = reader.constant_field(info)
        return constant if constant is not None else field_placeholder(info, reader.raw, dialect)

    mapped = decode(node, reader.raw, reader.range, field_text)
    formatting = value.formatting
    unknown: list[str] = []
    if formatting is not None:
        template = mapped.text

        def format_field(field: FormatField, before: str) -> str:
            argument = formatting.argument(field.key)
            known = argument.value if isinstance(argument, PyValue) and argument.known else UNKNOWN
            text = format_text(field, formatting.style, known)
            if text is not UNKNOWN:
                return text
            unknown.append(field.source)
            return field_placeholder(FormatSource(field.source, before, field.end), template, dialect)

        formatted = apply_formatting(mapped, formatting.style, format_field)
        if formatted is None:
            return None
        mapped = formatted
    return SqlText(mapped.text, mapped, mapped.to_raw(0), reader.range(node), run_time_fields=tuple(unknown))


class BuiltSql:
    """The SQL of a `spark.sql` argument the code builds at run time, followed as the Airflow
    front end follows its runners' (`sortlint.sources.runtime_sql`): every `spark.sql`
    argument of the file is evaluated in one pass. A DataFrame has one plan, so only an
    argument built in one way, holding one run of whole statements (no unknown piece between
    statements), is read; its unknown pieces inside the statement are placeholders."""

    def __init__(self, path: Path, root: Path, dialect: str) -> None:
        self.path = path
        self.root = root
        self.dialect = dialect
        self.module: PyModule | None = None
        self.values: dict[int, list] = {}
        self.uses: Counter = Counter()  # literal -> the ways of building that read it

    def __call__(self, reader, node) -> SqlText | None:
        if self.module is None:
            self._evaluate(reader)
        ways = self.values.get(id(node), [])
        if len(ways) != 1 or not isinstance(ways[0], Built) or not any(isinstance(p, Known) for p in ways[0].parts):
            return None
        cut = pieces(with_refusals(ways[0], self.uses), reader.raw, self.dialect)
        if len(cut) != 1 or not isinstance(cut[0], Statements):
            return None
        mapped = cut[0].mapped
        return SqlText(mapped.text, mapped, mapped.to_raw(0), reader.range(node), run_time_fields=cut[0].fields)

    def _evaluate(self, reader) -> None:
        from libcst.metadata import MetadataWrapper

        tree = reader.module
        self.module = PyModule(self.path, reader.raw, tree, SourceSpans(MetadataWrapper(tree, unsafe_skip_copy=True),
                                                                        reader.raw))
        targets = [n.args[0].value for n in self.module.walk(tree)
                   if type(n).__name__ == "Call" and type(n.func).__name__ == "Attribute"
                   and n.func.attr.value == "sql" and n.args and n.args[0].keyword is None and n.args[0].star == ""]
        self.values = Interpreter(self.module, targets, self.root, self.dialect).run()
        for ways in self.values.values():
            for way in ways:
                if isinstance(way, Built):
                    self.uses.update(literal_keys(way))


def _sql_units(path: Path, raw: str, reader, dialect: str) -> list[Unit]:
    """One SQL unit per statement of each analysable `spark.sql` string; the pipeline that
    reads the string finds its unit on the `SqlText` (`units`). A `spark.sql` of a query
    built at run time is an opaque unit."""
    units: list[Unit] = []
    uses = Counter(sql.span for sql in reader.sql_texts)
    for sql in reader.sql_texts:
        offsets = sql.offsets
        if uses[sql.span] > 1:  # one template formatted in several places: each reads it
            offsets = replace(offsets, refusal=f"the string is formatted in {uses[sql.span]} places: "
                                               "an edit would change the SQL of each")
        made = embedded_units(mapped_statements(path, raw, offsets, dialect), sql.run_time_fields, sql.elsewhere)
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
