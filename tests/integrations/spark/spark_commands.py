"""Support for the Spark commands' tests: files written row by row (pyarrow, so each file's
stored order is exactly what the test says), a catalog, and the command line run in-process
on the test session. Imported by name (pytest puts this directory on sys.path)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from pathlib import Path


def write_files(directory: Path, files: Sequence[Sequence[dict]], names: Sequence[str] | None = None) -> list[Path]:
    """One Parquet file per list of rows, in that order, named part-00000.parquet, ...;
    small row groups, so a file is several groups that must be read in turn."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, rows in enumerate(files):
        name = names[index] if names else f"part-{index:05d}.parquet"
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist(list(rows))
        pq.write_table(table, path, row_group_size=16)
        paths.append(path)
    return paths


def write_config(directory: Path, text: str) -> Path:
    path = directory / "sortlint.yml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`sortlint ARGV` in this process (so on the test's Spark session): exit code, out, err."""
    from sortlint.cli import main

    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv: str) -> tuple[int, list]:
    code, out, err = run_cli(capsys, *argv, "--output-format", "json")
    assert not err, err
    return code, json.loads(out)


class Capture:
    """capsys for module-scoped fixtures: what `redirect_stdout` caught, read like capsys."""

    def __init__(self) -> None:
        import io

        self.out, self.err = io.StringIO(), io.StringIO()

    def readouterr(self):
        out, err = self.out.getvalue(), self.err.getvalue()
        for stream in (self.out, self.err):
            stream.seek(0)
            stream.truncate()
        return type("Captured", (), {"out": out, "err": err})
