"""`sortlint.files`: a rename replaces regular files only."""

from __future__ import annotations

import os
import stat

import pytest

from sortlint.files import NotRegularFile, write_atomically


@pytest.mark.parametrize("kind", ["device", "pipe", "folder"])
def test_only_a_regular_file_is_replaced(tmp_path, kind):
    """Whatever reached it (a file swapped for a device after `--fix` looked at it), nothing
    else is renamed over, nor opened to look for a byte-order mark (a pipe's open waits)."""
    path = tmp_path / "q.sql"
    if kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod needs root")
    elif kind == "pipe":
        os.mkfifo(path)
    else:
        path.mkdir()
    before = os.stat(path)
    with pytest.raises(NotRegularFile) as raised:
        write_atomically(path, "SELECT 1;\n")
    assert raised.value.strerror == "not a regular file"
    after = os.stat(path)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)
    assert os.listdir(tmp_path) == ["q.sql"]
