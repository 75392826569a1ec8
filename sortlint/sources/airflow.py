"""Airflow DAG files: the SQL that operators run, analysed where it is written.

**Which calls.** A call whose class name ends in ``Operator`` (``SQLExecuteQueryOperator``,
``SparkSqlOperator``, ``DatabricksSqlOperator``, ``PostgresOperator``, ...) and that passes
``sql=`` (or ``hql=``, HiveOperator's name for it) as a keyword — Airflow operators take their
arguments by keyword. ``Op.partial(...).expand(sql=[...])`` counts too (each mapped value is
read like ``sql=``). Operators without such an argument (``SparkSubmitOperator``,
``BigQueryInsertJobOperator``'s ``configuration``) hold no SQL text for us. All SQL is read
with the configured ``dialect``, whatever connection the operator uses.

**Which values.** ``sql=`` may be a string literal (plain, raw, triple-quoted, an f-string,
an implicit concatenation of adjacent literals), a list or tuple of them, or a name bound
once in the file to one of these (followed through simple assignments). A string ending in
``.sql`` or ``.hql`` is, as in Airflow, a template file: it is looked up in the DAG file's
folder, then in the DAG's ``template_searchpath`` (a literal, a module constant, or
``os.path.join(os.path.dirname(__file__), ...)`` / ``Path(__file__).parent / ...``). An
absolute entry that does not exist here is matched by its longest tail that exists under
the project root (``/opt/airflow/dags/sql`` finds ``dags/sql``); a relative one, which
Airflow reads from its working directory, is taken from the DAG's folder, else from the
project root. The DAG is the ``with DAG(...)`` block or ``@dag(...)`` function around the
operator, the one its ``dag=`` names, or the file's only DAG.

Anything else — a call, a ``%``/``.format`` expression, a parameter of a factory function,
a file that is not found, Jinja statements (``{% if %}``, ``{% for %}``) — is not analysed.
It is not silently dropped either: it becomes an *opaque unit* at the ``sql=`` value, which
``sortlint explain`` prints as ``Opaque (<why>)``, and it reports nothing.

**Offsets.** A literal is decoded to its value with a map back to the file
(`sortlint.sources.python_strings`): a finding points at the line inside the Python file,
and a fix is written inside the literal, escaped for its quoting (``\\'`` in a ``'...'``
string, ``\\n`` for a line break outside triple quotes, braces doubled in an f-string).

**Macros.** Airflow renders ``sql`` with Jinja before it runs; sortlint renders each
``{{ ... }}`` (and each f-string field) as a placeholder, an opaque region no fix may edit:

* ``{{ params.x }}`` / ``{{ params['x'] }}`` whose value is a literal in the operator's
  ``params``, the DAG's ``params`` or ``default_args['params']`` (a ``Param(default)``
  counts), and an f-string field naming a module constant, render as that value, exactly as
  Airflow renders them by default (a run triggered with other params is not what is
  analysed); the value is never copied into a fix;
* inside a SQL string, a quoted name or a comment: kept as written (``'{{ ds }}'`` is a
  constant string, which it is at run time);
* glued to a name (``events_{{ ds_nodash }}``): a bare word made of the expression
  (``events_ds_nodash``);
* elsewhere: a quoted identifier of the expression (`` `{{ params.table }}` ``): an unknown
  table or column, of which nothing is known and nothing is concluded.

``{# ... #}`` renders as nothing; whitespace control (``{{- x -}}``) is ignored.

**Template files and double reports.** A template file that the configuration's
``include``/``exclude`` globs select is checked as a file of its own: `template_file_units`,
registered as a SQL front end, claims a ``.sql``/``.hql`` file that holds Jinja and that a
DAG of the project references (a DAG file under the configuration's directory that its
globs select; without a configuration file nothing is claimed), and renders it with that
DAG's params (the values on which all referencing operators agree). Its findings and fixes
are in that file, and the DAG file adds nothing for it — so `sortlint check dags/x.py`
alone does not check x's included template files; checking the folder does. A template
file the globs leave out is analysed from the DAG that references it (once per DAG file):
findings name the template file and its lines, and fixes are reported as unavailable
(sortlint writes only the files it checks).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.sources.python_strings import (
    Field,
    MappedText,
    SourceSpans,
    decode,
    is_bytes,
    is_string,
)
from sortlint.units import Unit

TEMPLATE_SUFFIXES = (".sql", ".hql")
SQL_KEYWORDS = ("sql", "hql")
MAPPING_METHODS = ("partial", "expand")
OPAQUE_KIND = "airflow-opaque"  # Unit.kind of a sql= value sortlint does not analyse

_MAYBE_DAG = re.compile(r"Operator\b")
_MAYBE_SQL = re.compile(r"\b[sh]ql\s*=")
_JINJA = re.compile(r"\{[{%#]")

UNKNOWN = object()  # a value not known before run time


# ---------------------------------------------------------------------------------------------
# Front ends


def dag_units(path: Path, raw: str, config: Config) -> list[Unit] | None:
    """Python front end: units for the SQL of every SQL operator in a DAG file."""
    if not (_MAYBE_DAG.search(raw) and _MAYBE_SQL.search(raw)):
        return None
    module = DagModule.parse(path, raw)
    units: list[Unit] = []
    seen: set[tuple] = set()
    for operator in module.operators:
        for item in module.sql_items(operator):
            key = item.key
            if key in seen:
                continue  # a constant two operators share is analysed once
            seen.add(key)
            units += item.units(module, config)
    return sorted(units, key=lambda u: (u.path != path, str(u.path), u.start))


def template_file_units(path: Path, raw: str, config: Config) -> list[Unit] | None:
    """SQL front end: a `.sql`/`.hql` file that holds Jinja and that a DAG in the project
    references, rendered as Airflow would; None for any other file."""
    if path.suffix not in TEMPLATE_SUFFIXES or not _JINJA.search(raw):
        return None
    if _in_dbt_project(path):
        return None  # a dbt model or macro, not an Airflow template
    if config.path is None:
        return None  # no project: the root would be the working directory, too wide to search
    target = _resolved(path)
    references = [r for r in project_references(config) if r.file == target]
    if not references:
        return None
    params = _agreed(r.params for r in references)
    return rendered_units(path, raw, MappedText.verbatim(raw), params, config)


# ---------------------------------------------------------------------------------------------
# The DAG file


@dataclass
class DagInfo:
    call: Any  # the DAG(...) call or @dag(...) decorator call (None for a bare @dag)
    kwargs: dict[str, Any]


@dataclass
class OperatorCall:
    name: str
    keyword: str
    value: Any  # the sql= expression
    dag: DagInfo | None
    params: Any  # the operator's params= expression or None


@dataclass(frozen=True)
class TemplateReference:
    file: Path
    params: tuple[tuple[str, Any], ...]


class DagModule:
    """A parsed DAG file: its bindings, DAGs and SQL operators."""

    def __init__(self, path: Path, raw: str, module: Any, spans: SourceSpans) -> None:
        self.path = path
        self.raw = raw
        self.module = module
        self.spans = spans
        collector = _Collector()
        module.visit(collector)
        self.bindings = collector.bindings
        self.dags = collector.dags
        self.named_dags = collector.named_dags
        self.operators: list[OperatorCall] = []
        self.templates: set[Path] = set()  # template files already analysed from this DAG
        only = collector.dags[0] if len(collector.dags) == 1 else None
        for name, keyword, value, dag, dag_name, params in collector.operators:
            dag = dag or (self.named_dags.get(dag_name) if dag_name else None) or only
            self.operators.append(OperatorCall(name, keyword, value, dag, params))

    @classmethod
    def parse(cls, path: Path, raw: str) -> DagModule:
        import libcst as cst
        from libcst.metadata import MetadataWrapper

        try:
            module = cst.parse_module(raw)
        except cst.ParserSyntaxError as error:
            raise UserError(f"cannot parse Python: {error.message}", path, error.raw_line) from None
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return cls(path, raw, module, SourceSpans(wrapper, raw))

    # -- values known before run time -------------------------------------------------------

    def binding(self, name: str) -> Any:
        values = self.bindings.get(name, [])
        return values[0] if len(values) == 1 else None

    def evaluate(self, node: Any, depth: int = 0) -> Any:
        """The value of an expression when it is fixed in the file, else UNKNOWN."""
        if node is None or depth > 20:
            return UNKNOWN
        kind = type(node).__name__
        if is_string(node):
            if is_bytes(node):
                return UNKNOWN
            fields: list[Any] = []

            def field_text(info: Field) -> str | None:
                value = self.field_value(info, depth)
                fields.append(value)
                return None if value is UNKNOWN else str(value)

            text = decode(node, self.raw, self.spans, field_text).text
            return UNKNOWN if any(v is UNKNOWN for v in fields) else text
        if kind in ("Integer", "Float"):
            return ast.literal_eval(node.value)
        if kind == "Name":
            constants = {"True": True, "False": False, "None": None}
            if node.value in constants:
                return constants[node.value]
            if node.value == "__file__":
                return str(self.path.resolve())
            bound = self.binding(node.value)
            return UNKNOWN if bound is None else self.evaluate(bound, depth + 1)
        if kind == "UnaryOperation" and type(node.operator).__name__ == "Minus":
            value = self.evaluate(node.expression, depth + 1)
            return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNKNOWN
        if kind in ("List", "Tuple"):
            values = [self.evaluate(e.value, depth + 1) for e in node.elements]
            return UNKNOWN if any(v is UNKNOWN for v in values) else values
        if kind == "Dict":
            result = {}
            for element in node.elements:
                if type(element).__name__ != "DictElement":
                    return UNKNOWN
                key = self.evaluate(element.key, depth + 1)
                if key is UNKNOWN or not isinstance(key, (str, int)):
                    return UNKNOWN
                result[key] = self.evaluate(element.value, depth + 1)  # values may be UNKNOWN
            return result
        if kind == "BinaryOperation":
            left, right = self.evaluate(node.left, depth + 1), self.evaluate(node.right, depth + 1)
            operator = type(node.operator).__name__
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            if operator == "Add" and type(left) is type(right) and isinstance(left, (str, list)):
                return left + right
            if operator == "Divide" and isinstance(left, PurePath) and isinstance(right, (str, PurePath)):
                return left / right
            return UNKNOWN
        if kind == "Attribute":
            value = self.evaluate(node.value, depth + 1)
            if isinstance(value, PurePath) and node.attr.value == "parent":
                return value.parent
            return UNKNOWN
        if kind == "Call":
            return self._call(node, depth)
        return UNKNOWN

    def _call(self, node: Any, depth: int) -> Any:
        name = dotted_name(node.func)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if name is None:
            # Path(...).resolve() / .absolute()
            func = node.func
            if type(func).__name__ == "Attribute" and func.attr.value in ("resolve", "absolute"):
                value = self.evaluate(func.value, depth + 1)
                return value if isinstance(value, PurePath) else UNKNOWN
            return UNKNOWN
        last = name.rsplit(".", 1)[-1]
        if last.endswith("Param"):  # Param(default, ...) / Param(default=...)
            default = keywords.get("default", positional[0] if positional else None)
            return UNKNOWN if default is None else self.evaluate(default, depth + 1)
        if name == "dict" and not positional:
            return {k: self.evaluate(v, depth + 1) for k, v in keywords.items()}
        args = [self.evaluate(a, depth + 1) for a in positional]
        if any(a is UNKNOWN for a in args) or (keywords and name != "dict"):
            return UNKNOWN
        if name in ("Path", "pathlib.Path", "PurePath", "pathlib.PurePath") and all(isinstance(a, (str, PurePath)) for a in args):
            return Path(*args) if args else Path(".")
        if name == "str" and len(args) == 1 and isinstance(args[0], (str, PurePath, int, float)):
            return str(args[0])
        paths = {
            "os.path.join": lambda *a: os.path.join(*a),
            "os.path.dirname": os.path.dirname,
            "os.path.abspath": os.path.normpath,
            "os.path.realpath": os.path.normpath,
            "os.path.normpath": os.path.normpath,
        }
        if name in paths and args and all(isinstance(a, (str, PurePath)) for a in args):
            return str(paths[name](*[str(a) for a in args]))
        return UNKNOWN

    def field_value(self, info: Field, depth: int = 0) -> Any:
        """An f-string field's text when the expression is a constant (no format spec)."""
        if info.has_format_spec:
            return UNKNOWN
        value = self.evaluate(info.expression, depth + 1)
        if value is UNKNOWN or isinstance(value, (list, dict)):
            return UNKNOWN
        conversion = {"r": repr, "a": ascii}.get(info.conversion or "", str)
        return conversion(value)

    # -- what an operator runs ------------------------------------------------------------------

    def sql_items(self, operator: OperatorCall) -> list[SqlItem]:
        return list(self._items(operator, operator.value, 0))

    def _items(self, operator: OperatorCall, node: Any, depth: int) -> Iterator[SqlItem]:
        kind = type(node).__name__
        if is_string(node) and not is_bytes(node):
            yield SqlItem(operator, node, None)
        elif kind in ("List", "Tuple"):
            for element in node.elements:
                if type(element).__name__ == "StarredElement":
                    yield SqlItem(operator, element, f"a starred element in {operator.keyword}= of {operator.name}")
                else:
                    yield from self._items(operator, element.value, depth + 1)
        elif kind == "Name" and self.binding(node.value) is not None and depth < 20:
            yield from self._items(operator, self.binding(node.value), depth + 1)
        else:
            yield SqlItem(operator, node, f"{operator.keyword}= of {operator.name} is {_describe(node)}, "
                                          "computed at run time: not analysed")

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


