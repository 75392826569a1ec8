"""dbt's Jinja context for the built-in renderer, as far as a project's files define it.

dbt renders a model with much more than `ref` and `var` (those are in
`sortlint.sources.dbt.project`): its filters, the macros of its global project (`dbt.concat`,
`dbt.type_string`, ... reached through `adapter.dispatch`), the macros of installed packages
(`dbt_packages/<name>`, called as `<name>.macro(...)`), `adapter` and `run_query`, `graph`,
`model`, `exceptions`, `modules`, `flags`. This module provides them for the spark adapter:

* **Macros** of the project, of every package installed in `dbt_packages/`, and of dbt's
  global project with the spark adapter's (read from the installed dbt-core and dbt-spark;
  without them, sortlint's own set of the common cross-database macros in
  `global_project/`). A macro sees, unqualified, the global project's macros, the
  project's, and its own package's, each later one winning, as in dbt; every package is a
  namespace (`dbt_utils.star`, `dbt.concat`). Each file is compiled once per project and
  instantiated per rendering, only when one of its macros is called.
* **Dispatch** (`adapter.dispatch('x', 'pkg')`): the project's `dispatch:` search order for
  the namespace, else the namespace alone; in each package `spark__x`, then `default__x`.
* **The database is empty**, as for dbt against a new catalog: `adapter.get_relation` is
  None, `get_columns_in_relation` is empty, `run_query` and `statement` return no rows. A
  model whose rendering asked is marked (`Scope.queried`), and its findings say so.
* **Filters** `as_bool`, `as_native`, `as_number`, `as_text` do what dbt's do when it renders
  SQL text: nothing.
* **`ref.config`** is the run's configuration as far as the project's files say it (names
  and versions of the project and what it depends on, `RuntimeConfig`); **`set()`** keeps
  its items in the order they came, as sortlint's dbt process makes dbt's do.
"""

from __future__ import annotations

import datetime
import itertools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableSet
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import yaml

from sortlint.config import nodes
from sortlint.store import digest
from sortlint.sources.dbt.project import FILTERS, PROJECT_FILE, Project, RenderFailure
from sortlint.sources.dbt.secret_env import env_value

ADAPTER = "spark"  # the adapter whose macros dispatch finds first (`spark__x`)
INTERNAL = "dbt"  # the namespace of dbt's global project and the adapter's macros
QUOTE = "`"


class MacroReturn(Exception):
    """dbt's `return(value)`: leaves the macro with a value."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _return(value: Any = None) -> None:
    raise MacroReturn(value)




# ---------------------------------------------------------------------------------------------
# The macros a project can call


@dataclass(frozen=True)
class MacroFile:
    path: Path
    package: str
    names: tuple[str, ...]


@dataclass
class MacroLibrary:
    """Every macro a project's models can reach, by package, with the dispatch orders."""

    root: str
    packages: dict[str, dict[str, MacroFile]]  # package -> macro name -> its file
    dispatch: dict[str, tuple[str, ...]]  # namespace -> packages, searched in order
    global_source: str  # where the `dbt` namespace came from
    _templates: dict[Path, Any] = field(default_factory=dict, repr=False)
    _unqualified: dict[str, dict[str, MacroFile]] = field(default_factory=dict, repr=False)

    def unqualified(self, package: str) -> dict[str, MacroFile]:
        """The macros a macro of `package` (or a model of the root) calls unqualified:
        dbt's own, then the root project's, then the package's, a later layer's name
        hiding an earlier one's. Merged once: every rendering asks."""
        if package not in self._unqualified:
            names: dict[str, MacroFile] = {}
            for layer in dict.fromkeys((INTERNAL, self.root, package)):
                names.update(self.packages.get(layer, {}))
            self._unqualified[package] = names
        return self._unqualified[package]

    def template(self, file: MacroFile) -> Any:
        if file.path not in self._templates:
            with warnings.catch_warnings():  # a package's '\s' in a Jinja string is its own
                warnings.simplefilter("ignore", DeprecationWarning)
                self._templates[file.path] = _environment().from_string(_read(file.path))
        return self._templates[file.path]

    def search_order(self, namespace: str | None) -> tuple[str | None, ...]:
        """Where dispatch looks, as dbt's `_get_search_packages`: the project's `dispatch:`
        order for the namespace; for a package without one, the project first, then the
        package; for anything else (None, or a namespace no package has), the names a
        model sees unqualified (None)."""
        if namespace is None:
            return (None,)
        if namespace in self.dispatch:
            return self.dispatch[namespace]
        if namespace in self.packages:
            return (self.root, namespace)
        return (None,)


