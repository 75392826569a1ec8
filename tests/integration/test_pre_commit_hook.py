"""The pre-commit hook, run by the real `pre-commit` tool on a throwaway repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    run("git", "init", "-q", cwd=tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text("SELECT host FROM events WHERE host = 'a' ORDER BY host, time;\n")
    (tmp_path / "q.hql").write_text("SELECT time FROM events WHERE host = 'b' ORDER BY host, time;\n")
    run("git", "add", ".", cwd=tmp_path)
    return tmp_path


def test_hook_reports_findings_and_fails_the_commit(project, tmp_path):
    pre_commit = Path(sys.executable).parent / "pre-commit"
    home = tmp_path / "pre-commit-home"
    result = subprocess.run(
        [str(pre_commit), "try-repo", str(ROOT), "sortlint", "--files", "q.sql", "q.hql"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
        env={"PRE_COMMIT_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "q.sql:1:51: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 1) [query]" in result.stdout
    assert "q.hql:1:51: SL003 [*] sort key host is constant: WHERE events.host = 'b' (line 1) [query]" in result.stdout


def test_the_readmes_snippet_runs_with_a_commit_of_this_repository(project, tmp_path):
    """The README's snippet as a user fills it in - the repository's URL and a commit SHA
    for `rev` (it has no release tags) - run by `pre-commit run`, with no warning about a
    mutable revision."""
    import re

    import yaml

    clone = tmp_path / "clone"
    run("git", "clone", "-q", str(ROOT), str(clone), cwd=tmp_path)
    commit = run("git", "rev-parse", "HEAD", cwd=clone).stdout.strip()
    snippet = re.search(r"As a pre-commit hook:\n\n```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    filled = snippet.replace("<this repository>", clone.as_uri()).replace("<commit>", commit)
    [repo] = yaml.safe_load(filled)
    assert repo["rev"] == commit and repo["hooks"][0]["id"] == "sortlint"
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [repo]}))
    result = subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "run", "--files", "q.sql"],
        cwd=project, capture_output=True, text=True, timeout=900,
        env={"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "q.sql:1:51: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 1) [query]" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_the_hooks_pass_every_file_kind_sortlint_reads():
    import re

    import yaml

    from sortlint.sources.registry import SUFFIXES

    for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()):
        assert "types_or" not in hook and "types" not in hook, hook["id"]
        passed = {suffix for suffix in (*SUFFIXES, ".yml", ".txt", ".sqlx")
                  if re.search(hook["files"], f"dir/file{suffix}")}
        assert passed == set(SUFFIXES), hook["id"]