@dataclass
class SqlItem:
    """One value an operator runs: a string literal, or something not analysed (`reason`)."""

    operator: OperatorCall
    node: Any
    reason: str | None

    @property
    def key(self) -> tuple:
        return (id(self.node),)

    def units(self, dag: DagModule, config: Config) -> list[Unit]:
        start, end = dag.spans(self.node)
        if self.reason is not None:
            return [opaque_unit(dag.path, dag.raw, start, end, self.reason)]
        value = dag.evaluate(self.node)
        if isinstance(value, str) and value.strip().endswith(TEMPLATE_SUFFIXES) and "\n" not in value.strip():
            return self._template(dag, config, value.strip(), start, end)
        params = dag.params(self.operator)
        mapped = decode(self.node, dag.raw, dag.spans, lambda info: _field_text(dag, info, config.dialect))
        return rendered_units(dag.path, dag.raw, mapped, params, config, (start, end))

    def _template(self, dag: DagModule, config: Config, name: str, start: int, end: int) -> list[Unit]:
        searchpath = dag.searchpath(self.operator, config.root)
        found = find_template(name, searchpath)
        if found is None:
            where = ", ".join(_shown(p, config.root) for p in searchpath)
            return [opaque_unit(dag.path, dag.raw, start, end, f"template file {name} not found in {where}")]
        from sortlint.sources.discovery import _selected

        if _selected(found, config) or found in dag.templates:
            return []  # checked as a file of its own (template_file_units), or already here
        dag.templates.add(found)
        try:
            with open(found, encoding="utf-8", newline="") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            return [opaque_unit(dag.path, dag.raw, start, end, f"template file {name} cannot be read: {error}")]
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
        return _resolved(given)
    relative = Path(*given.parts[1:]) if given.is_absolute() else given
    for folder in searchpath:
        candidate = folder / relative
        if candidate.is_file():
            return _resolved(candidate)
    return None


