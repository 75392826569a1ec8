"""dbt projects rendered by dbt itself.

sortlint's built-in renderer (`sortlint.sources.dbt.rendering`) renders dbt models unless the
run asks for dbt (`--dbt-renderer dbt`, `$SORTLINT_DBT_RENDERER=dbt` or `dbt: renderer: dbt`
in the configuration): a pre-commit hook must cost seconds, and dbt's own floor is 9-14 s for
one model. Then, with `dbt-core` installed (the `dbt` extra), a project's models are rendered
by dbt: one `dbt compile` of the whole project per run, in a process of its own
(`sortlint.sources.dbt.worker`), which also traces every model through dbt's rendering so
that findings and fixes map back to the raw text exactly as with the built-in renderer.
What it returns is kept by content: a digest of every file of the project that dbt reads
(models, macros, YAML, installed packages, the profile), the vars and the versions. The
same project is compiled once per machine until one of them changes (a cache file under
`$SORTLINT_CACHE_DIR`, else `$XDG_CACHE_HOME/sortlint`, else `~/.cache/sortlint`).

The connection is the project's `profiles.yml` (in the project or `$DBT_PROFILES_DIR`);
without one, sortlint writes a profile for a local Spark session (dbt-spark's `session`
method, an in-memory catalog) in a directory of its own, and dbt runs there: nothing is
written into the project. dbt opens the connection only for a model that asks the database
something while it renders (`adapter.get_relation`, `get_columns_in_relation`,
`run_query`); such a model is rendered against an empty catalog and its findings say so.

The project's own `target/manifest.json` is not read: a file's modification time cannot say
that it is fresh (an environment variable, a profile or an installed package may have changed
since), and it does not say where each piece of a rendering came from, so no fix could be
applied in it; dbt compiles the project into a directory of sortlint's instead.

A project dbt cannot parse, or a model dbt cannot compile, is an error for each of its files,
with dbt's reason: the run asked for dbt's rendering, and another renderer's could differ.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path

import yaml

import sortlint
from sortlint import stages
from sortlint.config import Config, DbtOptions
from sortlint.sources.dbt.project import Project
from sortlint.sources.dbt.secret_env import secret_values

# Files of a project whose content changes what dbt renders.
INPUT_SUFFIXES = (".sql", ".yml", ".yaml", ".py", ".md", ".csv", ".jinja", ".j2")
# Directories dbt writes into, or that hold no input.
SKIPPED_DIRECTORIES = ("logs", "spark-warehouse", "metastore_db", "__pycache__", "node_modules", "venv",
                       "site-packages")
# One dbt run may take minutes on a large project; past this it has hung.
TIMEOUT_SECONDS = 1800

QUERIED_CAVEAT = (
    "rendered by dbt against an empty catalog: the model asks the database while it renders"
)


@dataclass(frozen=True)
class CompiledModel:
    """One model as dbt rendered it. `slices` are (kind, raw start, raw stop, start, stop)
    over the file's text with its line breaks normalised (`raw`); `error` says why dbt
    gave no usable rendering."""

    name: str
    path: Path
    relation: str | None
    raw: str | None = None
    text: str | None = None
    slices: tuple[tuple[str, int, int, int, int], ...] = ()
    depends_on: tuple[str, ...] = ()  # the names of the project's models it reads
    queried: bool = False
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    error: str | None = None
    materialized: str | None = None  # as dbt configured the model


@dataclass(frozen=True)
class CompiledProject:
    """A project's models rendered by dbt, by resolved path; `failure` is why dbt rendered
    none of them."""

    models: dict[Path, CompiledModel] = field(default_factory=dict, hash=False)
    disabled: frozenset[Path] = frozenset()
    failure: str | None = None
    dbt_version: str = ""

    def relations(self) -> dict[str, str]:
        """Model name -> the relation `ref` renders it as."""
        return {m.name: m.relation for m in self.models.values() if m.relation}


def dbt_version() -> str | None:
    """The installed dbt-core's version, or None: read from the package's metadata, so
    dbt is not imported in the checking process."""
    try:
        return metadata.version("dbt-core")
    except metadata.PackageNotFoundError:
        return None


def compiled_project(project: Project, options: DbtOptions) -> CompiledProject | None:
    """The project's models as dbt renders them, or None when the run's renderer is the
    built-in one."""
    if renderer(options) == "builtin":
        return None
    version = dbt_version()
    if version is None:
        return CompiledProject(failure="dbt-core is not installed (sortlint's dbt extra installs it: README, Install)")
    options = replace(options, renderer="dbt", configured_renderer="dbt")  # one compile, however the run chose dbt
    compiled: CompiledProject = project.derived(("compiled", options, version),
                                                lambda: _compiled(project, options, version))
    return compiled


def _compiled(project: Project, options: DbtOptions, version: str) -> CompiledProject:
    request = _request(project, options)
    key = _digest(project, request, version)
    cached = _cache_file(key)
    if cached is not None and cached.is_file():
        try:
            return _read_answer(json.loads(cached.read_text(encoding="utf-8")), project)
        except (OSError, ValueError, KeyError):
            pass
    answer = _run_worker(project, request)
    # dbt's own verdicts are kept, failures too (a project dbt cannot parse costs one dbt
    # run per content, not one per check); a run that died or hung is not.
    if cached is not None and not answer.get("transient"):
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            temporary = cached.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(answer), encoding="utf-8")
            temporary.replace(cached)
        except OSError:
            pass  # a cache that cannot be written costs the next run a compile
    return _read_answer(answer, project)


# ---------------------------------------------------------------------------------------------
# The run


def _request(project: Project, options: DbtOptions) -> dict:
    """What the worker is asked, apart from its scratch paths."""
    profiles = project_profiles(project)
    request: dict = {
        "project_dir": str(project.root),
        # as YAML, which dbt's --vars reads: a date stays a date, as on dbt's command line
        "vars": yaml.safe_dump(dict(options.vars), default_flow_style=True) if options.vars else None,
        "incremental": options.incremental,
        "profile_text": profiles.read_text(encoding="utf-8") if profiles else None,
        "profiles_dir": str(profiles.parent) if profiles else None,
        "render_timeout": options.render_timeout,
        "render_max_bytes": options.render_max_bytes,
    }
    if profiles is None:
        request["profile"] = project.profile or project.name
        request["profile_text"] = session_profile(request["profile"], project.name)
    return request


def project_profiles(project: Project) -> Path | None:
    """The profiles.yml dbt would read for this project: in the project, else in
    `$DBT_PROFILES_DIR`; None when neither has one (sortlint then writes its own)."""
    candidates = [project.root / "profiles.yml"]
    if os.environ.get("DBT_PROFILES_DIR"):
        candidates.append(Path(os.environ["DBT_PROFILES_DIR"]) / "profiles.yml")
    return next((c for c in candidates if c.is_file()), None)


def session_profile(profile: str, schema: str) -> str:
    """A profile for a local Spark session with an in-memory catalog: dbt connects only
    for a model that asks the database, and finds nothing there. Its target is `dev` and
    its schema the project's name, as the built-in renderer's `target`."""
    target = {
        "type": "spark",
        "method": "session",
        "host": "localhost",
        "schema": schema,
        "threads": 1,
        "server_side_parameters": {
            "spark.sql.catalogImplementation": "in-memory",
            "spark.ui.enabled": "false",
            "spark.master": "local[1]",
            "spark.sql.shuffle.partitions": "1",
        },
    }
    # The target is `dev`, as the built-in renderer's (`target.name == 'dev'` branches alike).
    return yaml.safe_dump({profile: {"target": "dev", "outputs": {"dev": target}}})


def _run_worker(project: Project, request: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="sortlint-dbt-") as scratch:
        directory = Path(scratch)
        sent = dict(request)
        if request["profiles_dir"] is None:
            (directory / "profiles.yml").write_text(request["profile_text"], encoding="utf-8")
            sent["profiles_dir"] = str(directory)
        sent.update(
            target_path=str(directory / "target"),
            log_path=str(directory / "logs"),
            answer=str(directory / "answer.json"),
        )
        sent.pop("profile_text")
        environment = dict(os.environ)
        package_root = str(Path(sortlint.__file__).resolve().parent.parent)
        environment["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, environment.get("PYTHONPATH")) if p
        )
        # Spark's scratch files (warehouse, metastore) land in the working directory.
        environment["SPARK_LOCAL_IP"] = environment.get("SPARK_LOCAL_IP", "127.0.0.1")
        sent["progress"] = str(directory / "progress")
        process = subprocess.Popen(
            [sys.executable, "-m", "sortlint.sources.dbt.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=directory,
            env=environment,
        )
        try:
            _, stderr = _followed(process, json.dumps(sent), directory / "progress")
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return {"failure": f"dbt compile did not finish in {TIMEOUT_SECONDS} s",
                    "transient": True}
        except BaseException:  # Ctrl-C: dbt's process goes too, as `subprocess.run` saw to
            process.kill()
            process.wait()
            raise
        answer_path = directory / "answer.json"
        if not answer_path.is_file():
            tail = " ".join((stderr or "").split()[-40:])
            return {"failure": f"dbt's process ended with code {process.returncode}: {tail}",
                    "transient": True}
        return json.loads(answer_path.read_text(encoding="utf-8"))


RENDERING = "rendering the dbt project with dbt"
PROGRESS_INTERVAL = 0.25  # seconds between looks at how far the compile is


def _followed(process: subprocess.Popen, request: str, progress: Path) -> tuple[str, str]:
    """The worker's output once it ends, its progress told meanwhile (`sortlint.stages`):
    the first file's check waits for the whole project, minutes on a large one, and a
    progress line counting files alone would stand still all that time."""
    deadline = time.monotonic() + TIMEOUT_SECONDS
    sent: str | None = request
    stage = stages.Stage(RENDERING)
    try:
        while True:
            try:
                # Asked again after each wait: nothing the worker wrote is lost (the request
                # is sent once).
                wait = min(PROGRESS_INTERVAL, max(deadline - time.monotonic(), 0))
                output = process.communicate(sent, timeout=wait)
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    raise
                output = None
            sent = None
            try:
                state = progress.read_text(encoding="utf-8").split()
            except OSError:
                state = []  # dbt is still reading the project
            if len(state) == 2:
                stage = stages.Stage(RENDERING, int(state[0]), int(state[1]), "models")
            # Told at each look, changed or not (the line shows once the run has been slow),
            # and once more at the end: the last models may finish between two looks.
            stages.report(stage)
            if output is not None:
                return output
    finally:
        stages.report(None)


def _read_answer(answer: dict, project: Project) -> CompiledProject:
    if "failure" in answer:
        return CompiledProject(failure=_first_line(answer["failure"]),
                               dbt_version=answer.get("dbt_version", ""))
    names = {entry["unique_id"]: entry["name"] for entry in answer["models"]}
    models = {}
    for entry in answer["models"]:
        path = Path(entry["path"]).resolve()
        slices = tuple(tuple(s) for s in entry.get("slices", ()))
        error = entry.get("error")
        if error is None and "untraced" in entry:
            error = f"dbt's rendering could not be traced: {entry['untraced']}"
        relation = entry.get("relation")
        if relation is None and entry.get("materialized") == "ephemeral":
            # what dbt renders `ref` to for an ephemeral model: the CTE it injects
            relation = f"__dbt__cte__{entry['name']}"
        models[path] = CompiledModel(
            name=entry["name"],
            path=path,
            relation=relation,
            raw=entry.get("raw"),
            text=entry.get("text"),
            slices=slices,  # type: ignore[arg-type]
            depends_on=tuple(names[d] for d in entry.get("depends_on", ()) if d in names),
            queried=bool(entry.get("queried")),
            meta=entry.get("meta") or {},
            error=None if error is None else _first_line(error),
            materialized=entry.get("materialized"),
        )
    disabled = frozenset(Path(p).resolve() for p in answer.get("disabled", ()))
    return CompiledProject(models, disabled, None, answer.get("dbt_version", ""))


def _first_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


# ---------------------------------------------------------------------------------------------
# The cache


def input_files(project: Project) -> list[Path]:
    """Every file of the project whose content may change what dbt renders, in a fixed order."""
    return project_inputs(project.root, project.output_paths)


def project_inputs(root: Path, output_paths: tuple[str, ...]) -> list[Path]:
    """Every file under a project's root whose content may change what dbt renders, in a
    fixed order; `output_paths` are where dbt writes (relative to the root)."""
    skipped = {root / d for d in output_paths}
    found = []
    for directory, subdirectories, files in os.walk(root):
        here = Path(directory)
        subdirectories[:] = sorted(
            d for d in subdirectories
            if not d.startswith(".") and d not in SKIPPED_DIRECTORIES and here / d not in skipped
        )
        found += [here / f for f in sorted(files) if f.endswith(INPUT_SUFFIXES) or f == "profiles.yml"]
    return found


def _digest(project: Project, request: dict, version: str) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps([sortlint.__version__, version, request], sort_keys=True,
                             default=str).encode())
    digest.update(Path(__file__).with_name("worker.py").read_bytes())  # what answered
    for path in input_files(project):
        digest.update(str(path.relative_to(project.root)).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"unreadable")
        digest.update(b"\0")
    return digest.hexdigest()


def _cache_file(key: str) -> Path | None:
    base = os.environ.get("SORTLINT_CACHE_DIR") or (
        str(Path(os.environ["XDG_CACHE_HOME"]) / "sortlint") if os.environ.get("XDG_CACHE_HOME")
        else str(Path.home() / ".cache" / "sortlint")
    )
    if base.lower() in ("", "0", "off", "none"):
        return None
    return Path(base) / "dbt" / f"{key}.json"


def rendering_change(old: str, new: str) -> list[tuple[int, int, str]]:
    """The edits that turn `old` into `new`: (start, stop, replacement) in `old`."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, new[j1:j2]) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]