@lru_cache(maxsize=1)
def _environment():
    """A sandboxed environment, as dbt's is, in which `return(...)` leaves the macro that
    called it, whichever way it was called (a macro of the same file calls it directly)."""
    from jinja2.runtime import Macro
    from jinja2.sandbox import SandboxedEnvironment

    class MacroEnvironment(SandboxedEnvironment):
        def call(self, context, obj, /, *args, **kwargs):
            try:
                return super().call(context, obj, *args, **kwargs)
            except MacroReturn as returned:
                if isinstance(obj, Macro):
                    return returned.value
                raise

    environment = MacroEnvironment(
        extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"], keep_trailing_newline=True
    )
    environment.filters.update(FILTERS)
    return environment


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8-sig")


# `_macro_names` by the text's digest: each macro file is parsed once per content (the
# persistent cache keeps them across runs, see `sources.dbt.preparation`). `macro_scans_used`
# are the entries this run read.
macro_scans: dict[str, tuple[str, ...]] = {}
macro_scans_used: set[str] = set()


def _macro_names(path: Path) -> tuple[str, ...]:
    """The macros a file defines; a file Jinja cannot parse (dbt's own tags, such as
    `{% materialization %}`, or an error) defines none here."""
    try:
        text = _read(path)
    except (OSError, UnicodeDecodeError):
        return ()
    key = digest(text)
    if key not in macro_scans:
        macro_scans[key] = _scan_macro_names(text)
    macro_scans_used.add(key)
    return macro_scans[key]


def _scan_macro_names(text: str) -> tuple[str, ...]:
    import jinja2
    from jinja2 import nodes

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = _environment().parse(text)
    except jinja2.TemplateSyntaxError:
        return ()
    return tuple(node.name for node in tree.body if isinstance(node, nodes.Macro))


def _package_files(package: str, directories: list[Path]) -> dict[str, MacroFile]:
    found: dict[str, MacroFile] = {}
    for directory in directories:
        for path in sorted(directory.rglob("*.sql")) if directory.is_dir() else ():
            names = _macro_names(path)
            file = MacroFile(path, package, names)
            found.update({name: file for name in names})
    return found


def global_macro_directories() -> tuple[list[Path], str]:
    """dbt's global project and the spark adapter's macros, from the installed packages;
    else sortlint's own set."""
    directories = []
    for distribution, folder in (("dbt-core", "dbt/include/global_project/macros"),
                                 ("dbt-spark", "dbt/include/spark/macros")):
        try:
            located = Path(str(metadata.distribution(distribution).locate_file(folder)))
        except metadata.PackageNotFoundError:
            continue
        if located.is_dir():
            directories.append(located)
    if directories and directories[0].parts[-2] == "global_project":
        return directories, "installed dbt-core"
    own = Path(str(resources.files("sortlint.sources.dbt") / "global_project"))
    return [own], "sortlint's own cross-database macros"


def library(project: Project) -> MacroLibrary:
    """The project's macros, its installed packages' and dbt's global project's."""
    found: MacroLibrary = project.derived("macro library", lambda: _library(project))
    return found


def _library(project: Project) -> MacroLibrary:
    directories, source = global_macro_directories()
    packages = {INTERNAL: _package_files(INTERNAL, directories)}
    for name, macro_paths in installed_packages(project).items():
        packages[name] = _package_files(name, macro_paths)
    packages[project.name] = _package_files(project.name, list(project.macro_paths))
    return MacroLibrary(project.name, packages, dispatch_orders(project), source)


