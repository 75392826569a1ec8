"""The repository before any file is read: the catalog, and every dbt model of the checked
projects - a model's file may come after the files of the models reading it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sortlint.config import Config
from sortlint.errors import UserError
from sortlint.linter.analysis import built
from sortlint.sources.dbt.project import dependency_order, projects_of
from sortlint.sources.dbt.rendering import Rendered, is_disabled, render_model, statement_units
from sortlint.files import read_source
from sortlint.workspace.tables import FileTables, RepositoryTables


def starting_state(files: Sequence[Path], config: Config) -> RepositoryTables:
    """The tables every file sees before the files before it add theirs."""
    repository = RepositoryTables(config)
    register_models(files, config, repository)
    return repository


def register_models(files: Sequence[Path], config: Config, repository: RepositoryTables) -> None:
    """Make every model of the checked projects known to the repository. Models are built in
    dependency order (from the refs their rendering records); one that does not render or
    build is left out here and reported when its own file is checked."""
    given = {file.resolve(): file for file in files}  # the same Path the check renders
    for project in projects_of(files):
        rendered: dict[str, tuple[Path, str, Rendered]] = {}
        for name, path in project.models().items():
            path = given.get(path, path)
            if is_disabled(project, path, config):
                continue
            try:
                raw = read_source(path)
                rendered[name] = (path, raw, render_model(path, raw, project, config))
            except UserError:
                continue
        for name in dependency_order({n: r[2].reads for n, r in rendered.items()}):
            path, raw, result = rendered[name]
            tables = FileTables(repository)
            for unit in statement_units(path, raw, result, config.dialect, name):
                statement = built(unit, tables, config)
                if statement.error is None:
                    tables.register(statement)
            tables.commit()
