"""`--fix` on files with several names: symbolic links, hard links, a file named twice."""

from __future__ import annotations

import os
import stat

import pytest

from sortlint.cli import main

# host's type is not known: `host = '1'` makes it no constant (a number may equal '1'), so the
# repeated key is the finding, with a safe fix.
QUERY = (
    "SELECT host FROM events WHERE host = '1' ORDER BY host, host;\n"
    "SELECT a FROM (SELECT a FROM t ORDER BY a) s JOIN u ON s.a = u.a;\n"
)
FIXED = (
    "SELECT host FROM events WHERE host = '1' ORDER BY host;\n"
    "SELECT a FROM (SELECT a FROM t) s JOIN u ON s.a = u.a;\n"
)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "f.sql").write_text(QUERY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_file_and_a_symbolic_link_to_it_are_one_file(repo, capsys):
    (repo / "link.sql").symlink_to("f.sql")
    assert main(["check", "--no-cache", "link.sql", "f.sql"]) == 1
    assert capsys.readouterr() == (
        "link.sql:1:57: SL003 [*] sort key host repeats an earlier key [query]\n"
        "link.sql:2:32: SL002 [*] ORDER BY has no effect: its rows feed a join, which does not keep the "
        "order of its inputs. Spark removes this sort itself; the clause only misleads readers [query] (no runtime effect)\n"
        "Found 2 findings in 1 file.\n",
        "",
    )
    assert main(["check", "--no-cache", "--fix", "f.sql", "link.sql"]) == 0
    assert capsys.readouterr() == ("All checks passed (1 file).\n2 fixed, 0 remaining.\n", "")
    assert (repo / "f.sql").read_text() == FIXED
    assert (repo / "link.sql").is_symlink()


def test_a_file_met_again_through_a_link_in_a_folder_is_checked_once(repo, capsys):
    (repo / "sub").mkdir()
    (repo / "sub" / "again.sql").symlink_to("../f.sql")
    assert main(["check", "--no-cache", "--fix", "."]) == 0
    assert capsys.readouterr() == ("All checks passed (1 file).\n2 fixed, 0 remaining.\n", "")


def test_hard_links_named_together_are_one_file(repo, capsys):
    os.link(repo / "f.sql", repo / "g.sql")
    assert main(["check", "--no-cache", "--fix", "g.sql", "f.sql"]) == 0
    assert capsys.readouterr() == ("All checks passed (1 file).\n2 fixed, 0 remaining.\n", "")
    assert (repo / "f.sql").read_text() == (repo / "g.sql").read_text() == FIXED


def test_a_hard_linked_file_is_fixed_in_place_and_every_link_sees_the_fix(repo, capsys):
    os.link(repo / "f.sql", repo / "g.sql")
    inode = (repo / "f.sql").stat().st_ino
    assert main(["check", "--no-cache", "--fix", "f.sql"]) == 0
    assert capsys.readouterr() == ("All checks passed (1 file).\n2 fixed, 0 remaining.\n", "")
    assert (repo / "f.sql").stat().st_ino == (repo / "g.sql").stat().st_ino == inode
    assert (repo / "g.sql").read_text() == FIXED
    assert sorted(os.listdir(repo)) == ["f.sql", "g.sql"]  # no copy left behind


def test_a_file_of_one_link_keeps_its_mode(repo, capsys):
    os.chmod(repo / "f.sql", 0o640 | stat.S_ISGID)
    assert main(["check", "--no-cache", "--fix", "f.sql"]) == 0
    assert (repo / "f.sql").read_text() == FIXED
    assert stat.S_IMODE((repo / "f.sql").stat().st_mode) == 0o640 | stat.S_ISGID
