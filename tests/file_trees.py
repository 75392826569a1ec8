"""Folders of files for the tests, written from a mapping of relative paths to texts."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, files: dict[str, str]) -> Path:
    """Each file under `root` (its folders made), as given; `root` back."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
