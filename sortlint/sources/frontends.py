"""Which front end reads a file, and into which units.

Every front end turns a file into query units with a map back to the raw text. A `.sql`
file is plain SQL unless a templating front end claims it; a `.py` file may hold SQL in
DAG operator arguments and DataFrame pipelines at once, so every Python front end reads it
and their units are concatenated. Front ends are imported only when a file needs them:
checking plain SQL never loads libcst or sqlfluff.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path

from sortlint.config import Config
from sortlint.sources.sql_files import split_statements
from sortlint.units import Unit

# A front end returns the units it finds, or None when the file is not its kind.
FrontEnd = Callable[[Path, str, Config], "list[Unit] | None"]

# module:function, tried in order; for SQL the first that claims the file wins.
SQL_FRONT_ENDS: tuple[str, ...] = (
    "sortlint.sources.airflow:template_file_units",  # before jinja: claims only DAG templates
    "sortlint.sources.jinja:jinja_units",
)
PYTHON_FRONT_ENDS: tuple[str, ...] = (
    "sortlint.sources.airflow:dag_units",
    "sortlint.sources.pyspark:pyspark_units",
)

SUFFIXES = (".sql", ".hql", ".py")


def units_of(path: Path, raw: str, config: Config) -> list[Unit]:
    if path.suffix == ".py":
        units: list[Unit] = []
        for name in PYTHON_FRONT_ENDS:
            units += _load(name)(path, raw, config) or []
        return units
    for name in SQL_FRONT_ENDS:
        claimed = _load(name)(path, raw, config)
        if claimed is not None:
            return claimed
    return split_statements(path, raw, config.dialect)


def _load(name: str) -> FrontEnd:
    module, function = name.split(":")
    return getattr(import_module(module), function)
