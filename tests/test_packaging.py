"""The package builds as `pip install` builds it, without a deprecation warning."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_builds_without_warnings_and_declares_its_license(tmp_path):
    source = tmp_path / "source"  # a copy: the build writes build/ and *.egg-info beside it
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "sortlint", source / "sortlint", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--verbose", "--wheel-dir", str(tmp_path), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr
    assert "deprecated" not in built.stdout + built.stderr
    [wheel] = tmp_path.glob("sortlint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode().split("\n\n", 1)[0].splitlines()
    assert "License-Expression: Apache-2.0" in headers
