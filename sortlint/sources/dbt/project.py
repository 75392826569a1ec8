"""dbt projects: where models and macros live, what `ref`/`source`/`var` render to, and the
orderings a project declares in its own YAML.

A `.sql` file under a `dbt_project.yml` directory's model paths is a *model*: a table other
models read through `ref('name')`. sortlint renders `ref('m')` as dbt's default naming does
for a target schema named after the project: `<project>.m`, `<project>_<custom>.m` for a
custom schema, with the model's alias for its name (see `model_configs`; a project's own
`generate_schema_name` is followed too), `ref('pkg', 'm')` as `pkg.m`, and `source('s', 't')`
as `<schema>.<identifier>` of that source table (`s.t` unless the YAML says otherwise), so
that a model's name is one the catalog and the repository's table registry understand, and
a model never shares a name with a source table. When dbt renders the project
(`sortlint.sources.dbt.compiled`), its own names are used.

The project's YAML may declare orderings where dbt users keep table metadata:
`meta: {sortlint: {...}}` (or `config: {meta: {sortlint: {...}}}`) on a source table or a
model, `+meta` in dbt_project.yml's `models:`, or a model's own `config(meta=...)`. Each block is read by `parse_source`, exactly like a `sources:` entry of sortlint.yml,
and merged with it by `Config.with_sources`: a table declared twice is an error naming both
places.

Under `target: datafusion` every model's rendered query is registered as a view, so a model
reading `ref('m')` sees what `m`'s query guarantees; under `target: spark` a model is a plain
table (Spark does not keep the order a table was written in), known by its columns and by
what is declared about it. Which file defines each model's table is known before any file
is checked (`sources.dbt.preparation`), and a model is analysed the first time another
file reads it, so the order files are read in does not matter.

Nothing here imports sqlfluff; rendering is `sortlint.sources.dbt.rendering`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml
from yaml.constructor import SafeConstructor

from sortlint.config import ColumnTypes, DbtOptions, Source, parse_source
from sortlint.config import nodes
from sortlint.config.model import Target
from sortlint.config.syntax import BadText, column_type
from sortlint.errors import ConfigError, UserError
from sortlint.sources.dbt.secret_env import env_value
from sortlint.sources.frontend import Reading
from sortlint.store import digest

PROJECT_FILE = "dbt_project.yml"


def _unchanged(value: object) -> object:
    return value


# dbt's `as_bool`, `as_native`, `as_number`, `as_text`: when dbt renders SQL text they
# change nothing; where it renders native values (dbt_project.yml), the value rendered is
# already the native one.
FILTERS = {"as_bool": _unchanged, "as_native": _unchanged, "as_number": _unchanged,
           "as_text": _unchanged}
MODEL_KIND = "dbt_model"  # Unit.kind of the statement that defines a model
# dbt's materializations that store no files: a view is its query, an ephemeral model a CTE
# of its readers. dbt's default materialization is `view`.
FILELESS = frozenset({"view", "ephemeral"})
REBUILT = frozenset({"table", "view", "ephemeral", "materialized_view"})
DEFAULT_MATERIALIZED = "view"


@dataclass(frozen=True)
class ModelTable:
    """What the statement defining a model writes: its table (the name its readers' `ref`
    renders) and its materialization (None when not known)."""

    name: str
    materialized: str | None

    @property
    def stores_files(self) -> bool:
        return self.materialized not in FILELESS

    @property
    def rows(self) -> Literal["replace", "increments", "unknown"]:
        """What its readers find in the model's relation: the rows of its query (a table, a
        view, an ephemeral model's CTE), rows of its query from every run (incremental), or
        what a materialization sortlint does not know makes of them."""
        if self.materialized in REBUILT:
            return "replace"
        return "increments" if self.materialized == "incremental" else "unknown"
META_KEY = "sortlint"


# ---------------------------------------------------------------------------------------------
# Run options: `--var` and `is_incremental()` (`Config.dbt`)


def parse_var(text: str) -> tuple[str, object]:
    """`key=value` of a `--var` option; the value is read as YAML (`n=3` is a number, as dbt's
    `--vars '{n: 3}'` would make it)."""
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise UserError(f"bad --var {text!r}; expected NAME=VALUE")
    try:
        parsed = nodes.load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


# ---------------------------------------------------------------------------------------------
# The project


@dataclass(frozen=True)
class Relation(Mapping):
    """What `ref`, `source` and `this` render to: dbt's relation, reduced to `schema.name`.
    Like dbt's, it is also a mapping (`relation is mapping`, `relation.metadata.type`), which
    is how packages tell a relation from a string."""

    schema: str
    identifier: str

    def _fields(self) -> dict[str, object]:
        return {
            "metadata": {"type": "SparkRelation"},
            "path": {"database": None, "schema": self.schema, "identifier": self.identifier},
            "type": None,
            "database": None,
            "schema": self.schema,
            "identifier": self.identifier,
        }

    def __getitem__(self, key: str) -> object:
        return self._fields()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())

    def __hash__(self) -> int:
        return hash((self.schema, self.identifier))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Relation):
            return (self.schema, self.identifier) == (other.schema, other.identifier)
        return NotImplemented

    def get(self, key: str, default: object = None) -> object:
        return self._fields().get(key, default)

    @property
    def is_table(self) -> bool:
        return False

    @property
    def is_view(self) -> bool:
        return False

    def include(self, database: bool = True, schema: bool = True, identifier: bool = True) -> Relation:
        return Relation(self.schema if schema else "", self.identifier)

    def render(self) -> str:
        return str(self)

    @property
    def name(self) -> str:
        return self.identifier

    @property
    def table(self) -> str:
        return self.identifier

    @property
    def database(self) -> str:
        return ""

    def __str__(self) -> str:
        parts = (self.schema, self.identifier) if self.schema else (self.identifier,)
        return ".".join(map(quoted, parts))


def quoted(part: str) -> str:
    """A name part as Spark SQL text: back-quoted unless it is a plain word."""
    return part if part.replace("_", "a").isalnum() and not part[:1].isdigit() else (
        "`" + part.replace("`", "``") + "`"
    )


@dataclass(frozen=True)
class Project:
    """One dbt project, as far as rendering and the catalog need it."""

    root: Path
    name: str
    model_paths: tuple[Path, ...]
    macro_paths: tuple[Path, ...]
    vars: Mapping[str, object] = field(default_factory=dict)
    # The run's `--var`s, which win over `vars` where dbt_project.yml's configs read a var
    # (`+enabled: "{{ var('x') }}"`), as dbt's `--vars` do.
    given_vars: Mapping[str, object] = field(default_factory=dict)
    # (source name, table name) -> relation, from the `sources:` of the property files
    sources: Mapping[tuple[str, str], Relation] = field(default_factory=dict)
    # model name -> relation, where a custom schema or alias makes it other than
    # `<project>.<model>` (see `model_configs`)
    relations: Mapping[str, Relation] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()  # models `enabled: false` leaves out
    profile: str | None = None  # `profile:` of dbt_project.yml
    target_path: str = "target"
    log_path: str = "logs"
    # the `models:` configs of dbt_project.yml, as written (read by `model_configs`)
    model_settings: Mapping[str, object] = field(default_factory=dict)
    # What `read_project` found once, so that a rendering reads no YAML: every model's file
    # by name, its merged configs (`model_configs`), and the property file declaring each
    # source table.
    model_files: Mapping[str, Path] = field(default_factory=dict)
    configs: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    source_files: Mapping[tuple[str, str], Path] = field(default_factory=dict)

    # `meta: {sortlint: ...}` blocks of dbt_project.yml's `models:` (`project_meta_blocks`)
    meta_levels: tuple[tuple[tuple[str, ...], yaml.Node, yaml.Node], ...] = ()
    # What is derived from the project by the run that read it (its macro library, its
    # graph, dbt's rendering of it): each run reads its projects afresh (`Projects`), so
    # nothing derived outlives the files it was derived from. Never kept in the cache.
    _derived: dict[object, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, key: object, make: Callable[[], Any]) -> Any:
        """What `make` derives from the project, made once per run."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "_derived"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _derived={})

    @property
    def output_paths(self) -> tuple[str, ...]:
        """Where dbt writes (its target and log directories), relative to the root."""
        return (self.target_path, self.log_path)

    def model(self, path: Path) -> str | None:
        """The model a file defines (its stem), or None when it is not under a model path."""
        if path.suffix != ".sql":
            return None
        return path.stem if _under(path, self.model_paths) else None

    def is_macro_file(self, path: Path) -> bool:
        return _under(path, self.macro_paths)

    def ref(self, *args: str) -> Relation:
        """`ref('m')` is a model of this project, `ref('pkg', 'm')` one of a package."""
        if len(args) == 1 or args[0] == self.name:
            return self.relations.get(args[-1], Relation(self.name, args[-1]))
        return Relation(args[0], args[-1])

    def source(self, source: str, table: str) -> Relation:
        return self.sources.get((source, table), Relation(source, table))

    def models(self) -> dict[str, Path]:
        """Every model file by name; two files of one name are an error, as in dbt."""
        if self.model_files:
            return dict(self.model_files)
        found: dict[str, Path] = {}
        for directory in self.model_paths:
            for path in sorted(directory.rglob("*.sql")):
                if any(part.startswith(".") for part in path.relative_to(directory).parts):
                    continue
                earlier = found.get(path.stem)
                if earlier is not None:
                    raise ConfigError(
                        f"two models are named {path.stem!r}: {earlier} and {path} "
                        "(dbt refuses such a project too)",
                        path,
                    )
                found[path.stem] = path
        return found

    def variable(self, name: str, options: DbtOptions) -> tuple[bool, object]:
        """(found, value) of `var(name)`: `--var` first, then the project's own vars."""
        given = dict(options.vars)
        if name in given:
            return True, given[name]
        if name in self.vars:
            return True, self.vars[name]
        return False, None


