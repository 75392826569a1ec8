"""`--var` and `--incremental` reach the dbt models' rendering."""

from __future__ import annotations

from pathlib import Path

from sortlint.cli import main

CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n    orderings: [[host, time]]\n"
MODEL = """\
SELECT host, time FROM events
WHERE host = '{{ var("host", "a") }}'
{% if is_incremental() %}
ORDER BY host
{% endif %}
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "dbt_project.yml").write_text("name: shop\nmodel-paths: [models]\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "hosts.sql").write_text(MODEL)
    return tmp_path


def test_incremental_branch_is_checked_only_when_asked(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project(tmp_path))
    assert main(["check", "models"]) == 0
    assert main(["check", "models", "--incremental", "--var", "host=b"]) == 1
    out = capsys.readouterr().out
    assert "models/hosts.sql:4:1: SL001" in out
    assert "WHERE events.host = 'b' (line 2)" in out


def test_bad_var_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project(tmp_path))
    assert main(["check", "models", "--var", "oops"]) == 2
    assert "bad --var 'oops'; expected NAME=VALUE" in capsys.readouterr().err


def test_an_unknown_renderer_in_the_environment_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project(tmp_path))
    monkeypatch.setenv("SORTLINT_DBT_RENDERER", "dbtcore")
    assert main(["check", "models"]) == 2
    assert capsys.readouterr().err == "error: SORTLINT_DBT_RENDERER='dbtcore': expected builtin or dbt\n"
