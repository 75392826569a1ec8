"""Airflow DAG files: their DAGs, their SQL operators, and the units of the SQL each runs."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path, PurePath
from typing import Any

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.files import note_input, read_source
from sortlint.sources.runtime_sql import (
    Built, Hole, Interpreter, Known, PyModule, bound_in_function, describe, literal_keys, pieces, with_refusals,
)
from sortlint.sources.airflow.macros import rendered_units
from sortlint.sources.airflow.preparation import TEMPLATE_SUFFIXES, may_run_sql
from sortlint.sources.frontend import Reading
from sortlint.sources.opaque import opaque_unit
from sortlint.sources.python.constants import UNKNOWN, Evaluator, dotted_name, format_text
from sortlint.sources.python.strings import (
    Field,
    FormatField,
    MappedText,
    SourceSpans,
    apply_formatting,
    decode,
    is_bytes,
    is_string,
)
from sortlint.sources.python.syntax import check_syntax
from sortlint.sources.sql.files import embedded_units, run_elsewhere
from sortlint.sources.sql.preparation import written_names
from sortlint.sources.sql.placeholders import FormatSource, field_placeholder
from sortlint.units import Unit

SQL_KEYWORDS = ("sql", "hql")
RUN_TIME = "computed at run time: not analysed"
MAPPING_METHODS = ("partial", "expand")
# A hook's methods that run the SQL they are given (first argument, or sql= / hql=).
HOOK_METHODS = frozenset({"run", "run_cli", "get_records", "get_first", "get_pandas_df", "get_df",
                          "get_results", "to_csv"})



def dag_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """Python front end: units for the SQL of every SQL operator in a DAG file."""
    if not may_run_sql(raw, reading.config.airflow.sql_arguments):
        return None
    module = DagModule.parse(path, raw, reading.config.airflow.sql_arguments)
    module.root, module.dialect = reading.config.root, reading.config.dialect
    seen: set[tuple] = set()
    items = [item for operator in module.operators for item in module.sql_items(operator)]
    module.literal_uses = _literal_uses(module, items)
    # A template formatted in several places is several statements of one literal.
    formats = Counter(id(item.node) for item in {item.key: item for item in items}.values())
    runs: list[list[Unit]] = []  # the units of each SQL value, one value per task
    for item in items:
        key = item.key
        if key in seen:
            continue  # a constant two operators share is analysed once
        seen.add(key)
        runs.append(item.units(module, reading.config, formats[id(item.node)]))
    units = [unit for run in _shared_tables_left_unknown(runs) for unit in run]
    units = _opaque_once(units)
    return sorted(units, key=lambda u: (u.path != path, str(u.path), u.start))


def _opaque_once(units: list[Unit]) -> list[Unit]:
    """The units, each piece of unknown SQL once: several ways of building a value (or
    several tasks calling one function) may share it."""
    seen: set[tuple] = set()
    kept = []
    for unit in units:
        if unit.kind == "opaque":
            key = (unit.start, unit.text, unit.payload)
            if key in seen:
                continue
            seen.add(key)
        kept.append(unit)
    return kept


def _literal_uses(module: DagModule, items: list[SqlItem]) -> Counter:
    """How many of the file's SQL values read each literal (a value read from two places,
    or built from one function in two ways, reads it more than once)."""
    uses: Counter = Counter()
    for item in {item.key: item for item in items}.values():
        if item.built is not None:
            uses.update(literal_keys(item.built))
        elif item.reason is None:
            uses[(id(module.raw), module.spans(item.node)[0])] += 1
    return uses


def _shared_tables_left_unknown(runs: list[list[Unit]]) -> list[list[Unit]]:
    """The tasks' statements, where two tasks write one table left writing it unknown.

    Tasks run in the order of the DAG's dependencies, not of the file: a table two of them
    write (or update, merge into, delete from) holds what the last to run left, which the
    file does not say - it is known by its declarations alone, as a table two files write.
    A task's own statements run in order."""
    writers: Counter[str] = Counter()
    written = [{name for unit in run for name in written_names(unit.text)} for run in runs]
    for names in written:
        writers.update(names)
    return [run_elsewhere(run) if any(writers[name] > 1 for name in names) else run
            for run, names in zip(runs, written)]


@dataclass
class DagInfo:
    call: Any  # the DAG(...) call or @dag(...) decorator call (None for a bare @dag)
    kwargs: dict[str, Any]


