"""Rule specifications run the real pipeline: a catalog and SQL files written to a
temporary repository, checked as `sortlint check` would check them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from catalogs import RULES_CATALOG as CATALOG
from sortlint.config import load_config
from sortlint.workspace.check import check


@pytest.fixture
def lint(tmp_path: Path, monkeypatch):
    """`lint(sql) -> [(code, line, message)]` over one file checked with the catalog above
    (from inside the repository, so catalog locations read `sortlint.yml:N`)."""
    monkeypatch.chdir(tmp_path)

    def run(sql: str, target: str = "spark", catalog: str = CATALOG) -> list[tuple[str, int, str]]:
        (tmp_path / "sortlint.yml").write_text(textwrap.dedent(catalog).format(target=target))
        query = tmp_path / "query.sql"
        query.write_text(textwrap.dedent(sql).lstrip("\n"))
        result = check([query], load_config(start_paths=[query]))
        assert not result.errors, result.errors
        return [(f.code, f.line, f.message) for f in result.findings]

    return run


@pytest.fixture
def codes(lint):
    """`codes(sql) -> [(code, line)]`, for specs about where rules fire."""

    def run(sql: str, target: str = "spark", catalog: str = CATALOG) -> list[tuple[str, int]]:
        return [(code, line) for code, line, _ in lint(sql, target, catalog)]

    return run
