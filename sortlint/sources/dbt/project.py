"""dbt projects: where models and macros live, what `ref`/`source`/`var` render to, and the
orderings a project declares in its own YAML.

A `.sql` file under a `dbt_project.yml` directory's model paths is a *model*: a table other
models read through `ref('name')`. sortlint renders `ref('m')` as `<project>.m` (and
`ref('pkg', 'm')` as `pkg.m`), `source('s', 't')` as `<schema>.<identifier>` of that source
table (`s.t` unless the YAML says otherwise), so that a model's name is one the catalog and the
repository's table registry understand, and a model never shares a name with a source table.

The project's YAML may declare orderings where dbt users keep table metadata:
`meta: {sortlint: {...}}` (or `config: {meta: {sortlint: {...}}}`) on a source table or a
model. Each block is read by `parse_source`, exactly like a `sources:` entry of sortlint.yml,
and merged with it by `Config.with_sources`: a table declared twice is an error naming both
places.

Under `target: datafusion` every model's rendered query is registered as a view, so a model
reading `ref('m')` sees what `m`'s query guarantees; under `target: spark` a model is a plain
table (Spark does not keep the order a table was written in), known by its columns and by
what is declared about it. Models are registered before any file is checked, in dependency
order, so the order files are read in does not matter.

Nothing here imports sqlfluff; rendering is `sortlint.sources.dbt.rendering`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import yaml

from sortlint.config import Config, DbtOptions, Source, parse_source
from sortlint.config import nodes
from sortlint.config.model import Target
from sortlint.errors import ConfigError, UserError

PROJECT_FILE = "dbt_project.yml"
MODEL_KIND = "dbt_model"  # Unit.kind of the statement that defines a model
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
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


# ---------------------------------------------------------------------------------------------
# The project


@dataclass(frozen=True)
class Relation:
    """What `ref`, `source` and `this` render to: dbt's relation, reduced to `schema.name`."""

    schema: str
    identifier: str

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
    # (source name, table name) -> relation, from the `sources:` of the property files
    sources: Mapping[tuple[str, str], Relation] = field(default_factory=dict)

    def __hash__(self) -> int:  # renders are cached by project: every field counts
        return hash((self.root, self.name, self.model_paths, self.macro_paths, repr(self.vars),
                     repr(sorted(self.sources.items()))))

    def model(self, path: Path) -> str | None:
        """The model a file defines (its stem), or None when it is not under a model path."""
        if path.suffix != ".sql":
            return None
        return path.stem if _under(path, self.model_paths) else None

    def is_macro_file(self, path: Path) -> bool:
        return _under(path, self.macro_paths)

    def ref(self, *args: str) -> Relation:
        """`ref('m')` is a model of this project, `ref('pkg', 'm')` one of a package."""
        return Relation(args[0] if len(args) > 1 else self.name, args[-1])

    def source(self, source: str, table: str) -> Relation:
        return self.sources.get((source, table), Relation(source, table))

    def models(self) -> dict[str, Path]:
        """Every model file by name; two files of one name are an error, as in dbt."""
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
    resolved = path.resolve()
    return any(resolved.is_relative_to(directory) for directory in directories)


def project_of(path: Path) -> Project | None:
    """The dbt project a file belongs to: the nearest `dbt_project.yml` above it."""
    directory = path.resolve().parent
    root = _project_root(directory)
    return None if root is None else load_project(root)


@lru_cache(maxsize=1024)
def _project_root(directory: Path) -> Path | None:
    if (directory / PROJECT_FILE).is_file():
        return directory
    if directory.parent == directory:
        return None
    return _project_root(directory.parent)


@lru_cache(maxsize=64)
def load_project(root: Path) -> Project:
    """Read `dbt_project.yml` and the `sources:` of the project's property files."""
    path = root / PROJECT_FILE
    data = _load_yaml(path)
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
    )
    relations = {
        (source, table): relation
        for file in property_files(project)
        for source, table, relation, _ in source_tables(_compose(file))
    }
    return replace(project, sources=relations)