def _under(path: Path, directories: Iterable[Path]) -> bool:
    """Whether the file lies below one of the (resolved) directories: as written when it
    is absolute and below one already, else once resolved."""
    if path.is_absolute() and any(path.is_relative_to(directory) for directory in directories):
        return True
    resolved = path.resolve()
    return any(resolved.is_relative_to(directory) for directory in directories)


class Projects:
    """The dbt projects one check reads, each read once, when a file of it is first met: a
    check sees the project files as they are then, and the next check reads them afresh (a
    long-lived process keeps nothing of a project between checks). A check's `Projects` is
    in its `Reading` (`projects_of`)."""

    def __init__(self, given_vars: Mapping[str, object] | None = None) -> None:
        self._given_vars = dict(given_vars or {})
        self._roots: dict[Path, Path | None] = {}
        self._read: dict[Path, Project] = {}

    def of(self, path: Path) -> Project | None:
        """The project a file belongs to: the nearest `dbt_project.yml` above it."""
        root = self.root_of(path)
        return None if root is None else self.at(root)

    def root_of(self, path: Path) -> Path | None:
        """The folder of the nearest `dbt_project.yml` above a file, or None."""
        return self._root(path.resolve().parent)

    def _root(self, directory: Path) -> Path | None:
        if directory not in self._roots:
            if (directory / PROJECT_FILE).is_file():
                self._roots[directory] = directory
            else:
                above = directory.parent
                self._roots[directory] = None if above == directory else self._root(above)
        return self._roots[directory]

    def at(self, root: Path) -> Project:
        """The project at `root` (see `read_project`)."""
        if root not in self._read:
            self._read[root] = read_project(root, self._given_vars)
        return self._read[root]

    def remember(self, project: Project) -> None:
        """Make `project` what this check reads at its root (one the cache kept)."""
        self._read[project.root] = project


