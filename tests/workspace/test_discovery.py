"""Which files `sortlint check` reads: include/exclude globs as gitignore reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.config.globs import _matches


@pytest.mark.parametrize(
    "path, pattern, matched",
    [
        ("dags/x.py", "dags/**/*.py", True),
        ("dags/a/b/x.py", "dags/**/*.py", True),
        ("x.sql", "**/*.sql", True),
        ("models/staging/x.sql", "**/*.sql", True),
        ("models/x.sql", "models/*.sql", True),
        ("models/staging/x.sql", "models/*.sql", False),
        ("target/run/x.sql", "target/**", True),
        ("dags/x.pyc", "dags/**/*.py", False),
        ("a.sql", "?.sql", True),
        ("ab.sql", "?.sql", False),
    ],
)
def test_globs(path, pattern, matched):
    assert _matches(path, [pattern]) is matched


def test_exclude_wins_and_hidden_directories_are_skipped(tmp_path):
    from sortlint.config import Config
    from sortlint.workspace.discovery import discover

    for name in ("a.sql", "target/b.sql", ".venv/c.sql", "models/d.sql"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("SELECT 1")
    config = Config(root=tmp_path, include=("**/*.sql",), exclude=("target/**",))
    assert [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], config).files] == [
        "a.sql",
        "models/d.sql",
    ]


def test_a_folder_beside_the_configs_folder_is_not_taken_for_a_hidden_one(tmp_path, monkeypatch):
    """`sortlint check --config conf/sortlint.yml ../other` from `conf/`: the files of
    `../other` lie outside the config's folder, and `..` is no hidden folder."""
    from sortlint.config import Config
    from sortlint.workspace.discovery import discover

    (tmp_path / "conf").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.sql").write_text("SELECT 1")
    monkeypatch.chdir(tmp_path / "conf")
    config = Config(root=tmp_path / "conf", include=("**/*.sql",))
    assert discover([Path("../other")], config).files == [Path("../other/x.sql")]
