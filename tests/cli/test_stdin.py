"""`sortlint check --stdin-filename PATH -`: standard input checked as the file PATH - its
configuration found from PATH, its kind from its name, the file itself never read (an
editor's unsaved buffer need not exist on disk). With `--fix`, ruff's convention: the text
on stdout (fixed, or as it came when nothing is checked), the report on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n"
QUERY = "SELECT host FROM events WHERE host = 'a' ORDER BY host, time;\n"


def sortlint(cwd: Path, text: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sortlint", "check", "--no-cache", *arguments], input=text, cwd=cwd,
        capture_output=True, text=True, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_standard_input_is_checked_as_the_file_it_names(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "sub").mkdir()
    done = sortlint(tmp_path, QUERY, "--stdin-filename", "sub/unsaved.sql", "-")
    assert not (tmp_path / "sub" / "unsaved.sql").exists()
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (
        "sub/unsaved.sql:1:51: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 1) [query]\n"
        "Found 1 finding in 1 file.\n"
    )


def test_the_text_on_disk_is_not_what_is_checked(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text("SELECT host FROM events ORDER BY host;\n")
    done = sortlint(tmp_path, QUERY, "--stdin-filename", "q.sql", "-", "--output-format", "json")
    assert done.returncode == 1
    assert '"message": "sort key host is constant: WHERE events.host = \'a\' (line 1)"' in done.stdout


def test_with_fix_the_fixed_text_goes_to_stdout_and_the_report_to_stderr(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    done = sortlint(tmp_path, QUERY, "--fix", "--stdin-filename", "q.sql", "-")
    assert (done.returncode, done.stdout) == (0, "SELECT host FROM events WHERE host = 'a' ORDER BY time;\n")
    assert done.stderr == "All checks passed (1 file).\n1 fixed, 0 remaining.\n"


def test_with_fix_a_text_nothing_checks_comes_back_as_it_came(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG + "exclude: [generated/**]\n")
    for name in ("notes.txt", "generated/q.sql"):
        done = sortlint(tmp_path, QUERY, "--fix", "--stdin-filename", name, "-")
        assert (done.returncode, done.stdout) == (0, QUERY), name


def test_with_fix_a_byte_order_mark_comes_back_with_the_text(tmp_path):
    """As a fixed file keeps its mark: an editor replacing its buffer with the output keeps
    the file's encoding as it was."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    done = sortlint(tmp_path, "\ufeff" + QUERY, "--fix", "--stdin-filename", "q.sql", "-")
    assert (done.returncode, done.stdout) == (0, "\ufeffSELECT host FROM events WHERE host = 'a' ORDER BY time;\n")
    done = sortlint(tmp_path, "\ufeff" + QUERY, "--fix", "--stdin-filename", "notes.txt", "-")
    assert (done.returncode, done.stdout) == (0, "\ufeff" + QUERY)


def test_a_pyspark_job_and_a_dbt_model_from_standard_input(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    job = (
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "spark.table('events').where(\"host = 'a'\").orderBy('host', 'time').show()\n"
    )
    done = sortlint(tmp_path, job, "--stdin-filename", "jobs/report.py", "-")
    assert done.stdout.splitlines()[0].startswith("jobs/report.py:3:")
    assert "SL003" in done.stdout.splitlines()[0]
    (tmp_path / "shop" / "models").mkdir(parents=True)
    (tmp_path / "shop" / "dbt_project.yml").write_text("name: shop\n")
    model = "select host from {{ source('raw', 'events') }} where host = 'a' order by host, time\n"
    done = sortlint(tmp_path, model, "--dbt-renderer", "builtin", "--stdin-filename", "shop/models/m.sql", "-")
    assert done.stdout.splitlines()[0] == (
        "shop/models/m.sql:1:74: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 1) [query]"
    )


def test_standard_input_needs_the_name_it_stands_for(tmp_path):
    done = sortlint(tmp_path, QUERY, "-")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: checking standard input (PATH -) needs --stdin-filename PATH: the file it stands for\n"
    )
    done = sortlint(tmp_path, QUERY, "--stdin-filename", "q.sql", "other.sql")
    assert (done.returncode, done.stderr) == (
        2, "error: --stdin-filename checks standard input alone: give `-` as the only PATH\n")
