"""What a check learns of the dbt projects among its files before it reads any file.

For each project: the `meta: {sortlint: ...}` declarations of its YAML (they join the
catalog), the column types its property files and dbt's `catalog.json` give, and the name each enabled model's table is read by, with the model's file - so
that a file reading `ref('m')` has `m` analysed first, on demand, and a check of one file
renders only that file and its upstream models, never the whole project.

None of this renders a model: it reads `dbt_project.yml`, the property files and the
literal arguments of each model's `config(...)`. With the persistent cache it is read once
per content of the project: a project's *whole context* is a digest of everything a model's
rendering may read beyond its own file - `dbt_project.yml`, the property files, macros,
installed packages, seeds, every model's `config(...)` (an alias or a schema changes what
`ref` renders), the environment variables the project's files name, the run's vars and
renderer, the versions of sortlint, dbt and sqlglot, and dbt's `catalog.json` (column
types, `project.column_types`). When dbt itself may render the project, every byte of every
model counts too (dbt renders them all at once). The whole context keys what is kept here.

A model's results (its rendering, its analysis) are kept by less, so that adding or editing
one model leaves the others' results standing: the project's *context* (the whole context
but the models), and the models its rendering resolved, each by what `ref` gives for it and
its file (`model_context`) - or the whole context, when the rendering read dbt's `graph`,
failed, or disabled the model. Which models a rendering resolves is learned by rendering it
(kept, by the context and the text: `learn_dependencies`); before that, a glance at the
text's `ref(...)` calls stands in, and a result is kept under the key its rendering proved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config import ColumnTypes, Config, Source, nodes
from sortlint.errors import UserError
# `compiled` and `context` (importlib.metadata, the macro library, dbt's runner) are imported
# where used, once a checked file is found in a dbt project: a check of plain SQL pays
# nothing for them.
from sortlint.sources.dbt import project as dbt
from sortlint.sources.frontend import JINJA_MARK, Preparation, Reading, dbt_folders_key, holds_dbt_project
from sortlint.store import Store, digest, sortlint_digest

if TYPE_CHECKING:
    from sortlint.sources.dbt.rendering import Rendered
from sortlint.units import Unit

ENV_VAR = re.compile(r"""env_var\(\s*['"]([^'"]+)['"]""")
# Without a leading `\b`, which would keep the regex engine from skipping ahead to each
# `ref(` (25 times slower over a project's models); `_glanced` checks the word boundary.
REF = re.compile(r"""ref\(\s*['"]([^'"]+)['"]\s*(?:,\s*['"]([^'"]+)['"]\s*)?[,)]""")
SCANS = "dbt-project"  # the store's namespace for what `_scan` learns of a project
CONFIGS = "dbt-configs"  # and for the `config(...)` arguments of a project's models
MACROS = "dbt-macros"  # and for the names each macro file defines
DEPENDENCIES = "dbt-dependencies"  # and for the models each model's rendering resolved
PROPERTIES = "dbt-properties"  # and for what each property file says


def template_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """SQL front end: a templated `.sql` file or a file of a dbt project, as
    `rendering.jinja_units` reads it; None for plain SQL outside any dbt project, which
    never loads the renderers."""
    if dbt.projects_of(reading).of(path) is None and not JINJA_MARK.search(raw):
        return None
    from sortlint.sources.dbt.rendering import jinja_units

    return jinja_units(path, raw, reading)


def project_context_key(root: Path) -> tuple[str, Path]:
    """Where a run's `Reading.memo` holds a prepared project's context digest."""
    return ("dbt project context", root)


def whole_context_key(root: Path) -> tuple[str, Path]:
    """Where it holds the project's whole context (its models' configs included)."""
    return ("dbt project whole context", root)


def model_context(reading: Reading, project: dbt.Project, resolved: Path, raw: str) -> str:
    """The digest of what a model's results depend on beyond its text and the run's
    configuration: its project's context, and each model its rendering resolves (what
    `ref` gives for it, and its file: a model added under a name that did not resolve
    changes it) - every model, by the whole context, where the rendering depends on more."""
    base = reading.memo[project_context_key(project.root)]
    names, whole = _dependencies(reading, base, resolved, raw) or (_glanced(raw), False)
    if whole:
        return digest(base, reading.memo[whole_context_key(project.root)])
    files = project.derived("model files", project.models)
    return digest(base, [(name, str(project.ref(name)), str(files.get(name))) for name in sorted(names)])


def learn_dependencies(
    reading: Reading, project: dbt.Project, resolved: Path, raw: str, rendered: Rendered | None
) -> None:
    """What a model's rendering (None: a rendering that failed) resolved, for `model_context`:
    the models it named in `ref`, and whether it depends on every model (it read `graph`,
    failed, or disabled its model - the disabling parse names no refs)."""
    base = reading.memo[project_context_key(project.root)]
    if rendered is None:
        found: tuple[tuple[str, ...], bool] = ((), True)
    else:
        found = (tuple(sorted(set(rendered.reads) | _glanced(raw))), rendered.graph or not rendered.enabled)
    key = _dependencies_key(reading, base, resolved, raw)
    if reading.memo.get(key) != found:
        reading.memo[key] = found
        if reading.store is not None:
            reading.store.put(DEPENDENCIES, digest(*key[1:]), found)


def _dependencies(reading: Reading, base: str, resolved: Path, raw: str) -> tuple[tuple[str, ...], bool] | None:
    key = _dependencies_key(reading, base, resolved, raw)
    if key not in reading.memo:
        kept = reading.store.get(DEPENDENCIES, digest(*key[1:])) if reading.store is not None else None
        reading.memo[key] = kept if isinstance(kept, tuple) else None
    found: tuple[tuple[str, ...], bool] | None = reading.memo[key]
    return found


def _dependencies_key(reading: Reading, base: str, resolved: Path, raw: str) -> tuple[str, str, str, str, str]:
    return ("dbt dependencies", base, str(resolved), raw, reading.config.dialect)


def _glanced(raw: str) -> frozenset[str]:
    """The models a text names in `ref(...)` calls."""
    return frozenset(
        match[2] or match[1] for match in REF.finditer(raw)
        if match.start() == 0 or not (raw[match.start() - 1].isalnum() or raw[match.start() - 1] == "_")
    )


def file_context(reading: Reading, resolved: Path, raw: str) -> str | None:
    """`Preparation.file_context`: a prepared project's model's `model_context`."""
    project = dbt.projects_of(reading).of(resolved)
    if project is None or project.model(resolved) is None or project_context_key(project.root) not in reading.memo:
        return None
    return model_context(reading, project, resolved, raw)


@dataclass(frozen=True)
class ProjectScan:
    project: dbt.Project
    declarations: tuple[Source, ...]
    tables: dict[str, Path]  # a model's table name -> its file
    column_types: tuple[ColumnTypes, ...] = ()  # `data_type`s, dbt's catalog.json


def prepare(files: Sequence[Path], reading: Reading) -> Preparation:
    """The declarations, model tables and contexts of the projects the files belong to."""
    config = reading.config
    projects = dbt.projects_of(reading)
    roots = sorted({root for root in map(projects.root_of, files) if root is not None})
    if not roots:
        _dbt_folders(reading, projects)
        return Preparation(config)
    from sortlint.sources.dbt import context as dbt_context

    declared: list[Source] = []
    learned: list[ColumnTypes] = []
    definers: dict[str, Path] = {}
    contexts: dict[Path, str] = {}
    upstream: dict[Path, tuple[Path, ...]] = {}
    # dbt's global project is the same for every project: one entry for all
    macros = _KeptScans(MACROS, MACROS, dbt_context.macro_scans, reading.store)
    dbt_context.macro_scans_used.clear()
    for root in roots:
        context, whole = project_context(root, config, reading.store)
        scan = _remembered_scan(projects, root, config, whole, reading.store)
        _require_dbt_rendering(scan.project, config)
        declared += scan.declarations
        learned += scan.column_types
        definers.update(scan.tables)
        contexts[root] = reading.memo[project_context_key(root)] = context
        reading.memo[whole_context_key(root)] = whole
        upstream.update(referenced_models(scan.project))
        dbt_context.library(scan.project)  # every macro file's names, kept for the next run
    macros.save(dbt_context.macro_scans_used)
    _dbt_folders(reading, projects)
    config = config.with_sources(declared) if declared else config
    config = config.with_column_types(learned) if learned else config
    return Preparation(config, definers, contexts, upstream, partial(file_context, reading))


def _dbt_folders(reading: Reading, projects: dbt.Projects) -> None:
    """Record the folders of the dbt project at the configuration's root that are dbt's own,
    for the SQL front end (`dbt_folders_key`). Done after the projects' scans: a scan the
    cache answers brings its project, which is then not read again."""
    at_root = reading.config.root.resolve()
    if holds_dbt_project(at_root):
        project = projects.at(at_root)
        reading.memo[dbt_folders_key(at_root)] = frozenset(
            (*project.model_paths, *project.macro_paths, *(at_root / p for p in project.output_paths)))


def _require_dbt_rendering(project: dbt.Project, config: Config) -> None:
    """`--dbt-renderer dbt` on a project dbt cannot render is an error, said once, before
    any file is read (a model dbt alone fails to compile is its file's error)."""
    from sortlint.sources.dbt import compiled

    if compiled.renderer(config.dbt) != "dbt":
        return
    rendered = compiled.compiled_project(project, config.dbt)
    if rendered is not None and rendered.failure is not None:
        raise UserError(f"dbt cannot render the project (renderer: dbt): {rendered.failure}",
                        project.root / dbt.PROJECT_FILE)


def referenced_models(project: dbt.Project) -> dict[Path, tuple[Path, ...]]:
    """Each model's file, and the files of the project's models its text names in `ref(...)`
    (a glance, not a rendering: a ref built by Jinja is missed, one in a comment is not).
    The files are as the project lists them: below its resolved model paths."""
    files = project.models()
    found = {}
    for path in files.values():
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        found[path] = tuple(sorted(files[name] for name in _glanced(text) if name in files))
    return found


def _remembered_scan(
    projects: dbt.Projects, root: Path, config: Config, context: str, store: Store | None
) -> ProjectScan:
    cached = store.get(SCANS, context) if store is not None else None
    if isinstance(cached, ProjectScan) and cached.project.root == root:
        projects.remember(cached.project)
        return cached
    # adding a model or editing one property file composes that file again, not all
    properties = _KeptScans(PROPERTIES, digest(str(root)), dbt.property_scans, store)
    dbt.property_scans_used.clear()
    scan = _scan(projects.at(root), config)
    properties.save(dbt.property_scans_used)
    if store is not None:
        store.put(SCANS, context, scan)
    return scan


def _scan(project: dbt.Project, config: Config) -> ProjectScan:
    from sortlint.sources.dbt import compiled

    relations = compiled.model_relations(project, config.dbt)
    declarations = tuple(dbt.declarations(project, config.target, relations))
    tables = {
        compiled.table_name(project, model, config.dbt): path
        for model, path in project.models().items()
        if not compiled.is_disabled(project, path, config)
    }
    return ProjectScan(project, declarations, tables, tuple(dbt.column_types(project, relations)))


def project_context(root: Path, config: Config, store: Store | None) -> tuple[str, str]:
    """The digests of what a model's rendering and analysis may read beyond its own file:
    the project's context (but its models, unless dbt renders them all at once) and its
    whole context."""
    from sortlint.sources.dbt import compiled

    settings = _project_settings(root)
    output_paths = tuple(str(settings.get(key) or default)
                         for key, default in (("target-path", "target"), ("log-path", "logs")))
    written = settings.get("model-paths") or settings.get("source-paths") or ["models"]
    model_paths = [(root / str(p)).resolve() for p in written] if isinstance(written, list) else []
    whole = compiled.renderer(config.dbt) != "builtin"  # dbt may render every model at once
    scans = _KeptScans(CONFIGS, digest(str(root)), dbt.config_scans, store)
    dbt.config_scans_used.clear()
    parts: list[object] = [sortlint_digest(), _versions(), config.target, config.dialect,
                           repr(config.dbt), compiled.renderer(config.dbt), whole]
    names: set[str] = set()
    models: list[object] = []
    for path in compiled.project_inputs(root, output_paths):
        if config.path is not None and path == config.path.resolve():
            continue  # sortlint's own configuration renders nothing (and keys every result)
        try:
            data = path.read_bytes()
        except OSError as error:
            parts += [str(path), f"unreadable: {error.strerror}"]
            continue
        text = data.decode("utf-8", "replace")
        names.update(ENV_VAR.findall(text))
        is_model = path.suffix == ".sql" and any(path.is_relative_to(p) for p in model_paths)
        if whole or not is_model:
            parts += [str(path.relative_to(root)), data]
        else:
            models += [str(path.relative_to(root)), repr(dbt.config_lines(text))]
    scans.save(dbt.config_scans_used)
    parts.append(sorted((name, os.environ.get(name)) for name in names | _dbt_variables()))
    if whole:
        profiles = os.environ.get("DBT_PROFILES_DIR")
        if profiles and (Path(profiles) / "profiles.yml").is_file():
            parts.append((Path(profiles) / "profiles.yml").read_bytes())
    # dbt's catalog (`dbt docs generate`) gives column types: every byte counts
    parts.append(_content(root / output_paths[0] / dbt.CATALOG_FILE))
    context = digest(*parts)
    return context, digest(context, *models)


def _content(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _project_settings(root: Path) -> dict:
    try:
        data = nodes.load((root / dbt.PROJECT_FILE).read_text(encoding="utf-8-sig"))
    except Exception:  # unreadable or not YAML: reported when the project is read
        return {}
    return data if isinstance(data, dict) else {}


def _versions() -> tuple[str | None, ...]:
    from importlib import metadata

    found: list[str | None] = []
    # from the packages' metadata: importing sqlglot would cost a warm check 70 ms
    for distribution in ("sqlglot", "dbt-core", "dbt-spark", "sqlfluff", "Jinja2"):
        try:
            found.append(metadata.version(distribution))
        except metadata.PackageNotFoundError:
            found.append(None)
    return tuple(found)


def _dbt_variables() -> set[str]:
    """dbt's own settings from the environment (`DBT_...`), whatever the files name."""
    return {name for name in os.environ if name.startswith("DBT_")}


class _KeptScans:
    """A memo of what a scan made of texts (by their digest, see `dbt.config_scans`,
    `dbt.property_scans`, `dbt_context.macro_scans`), read from the store under one key and
    kept anew when a run used another set of entries (a run that used none - the project's
    scan came from the cache - keeps what there was). The key is this version of sortlint's
    and of what it reads with: another may read the same text otherwise. The memo, too,
    keeps only the entries the run used: a long-lived process (the language server) does
    not grow with every edit of a file."""

    def __init__(self, namespace: str, key: str, memo: dict, store: Store | None) -> None:
        self.namespace, self.memo, self.store = namespace, memo, store
        self.key = digest(sortlint_digest(), _versions(), key)
        kept = store.get(namespace, self.key) if store is not None else None
        self.loaded = set(kept) if isinstance(kept, dict) else set()
        memo.update(kept if isinstance(kept, dict) else {})

    def save(self, used: Collection[str]) -> None:
        if self.store is not None and used and set(used) != self.loaded:
            self.store.put(self.namespace, self.key, {key: self.memo[key] for key in used})
        for unused in self.memo.keys() - set(used):
            del self.memo[unused]
