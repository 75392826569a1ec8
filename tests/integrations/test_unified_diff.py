"""Reading the lines a unified diff shows of the new version, from patches git made."""

from __future__ import annotations

from git_repos import commit, new_repo, write

from sortlint.integrations.unified_diff import ShownLines, shown_lines


def test_added_lines_and_context_with_their_old_numbers(tmp_path):
    old = "".join(f"line {n}\n" for n in range(1, 13))
    new = old.replace("line 2\n", "").replace("line 6\n", "line six\nline 6b\n")
    repo = new_repo(tmp_path, {"f.sql": old})
    base = repo.head.commit.hexsha
    write(tmp_path, {"f.sql": new})
    head = commit(repo, "edit")
    patch = repo.git.diff(base, head, "--", "f.sql")
    lines = shown_lines(patch)
    assert lines.added == {5, 6}
    # line 1, then 2 deleted; 3-5 shift up one; after the edit three lines of context.
    assert lines.context == {1: 1, 2: 3, 3: 4, 4: 5, 7: 7, 8: 8, 9: 9}
    assert [n for n in range(1, 13) if lines.shows(n)] == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_the_missing_newline_marker_is_not_a_line(tmp_path):
    repo = new_repo(tmp_path, {"f.sql": "SELECT 1"})
    base = repo.head.commit.hexsha
    (tmp_path / "f.sql").write_text("SELECT 2")
    head = commit(repo, "edit")
    patch = repo.git.diff(base, head, "--", "f.sql")
    assert "\\ No newline at end of file" in patch
    assert shown_lines(patch) == ShownLines(frozenset({1}), {})


def test_separate_hunks(tmp_path):
    old = "".join(f"{n}\n" for n in range(1, 31))
    repo = new_repo(tmp_path, {"f.sql": old})
    base = repo.head.commit.hexsha
    write(tmp_path, {"f.sql": old.replace("2\n", "two\n", 1).replace("25\n", "twenty-five\n")})
    head = commit(repo, "edit")
    lines = shown_lines(repo.git.diff(base, head, "--", "f.sql"))
    assert lines.added == {2, 25}
    assert sorted(lines.context) == [1, 3, 4, 5, 22, 23, 24, 26, 27, 28]


def test_no_patch_shows_nothing():
    assert shown_lines("") == ShownLines()
    assert not shown_lines("Binary files a/x and b/x differ").shows(1)


import difflib

from hypothesis import given
from hypothesis import strategies as st

TEXTS = st.lists(st.sampled_from(["a", "b", "c", "", "SELECT 1;"]), max_size=12)


@given(TEXTS, TEXTS)
def test_added_lines_are_the_inserted_and_replaced_ones_and_context_is_unchanged_text(old, new):
    patch = "".join(difflib.unified_diff([l + "\n" for l in old], [l + "\n" for l in new], "a/f", "b/f", n=3))
    lines = shown_lines(patch)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    inserted = {
        n + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert", "replace") for n in range(j1, j2)
    }
    assert lines.added == inserted
    assert all(old[o - 1] == new[n - 1] for n, o in lines.context.items())
    assert not lines.added & set(lines.context)
