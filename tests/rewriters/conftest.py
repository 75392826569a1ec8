"""What the fix tests share: a check of one file, its findings and its text afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.cli import main


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