def projects_of(reading: Reading) -> Projects:
    """The projects a check reads."""
    found: Projects = reading.remembered(Projects, lambda: Projects(dict(reading.config.dbt.vars)))
    return found


def read_project(root: Path, given_vars: Mapping[str, object] | None = None) -> Project:
    """Read `dbt_project.yml` and the `sources:` of the project's property files, its configs
    rendered with the run's `--var`s (`given_vars`)."""
    path = root / PROJECT_FILE
    with _yaml_syntax(path):
        document = nodes.compose(_read(path))
        data = None if document is None else SafeConstructor().construct_document(document)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ConfigError("a dbt project needs a name (name: my_project)", path)
    name = data["name"]
    model_paths = _paths(root, data, ("model-paths", "source-paths"), "models", path)
    project = Project(
        root=root,
        name=name,
        model_paths=model_paths,
        macro_paths=_paths(root, data, ("macro-paths",), "macros", path),
        vars=project_vars(data.get("vars"), name),
        given_vars=dict(given_vars or {}),
        profile=data.get("profile") if isinstance(data.get("profile"), str) else None,
        target_path=str(data.get("target-path") or "target"),
        log_path=str(data.get("log-path") or "logs"),
        model_settings=data.get("models") if isinstance(data.get("models"), dict) else {},
        meta_levels=tuple(project_meta_blocks(document)),
    )
    project = replace(project, model_files=project.models())
    sources = {}
    source_files = {}
    for file in property_files(project):
        for source, table, relation in property_file(file).sources:
            sources[(source, table)] = relation
            source_files[(source, table)] = file
    configs = model_configs(project)
    if overrides_naming(project):
        from sortlint.sources.dbt.context import named_by_project

        named = named_by_project(project, configs)
    else:
        named = {model: configured_relation(project, model, s) for model, s in configs.items()}
    relations = {model: r for model, r in named.items() if r != Relation(name, model)}
    disabled = frozenset(m for m, settings in configs.items() if not is_enabled(settings))
    return replace(project, sources=sources, relations=relations, disabled=disabled, configs=configs,
                   source_files=source_files)


def _paths(
    root: Path, data: dict, keys: Sequence[str], default: str, path: Path
) -> tuple[Path, ...]:
    for key in keys:
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{key} must be a list of directories", path)
            return tuple((root / v).resolve() for v in value)
    return ((root / default).resolve(),)


