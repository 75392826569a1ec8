"""Template files the project's DAGs reference, checked as files of their own.

A `.sql`/`.hql` file that holds Jinja and that a DAG of the project references (a DAG file
under the configuration's directory that its globs select) is rendered with that DAG's params
- the values on which all referencing operators agree - and checked where it is written.
Without a configuration file nothing is claimed: the root would be the working directory,
too wide to search.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.sources.airflow.dags import DagModule, find_template, resolved_path
from sortlint.sources.airflow.macros import rendered_units
from sortlint.sources.airflow.preparation import TEMPLATE_SUFFIXES, dag_candidates
from sortlint.sources.frontend import Reading
from sortlint.sources.python.strings import MappedText
from sortlint.units import Unit


@dataclass(frozen=True)
class TemplateReference:
    file: Path
    params: tuple[tuple[str, Any], ...]


def referenced_template_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """A template file (one `preparation.template_file_units` let through) rendered as
    Airflow would, when a DAG in the project references it; None otherwise."""
    config = reading.config
    target = resolved_path(path)
    references = [r for r in project_references(reading) if r.file == target]
    if not references:
        return None
    params = _agreed(r.params for r in references)
    return rendered_units(path, raw, MappedText.verbatim(raw), params, config)


def project_references(reading: Reading) -> list[TemplateReference]:
    """Every template file the DAGs under the project root reference (those the config's
    globs select), with the params each reference renders it with."""
    candidates, _ = dag_candidates(reading)
    return [reference for file, raw in candidates for reference in dag_references(file, raw, reading)]


def dag_references(file: Path, raw: str, reading: Reading) -> tuple[TemplateReference, ...]:
    """The template files one DAG file references, read once per check."""
    key = ("airflow template references", str(file.resolve()), raw)
    return reading.remembered(key, lambda: _read_references(file, raw, reading.config))


def _read_references(file: Path, raw: str, config: Config) -> tuple[TemplateReference, ...]:
    try:
        dag = DagModule.parse(file, raw, config.airflow.sql_arguments)
        dag.root, dag.dialect = config.root, config.dialect
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


