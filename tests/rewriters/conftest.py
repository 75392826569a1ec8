"""What the fix tests share: a check of one file (its findings and its text afterwards), and
one file's analysis, as the proof of a fix compares them."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs import FIX_SHAPES_CATALOG
from sortlint.cli import main
from sortlint.config import load_config
from sortlint.linter.analysis import FileAnalysis, analyse_file
from sortlint.sources.frontend import Reading
from sortlint.workspace.tables import FileTables, RepositoryTables


@pytest.fixture
def check_file(tmp_path: Path, capsys, monkeypatch):
    """`check_file(sql, *flags, catalog=...) -> (finding lines, the file's text afterwards)`:
    `sortlint check FLAGS q.sql` with `catalog` as sortlint.yml."""
    monkeypatch.chdir(tmp_path)

    def run(sql: str, *flags: str, catalog: str) -> tuple[list[str], str]:
        Path("sortlint.yml").write_text(catalog)
        Path("q.sql").write_text(sql)
        capsys.readouterr()
        main(["check", *flags, "q.sql"])
        lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("q.sql:")]
        return lines, Path("q.sql").read_text()

    return run


@pytest.fixture
def analysed(tmp_path: Path):
    """`analysed(sql, catalog=...) -> FileAnalysis` of `sql` as q.sql."""

    def run(text: str, catalog: str = FIX_SHAPES_CATALOG) -> FileAnalysis:
        (tmp_path / "sortlint.yml").write_text(catalog)
        config = load_config(tmp_path / "sortlint.yml")
        tables = FileTables(RepositoryTables(config))
        return analyse_file(tmp_path / "q.sql", text, Reading(config), tables)

    return run
