"""Every install line of the README and the docs works from this repository as it is:
sortlint is not on PyPI and the repository has no release tags, so each line installs from
the repository itself (`git+<this repository>`), and the README's are run against a clone."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
INSTALL = re.compile(r"""pip install (?:'(sortlint[^']*)'|"(sortlint[^"]*)"|(sortlint\S*))""")


def install_specs(page: Path) -> list[str]:
    return [next(group for group in match.groups() if group) for match in INSTALL.finditer(page.read_text())]


def test_each_install_line_installs_from_this_repository():
    specs = {page.name: install_specs(page) for page in PAGES}
    assert len(specs["README.md"]) == 5
    for page, found in specs.items():
        for spec in found:
            assert re.fullmatch(r"sortlint(\[\w+\])? @ git\+<this repository>(@main)?", spec), (page, spec)


def test_no_page_pins_a_tag_the_repository_does_not_have():
    tags = subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    for page in (*PAGES, ROOT / "action.yml"):
        for pinned in re.findall(r"(?:rev: |<this repository>@)([\w<>.-]+)", page.read_text()):
            assert pinned in ("main", "<commit>", *tags), (page.name, pinned)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_readmes_install_lines_install_sortlint_from_a_clone(tmp_path):
    """Each README line, `<this repository>` replaced by a clone's URL, run by the real pip
    (without dependencies, which the test environment has: the line's own work is building
    and installing sortlint from the repository)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    version = re.search(r'__version__ = "([^"]+)"', (clone / "sortlint" / "__init__.py").read_text()).group(1)
    for number, spec in enumerate(install_specs(ROOT / "README.md")[:2]):
        target = tmp_path / f"site{number}"
        result = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
             spec.replace("<this repository>", clone.as_uri())],
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, result.stderr
        assert (target / "sortlint" / "cli.py").is_file()
        assert (target / f"sortlint-{version}.dist-info").is_dir()
