"""`sortlint check --fix --unsafe-fixes` over the whole example repository: every fixable
finding is rewritten, no fix is dropped, and a second run changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

from sortlint.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fixing_the_examples_twice(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "examples"
    shutil.copytree(EXAMPLES, repo)
    monkeypatch.chdir(repo)
    before = snapshot(repo)

    main(["check", "--fix", "--unsafe-fixes", "."])
    first = capsys.readouterr().out
    after_first = snapshot(repo)
    changed = [name for name in before if before[name] != after_first[name]]
    assert "fix dropped" not in first
    assert [line for line in first.splitlines() if " [*]" in line] == []  # nothing fixable left
    assert len(changed) >= 12, changed
    kinds = {Path(name).parts[0] for name in changed}
    assert {"warehouse", "dbt", "dags", "jobs"} <= kinds

    main(["check", "--fix", "--unsafe-fixes", "."])
    second = capsys.readouterr().out
    assert snapshot(repo) == after_first
    assert second.rstrip().endswith(" remaining.") and "\n0 fixed," in "\n" + second.splitlines()[-1]