def _place_directory(entry: Path, folder: Path, root: Path) -> Path | None:
    if not entry.is_absolute():  # Airflow reads it from its working directory: guess
        for base in (folder, root):
            if (base / entry).is_dir():
                return (base / entry).resolve()
        return None
    if entry.is_dir():
        return entry.resolve()
    parts = entry.parts[1:]
    for index in range(len(parts)):
        for base in (root, folder):
            candidate = base / Path(*parts[index:])
            if candidate.is_dir():
                return candidate.resolve()
    return None


# ---------------------------------------------------------------------------------------------
# Rendering Airflow's Jinja


def rendered_units(path: Path, raw: str, mapped: MappedText, params: dict, config: Config,
                   span: tuple[int, int] | None = None) -> list[Unit]:
    """One unit per statement of a decoded SQL text, its macros rendered as placeholders;
    one opaque unit (at `span` of `raw`, else the whole file) when they cannot be."""
    rendered = render_macros(mapped, params, config.dialect)
    if isinstance(rendered, str):
        start, end = span if span is not None else (0, len(raw))
        return [opaque_unit(path, raw, start, end, rendered)]
    return statement_units(path, raw, rendered, config.dialect)


def render_macros(mapped: MappedText, params: dict, dialect: str) -> MappedText | str:
    """The text with each `{{ ... }}` replaced by its placeholder and each `{# ... #}` by
    nothing, or why it cannot be rendered (a `{% ... %}` statement, an unclosed tag)."""
    tags = list(jinja_tags(mapped.text))
    if tags and isinstance(tags[-1], str):
        return tags[-1]
    replacements = []
    scanner = SqlScanner(mapped.text)
    for kind, start, end in tags:
        if kind == "{%":
            source = mapped.text[start:end]
            return f"Jinja statement {source} : templates with control flow are not analysed"
        if kind == "{#":
            replacements.append((start, end, "", f"the Jinja comment {_short(mapped.text[start:end])}"))
            continue
        source = mapped.text[start:end]
        state = scanner.state_at(start)
        before = mapped.text[start - 1] if start > 0 else ""
        after = mapped.text[end] if end < len(mapped.text) else ""
        inner = source[2:-2].strip("-+ \t\r\n")
        value = _param_value(inner, params)
        text = placeholder(source, inner, state, before, after, value, dialect)
        replacements.append((start, end, text, f"the Jinja expression {_short(source)}"))
    return mapped.substitute(replacements) if replacements else mapped