def project_vars(value: object, project: str) -> dict[str, object]:
    """`vars:` of dbt_project.yml: global vars, overridden by those scoped to this project
    (`vars: {my_project: {x: 1}}`). Which other keys are scopes of installed packages is not
    known here; they stay vars of their name, which no model of this project reads."""
    if not isinstance(value, dict):
        return {}
    scoped = value.get(project)
    merged = {k: v for k, v in value.items() if k != project}
    if isinstance(scoped, dict):
        merged.update(scoped)
    # dbt renders the vars of dbt_project.yml (`"{{ 5 if target.type == 'x' else 4 }}"`)
    return {
        key: render_setting(v, project, merged) if isinstance(v, str) and "{" in v else v
        for key, v in merged.items()
    }


@contextlib.contextmanager
def _yaml_syntax(path: Path) -> Iterator[None]:
    """A YAML syntax error as a catalog error with the file and line."""
    try:
        yield
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise ConfigError(
            f"YAML syntax error: {error.problem or 'invalid YAML'}",
            path,
            None if mark is None else mark.line + 1,
        ) from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read: {error}", path) from None


def property_files(project: Project) -> list[Path]:
    """The YAML files under the model paths, where dbt reads sources and model properties."""
    return sorted(
        path
        for directory in project.model_paths
        for pattern in ("*.yml", "*.yaml")
        for path in directory.rglob(pattern)
    )


# ---------------------------------------------------------------------------------------------
# Declarations in the project's YAML


def _mapping(node: yaml.Node | None) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """A mapping node's entries by key (key node, value node); anything else is empty.

    dbt's own YAML is not sortlint's to validate: only the path down to a `sortlint` block
    is read, and everything around it may hold whatever dbt accepts."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        key.value: (key, value)
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode)
    }


def _list(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _text(entries: dict, key: str) -> str | None:
    entry = entries.get(key)
    if entry is None or not isinstance(entry[1], yaml.ScalarNode) or nodes.is_null(entry[1]):
        return None
    return entry[1].value


def source_tables(root: yaml.Node | None):
    """(source, table, relation, table node) for each table of each `sources:` entry."""
    for source_node in _list(_mapping(root).get("sources", (None, None))[1]):
        source = _mapping(source_node)
        name = _text(source, "name")
        if name is None:
            continue
        schema = _text(source, "schema") or name
        for table_node in _list(source.get("tables", (None, None))[1]):
            table = _mapping(table_node)
            table_name = _text(table, "name")
            if table_name is None:
                continue
            identifier = _text(table, "identifier") or table_name
            yield name, table_name, Relation(schema, identifier), table_node


def meta_blocks(node: yaml.Node) -> list[tuple[yaml.Node, yaml.Node]]:
    """(key node, value node) of each `sortlint` block under `meta` or `config.meta`."""
    entries = _mapping(node)
    places = [entries.get("meta"), _mapping(entries.get("config", (None, None))[1]).get("meta")]
    return [
        _mapping(place[1])[META_KEY]
        for place in places
        if place is not None and META_KEY in _mapping(place[1])
    ]


def declarations(
    project: Project, target: Target, relations: Mapping[str, str] | None = None
) -> list[Source]:
    """Every `sortlint` meta block of the project, as catalog sources named as the SQL names
    them (a source table as `source()` renders it, a model as `ref()` does: `relations`, by
    model name, when dbt rendered the project).

    A model's block may also come from its own SQL (`config(meta={'sortlint': {...}})`) or
    from dbt_project.yml (`models: {project: {dir: {+meta: {sortlint: ...}}}}`); as dbt
    merges `meta`, the most specific level wins: the model's SQL, its property file, else
    the deepest level of dbt_project.yml above it."""
    relations = relations or {}

    def relation(model: str) -> str:
        return relations.get(model) or str(project.ref(model))

    found: list[Source] = []
    declared: set[str] = set()
    # The names a file's model blocks take come from these alone.
    naming = (target, sorted(relations.items()), sorted((m, str(r)) for m, r in project.relations.items()),
              project.name)
    for path in property_files(project):

        def parsed(path: Path = path) -> tuple[tuple[Source, ...], frozenset[str]]:
            return _file_declarations(path, target, relation)

        blocks, models = _scanned(("declarations", str(path), _read(path), naming), parsed)
        found += blocks
        declared |= models
    for name, path in project.models().items():
        if name in project.disabled:
            continue
        in_sql = sql_meta_block(path, target, relation(name))
        if in_sql is not None:  # the model's own config wins, as in dbt's merge of `meta`
            found = [s for s in found if s.name != in_sql.name] + [in_sql]
            declared.add(name)
    if project.meta_levels:
        project_file = project.root / PROJECT_FILE
        for name, path in project.models().items():
            if name in declared or name in project.disabled:
                continue
            fqn = model_fqn(project, name, path)
            matching = [level for level in project.meta_levels if fqn[: len(level[0])] == level[0]]
            if matching:
                _, key, value = max(matching, key=lambda level: len(level[0]))
                found.append(parse_source(relation(name), value, project_file, target,
                                          line=nodes.line_of(key)))
    return found


def _file_declarations(
    path: Path, target: Target, relation: Callable[[str], str]
) -> tuple[tuple[Source, ...], frozenset[str]]:
    """The `sortlint` blocks of one property file, and the models that have one."""
    file = property_file(path)
    found = [parse_source(table, value, path, target, line=nodes.line_of(key))
             for table, key, value in file.source_blocks]
    found += [parse_source(relation(model), value, path, target, line=nodes.line_of(key))
              for model, key, value in file.model_blocks]
    return tuple(found), frozenset(model for model, _, _ in file.model_blocks)


# ---------------------------------------------------------------------------------------------
# Column types: what the project says of its columns' types, beyond sortlint's blocks


CATALOG_FILE = "catalog.json"  # what `dbt docs generate` writes under the target path


def column_types(project: Project, relations: Mapping[str, str] | None = None) -> list[ColumnTypes]:
    """The column types of the project's models and source tables, named as `declarations`
    names them: each column's `data_type` in the property files (dbt's model contracts and
    column docs), else its type in `<target-path>/catalog.json` (`dbt docs generate`), when
    there is one. A type is kept only as sortlint's catalog reads it (`column_type`); any
    other spelling (`text`, `timestamp_tz`, a typo) leaves the column's type unknown."""
    relations = relations or {}

    def relation(model: str) -> str:
        return relations.get(model) or str(project.ref(model))

    naming = (sorted(relations.items()), sorted((m, str(r)) for m, r in project.relations.items()), project.name)
    learned: dict[str, dict[str, str]] = {}  # table -> column -> type; the first source wins

    def learn(table: str, types: Iterable[tuple[str, str]]) -> None:
        known = learned.setdefault(table, {})
        for column, type_ in types:
            known.setdefault(column, type_)

    for path in property_files(project):
        def parsed(path: Path = path) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
            return _file_column_types(path, relation, project.disabled)

        for table, types in _scanned(("column types", str(path), _read(path), naming), parsed):
            learn(table, types)
    for table, types in _catalog_column_types(project.root / project.target_path / CATALOG_FILE, project, relation):
        learn(table, types)
    return [ColumnTypes(table, tuple(sorted(types.items()))) for table, types in learned.items() if types]