def installed_packages(project: Project) -> dict[str, list[Path]]:
    """Packages `dbt deps` installed (`packages-install-path`, default `dbt_packages`):
    name -> macro directories."""
    data = _project_yaml(project.root)
    install = data.get("packages-install-path") or "dbt_packages"
    found: dict[str, list[Path]] = {}
    for directory in (project.root / str(install), project.root / "dbt_modules"):
        if not directory.is_dir():
            continue
        for package in sorted(p for p in directory.iterdir() if (p / PROJECT_FILE).is_file()):
            package_data = _project_yaml(package)
            name = package_data.get("name")
            if isinstance(name, str) and name not in found:
                paths = package_data.get("macro-paths") or ["macros"]
                found[name] = [package / str(p) for p in paths]
    return found


def dispatch_orders(project: Project) -> dict[str, tuple[str, ...]]:
    """`dispatch:` of dbt_project.yml: namespace -> search order."""
    orders = {}
    for entry in _project_yaml(project.root).get("dispatch") or []:
        if isinstance(entry, dict) and isinstance(entry.get("macro_namespace"), str):
            order = entry.get("search_order") or []
            orders[entry["macro_namespace"]] = tuple(str(p) for p in order)
    return orders


def _project_yaml(root: Path) -> dict:
    try:
        data = nodes.load(_read(root / PROJECT_FILE))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


# ---------------------------------------------------------------------------------------------
# One rendering's macros


class Scope:
    """The macros of one rendering: each file instantiated on first use, with the
    rendering's own `ref`, `var`, `this` ... as its globals."""

    def __init__(self, macros: MacroLibrary, base: dict[str, Any]) -> None:
        self.macros = macros
        self.base = base
        self.queried: list[str] = []  # what the rendering asked the database
        self._modules: dict[Path, Any] = {}
        self._visible: dict[str, dict[str, MacroProxy]] = {}

    def find(self, package: str, name: str) -> MacroProxy | None:
        file = self.macros.packages.get(package, {}).get(name)
        return None if file is None else MacroProxy(self, file, name)

    def module(self, file: MacroFile) -> dict[str, Any]:
        """The names the file defines, private ones (`_is_relation`) too: Jinja's module
        exports only public names, dbt calls any macro of a package."""
        if file.path not in self._modules:
            template = self.macros.template(file)
            made = template.new_context(vars=self.globals_for(file.package))
            for _ in template.root_render_func(made):
                pass
            self._modules[file.path] = made.vars
        return self._modules[file.path]

    def visible(self, package: str) -> dict[str, MacroProxy]:
        """The macros a macro of `package` (or a model of the root) calls unqualified. Made
        once per package and rendering (its callers only read it): every macro module and
        every `adapter.dispatch` asks, and dbt's own macros alone are hundreds.

        dbt's layer and the root's are every package's first two (`MacroLibrary.unqualified`):
        their proxies are made once, and another package's names are those with its own
        layer over them; dbt's own macros see the root's layers alone."""
        root = self.macros.root
        layers = root if package == INTERNAL else package
        if layers not in self._visible:
            if layers == root:
                self._visible[root] = {name: MacroProxy(self, file, name)
                                       for name, file in self.macros.unqualified(root).items()}
            else:
                own = self.macros.packages.get(layers, {})
                self._visible[layers] = {**self.visible(root),
                                         **{name: MacroProxy(self, file, name) for name, file in own.items()}}
        return self._visible[layers]

    def namespaces(self) -> dict[str, Namespace]:
        return {package: Namespace(self, package) for package in self.macros.packages}

    def globals_for(self, package: str) -> dict[str, Any]:
        return {**self.visible(package), **self.namespaces(), **self.base,
                "adapter": Adapter(self)}

    def dispatch(self, name: str, namespace: str | None) -> MacroProxy:
        order = self.macros.search_order(namespace)
        unqualified = self.visible(self.macros.root)
        for package in order:
            for prefix in (f"{ADAPTER}__", "default__"):
                found = (unqualified.get(prefix + name) if package is None
                         else self.find(package, prefix + name))
                if found is not None:
                    return found
        raise RenderFailure(
            f"In dispatch: no macro named {name!r} found within namespace {namespace!r} "
            f"(searched {', '.join(p or 'the unqualified names' for p in order)} for "
            f"{ADAPTER}__{name} and default__{name})"
        )