@dataclass
class OperatorCall:
    """An operator (or a hook) given SQL: what it is, the keyword, the SQL expression, its DAG
    and params. A hook's SQL is not a template: Airflow renders only operators' fields."""

    name: str
    keyword: str
    value: Any  # the sql= expression
    dag: DagInfo | None
    params: Any  # the operator's params= expression or None


class DagModule(Evaluator):
    """A parsed DAG file: its bindings, DAGs and SQL operators, and the values of its
    expressions (a name bound once in the file holds what it was bound to)."""

    def __init__(self, path: Path, raw: str, module: Any, spans: SourceSpans,
                 sql_arguments: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(raw, spans, path)
        self.path = path
        self.module = module
        collector = _collector_class()(dict(sql_arguments))
        module.visit(collector)
        self.bindings = collector.bindings
        self.dags = collector.dags
        self.named_dags = collector.named_dags
        self.operators: list[OperatorCall] = []
        self.templates: set[Path] = set()  # template files already analysed from this DAG
        self.root: Path | None = None  # the project root: imports of the repository are found up to it
        self.dialect = "spark"
        self.literal_uses: Counter = Counter()
        self._built: dict[int, list[Any]] | None = None
        only = collector.dags[0] if len(collector.dags) == 1 else None
        for name, keyword, value, dag, dag_name, params, templated in collector.operators:
            if templated:
                dag = dag or (self.named_dags.get(dag_name) if dag_name else None) or only
            self.operators.append(OperatorCall(name, keyword, value, dag if templated else None, params))

    @classmethod
    def parse(cls, path: Path, raw: str, sql_arguments: tuple[tuple[str, str], ...] = ()) -> DagModule:
        """The DAG file; `sql_arguments` adds the project's own SQL runners (the
        configuration's `airflow.sql_arguments`)."""
        import libcst as cst
        from libcst.metadata import MetadataWrapper

        try:
            module = cst.parse_module(raw)
        except cst.ParserSyntaxError as error:
            # Python's own message and line where it refuses the file too: libcst's tokenizer
            # errors carry no position (an unterminated string is "line 1").
            check_syntax(path, raw)
            raise UserError(f"cannot parse Python: {error.message}", path, error.raw_line) from None
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return cls(path, raw, module, SourceSpans(wrapper, raw), sql_arguments)


    # -- values known before run time -------------------------------------------------------

    def binding(self, name: str) -> Any:
        values = self.bindings.get(name, [])
        return values[0] if len(values) == 1 else None

    def name_value(self, name: str, depth: int) -> Any:
        bound = self.binding(name)
        return UNKNOWN if bound is None else self.evaluate(bound, depth + 1)

    # -- what an operator runs ------------------------------------------------------------------

    def sql_items(self, operator: OperatorCall) -> list[SqlItem]:
        value = operator.value
        items = list(self._items(operator, value, 0))
        if bound_in_function(self.python, value):
            # A function's own name holds what the code bound last where the SQL runs, which
            # its one binding in the file need not be (a loop, a branch, another function).
            if len(items) != 1 or items[0].reason is None:
                reason = f"{operator.keyword}= of {operator.name} is {describe(value)}, {RUN_TIME}"
                items = [SqlItem(operator, value, reason)]
            return self._built_items(operator, items[0])
        if len(items) != 1 or items[0].reason is None or not items[0].reason.endswith(RUN_TIME):
            return items
        return self._built_items(operator, items[0])

    def _built_items(self, operator: OperatorCall, unknown: SqlItem) -> list[SqlItem]:
        """Each way the code may build the SQL; `unknown` stands for the ways it does not know."""
        ways = self.built_values().get(id(operator.value), [])
        built = [SqlItem(operator, operator.value, None, built=way) for way in ways
                 if isinstance(way, Built) and any(isinstance(p, Known) for p in way.parts)]
        return built + ([unknown] if len(built) < len(ways) or not built else [])

    @cached_property
    def python(self) -> PyModule:
        return PyModule(self.path, self.raw, self.module, self.spans)

    def built_values(self) -> dict[int, list[Any]]:
        """What each operator's SQL value holds where the code evaluates it (by node id)."""
        if self._built is None:
            targets = [operator.value for operator in self.operators]
            self._built = Interpreter(self.python, targets, self.root, self.dialect).run()
        return self._built

    def _items(self, operator: OperatorCall, node: Any, depth: int) -> Iterator[SqlItem]:
        kind = type(node).__name__
        if is_string(node) and not is_bytes(node):
            yield SqlItem(operator, node, None)
        elif (formatted := self._formatted(node)) is not None:
            yield SqlItem(operator, formatted[0], None, formatted[1])
        elif kind in ("List", "Tuple"):
            for element in node.elements:
                if type(element).__name__ == "StarredElement":
                    yield SqlItem(operator, element, f"a starred element in {operator.keyword}= of {operator.name}")
                else:
                    yield from self._items(operator, element.value, depth + 1)
        elif kind == "Name" and self.binding(node.value) is not None and depth < 20:
            yield from self._items(operator, self.binding(node.value), depth + 1)
        else:
            yield SqlItem(operator, node, f"{operator.keyword}= of {operator.name} is {describe(node)}, {RUN_TIME}")

    def _formatted(self, node: Any) -> tuple[Any, Formatting] | None:
        """`"...".format(...)` or `"..." % ...` of a string literal (or of a name bound to
        one): the literal and the formatting's arguments."""
        kind = type(node).__name__
        if kind == "Call" and type(node.func).__name__ == "Attribute" and node.func.attr.value == "format":
            template = self._literal(node.func.value)
            if template is None:
                return None
            positional = tuple(a.value for a in node.args if a.keyword is None and not a.star)
            keywords = tuple((a.keyword.value, a.value) for a in node.args if a.keyword is not None)
            spread = tuple(a.value for a in node.args if a.star == "**")
            if any(a.star == "*" for a in node.args):
                return None
            return template, Formatting("format", positional, keywords, spread)
        if kind == "BinaryOperation" and type(node.operator).__name__ == "Modulo":
            template = self._literal(node.left)
            if template is None:
                return None
            right = node.right
            if type(right).__name__ == "Tuple":
                return template, Formatting("%", tuple(e.value for e in right.elements))
            if type(right).__name__ == "Dict" or (type(right).__name__ == "Name" and isinstance(self.evaluate(right), dict)):
                return template, Formatting("%", (), (), (right,))
            return template, Formatting("%", (right,))
        return None

    def _literal(self, node: Any, depth: int = 0) -> Any:
        """A string literal node, or the one a name is bound to."""
        if is_string(node) and not is_bytes(node) and type(node).__name__ != "FormattedString":
            return node
        if type(node).__name__ == "Name" and depth < 20:
            bound = self.binding(node.value)
            return self._literal(bound, depth + 1) if bound is not None else None
        return None

    def argument(self, formatting: Formatting, key: int | str) -> Any:
        """The value of a formatting's argument, UNKNOWN when not known before run time."""
        if isinstance(key, int):
            return self.evaluate(formatting.positional[key]) if key < len(formatting.positional) else UNKNOWN
        for name, node in formatting.keywords:
            if name == key:
                return self.evaluate(node)
        for node in formatting.spread:
            mapping = self.evaluate(node)
            if isinstance(mapping, dict) and key in mapping:
                return mapping[key]
        return UNKNOWN

    def params(self, operator: OperatorCall) -> dict[str, Any]:
        """Params a template sees: the DAG's, updated with the operator's own (or, when it
        passes none, those of default_args), as Airflow merges them."""
        merged: dict[str, Any] = {}
        own = operator.params
        if operator.dag is not None:
            merged.update(self._dict(operator.dag.kwargs.get("params")))
            if own is None:
                defaults = self.evaluate(operator.dag.kwargs.get("default_args"))
                if isinstance(defaults, dict) and isinstance(defaults.get("params"), dict):
                    merged.update(defaults["params"])
        merged.update(self._dict(own))
        return merged

    def _dict(self, node: Any) -> dict:
        value = self.evaluate(node) if node is not None else {}
        return value if isinstance(value, dict) else {}

    def searchpath(self, operator: OperatorCall, root: Path) -> list[Path]:
        """Where Airflow looks for a template file: the DAG's folder, then its
        template_searchpath entries (those sortlint can place)."""
        folder = self.path.resolve().parent
        paths = [folder]
        if operator.dag is None:
            return paths
        value = self.evaluate(operator.dag.kwargs.get("template_searchpath"))
        entries = [value] if isinstance(value, (str, PurePath)) else value if isinstance(value, list) else []
        for entry in entries:
            if isinstance(entry, (str, PurePath)):
                placed = _place_directory(Path(entry), folder, root)
                if placed is not None:
                    paths.append(placed)
        return paths


@dataclass(frozen=True)
class Formatting:
    """`str.format` ("format") or `%` applied to a literal: its arguments' nodes; `spread`
    the mappings of `**mapping` (or the mapping of `% {...}`)."""

    style: str
    positional: tuple = ()
    keywords: tuple = ()
    spread: tuple = ()


@dataclass
class SqlItem:
    """One value an operator runs: a string literal (formatted, when `formatting` says so),
    or something not analysed (`reason`)."""

    operator: OperatorCall
    node: Any
    reason: str | None
    formatting: Formatting | None = None
    built: Built | None = None  # the value as code builds it at run time

    @property
    def key(self) -> tuple:
        return (id(self.node), id(self.formatting) if self.formatting is not None else None,
                id(self.built) if self.built is not None else None)

    def units(self, dag: DagModule, config: Config, uses: int = 1) -> list[Unit]:
        """The SQL units of the value; `uses`: how many formattings read the same literal
        (an edit of it would change each)."""
        start, end = dag.spans(self.node)
        if self.reason is not None:
            return [opaque_unit(dag.path, dag.raw, start, end, self.reason)]
        if self.built is not None:
            return self._built_units(dag, config, start, end)
        value = dag.evaluate(self.node)
        if isinstance(value, str) and value.strip().endswith(TEMPLATE_SUFFIXES) and "\n" not in value.strip():
            return self._template(dag, config, value.strip(), start, end)
        params = dag.params(self.operator)
        mapped = decode(self.node, dag.raw, dag.spans, lambda info: _field_text(dag, info, config.dialect))
        unknown: list[str] = []
        if self.formatting is not None:
            formatting = self.formatting
            template = mapped.text

            def field_text(field: FormatField, before: str) -> str:
                text = format_text(field, formatting.style, dag.argument(formatting, field.key))
                if text is not UNKNOWN:
                    return text
                unknown.append(field.source)
                return field_placeholder(FormatSource(field.source, before, field.end), template, config.dialect)

            formatted = apply_formatting(mapped, formatting.style, field_text)
            if formatted is None:
                reason = f"{self.operator.keyword}= of {self.operator.name} is a string formatted in a way not followed"
                return [opaque_unit(dag.path, dag.raw, start, end, reason)]
            mapped = formatted
            if uses > 1:
                mapped = replace(mapped, refusal=f"the string is formatted in {uses} places: "
                                                 "an edit would change the SQL of each")
        return embedded_units(rendered_units(dag.path, dag.raw, mapped, params, config, (start, end)), unknown)

    def _built_units(self, dag: DagModule, config: Config, start: int, end: int) -> list[Unit]:
        """The statements of a value built at run time: those of its known text, and an
        opaque unit for each unknown piece standing between statements. They run where
        the code builds them, not where their literals stand."""
        value = self.built.value
        if value is not None and value.strip().endswith(TEMPLATE_SUFFIXES) and "\n" not in value.strip():
            return self._template(dag, config, value.strip(), start, end)
        written = "".join(p.mapped.text if isinstance(p, Known) else p.source for p in self.built.parts).strip()
        if value is None and written.endswith(TEMPLATE_SUFFIXES) and not any(c.isspace() for c in written):
            reason = f"{self.operator.keyword}= of {self.operator.name} names a template file, {RUN_TIME}"
            return [opaque_unit(dag.path, dag.raw, start, end, reason)]
        units: list[Unit] = []
        params = dag.params(self.operator)
        for piece in pieces(with_refusals(self.built, dag.literal_uses), dag.raw, config.dialect):
            if isinstance(piece, Hole):
                reason = (f"a part of {self.operator.keyword}= of {self.operator.name}, {piece.why}, "
                          f"is {RUN_TIME}")
                units.append(opaque_unit(dag.path, dag.raw, piece.start, piece.end, reason))
                continue
            made = rendered_units(dag.path, dag.raw, piece.mapped, params, config, (start, end))
            units += [u for u in made if u.kind != "sql"]
            units += embedded_units([u for u in made if u.kind == "sql"], piece.fields, elsewhere=True)
        return units

    def _template(self, dag: DagModule, config: Config, name: str, start: int, end: int) -> list[Unit]:
        searchpath = dag.searchpath(self.operator, config.root)
        found = find_template(name, searchpath)
        if found is None:
            where = ", ".join(_shown(p, config.root) for p in searchpath)
            return [opaque_unit(dag.path, dag.raw, start, end, f"template file {name} not found in {where}")]
        if config.selects(found) or found in dag.templates:
            return []  # checked as a file of its own (template_file_units), or already here
        dag.templates.add(found)
        try:
            text = read_source(found)
        except UserError as error:
            return [opaque_unit(dag.path, dag.raw, start, end, f"template file {name} cannot be read: {error.message}")]
        refusal = (f"the SQL is in {_shown(found, config.root)}, which the configuration does not include: "
                   "sortlint writes only the files it checks")
        base = MappedText.verbatim(text)
        base = MappedText(base.text, base.segments, (), text, 0, base.newline, refusal)
        shown = found if dag.path.is_absolute() else Path(os.path.relpath(found))
        return rendered_units(shown, text, base, dag.params(self.operator), config)


def find_template(name: str, searchpath: list[Path]) -> Path | None:
    """Jinja's FileSystemLoader: the first search directory holding the name."""
    given = Path(name)
    if given.is_absolute() and given.is_file():
        return resolved_path(given)
    relative = Path(*given.parts[1:]) if given.is_absolute() else given
    for folder in searchpath:
        candidate = folder / relative
        if candidate.is_file():
            return resolved_path(candidate)
        note_input(candidate, None)  # one written here later is found first
    return None


def _place_directory(entry: Path, folder: Path, root: Path) -> Path | None:
    """Where a `template_searchpath` entry is: the first of its candidate folders that
    exists. Each one looked for and missing is an input of the analysis (made later, it
    would be found first)."""
    if not entry.is_absolute():  # Airflow reads it from its working directory: guess
        candidates = [base / entry for base in (folder, root)]
    else:
        parts = entry.parts[1:]
        candidates = [entry] + [base / Path(*parts[index:]) for index in range(len(parts)) for base in (root, folder)]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
        note_input(candidate, None)
    return None


def _field_text(dag: DagModule, info: Field, dialect: str) -> str:
    value = dag.field_value(info)
    return value if value is not UNKNOWN else field_placeholder(info, dag.raw, dialect)


def resolved_path(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() + ("/" if path.is_dir() else "")
    except ValueError:
        return str(path)




# ---------------------------------------------------------------------------------------------
# Collecting DAGs, operators and bindings


def _last_name(node: Any) -> str | None:
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        return node.attr.value
    return None


def _operator_class(func: Any, configured: dict[str, str]) -> str | None:
    """The operator class a call builds: `Op(...)`, `mod.Op(...)`, `Op.partial(...)`,
    `Op.partial(...).expand(...)`; a class the configuration names counts whatever its name."""
    name = _last_name(func)
    if name and (name.endswith("Operator") or (name in configured and not name.endswith("Hook"))):
        return name
    if type(func).__name__ == "Attribute" and func.attr.value in MAPPING_METHODS:
        inner = func.value
        if type(inner).__name__ == "Call":
            return _operator_class(inner.func, configured)
        return _operator_class(inner, configured)
    return None


def _is_dag_call(node: Any) -> bool:
    return type(node).__name__ == "Call" and _last_name(node.func) == "DAG"


def _kwargs(call: Any) -> dict[str, Any]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


@cache
def _collector_class() -> type:
    """The visitor collecting DAGs, operators and bindings: a class made once, when libcst
    is first needed."""
    import libcst as cst

    class Collector(cst.CSTVisitor):
        def __init__(self, sql_arguments: dict[str, str]) -> None:
            super().__init__()
            self.sql_arguments = sql_arguments  # the project's own runners: class[.method] -> keyword
            self.bindings: dict[str, list[Any]] = {}
            self.dags: list[DagInfo] = []
            self.named_dags: dict[str, DagInfo] = {}
            self.operators: list[tuple] = []
            self.stack: list[DagInfo] = []
            self.pushed: list[int] = []
            self.known: dict[int, DagInfo] = {}

        def _hook_call(self, node: Any) -> tuple[str, str, Any] | None:
            """`SomeHook(...).run(sql)`, `hook.run_cli(hql=...)` (a name bound to a hook), or
            `SomeHook(sql=...)`: (what runs it, the argument's keyword, the SQL node)."""
            func = node.func
            kwargs = _kwargs(node)
            name = _last_name(func)
            if name is not None and name.endswith("Hook"):
                keywords = (self.sql_arguments[name],) if name in self.sql_arguments else SQL_KEYWORDS
                keyword = next((k for k in keywords if k in kwargs), None)
                return (name, keyword, kwargs[keyword]) if keyword else None
            if type(func).__name__ != "Attribute":
                return None
            method = func.attr.value
            if method not in HOOK_METHODS and not any(k.endswith(f".{method}") for k in self.sql_arguments):
                return None
            receiver = func.value
            if type(receiver).__name__ == "Name":  # bound to hooks (in one function or another)
                bound = self.bindings.get(receiver.value, [])
                makers = {_last_name(b.func) for b in bound if type(b).__name__ == "Call"}
                made = makers.pop() if len(makers) == 1 and len(bound) == sum(
                    type(b).__name__ == "Call" for b in bound) else None
            else:
                made = _last_name(receiver.func) if type(receiver).__name__ == "Call" else None
            configured = self.sql_arguments.get(f"{made}.{method}")
            if configured is None and (made is None or not made.endswith("Hook") or method not in HOOK_METHODS):
                return None
            keywords = (configured,) if configured is not None else SQL_KEYWORDS
            keyword = next((k for k in keywords if k in kwargs), None)
            if keyword is not None:
                return f"{made}.{method}", keyword, kwargs[keyword]
            positional = [a.value for a in node.args if a.keyword is None and not a.star]
            return (f"{made}.{method}", keywords[0], positional[0]) if positional else None

        def _dag(self, call: Any) -> DagInfo:
            if id(call) not in self.known:
                info = DagInfo(call, _kwargs(call) if call is not None else {})
                self.known[id(call)] = info
                self.dags.append(info)
            return self.known[id(call)]

        def _bind(self, target: Any, value: Any) -> None:
            kind = type(target).__name__
            if kind == "Name":
                self.bindings.setdefault(target.value, []).append(value)
                if value is not None and _is_dag_call(value):
                    self.named_dags[target.value] = self._dag(value)
            elif kind in ("Tuple", "List"):
                for element in target.elements:
                    self._bind(element.value, None)

        def visit_Assign(self, node: Any) -> None:
            for target in node.targets:
                single = len(node.targets) == 1
                self._bind(target.target, node.value if single else None)

        def visit_AnnAssign(self, node: Any) -> None:
            self._bind(node.target, node.value)

        def visit_AugAssign(self, node: Any) -> None:
            self._bind(node.target, None)

        def visit_For(self, node: Any) -> None:
            self._bind(node.target, None)

        def visit_CompFor(self, node: Any) -> None:
            self._bind(node.target, None)

        def visit_Param(self, node: Any) -> None:
            self._bind(node.name, None)

        def visit_With(self, node: Any) -> None:
            count = 0
            for item in node.items:
                if item.asname is not None:
                    self._bind(item.asname.name, item.item)
                if _is_dag_call(item.item):
                    self.stack.append(self._dag(item.item))
                    count += 1
            self.pushed.append(count)

        def leave_With(self, node: Any) -> None:
            for _ in range(self.pushed.pop()):
                self.stack.pop()

        def visit_FunctionDef(self, node: Any) -> None:
            self._bind(node.name, None)
            count = 0
            for decorator in node.decorators:
                expression = decorator.decorator
                call = expression if type(expression).__name__ == "Call" else None
                if _last_name(call.func if call else expression) == "dag":
                    info = self._dag(call) if call is not None else DagInfo(None, {})
                    if call is None:
                        self.dags.append(info)
                    self.stack.append(info)
                    count += 1
            self.pushed.append(count)

        def leave_FunctionDef(self, node: Any) -> None:
            for _ in range(self.pushed.pop()):
                self.stack.pop()

        def visit_Call(self, node: Any) -> None:
            if _is_dag_call(node):
                self._dag(node)
            hook = self._hook_call(node)
            if hook is not None:
                self.operators.append((*hook, None, None, None, False))
                return
            name = _operator_class(node.func, self.sql_arguments)
            if name is None:
                return
            keywords = (self.sql_arguments[name],) if name in self.sql_arguments else SQL_KEYWORDS
            kwargs = _kwargs(node)
            func = node.func
            # params=/dag= of Op.partial(...) apply to .expand(sql=...)
            while type(func).__name__ == "Attribute" and type(func.value).__name__ == "Call":
                for key, value in _kwargs(func.value).items():
                    kwargs.setdefault(f"partial:{key}", value)
                func = func.value.func
            for keyword in keywords:
                if keyword in kwargs:
                    dag_name = kwargs.get("dag", kwargs.get("partial:dag"))
                    self.operators.append((
                        name, keyword, kwargs[keyword], self.stack[-1] if self.stack else None,
                        dag_name.value if type(dag_name).__name__ == "Name" else None,
                        kwargs.get("params", kwargs.get("partial:params")), True,
                    ))

    return Collector
