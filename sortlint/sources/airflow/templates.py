"""Template files the project's DAGs reference, checked as files of their own.

A `.sql`/`.hql` file that holds Jinja and that a DAG of the project references (a DAG file
under the configuration's directory that its globs select) is rendered with that DAG's params
- the values on which all referencing operators agree - and checked where it is written.
Without a configuration file nothing is claimed: the root would be the working directory,
too wide to search.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.files import read_source
from sortlint.sources.airflow.dags import (
    MAYBE_DAG,
    MAYBE_SQL,
    TEMPLATE_SUFFIXES,
    DagModule,
    resolved_path,
    find_template,
)
from sortlint.sources.airflow.macros import JINJA, rendered_units
from sortlint.sources.frontend import Preparation, Reading
from sortlint.sources.python.strings import MappedText
from sortlint.store import digest
from sortlint.units import Unit


@dataclass(frozen=True)
class TemplateReference:
    file: Path
    params: tuple[tuple[str, Any], ...]


def template_file_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """SQL front end: a `.sql`/`.hql` file that holds Jinja and that a DAG in the project
    references, rendered as Airflow would; None for any other file."""
    if path.suffix not in TEMPLATE_SUFFIXES or not JINJA.search(raw):
        return None
    if _in_dbt_project(path):
        return None  # a dbt model or macro, not an Airflow template
    config = reading.config
    if config.path is None:
        return None  # no project: the root would be the working directory, too wide to search
    target = resolved_path(path)
    references = [r for r in project_references(reading) if r.file == target]
    if not references:
        return None
    params = _agreed(r.params for r in references)
    return rendered_units(path, raw, MappedText.verbatim(raw), params, config)


def prepare(files: Sequence[Path], reading: Reading) -> Preparation:
    """Whether a template file is one, and how it renders, depends on every DAG under the
    project root: their references are the context of the files below the root."""
    config = reading.config
    if config.path is None or not any(
        path.suffix in TEMPLATE_SUFFIXES and not _in_dbt_project(path) for path in files
    ):
        return Preparation(config)
    references = sorted(repr(reference) for reference in project_references(reading))
    return Preparation(config, contexts={resolved_path(config.root): digest(references)})


_NOT_SOURCES = {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist"}


def project_references(reading: Reading) -> list[TemplateReference]:
    """Every template file the DAGs under the project root reference (those the config's
    globs select), with the params each reference renders it with."""
    config = reading.config
    found: list[TemplateReference] = []
    root = config.root
    for folder, directories, files in os.walk(root):
        directories[:] = sorted(d for d in directories if not d.startswith(".") and d not in _NOT_SOURCES)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            file = Path(folder) / name
            if config.selects(file):
                found += dag_references(file, reading)
    return found


def dag_references(file: Path, reading: Reading) -> tuple[TemplateReference, ...]:
    """The template files one DAG file references, read once per check."""
    try:
        stat = file.stat()
    except OSError:
        return ()
    key = ("airflow template references", str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    return reading.remembered(key, lambda: _read_references(file, reading.config))


def _read_references(file: Path, config: Config) -> tuple[TemplateReference, ...]:
    try:
        raw = read_source(file)
    except UserError:
        return ()  # reported when the file itself is checked
    if not (MAYBE_DAG.search(raw) and MAYBE_SQL.search(raw) and any(s in raw for s in TEMPLATE_SUFFIXES)):
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
    return any((folder / "dbt_project.yml").is_file() for folder in resolved_path(path).parents)