def jinja_tags(text: str) -> Iterator[tuple[str, int, int] | str]:
    """(kind, start, end) of each `{{ }}`, `{% %}` and `{# #}`; a string (the reason) when
    a tag is not closed."""
    position = 0
    while True:
        match = _JINJA.search(text, position)
        if match is None:
            return
        kind, start = match.group(), match.start()
        close = {"{{": "}}", "{%": "%}", "{#": "#}"}[kind]
        end = _close(text, start + 2, close, kind != "{#")
        if end < 0:
            yield f"unclosed Jinja tag {_short(text[start:start + 30])}: not analysed"
            return
        yield kind, start, end
        position = end


def _close(text: str, position: int, close: str, strings: bool) -> int:
    """The offset after `close`, skipping Jinja string literals inside an expression."""
    while position < len(text):
        char = text[position]
        if strings and char in "'\"":
            end = text.find(char, position + 1)
            if end < 0:
                return -1
            position = end + 1
            continue
        if text.startswith(close, position):
            return position + len(close)
        position += 1
    return -1


def placeholder(source: str, inner: str, state: str, before: str, after: str, value: Any, dialect: str) -> str:
    """What a macro or f-string field is rendered as (see the module documentation)."""
    if value is not UNKNOWN:
        return _jinja_str(value)
    if state in ("'", '"', "`"):
        return source if state not in source and "\\" not in source and "\n" not in source else _word(inner)
    if state == "--":
        return source if "\n" not in source and "\r" not in source else _word(inner)
    if state == "/*":
        return source if "*/" not in source else _word(inner)
    if _is_word(before) or _is_word(after):
        return _word(inner)
    from sqlglot import exp

    return exp.to_identifier(source, quoted=True).sql(dialect=dialect)