class MacroProxy:
    """A macro of a package, called in the rendering's scope; `return(...)` is its value."""

    unsafe_callable = False
    alters_data = False

    def __init__(self, scope: Scope, file: MacroFile, name: str) -> None:
        self.scope, self.file, self.name = scope, file, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        macro = self.scope.module(self.file)[self.name]
        try:
            return macro(*args, **kwargs)
        except MacroReturn as returned:
            return returned.value
        except RecursionError:
            # Python's stack ran out: said as the template's error, naming the innermost
            # macro called by name (one of its own file's it calls directly is inside it).
            raise RenderFailure(f"macro {self.file.package}.{self.name} recurses without end "
                                f"(Python's stack ran out)") from None

    def __repr__(self) -> str:
        return f"<macro {self.file.package}.{self.name}>"


class Namespace:
    """`pkg.macro`: the macros of one package."""

    def __init__(self, scope: Scope, package: str) -> None:
        self._scope, self._package = scope, package

    def __getattr__(self, name: str) -> MacroProxy:
        if name.startswith("_"):  # Jinja then asks for the item: `pkg._private_macro`
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name: str) -> MacroProxy:
        found = self._scope.find(self._package, name)
        if found is None:  # Jinja makes it undefined: calling it fails, naming it
            raise AttributeError(f"{self._package} has no macro {name!r}")
        return found


# ---------------------------------------------------------------------------------------------
# The database, empty


class EmptyTable:
    """What `run_query` returns against an empty catalog: an agate table without rows."""

    columns: tuple = ()
    rows: tuple = ()
    column_names: tuple = ()

    def __len__(self) -> int:
        return 0

    def __iter__(self):
        return iter(())

    def print_table(self, *args: Any, **kwargs: Any) -> str:
        return ""


class BehaviorFlag:
    """One of dbt's behavior flags, at its default: off."""

    no_warn = False

    def __bool__(self) -> bool:
        return False


class Behavior:
    """`adapter.behavior`: every flag at its default (dbt's flags default to off)."""

    def __getattr__(self, name: str) -> BehaviorFlag:
        if name.startswith("_"):
            raise AttributeError(name)
        return BehaviorFlag()


class Adapter:
    """dbt's `adapter` for the spark adapter, answering as dbt does against an empty
    catalog: no relation, no columns."""

    behavior = Behavior()

    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def dispatch(self, macro_name: str, macro_namespace: str | None = None,
                 packages: Any = None) -> MacroProxy:
        return self._scope.dispatch(macro_name, macro_namespace)

    def type(self) -> str:
        return ADAPTER

    def quote(self, identifier: str) -> str:
        return f"{QUOTE}{identifier}{QUOTE}"

    def quote_as_configured(self, identifier: str, quote_key: str = "") -> str:
        return identifier

    def _asked(self, what: str) -> None:
        self._scope.queried.append(what)

    def get_relation(self, database: Any = None, schema: Any = None, identifier: Any = None) -> None:
        self._asked("get_relation")
        return None

    def load_relation(self, relation: Any) -> None:
        self._asked("load_relation")
        return None

    def get_columns_in_relation(self, relation: Any) -> list:
        self._asked("get_columns_in_relation")
        return []

    def get_missing_columns(self, source: Any, target: Any) -> list:
        self._asked("get_missing_columns")
        return []

    def list_relations_without_caching(self, *args: Any, **kwargs: Any) -> list:
        self._asked("list_relations")
        return []

    def list_schemas(self, *args: Any, **kwargs: Any) -> list:
        self._asked("list_schemas")
        return []

    def check_schema_exists(self, *args: Any, **kwargs: Any) -> bool:
        self._asked("check_schema_exists")
        return False

    def already_exists(self, *args: Any, **kwargs: Any) -> bool:
        self._asked("already_exists")
        return False

    def execute(self, sql: str = "", auto_begin: bool = False, fetch: bool = False,
                limit: Any = None) -> tuple[None, EmptyTable]:
        self._asked("execute")
        return None, EmptyTable()