def _file_column_types(
    path: Path, relation: Callable[[str], str], disabled: frozenset[str]
) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """(table, ((column, type), ...)) for each model and source table of a property file
    whose columns say a `data_type` sortlint reads."""
    with _yaml_syntax(path):
        root = nodes.compose(_read(path))
    found = []
    for _, _, table_relation, node in source_tables(root):
        found.append((str(table_relation), _data_types(node)))
    for model_node in _list(_mapping(root).get("models", (None, None))[1]):
        name = _text(_mapping(model_node), "name")
        if name is not None and name not in disabled:
            found.append((relation(name), _data_types(model_node)))
    return tuple((table, types) for table, types in found if types)


def _data_types(node: yaml.Node) -> tuple[tuple[str, str], ...]:
    found = []
    for column in _list(_mapping(node).get("columns", (None, None))[1]):
        entries = _mapping(column)
        type_ = _spark_type(_text(entries, "data_type"))
        name = _text(entries, "name")
        if name is not None and type_ is not None:
            found.append((name.lower(), type_))
    return tuple(found)


def _spark_type(text: str | None) -> str | None:
    """A type as sortlint's catalog writes it, or None when it reads none in `text`."""
    if text is None:
        return None
    try:
        type_, _ = column_type(text)
    except BadText:
        return None
    return type_


def _catalog_column_types(
    path: Path, project: Project, relation: Callable[[str], str]
) -> list[tuple[str, list[tuple[str, str]]]]:
    """(table, [(column, type)]) for each of the project's models and sources in dbt's
    `catalog.json`; nothing when there is none or it does not read as one."""
    try:
        catalog = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    found = []
    for section in ("nodes", "sources"):
        entries = catalog.get(section) if isinstance(catalog, dict) else None
        for unique_id, entry in (entries.items() if isinstance(entries, dict) else ()):
            parts = str(unique_id).split(".")
            if len(parts) < 3 or parts[1] != project.name or not isinstance(entry, dict):
                continue
            if parts[0] == "model" and len(parts) == 3 and parts[2] not in project.disabled:
                table = relation(parts[2])
            elif parts[0] == "source" and len(parts) == 4:
                table = str(project.source(parts[2], parts[3]))
            else:
                continue  # seeds, snapshots, versioned models: not read
            columns = entry.get("columns")
            types = [
                (str(name).lower(), type_)
                for name, column in (columns.items() if isinstance(columns, dict) else ())
                if isinstance(column, dict) and (type_ := _spark_type(_str(column.get("type")))) is not None
            ]
            found.append((table, types))
    return found


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class PropertyFile:
    """What a property file says that the project's reading needs: its source tables and
    the `config:` of its models."""

    sources: tuple[tuple[str, str, Relation], ...]
    configs: dict[str, dict]
    # Its `sortlint` blocks (key node, value node): of source tables, by the table's
    # relation; of models, by the model's name (whose relation depends on the project).
    source_blocks: tuple[tuple[str, yaml.Node, yaml.Node], ...] = ()
    model_blocks: tuple[tuple[str, yaml.Node, yaml.Node], ...] = ()


