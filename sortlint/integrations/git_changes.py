"""Which lines a change touched: the files changed between a revision and the working tree.

`changes_since(rev, start)` compares the working tree with the merge base of `rev` and HEAD,
as `git diff REV...HEAD` does for commits (so commits made on `rev`'s branch since the
change branched off are not the change's), plus what is not committed yet: staged and
unstaged edits, and files git does not track yet (a new file is a change before it is
added). A renamed file is known by its new path.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sortlint.errors import UserError
from sortlint.integrations.unified_diff import ShownLines, shown_lines

# Unchanged lines shown around each change, as GitHub and GitLab show them.
CONTEXT_LINES = 3


@dataclass(frozen=True)
class FileChange:
    path: str  # the new path, relative to the work tree's root, with `/`
    old_path: str | None  # None for a new file
    lines: ShownLines


@dataclass(frozen=True)
class Changes:
    root: Path  # the work tree's root, resolved
    target: str  # the commit id of the revision compared with
    base: str  # the merge base's commit id
    head: str  # HEAD's commit id
    files: dict[str, FileChange]  # by new path
    uncommitted: frozenset[str]  # paths whose work-tree text is not HEAD's

    def of(self, path: Path) -> FileChange | None:
        """The change to a file named as the check names it (relative to the current
        directory, or absolute); None for a file the change did not touch."""
        relative = self.relative(path)
        return self.files.get(relative) if relative is not None else None

    def relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def added(self, path: Path) -> frozenset[int]:
        change = self.of(path)
        return change.lines.added if change is not None else frozenset()


def changes_since(rev: str, start: Path) -> Changes:
    """The changes in the git work tree holding `start` since the merge base of `rev` and
    HEAD. Not a work tree, an unknown `rev` or one without a common history with HEAD (a
    shallow clone): a `UserError` that says what to do."""
    import git  # GitPython: loaded only when a check asks for changed lines

    try:
        repo = git.Repo(start, search_parent_directories=True)
    except git.NoSuchPathError:
        raise UserError("no such file or directory", start) from None
    except git.InvalidGitRepositoryError:
        raise UserError("not inside a git repository (--diff-base compares git revisions)", start) from None
    try:
        with repo:
            return _changes(repo, rev)
    except git.GitCommandError as error:
        detail = (error.stderr or "").strip().splitlines()
        reason = detail[-1].removeprefix("stderr: ").strip(" '") if detail else str(error.status)
        raise UserError(f"git failed: {reason}", repo.working_tree_dir) from None


def _changes(repo, rev: str) -> Changes:
    import git

    if repo.bare or repo.working_tree_dir is None:
        raise UserError("a bare repository has no work tree to check", repo.git_dir)
    shallow = _is_shallow(repo)
    try:
        target = repo.commit(rev)
    except (git.BadName, git.BadObject, ValueError):
        hint = (
            ": this is a shallow clone, fetch the revision (e.g. `git fetch --unshallow`, or "
            "`fetch-depth: 0` for actions/checkout)" if shallow else ""
        )
        raise UserError(f"unknown revision {rev!r}{hint}", repo.working_tree_dir) from None
    try:
        head = repo.head.commit
    except ValueError:
        raise UserError("HEAD has no commit yet", repo.working_tree_dir) from None
    bases = repo.merge_base(target, head)
    if not bases:
        hint = (
            ": this is a shallow clone, fetch more history (e.g. `git fetch --unshallow`, or "
            "`fetch-depth: 0` for actions/checkout)" if shallow else ""
        )
        raise UserError(f"{rev!r} and HEAD have no common ancestor{hint}", repo.working_tree_dir)
    base = bases[0]
    root = Path(repo.working_tree_dir).resolve()
    files = {change.path: change for change in _diffed(base, root)}
    untracked = repo.untracked_files
    for path in untracked:
        files[path] = FileChange(path, None, _all_lines(root / path))
    edited = {diff.b_path or diff.a_path for diff in head.diff(None)}
    return Changes(root, target.hexsha, base.hexsha, head.hexsha, files, frozenset(edited | set(untracked)))


def _is_shallow(repo) -> bool:
    return Path(repo.git_dir, "shallow").exists() or Path(repo.common_dir, "shallow").exists()


def _diffed(base, root: Path) -> Iterator[FileChange]:
    for diff in base.diff(None, create_patch=True, unified=CONTEXT_LINES):
        if diff.deleted_file or diff.b_path is None:
            continue
        patch = diff.diff.decode("utf-8", "replace") if isinstance(diff.diff, bytes) else diff.diff
        old_path = None if diff.new_file else diff.a_path
        yield FileChange(diff.b_path, old_path, shown_lines(patch))


def _all_lines(path: Path) -> ShownLines:
    try:
        count = len(path.read_bytes().splitlines())
    except OSError:
        count = 0
    return ShownLines(frozenset(range(1, count + 1)))