def renderer(options: DbtOptions) -> str:
    """Who renders, "dbt" or "builtin": the command line's choice, else
    `$SORTLINT_DBT_RENDERER`, else the configuration's, else the built-in renderer."""
    if options.renderer != "auto":
        return options.renderer
    chosen = os.environ.get("SORTLINT_DBT_RENDERER", "auto").strip().lower()
    if chosen in ("dbt", "builtin"):
        return chosen
    return "dbt" if options.configured_renderer == "dbt" else "builtin"


def model_relations(project: Project, options: DbtOptions) -> dict[str, str]:
    """The project's models by name, as `ref` renders them: dbt's names when dbt rendered
    the project, else none (the built-in renderer's own, `Project.ref`)."""
    compiled = compiled_project(project, options)
    if compiled is None or compiled.failure is not None:
        return {}
    return compiled.relations()


def table_name(project: Project, model: str, options: DbtOptions) -> str:
    """The name a model's table is read by (lower case): as `ref` renders it."""
    return (model_relations(project, options).get(model) or str(project.ref(model))).lower()


def is_disabled(project: Project, path: Path, config: Config) -> bool:
    """Whether dbt builds no such model (`enabled: false`), as the run's renderer says."""
    compiled = compiled_project(project, config.dbt)
    if compiled is not None and compiled.failure is None:
        return path.resolve() in compiled.disabled
    return project.model(path) in project.disabled