def property_file(path: Path) -> PropertyFile:
    """What a property file says, composed once per content."""

    def read() -> PropertyFile:
        with _yaml_syntax(path):
            root = nodes.compose(_read(path))
        tables = list(source_tables(root))
        models = [(_text(_mapping(node), "name"), node)
                  for node in _list(_mapping(root).get("models", (None, None))[1])]
        return PropertyFile(
            sources=tuple((source, table, relation) for source, table, relation, _ in tables),
            configs=_property_configs(root),
            source_blocks=tuple((str(relation), key, value) for _, _, relation, node in tables
                                for key, value in meta_blocks(node)),
            model_blocks=tuple((name, key, value) for name, node in models if name is not None
                               for key, value in meta_blocks(node)),
        )

    return _scanned(("property file", str(path), _read(path)), read)


# What the property files say, by their text (and what else each reading depends on): each
# file is composed once per content. `property_scans_used` are the entries this run read;
# the persistent cache keeps them (see `sources.dbt.preparation`).
property_scans: dict[str, Any] = {}
property_scans_used: set[str] = set()


def _scanned(key: tuple, make: Callable[[], Any]) -> Any:
    found = digest(*key)
    if found not in property_scans:
        property_scans[found] = make()
    property_scans_used.add(found)
    return property_scans[found]


def project_meta_blocks(root: yaml.Node | None) -> list[tuple[tuple[str, ...], yaml.Node, yaml.Node]]:
    """(fqn prefix, key node, value node) of each `sortlint` block under `+meta` (or `meta`)
    in dbt_project.yml's `models:`."""
    found = []

    def walk(node: yaml.Node, prefix: tuple[str, ...]) -> None:
        for key, (key_node, value) in _mapping(node).items():
            if key in ("+meta", "meta"):
                block = _mapping(value).get(META_KEY)
                if block is not None:
                    found.append((prefix, block[0], block[1]))
            elif not key.startswith("+") and key not in CONFIG_KEYS:
                walk(value, (*prefix, key))

    models = _mapping(root).get("models")
    if models is not None:
        walk(models[1], ())
    return found


# ---------------------------------------------------------------------------------------------
# dbt's Jinja builtins


class ConfigFunction:
    """`config(...)` records a model's settings and renders nothing; `config.get` reads them."""

    unsafe_callable = False
    alters_data = False

    def __init__(self) -> None:
        self.settings: dict[str, object] = {}

    def __call__(self, *args: object, **kwargs: object) -> str:
        if args and isinstance(args[0], dict):
            self.settings.update(args[0])
        self.settings.update(kwargs)
        return ""

    def get(self, key: str, default: object = None) -> object:
        return self.settings.get(key, default)

    def require(self, key: str) -> object:
        if key not in self.settings:
            raise RenderFailure(f"model requires config {key!r}, which it does not set")
        return self.settings[key]


class RenderFailure(Exception):
    """A dbt builtin refused (an undefined `var`, an unset `env_var`): the model does not
    render, as it would not under dbt."""


@dataclass(frozen=True)
class ProfileTarget:
    """`target`: the profile's target, as far as a model can see without a profile."""

    name: str
    schema: str
    type: str
    database: str = ""
    threads: int = 1
    profile_name: str = ""