def database_functions(scope: Scope) -> dict[str, Any]:
    """`run_query`, `statement`, `load_result`, `store_result` against an empty catalog."""
    results: dict[str, dict] = {}

    def run_query(sql: str = "") -> EmptyTable:
        scope.queried.append("run_query")
        return EmptyTable()

    def statement(name: str | None = None, fetch_result: bool = False, auto_begin: bool = True,
                  language: str = "sql", caller: Callable[[], str] | None = None) -> str:
        if caller is not None:
            caller()
        scope.queried.append("statement")
        if name is not None:
            results[name] = {"response": None, "data": [], "table": EmptyTable()}
        return ""

    def store_result(name: str, response: Any = None, agate_table: Any = None) -> str:
        results[name] = {"response": response, "data": [], "table": agate_table or EmptyTable()}
        return ""

    return {
        "run_query": run_query,
        "statement": statement,
        "load_result": lambda name: results.get(name),
        "store_result": store_result,
    }


# ---------------------------------------------------------------------------------------------
# The rest of dbt's context


class Flags:
    WHICH = "compile"
    FULL_REFRESH = False
    STORE_FAILURES = False
    WARN_ERROR = False
    EMPTY = False


class Exceptions:
    def raise_compiler_error(self, message: str = "", node: Any = None) -> None:
        raise RenderFailure(f"the model raised a compiler error: {message}")

    def warn(self, message: str = "", node: Any = None) -> str:
        return ""

    def raise_not_implemented(self, message: str = "") -> None:
        raise RenderFailure(f"the model raised NotImplementedError: {message}")


class ColumnFactory:
    """`api.Column`: the spark adapter's column class (its types are written as given; the
    rest is dbt's base column's)."""

    def translate_type(self, dtype: str) -> str:
        return dtype

    def string_type(self, size: int) -> str:
        return f"character varying({size})"

    def numeric_type(self, dtype: str, precision: Any, scale: Any) -> str:
        return dtype if precision is None or scale is None else f"{dtype}({precision},{scale})"


class RelationFactory:
    """`api.Relation.create(...)`."""

    def create(self, database: Any = None, schema: Any = None, identifier: Any = None,
               type: Any = None, **_: Any) -> Any:
        from sortlint.sources.dbt.project import Relation

        return Relation(str(schema or ""), str(identifier or ""))


def context(
    project: Project, base: dict[str, Any], graph: Mapping[str, Any], model: str | None = None
) -> tuple[dict, Scope]:
    """The names a model of `project` sees beyond `base` (its ref, var, this, config...),
    and the rendering's scope (what it asked the database)."""
    macros = library(project)
    ref = Ref(base["ref"], runtime_config(project))
    base = {
        **base,
        "ref": ref,
        "model": model_node(project, model, project.model_files[model]) if model in project.model_files else {},
        "return": _return,
        "exceptions": Exceptions(),
        "flags": Flags(),
        "modules": {"datetime": datetime, "re": re, "itertools": itertools},
        "api": {"Relation": RelationFactory(), "Column": ColumnFactory()},
        "graph": graph,
        "builtins": {"ref": ref, "source": base.get("source"),
                     "config": base.get("config")},
        "invocation_id": "00000000-0000-0000-0000-000000000000",
        "run_started_at": datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc),
        "dbt_version": metadata_version(),
        "selected_resources": [],
        "print": lambda *args, **kwargs: "",
        "set": set_or_default,
        "set_strict": InsertionOrderedSet,
        "zip": lambda *args, default=None: list(zip(*args)),
        "zip_strict": lambda *args: list(zip(*args, strict=True)),
        "tojson": _tojson,
        "fromjson": _fromjson,
        "toyaml": lambda value, *args: yaml.safe_dump(value),
        "fromyaml": lambda text, default=None: _fromyaml(text, default),
        "local_md5": _md5,
    }
    scope = Scope(macros, base)
    base.update(database_functions(scope))
    names = {**scope.globals_for(project.name)}
    return names, scope


class Ref:
    """dbt's `ref`: a function that also carries the run's configuration, which macros read
    as `builtins.ref.config` (the Tuva project's `get_runtime_config()`)."""

    unsafe_callable = False
    alters_data = False

    def __init__(self, function: Callable[..., Any], config: RuntimeConfig) -> None:
        self._function, self.config = function, config

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)