def forget() -> None:
    """Drop what was read of projects and rendered of their files, so a new run sees
    edited project files and macros."""
    from sortlint.sources.dbt import rendering as jinja

    _project_root.cache_clear()
    load_project.cache_clear()
    jinja.render.cache_clear()


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
    return merged


def _load_yaml(path: Path) -> object:
    with _yaml_syntax(path):
        return yaml.safe_load(_read(path))


def _compose(path: Path) -> yaml.Node | None:
    """The node tree of a property file (lines kept for parse_source's errors)."""
    with _yaml_syntax(path):
        return yaml.compose(_read(path), Loader=yaml.SafeLoader)


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


def declarations(project: Project, target: Target) -> list[Source]:
    """Every `sortlint` meta block of the project, as catalog sources named as the SQL names
    them (a source table as `source()` renders it, a model as `ref()` does)."""
    found: list[Source] = []
    for path in property_files(project):
        root = _compose(path)
        for _, _, relation, table_node in source_tables(root):
            found += _parse_blocks(str(relation), table_node, path, target)
        for model_node in _list(_mapping(root).get("models", (None, None))[1]):
            name = _text(_mapping(model_node), "name")
            if name is not None:
                found += _parse_blocks(str(project.ref(name)), model_node, path, target)
    return found


def _parse_blocks(name: str, node: yaml.Node, path: Path, target: Target) -> list[Source]:
    return [
        parse_source(name, value, path, target, line=nodes.line_of(key))
        for key, value in meta_blocks(node)
    ]


# ---------------------------------------------------------------------------------------------
# What a check asks of the projects among its files


def projects_of(files: Iterable[Path]) -> list[Project]:
    """The dbt projects the checked files belong to, each once, in root order."""
    found = {project.root: project for project in map(project_of, files) if project is not None}
    return [found[root] for root in sorted(found)]


def with_declarations(files: Sequence[Path], config: Config) -> Config:
    """The config with the `meta: {sortlint: ...}` declarations of every project checked."""
    forget()
    extra = [s for project in projects_of(files) for s in declarations(project, config.target)]
    return config.with_sources(extra) if extra else config


def dependency_order(refs: Mapping[str, Sequence[Relation]], project: Project) -> list[str]:
    """Model names, each after the models of this project it reads (cycles: file order)."""
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(name: str) -> None:
        if state.get(name):
            return
        state[name] = "visiting"
        for relation in refs.get(name, ()):
            if relation.schema == project.name and relation.identifier in refs:
                visit(relation.identifier)
        state[name] = "done"
        order.append(name)

    for name in refs:
        visit(name)
    return order


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
    project: Project | None, model: str | None, dialect: str, options: DbtOptions, refs: list
) -> dict:
    """The names dbt provides to a model's Jinja; `refs` collects the relations it reads."""
    # Outside a dbt project `ref('m')` is plain `m`: there is no project to qualify it by.
    schema_of = project if project is not None else Project(Path("."), "", (), ())
    name = schema_of.name

    def ref(*args: str, **_: object) -> Relation:
        if not 1 <= len(args) <= 2 or not all(isinstance(a, str) for a in args):
            raise RenderFailure(f"ref() takes a model name and an optional package: ref{args!r}")
        relation = schema_of.ref(*args)
        refs.append(relation)
        return relation

    def source(source_name: str, table: str) -> Relation:
        return schema_of.source(source_name, table)

    def var(variable: str, *default: object) -> object:
        found, value = schema_of.variable(variable, options)
        if found:
            return value
        if default:
            return default[0]
        raise RenderFailure(
            f"required var {variable!r} not found: set it under vars: in dbt_project.yml, "
            "give var() a default, or pass --var"
        )

    def env_var(variable: str, *default: str) -> str:
        if variable in os.environ:
            return os.environ[variable]
        if default:
            return default[0]
        raise RenderFailure(f"env var required but not provided: {variable!r}")

    return {
        "ref": ref,
        "source": source,
        "config": ConfigFunction(),
        "var": var,
        "env_var": env_var,
        "is_incremental": lambda: options.incremental,
        "this": Relation(name, model or "this_model"),
        "target": ProfileTarget("dev", name, dialect, profile_name=name),
        "execute": False,
        "log": lambda *args, **kwargs: "",
        "project_name": name,
    }