def _field_text(dag: DagModule, info: Field, dialect: str) -> str:
    value = dag.field_value(info)
    if value is not UNKNOWN:
        return value
    state = SqlScanner(info.before).state_at(len(info.before))
    before = info.before[-1:] if info.before else ""
    after = dag.raw[info.raw_end] if info.raw_end < len(dag.raw) else ""
    return placeholder(info.source, info.source[1:-1], state, before, after, UNKNOWN, dialect)


_PARAM = re.compile(r"params\s*(?:\.\s*(?P<attr>[A-Za-z_]\w*)|\[\s*(?P<q>['\"])(?P<key>[^'\"]*)(?P=q)\s*\])\Z")


def _param_value(inner: str, params: dict) -> Any:
    match = _PARAM.match(inner)
    if match is None:
        return UNKNOWN
    name = match.group("attr") or match.group("key")
    value = params.get(name, UNKNOWN)
    if value is UNKNOWN or not (value is None or isinstance(value, (str, int, float, bool))):
        return UNKNOWN
    return value


def _jinja_str(value: Any) -> str:
    return str(value)


def _word(inner: str) -> str:
    word = re.sub(r"\W+", "_", inner).strip("_") or "macro"
    return f"_{word}" if word[0].isdigit() else word


def _is_word(char: str) -> bool:
    return bool(char) and (char.isalnum() or char == "_")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