@dataclass(frozen=True)
class RuntimeConfig:
    """What dbt's runtime configuration tells a model about the projects of the run: the
    root project's name and version, and every project it depends on (itself, its installed
    packages and dbt's internal ones) by name. Anything else it holds is not known here: a
    model asking for it does not render."""

    project_name: str
    version: Any
    profile_name: str
    target_name: str
    dependencies: dict[str, RuntimeConfig] = field(default_factory=dict, hash=False)


def runtime_config(project: Project) -> RuntimeConfig:
    found: RuntimeConfig = project.derived("runtime config", lambda: _runtime_config(project))
    return found


def _runtime_config(project: Project) -> RuntimeConfig:
    """The root project's configuration; its `dependencies` in dbt's order: the root, its
    installed packages, then dbt's internal projects (the adapter's, dbt's global one)."""
    roots = [project.root, *(paths[0].parent for paths in installed_packages(project).values() if paths)]
    roots += reversed([directory.parent for directory in global_macro_directories()[0]])
    dependencies: dict[str, RuntimeConfig] = {}
    for root in roots:
        data = _project_yaml(root)
        name = data.get("name")
        if isinstance(name, str) and name not in dependencies:
            dependencies[name] = RuntimeConfig(name, data.get("version"), project.profile or project.name, "dev")
    own = dependencies.get(project.name) or RuntimeConfig(project.name, None, project.profile or project.name, "dev")
    return RuntimeConfig(own.project_name, own.version, own.profile_name, own.target_name, dependencies)


class InsertionOrderedSet(MutableSet):
    """dbt's `set()` and `set_strict()`: a set, iterated in the order its items were first
    added. Python's own order follows string hashes, which change from one process to the
    next: a model iterating a set would render differently on every run (dbt's rendering
    too, which `sortlint.sources.dbt.worker` gives the same order)."""

    def __init__(self, items: Iterable[Any] = ()) -> None:
        self._items = dict.fromkeys(items)

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: Any) -> None:
        self._items[item] = None

    def discard(self, item: Any) -> None:
        self._items.pop(item, None)

    def union(self, *others: Iterable[Any]) -> InsertionOrderedSet:
        return InsertionOrderedSet(itertools.chain(self, *others))

    def intersection(self, *others: Iterable[Any]) -> InsertionOrderedSet:
        kept = [set(other) for other in others]
        return InsertionOrderedSet(item for item in self if all(item in k for k in kept))

    def difference(self, *others: Iterable[Any]) -> InsertionOrderedSet:
        dropped = set(itertools.chain(*others))
        return InsertionOrderedSet(item for item in self if item not in dropped)

    def update(self, *others: Iterable[Any]) -> None:
        for item in itertools.chain(*others):
            self.add(item)

    def __repr__(self) -> str:
        return "{" + ", ".join(map(repr, self._items)) + "}" if self._items else "set()"


def set_or_default(value: Iterable[Any], default: Any = None) -> InsertionOrderedSet | Any:
    """dbt's `set()`: its default for a value that is no iterable of hashable items."""
    try:
        return InsertionOrderedSet(value)
    except TypeError:
        return default


@lru_cache(maxsize=1)
def metadata_version() -> str:
    try:
        return metadata.version("dbt-core")
    except metadata.PackageNotFoundError:
        return "1.11.0"


def _tojson(value: Any, default: Any = None, sort_keys: bool = False) -> Any:
    import json

    try:
        return json.dumps(value, sort_keys=sort_keys)
    except (TypeError, ValueError):
        return default


def _fromjson(text: str, default: Any = None) -> Any:
    import json

    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def _fromyaml(text: str, default: Any = None) -> Any:
    try:
        return nodes.load(text)
    except yaml.YAMLError:
        return default


def _md5(text: str) -> str:
    import hashlib

    return hashlib.md5(text.encode()).hexdigest()