def builtins(
    project: Project | None,
    model: str | None,
    dialect: str,
    options: DbtOptions,
    reads: list,
    relations: Mapping[str, str] | None = None,
    parsing: bool = False,
) -> dict:
    """The names dbt provides to a model's Jinja; `reads` collects the names of the
    project's models it reads. `relations` are the project's models as dbt names them.
    `parsing`: as dbt parses a model (to learn its config), a var not set is None."""
    relations = relations or {}
    # Outside a dbt project `ref('m')` is plain `m`: there is no project to qualify it by.
    schema_of = project if project is not None else Project(Path("."), "", (), ())
    name = schema_of.name

    def ref(*args: str, **_: object) -> Relation | str:
        if not 1 <= len(args) <= 2 or not all(isinstance(a, str) for a in args):
            raise RenderFailure(f"ref() takes a model name and an optional package: ref{args!r}")
        if len(args) == 1 or args[0] == name:
            reads.append(args[-1])
            if args[-1] in relations:  # as dbt renders it, when dbt rendered the project
                return relations[args[-1]]
        return schema_of.ref(*args)

    def source(source_name: str, table: str) -> Relation:
        return schema_of.source(source_name, table)

    def var(variable: str, *default: object) -> object:
        found, value = schema_of.variable(variable, options)
        if found:
            return value
        if default:
            return default[0]
        if parsing:
            return None
        raise RenderFailure(
            f"required var {variable!r} not found: set it under vars: in dbt_project.yml, "
            "give var() a default, or pass --var"
        )

    def env_var(variable: str, *default: str) -> str:
        value = env_value(variable, *default[:1])
        if value is None:
            raise RenderFailure(f"env var required but not provided: {variable!r}")
        return value

    return {
        "ref": ref,
        "source": source,
        "config": ConfigFunction(),
        "var": var,
        "env_var": env_var,
        "is_incremental": lambda: options.incremental,
        "this": relations.get(model or "") or (
            schema_of.ref(model) if model else Relation(name, "this_model")
        ),
        "target": ProfileTarget("dev", name, dialect, profile_name=name),
        "execute": True,  # as in `dbt compile`: the database answers (empty; see context)
        "log": lambda *args, **kwargs: "",
        "project_name": name,
    }


# ---------------------------------------------------------------------------------------------
# Model configs: custom schemas, aliases, `enabled`, as dbt merges them

# Keys that are configs without a `+` in dbt_project.yml's `models:` (any other key names a
# directory or a model).
CONFIG_KEYS = frozenset({
    "materialized", "schema", "alias", "database", "enabled", "tags", "meta", "docs",
    "persist_docs", "full_refresh", "pre-hook", "post-hook", "quoting", "column_types",
    "contract", "grants", "on_schema_change", "sql_header", "file_format", "location_root",
    "partition_by", "clustered_by", "buckets", "incremental_strategy", "unique_key", "group",
    "access", "labels", "event_time", "batch_size", "lookback", "begin", "concurrent_batches",
})


def model_configs(project: Project) -> dict[str, dict[str, object]]:
    """Each model's configs that decide its relation and whether it is built, merged as dbt
    merges them, least specific first: dbt_project.yml's `models:` along the model's path,
    the `config:` of its property-file entry, then its own `config(...)` call (read where
    its arguments are literals)."""
    models = project.models()
    from_properties: dict[str, dict] = {}
    for file in property_files(project):
        from_properties.update(property_file(file).configs)
    merged = {}
    for name, path in models.items():
        settings: dict[str, object] = {}
        for level in project_levels(project, model_fqn(project, name, path)):
            settings.update(level)
        settings.update(from_properties.get(name, {}))
        settings.update(sql_config(path))
        merged[name] = settings
    return merged


def _property_configs(root: yaml.Node | None) -> dict[str, dict]:
    """The `config:` of each `models:` entry of a property file, by the model's name. Only
    those are constructed from the composed file: a large project's descriptions, columns
    and tests are most of its YAML, and constructing them cost more than composing."""
    found: dict[str, dict] = {}
    for model_node in _list(_mapping(root).get("models", (None, None))[1]):
        entries = _mapping(model_node)
        name = entries.get("name")
        if name is None or not (isinstance(name[1], yaml.ScalarNode) and name[1].tag == nodes.STR):
            continue
        config = entries.get("config")
        value = SafeConstructor().construct_document(config[1]) if config is not None else None
        found[name[1].value] = value if isinstance(value, dict) else {}
    return found


def model_fqn(project: Project, name: str, path: Path) -> tuple[str, ...]:
    """dbt's fully qualified name of a model: the project, its directories, its name."""
    # A project's own model files are placed already: resolved only when not (resolving
    # each of a large project's models was a third of reading the project).
    placed = path if any(path.is_relative_to(d) for d in project.model_paths) else path.resolve()
    for directory in project.model_paths:
        if placed.is_relative_to(directory):
            return (project.name, *placed.relative_to(directory).parent.parts, name)
    return (project.name, name)


def project_levels(project: Project, fqn: tuple[str, ...]) -> list[dict[str, object]]:
    """The configs dbt_project.yml's `models:` gives at each level of the fqn, outermost
    first (the level above the project's name applies to every package)."""
    levels = []
    node: object = project.model_settings
    for part in ("", *fqn):
        if part:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            break
        levels.append({
            key.lstrip("+"): _rendered_setting(project, value) for key, value in node.items()
            if isinstance(key, str) and (key.startswith("+") or key in CONFIG_KEYS)
        })
    return levels


def _rendered_setting(project: Project, value: object) -> object:
    """A dbt_project.yml config written as Jinja (`"{{ 'table' if target.type == 'x' else
    'view' }}"`), rendered as dbt renders it for the spark target; None when it cannot be."""
    if not isinstance(value, str) or "{" not in value:
        return value
    return render_setting(value, project.name, {**project.vars, **project.given_vars})