class SqlScanner:
    """Where a position of SQL text is: in code, a quoted string (`'`, `"`), a quoted name
    (`` ` ``), a line comment (`--`) or a block comment (`/*`). Jinja tags are skipped whole:
    Jinja reads them before SQL does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.state = "code"

    def state_at(self, target: int) -> str:
        text, i, state = self.text, self.position, self.state
        while i < target:
            if text.startswith(("{{", "{%", "{#"), i):
                close = {"{{": "}}", "{%": "%}", "{#": "#}"}[text[i : i + 2]]
                end = _close(text, i + 2, close, text[i + 1] != "#")
                i = end if end > 0 else len(text)
                continue
            char = text[i]
            if state == "code":
                if char in "'\"`":
                    state = char
                elif text.startswith("--", i):
                    state, i = "--", i + 1
                elif text.startswith("/*", i):
                    state, i = "/*", i + 1
            elif state in "'\"":
                if char == "\\":
                    i += 1
                elif char == state:
                    if text.startswith(state, i + 1) and i + 1 < target:
                        i += 1
                    else:
                        state = "code"
            elif state == "`":
                if char == "`":
                    state = "code"
            elif state == "--":
                if char == "\n":
                    state = "code"
            elif state == "/*" and text.startswith("*/", i):
                state, i = "code", i + 1
            i += 1
        self.position, self.state = max(i, target), state
        return state


# ---------------------------------------------------------------------------------------------
# Units


def statement_units(path: Path, raw: str, rendered: MappedText, dialect: str) -> list[Unit]:
    """One unit per statement, cut with the dialect's tokenizer (as in `.sql` files). Text
    the tokenizer cannot read is one unit: its parse error is reported at its line."""
    import sqlglot
    from sqlglot.errors import TokenError

    from sortlint.sources.sql_files import statement_bounds

    try:
        bounds = statement_bounds(sqlglot.Dialect.get_or_raise(dialect).tokenizer().tokenize(rendered.text))
    except TokenError:
        stripped = rendered.text.strip()
        first = rendered.text.find(stripped) if stripped else 0
        bounds = [(first, first + len(stripped))] if stripped else []
    units = []
    for start, end in bounds:
        mapped = rendered.slice(start, end)
        units.append(Unit(path=path, text=mapped.text, start=mapped.to_raw(0), raw=raw, kind="sql", offsets=mapped))
    return units


@dataclass(frozen=True)
class OpaqueSource:
    """The offset map of an opaque unit: its text is the raw `sql=` expression."""

    start: int
    reason: str

    def to_raw(self, offset: int) -> int:
        return self.start + offset

    def uneditable(self, start: int, end: int) -> str:
        return self.reason


def opaque_unit(path: Path, raw: str, start: int, end: int, reason: str) -> Unit:
    _register_plan_builder()
    return Unit(path=path, text=raw[start:end], start=start, raw=raw, kind=OPAQUE_KIND,
                offsets=OpaqueSource(start, reason))


def opaque_statement(unit: Unit, tables: Any, config: Config):
    """The plan of an opaque unit: one Opaque node saying why."""
    from sortlint.plan.nodes import Opaque, Span
    from sortlint.plan.statement import Statement

    return Statement(unit, Opaque(span=Span(0, len(unit.text)), reason=unit.offsets.reason))


def _register_plan_builder() -> None:
    from sortlint.linter.repository import PLAN_BUILDERS

    PLAN_BUILDERS.setdefault(OPAQUE_KIND, f"{__name__}:opaque_statement")


# ---------------------------------------------------------------------------------------------
# Template files referenced from the project's DAGs

_REFERENCES: dict[tuple, tuple[TemplateReference, ...]] = {}


_NOT_SOURCES = {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist"}


def project_references(config: Config) -> list[TemplateReference]:
    """Every template file the DAGs under the project root reference (those the config's
    globs select), with the params each reference renders it with."""
    from sortlint.sources.discovery import _selected

    found: list[TemplateReference] = []
    root = config.root
    for folder, directories, files in os.walk(root):
        directories[:] = sorted(d for d in directories if not d.startswith(".") and d not in _NOT_SOURCES)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            file = Path(folder) / name
            if _selected(file, config):
                found += dag_references(file, config)
    return found


def dag_references(file: Path, config: Config) -> tuple[TemplateReference, ...]:
    try:
        stat = file.stat()
    except OSError:
        return ()
    key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size, str(config.root))
    if key not in _REFERENCES:
        _REFERENCES[key] = _read_references(file, config)
    return _REFERENCES[key]


def _read_references(file: Path, config: Config) -> tuple[TemplateReference, ...]:
    try:
        with open(file, encoding="utf-8", newline="") as handle:
            raw = handle.read()
    except (OSError, UnicodeDecodeError):
        return ()
    if not (_MAYBE_DAG.search(raw) and _MAYBE_SQL.search(raw) and any(s in raw for s in TEMPLATE_SUFFIXES)):
        return ()
    try:
        dag = DagModule.parse(file, raw)
    except UserError:
        return ()  # reported when the DAG file itself is checked
    references = []
    for operator in dag.operators:
        for item in dag.sql_items(operator):
            if item.reason is not None:
                continue
            value = dag.evaluate(item.node)
            if isinstance(value, str) and value.strip().endswith(TEMPLATE_SUFFIXES):
                found = find_template(value.strip(), dag.searchpath(operator, config.root))
                if found is not None:
                    params = tuple(sorted(dag.params(operator).items(), key=lambda kv: str(kv[0])))
                    references.append(TemplateReference(found, params))
    return tuple(references)


def _agreed(all_params: Iterator[tuple[tuple[str, Any], ...]]) -> dict[str, Any]:
    """The params on whose value every reference agrees."""
    agreed: dict[str, Any] | None = None
    for params in all_params:
        current = dict(params)
        if agreed is None:
            agreed = current
        else:
            agreed = {k: v for k, v in agreed.items() if k in current and current[k] == v and type(current[k]) is type(v)}
    return agreed or {}


def _in_dbt_project(path: Path) -> bool:
    return any((folder / "dbt_project.yml").is_file() for folder in _resolved(path).parents)


def _resolved(path: Path) -> Path:
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


def dotted_name(node: Any) -> str | None:
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _last_name(node: Any) -> str | None:
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        return node.attr.value
    return None


def _describe(node: Any) -> str:
    kind = type(node).__name__
    if kind == "Call":
        name = dotted_name(node.func)
        return f"a call to {name}()" if name else "a call"
    if kind == "Name":
        return f"the name {node.value}, not bound once to a string in this file"
    if kind == "BinaryOperation":
        return "an expression"
    if kind == "Attribute":
        return f"the attribute {dotted_name(node) or '...'}"
    if is_string(node):
        return "a bytes literal"
    return f"a {kind} expression"


def _operator_class(func: Any) -> str | None:
    """The operator class a call builds: `Op(...)`, `mod.Op(...)`, `Op.partial(...)`,
    `Op.partial(...).expand(...)`."""
    name = _last_name(func)
    if name and name.endswith("Operator"):
        return name
    if type(func).__name__ == "Attribute" and func.attr.value in MAPPING_METHODS:
        inner = func.value
        if type(inner).__name__ == "Call":
            return _operator_class(inner.func)
        return _operator_class(inner)
    return None


def _is_dag_call(node: Any) -> bool:
    return type(node).__name__ == "Call" and _last_name(node.func) == "DAG"


def _kwargs(call: Any) -> dict[str, Any]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def _make_collector():
    import libcst as cst

    class Collector(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.bindings: dict[str, list[Any]] = {}
            self.dags: list[DagInfo] = []
            self.named_dags: dict[str, DagInfo] = {}
            self.operators: list[tuple] = []
            self.stack: list[DagInfo] = []
            self.pushed: list[int] = []
            self.known: dict[int, DagInfo] = {}

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
            name = _operator_class(node.func)
            if name is None:
                return
            kwargs = _kwargs(node)
            func = node.func
            # params=/dag= of Op.partial(...) apply to .expand(sql=...)
            while type(func).__name__ == "Attribute" and type(func.value).__name__ == "Call":
                for key, value in _kwargs(func.value).items():
                    kwargs.setdefault(f"partial:{key}", value)
                func = func.value.func
            for keyword in SQL_KEYWORDS:
                if keyword in kwargs:
                    dag_name = kwargs.get("dag", kwargs.get("partial:dag"))
                    self.operators.append((
                        name, keyword, kwargs[keyword], self.stack[-1] if self.stack else None,
                        dag_name.value if type(dag_name).__name__ == "Name" else None,
                        kwargs.get("params", kwargs.get("partial:params")),
                    ))

    return Collector


_COLLECTOR_CLASS = None


def _Collector():  # noqa: N802 - stands in for the visitor class, made when libcst is imported
    global _COLLECTOR_CLASS
    if _COLLECTOR_CLASS is None:
        _COLLECTOR_CLASS = _make_collector()
    return _COLLECTOR_CLASS()