class Graph(Mapping):
    """dbt's `graph`, as far as the project's own files define it: its models (name, path,
    fqn, the configs sortlint reads) and the sources of its property files. Made on first
    use: most models never read it, and a large project's graph costs more than rendering
    one model."""

    def __init__(self, project: Project) -> None:
        self.project = project

    @cached_property
    def _made(self) -> dict[str, Any]:
        project = self.project
        nodes = {f"model.{project.name}.{name}": model_node(project, name, path)
                 for name, path in project.models().items()}
        sources = {}
        for (source, table), file in project.source_files.items():
            relation = project.source(source, table)
            unique_id = f"source.{project.name}.{source}.{table}"
            sources[unique_id] = {
                "unique_id": unique_id, "name": table, "source_name": source,
                "resource_type": "source", "package_name": project.name,
                "schema": relation.schema, "identifier": relation.identifier, "database": None,
                "original_file_path": str(file.relative_to(project.root)), "columns": {},
                "meta": {}, "config": {"enabled": True}, "tags": [],
            }
        return {"nodes": nodes, "sources": sources, "exposures": {}, "metrics": {},
                "groups": {}, "semantic_models": {}, "saved_queries": {}, "unit_tests": {}}

    def __getitem__(self, key: str) -> Any:
        return self._made[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made)

    def __len__(self) -> int:
        return len(self._made)


def graph(project: Project) -> Graph:
    found: Graph = project.derived("graph", lambda: Graph(project))
    return found


def model_node(project: Project, name: str, path: Path) -> dict[str, Any]:
    """A model's node of the graph (what `model` is while it renders)."""
    from sortlint.sources.dbt.project import model_fqn

    settings = project.configs.get(name, {})
    relation = project.ref(name)
    return {
        "unique_id": f"model.{project.name}.{name}", "name": name, "resource_type": "model",
        "package_name": project.name, "fqn": list(model_fqn(project, name, path)),
        "original_file_path": str(path.relative_to(project.root)),
        "path": str(path.relative_to(project.root)), "schema": relation.schema,
        "alias": relation.identifier, "database": None,
        "config": {"materialized": settings.get("materialized", "view"),
                   "enabled": settings.get("enabled", True), "tags": settings.get("tags", []),
                   "meta": settings.get("meta", {}), "schema": settings.get("schema"),
                   "alias": settings.get("alias")},
        "tags": settings.get("tags", []), "meta": settings.get("meta", {}),
        "depends_on": {"nodes": [], "macros": []}, "columns": {}, "description": "",
        "language": "sql", "time_spine": None, "access": "protected", "group": None,
        "version": None, "latest_version": None, "deprecation_date": None,
        "contract": {"enforced": False}, "constraints": [], "patch_path": None,
    }


def named_by_project(project: Project, configs: Mapping[str, Mapping[str, Any]]) -> dict:
    """Each model's relation as the project's own `generate_schema_name` and
    `generate_alias_name` macros name it (dbt's defaults where it defines only one); a
    model whose naming macro fails keeps dbt's default name."""
    from sortlint.sources.dbt.project import (
        ProfileTarget, Relation, configured_relation, model_fqn,
    )

    target = ProfileTarget("dev", project.name, ADAPTER, profile_name=project.name)
    base = {"target": target, "var": lambda name, default=None: project.vars.get(name, default),
            "env_var": lambda name, default="": env_value(name, default),
            "return": _return, "exceptions": Exceptions(), "modules": {"datetime": datetime,
            "re": re, "itertools": itertools}, "flags": Flags()}
    scope = Scope(library(project), base)
    schema_macro = scope.find(project.name, "generate_schema_name")
    alias_macro = scope.find(project.name, "generate_alias_name")
    named = {}
    for name, path in project.models().items():
        settings = configs.get(name, {})
        default = configured_relation(project, name, settings)
        node = {"name": name, "resource_type": "model", "package_name": project.name,
                "fqn": list(model_fqn(project, name, path)), "config": dict(settings),
                "original_file_path": str(path.relative_to(project.root)), "version": None,
                "unique_id": f"model.{project.name}.{name}"}
        try:
            schema = (str(schema_macro(_known(settings.get("schema")), node)).strip()
                      if schema_macro else default.schema)
            alias = (str(alias_macro(_known(settings.get("alias")), node)).strip()
                     if alias_macro else default.identifier)
        except Exception:  # the project's macro raised: dbt's default stands
            named[name] = default
            continue
        named[name] = Relation(schema, alias)
    return named


def _known(value: Any) -> Any:
    return value.strip() if isinstance(value, str) and "{" not in value else None