def render_setting(value: str, name: str, variables: Mapping[str, object]) -> object:
    """dbt_project.yml's Jinja, rendered as dbt renders it (to a native value) for the
    spark target; None when it cannot be."""
    from jinja2.nativetypes import NativeEnvironment

    target = {"type": "spark", "name": "dev", "schema": name}
    environment = NativeEnvironment()
    environment.filters.update(FILTERS)
    try:
        rendered = environment.from_string(value).render(
            target=target, var=lambda key, default=None: variables.get(key, default),
            env_var=env_value,
        )
    except Exception:  # whatever the setting's own Jinja raises: not known
        return None
    return rendered.strip() if isinstance(rendered, str) else rendered


def sql_config(path: Path) -> dict[str, object]:
    """The literal arguments of the model's `config(...)` calls."""
    return {key: value for key, (value, _) in sql_config_lines(path).items()}


def sql_config_lines(path: Path) -> dict[str, tuple[object, int]]:
    """The literal arguments of the model's `config(...)` calls, with the line of each."""
    try:
        return config_lines(_read(path))
    except ConfigError:
        return {}  # the model's rendering reports it


# `config_lines` by the text's digest: the same model text is scanned once per run, and, in
# a run with the persistent cache, once per content (see `sources.dbt.preparation`, which
# keeps the entries a run used).
config_scans: dict[str, dict[str, tuple[object, int]]] = {}
config_scans_used: set[str] = set()


def config_lines(text: str) -> dict[str, tuple[object, int]]:
    """The literal arguments of the `config(...)` calls of a model's text, with the line of
    each."""
    key = digest(text)
    if key not in config_scans:
        config_scans[key] = _scan_config(text)
    config_scans_used.add(key)
    return config_scans[key]


def _scan_config(text: str) -> dict[str, tuple[object, int]]:
    # A call of the name `config` is written with that name (Jinja names are the source's
    # identifiers as written): a text without it has no call to find, and the Jinja parse
    # is what the scan of a model costs.
    if "config" not in text:
        return {}
    import jinja2
    from jinja2 import nodes as jinja_nodes

    environment = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])
    try:
        tree = environment.parse(text)
    except jinja2.TemplateSyntaxError:
        return {}  # the model's rendering reports it
    found: dict[str, tuple[object, int]] = {}
    for call in tree.find_all(jinja_nodes.Call):
        if not (isinstance(call.node, jinja_nodes.Name) and call.node.name == "config"):
            continue
        for keyword in call.kwargs:
            try:
                found[keyword.key] = (keyword.value.as_const(), keyword.lineno)
            except jinja_nodes.Impossible:
                continue
    return found


def sql_meta_block(path: Path, target: Target, name: str) -> Source | None:
    """A `sortlint` block in the model's own `config(meta={...})`, declared at the line of
    the call (the block has no lines of its own: every error of it names that line)."""
    meta, line = sql_config_lines(path).get("meta", (None, 0))
    if not isinstance(meta, dict) or META_KEY not in meta:
        return None
    # PyYAML's own composer: its marks can be moved to the call's line (libyaml's cannot).
    node = yaml.compose(yaml.safe_dump(meta[META_KEY]), Loader=yaml.SafeLoader)
    for part in _nodes(node):
        for mark in (part.start_mark, part.end_mark):
            if mark is not None:
                mark.line = line - 1
    return parse_source(name, node, path, target, line=line)


def _nodes(node: yaml.Node | None) -> Iterator[yaml.Node]:
    if node is None:
        return
    yield node
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield from _nodes(key)
            yield from _nodes(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _nodes(item)


def overrides_naming(project: Project) -> bool:
    """Whether the project's macros define its own `generate_schema_name` or
    `generate_alias_name` (dbt then uses them for every model)."""
    pattern = re.compile(r"\{%-?\s*macro\s+generate_(schema|alias)_name\s*\(")
    return any(
        pattern.search(_read(path))
        for directory in project.macro_paths if directory.is_dir()
        for path in directory.rglob("*.sql")
    )


def configured_relation(project: Project, model: str, settings: Mapping[str, object]) -> Relation:
    """The relation dbt's default `generate_schema_name` and `generate_alias_name` give a
    model: a custom schema is appended to the target's (`<project>_<custom>`), an alias
    replaces the name. Values still holding Jinja are not known here and are left out."""
    schema, alias = settings.get("schema"), settings.get("alias")
    custom = schema.strip() if isinstance(schema, str) and "{" not in schema else None
    name = alias if isinstance(alias, str) and alias and "{" not in alias else model
    return Relation(f"{project.name}_{custom}" if custom else project.name, name)


def is_enabled(settings: Mapping[str, object]) -> bool:
    value = settings.get("enabled", True)
    return value not in (False, "false", "False")
