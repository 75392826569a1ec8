"""`sortlint check --diff-base REV`: findings in the statements a change touched, with the
whole repository still read, on real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_repos import commit, new_repo, pull_request_repo, write

from sortlint.cli import main


@pytest.fixture
def pull_request(tmp_path, monkeypatch):
    repo, base, head = pull_request_repo(tmp_path / "warehouse")
    monkeypatch.chdir(repo.working_tree_dir)
    yield repo
    repo.close()


DECLARED = "declared constant time = '2024-01-01 00:00:00' of telemetry.events (sortlint.yml:4)"


def test_only_findings_in_changed_statements(pull_request, capsys):
    assert main(["check", "--diff-base", "main"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        # a dbt model and a PySpark job that gained a sort
        f"dbt/models/host_events.sql:4:16: SL003 [*unsafe] sort key time is constant: {DECLARED} [declared]",
        f'jobs/latency_job.py:7:69: SL003 [*unsafe] sort key "time" is constant: {DECLARED} [declared]',
        # renamed, and changed above its unchanged ORDER BY
        "sql/errors.sql:4:10: SL003 [*] sort key level is constant: WHERE events.level = 'FATAL' (line 3) [query]",
        # changed on line 5, its ORDER BY on line 9 is not: the statement changed
        f"sql/latency.sql:9:16: SL003 [*unsafe] sort key time is constant: {DECLARED} [declared]",
        # (the unchanged GROUP BY level, host, time on line 13 is not reported)
        # a new statement reading a view that an unchanged file creates: both keys are
        # constant, and an aggregate needs one key to keep its empty result empty
        "sql/latency.sql:15:66: SL103 group key host is constant: WHERE events.host = 'api-1.example.com' (sql/api_views.sql:5) (code outside this statement, which may change) [upstream]",
        f"sql/latency.sql:15:72: SL103 group key time is constant: {DECLARED} [declared]",
        # a new file
        "sql/new_report.sql:4:16: SL103 [*] group key level is constant: WHERE events.level = 'WARN' (line 3) [query]",
        "sql/new_report.sql:5:10: SL003 [*] sort key level is constant: WHERE events.level = 'WARN' (line 3) [query]",
        "Found 8 findings in 5 files.",
    ]


def test_without_diff_base_every_finding(pull_request, capsys):
    assert main(["check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "Found 9 findings in 5 files."
    assert any(line.startswith("sql/latency.sql:13:23: SL103") for line in out)


def test_an_unchanged_repository_is_clean(pull_request, capsys):
    assert main(["check", "--diff-base", "HEAD"]) == 0
    assert capsys.readouterr().out == "All checks passed (6 files).\n"


def test_a_change_only_in_another_file_reports_nothing_here(tmp_path, monkeypatch, capsys):
    repo = new_repo(tmp_path, {"sortlint.yml": "sources:\n  events:\n    columns: {host: string, time: timestamp}\n    constants: {host: h}\n",
                               "a.sql": "SELECT host FROM events ORDER BY host;\n", "b.sql": "SELECT 1;\n"})
    write(tmp_path, {"b.sql": "SELECT 2;\n"})
    commit(repo, "b")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--diff-base", "HEAD~1"]) == 0
    assert main(["check"]) == 1
    repo.close()


def test_errors_exit_2_with_one_line(tmp_path, pull_request, capsys):
    assert main(["check", "--diff-base", "no-such-branch"]) == 2
    root = Path(pull_request.working_tree_dir).resolve()
    assert capsys.readouterr().err == f"error: {root}: unknown revision 'no-such-branch'\n"
    assert main(["check", "--diff-base", "main", str(tmp_path / "elsewhere")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'elsewhere'}: no such file or directory\n"
    (tmp_path / "outside").mkdir()
    assert main(["check", "--diff-base", "main", str(tmp_path / "outside")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'outside'}: not inside a git repository (--diff-base compares git revisions)\n"


def test_fixes_are_for_whole_files(pull_request, capsys):
    assert main(["check", "--diff-base", "main", "--fix"]) == 2
    assert capsys.readouterr().err == (
        "error: --diff-base limits the report to changed statements; --fix and --diff rewrite "
        "whole files: give them the files instead\n"
    )
