"""What a check learns of the Airflow DAGs before it reads any file: whether a `.sql` file is
a DAG's template, and how it renders, depends on the DAGs under the project root, so the
text of every Python file there that may reference a template, and which template files
exist, are the context (`Preparation.contexts`) of the files below the root.

Light to import: nothing here parses Python or SQL."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.files import read_source
from sortlint.sources.frontend import JINJA_MARK, Preparation, Reading, dbt_project_root
from sortlint.store import digest
from sortlint.units import Unit

TEMPLATE_SUFFIXES = (".sql", ".hql")
MAYBE_DAG = re.compile(r"Operator\b|Hook\b")
MAYBE_SQL = re.compile(r"\b[sh]ql\s*=|\.(?:run|run_cli|get_records|get_first|get_pandas_df|get_df|get_results|to_csv)\(")
_NOT_SOURCES = {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist"}


def prepare(files: Sequence[Path], reading: Reading) -> Preparation:
    config = reading.config
    if config.path is None or not any(path.suffix in TEMPLATE_SUFFIXES for path in files):
        return Preparation(config)
    candidates, templates = dag_candidates(reading)
    if not candidates:
        return Preparation(config)
    context = digest([(str(file), raw) for file, raw in candidates], templates)
    return Preparation(config, contexts={config.root.resolve(): context})


def dag_candidates(reading: Reading) -> tuple[list[tuple[Path, str]], list[str]]:
    """The Python files under the project root (those the config's globs select) that may
    reference a template file, with their text, and every file a template could be; read
    once per check."""
    return reading.remembered(("airflow DAG candidates",), lambda: _candidates(reading.config))


def may_run_sql(raw: str, sql_arguments: Sequence[tuple[str, str]] = ()) -> bool:
    """Whether a Python file may run SQL through Airflow: a cheap look before parsing it."""
    if MAYBE_DAG.search(raw) and MAYBE_SQL.search(raw):
        return True
    return any(runner.rsplit(".", 1)[-1] in raw for runner, _ in sql_arguments)


def may_reference_templates(raw: str) -> bool:
    return bool(MAYBE_DAG.search(raw) and MAYBE_SQL.search(raw) and any(s in raw for s in TEMPLATE_SUFFIXES))


def _candidates(config: Config) -> tuple[list[tuple[Path, str]], list[str]]:
    candidates = []
    templates = []
    for folder, directories, names in os.walk(config.root):
        directories[:] = sorted(d for d in directories if not d.startswith(".") and d not in _NOT_SOURCES)
        for name in sorted(names):
            file = Path(folder) / name
            if name.endswith(TEMPLATE_SUFFIXES):
                templates.append(str(file))
            if not name.endswith(".py") or not config.selects(file):
                continue
            try:
                raw = read_source(file)
            except UserError:
                continue  # reported when the file itself is checked
            if may_reference_templates(raw):
                candidates.append((file, raw))
    return candidates, templates


def template_file_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """SQL front end: a `.sql`/`.hql` file that holds Jinja and that a DAG in the project
    references, rendered as Airflow would; None for any other file. The checks that let a
    file go come first, here: a plain SQL file never loads the reader of DAGs."""
    if path.suffix not in TEMPLATE_SUFFIXES or not JINJA_MARK.search(raw):
        return None
    if dbt_project_root(reading, path.resolve().parent) is not None:
        return None  # a dbt model or macro, not an Airflow template
    if reading.config.path is None:
        return None  # no project: the root would be the working directory, too wide to search
    from sortlint.sources.airflow.templates import referenced_template_units

    return referenced_template_units(path, raw, reading)
