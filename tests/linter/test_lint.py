"""Evidence cites where its clause was written: a view's WHERE is in the view's file."""

from __future__ import annotations

from pathlib import Path

from sortlint.cli import main

CATALOG = "target: spark\nsources:\n  t: {columns: {a: int, b: int}}\n"


def test_evidence_from_a_view_in_another_file_names_that_file_and_its_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "views.sql").write_text("-- the view\n\n\nCREATE VIEW v AS\nSELECT a, b FROM t\nWHERE b = 1;\n")
    (tmp_path / "b.sql").write_text("SELECT a, b FROM v ORDER BY b, a;\n")
    (tmp_path / "c.sql").write_text("CREATE VIEW w AS SELECT a, b FROM t\nWHERE b = 1;\nSELECT a, b FROM w ORDER BY b, a;\n")
    assert main(["check", "--jobs", "1", "."]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "b.sql:1:29: SL003 [*unsafe] sort key b is constant: WHERE t.b = 1 (a/views.sql:6) (another file's code, which may change) [upstream]",
        "c.sql:3:29: SL003 [*] sort key b is constant: WHERE t.b = 1 (line 2) [query]",
        "Found 2 findings in 3 files.",
    ]
