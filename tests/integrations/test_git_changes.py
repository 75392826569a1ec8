"""Which lines a change touched, read from real git repositories: merge-base semantics,
renames followed, work-tree edits and new files counted, and clear errors for what git
cannot answer."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from git_repos import commit, new_repo, pull_request_repo, write

from sortlint.errors import UserError
from sortlint.integrations.git_changes import changes_since


@pytest.fixture
def pull_request(tmp_path):
    repo, base, head = pull_request_repo(tmp_path / "warehouse")
    yield repo, base, head
    repo.close()


def test_the_lines_a_pull_request_added_or_modified(pull_request):
    repo, base, head = pull_request
    changes = changes_since("main", Path(repo.working_tree_dir))
    assert (changes.target, changes.base, changes.head) == (base, base, head)
    assert {path: sorted(change.lines.added) for path, change in changes.files.items()} == {
        "dbt/models/host_events.sql": [4],
        "jobs/latency_job.py": [7],
        "sql/errors.sql": [3],
        "sql/latency.sql": [5, 14, 15],
        "sql/new_report.sql": [1, 2, 3, 4, 5],
    }
    assert changes.uncommitted == frozenset()


def test_a_renamed_file_is_known_by_its_new_path_and_its_old_lines(pull_request):
    repo, _, _ = pull_request
    renamed = changes_since("main", Path(repo.working_tree_dir)).files["sql/errors.sql"]
    assert renamed.old_path == "sql/old_name.sql"
    # Unchanged lines around the change, each with its line in the old file.
    assert renamed.lines.context == {1: 1, 2: 2, 4: 4}


def test_a_new_file_has_no_old_path(pull_request):
    repo, _, _ = pull_request
    added = changes_since("main", Path(repo.working_tree_dir)).files["sql/new_report.sql"]
    assert added.old_path is None
    assert added.lines.context == {}


def test_commits_on_the_base_branch_after_the_change_branched_off_are_not_the_changes(pull_request):
    repo, base, head = pull_request
    root = Path(repo.working_tree_dir)
    repo.git.checkout("main")
    write(root, {"sql/api_views.sql": "CREATE VIEW api_events AS SELECT host FROM telemetry.events;\n"})
    moved_on = commit(repo, "main moves on")
    repo.git.checkout("change")
    changes = changes_since("main", root)
    assert (changes.target, changes.base) == (moved_on, base)
    assert "sql/api_views.sql" not in changes.files


def test_edits_not_committed_yet_and_new_untracked_files_are_changes(pull_request):
    repo, _, head = pull_request
    root = Path(repo.working_tree_dir)
    with open(root / "sql/api_views.sql", "a") as out:
        out.write("\nSELECT 1;\n")
    write(root, {"sql/draft.sql": "SELECT host\nFROM telemetry.events;\n"})
    changes = changes_since(head, root)
    assert {path: sorted(c.lines.added) for path, c in changes.files.items()} == {
        "sql/api_views.sql": [6, 7],
        "sql/draft.sql": [1, 2],
    }
    assert changes.uncommitted == {"sql/api_views.sql", "sql/draft.sql"}


def test_paths_are_matched_as_the_check_names_them(pull_request, monkeypatch):
    repo, _, _ = pull_request
    root = Path(repo.working_tree_dir)
    monkeypatch.chdir(root / "sql")
    changes = changes_since("main", Path("."))
    assert changes.added(Path("errors.sql")) == {3}
    assert changes.added(root / "sql" / "errors.sql") == {3}
    assert changes.added(Path("api_views.sql")) == frozenset()
    assert changes.relative(Path("/somewhere/else.sql")) is None


def test_outside_a_git_repository(tmp_path):
    with pytest.raises(UserError) as raised:
        changes_since("main", tmp_path)
    assert str(raised.value) == f"{tmp_path}: not inside a git repository (--diff-base compares git revisions)"


def test_an_unknown_revision(pull_request):
    repo, _, _ = pull_request
    root = Path(repo.working_tree_dir)
    with pytest.raises(UserError) as raised:
        changes_since("origin/main", root)
    assert str(raised.value) == f"{root.resolve()}: unknown revision 'origin/main'"


def test_a_shallow_clone_without_the_base_says_to_fetch_it(pull_request, tmp_path):
    repo, base, _ = pull_request
    clone = git.Repo.clone_from(f"file://{repo.working_tree_dir}", tmp_path / "clone", depth=1, branch="change")
    with clone:
        root = Path(clone.working_tree_dir).resolve()
        with pytest.raises(UserError) as raised:
            changes_since(base, root)
    assert str(raised.value) == (
        f"{root}: unknown revision '{base}': this is a shallow clone, fetch the revision "
        "(e.g. `git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout)"
    )


def test_a_shallow_clone_without_the_common_history_says_to_fetch_more(pull_request, tmp_path):
    repo, _, _ = pull_request
    clone = git.Repo.clone_from(
        f"file://{repo.working_tree_dir}", tmp_path / "clone", depth=1, branch="change", no_single_branch=True
    )
    with clone:
        root = Path(clone.working_tree_dir).resolve()
        with pytest.raises(UserError) as raised:
            changes_since("origin/main", root)
    assert str(raised.value) == (
        f"{root}: 'origin/main' and HEAD have no common ancestor: this is a shallow clone, fetch "
        "more history (e.g. `git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout)"
    )


def test_a_repository_without_a_commit(tmp_path):
    empty = git.Repo.init(tmp_path / "empty")
    with empty, pytest.raises(UserError) as raised:
        changes_since("HEAD", tmp_path / "empty")
    assert "unknown revision 'HEAD'" in str(raised.value)


def test_unchanged_work_tree_has_no_changes(tmp_path):
    repo = new_repo(tmp_path / "r", {"a.sql": "SELECT 1;\n"})
    with repo:
        changes = changes_since("HEAD", tmp_path / "r")
    assert changes.files == {}
