"""The documentation site builds without a warning (`mkdocs build --strict`: a broken link or
a missing page fails), every rule link sortlint writes points at a page the built site
holds, and the README stays a short entry into it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from sortlint.linter.rules import rules
from sortlint.report.rule_pages import HOME, rule_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    built = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(built)], cwd=ROOT,
        capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    return built


def test_every_rule_link_is_a_page_of_the_built_site_with_the_rules_text(site):
    for rule in rules():
        link = rule_url(rule.name)
        assert link.startswith(HOME)
        page = site / link.removeprefix(HOME) / "index.html"
        assert page.is_file(), link
        first = " ".join(rule.summary.replace("`", "").split()[:6])
        assert first in " ".join(re.sub(r"<[^>]+>", "", page.read_text()).split()), rule.code


def test_one_documentation_address_for_the_project():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["urls"]["Documentation"] == HOME
    assert yaml.safe_load((ROOT / "mkdocs.yml").read_text().split("\nhooks:")[0])["site_url"] == HOME


def test_the_changelog_and_every_page_of_the_navigation_are_built(site):
    assert (site / "changelog" / "index.html").is_file()
    for page in ("getting-started", "catalog", "fixes", "dbt", "airflow", "pyspark", "spark-order",
                 "contracts", "ci", "editors", "how-it-works", "benchmarks", "conformance", "development"):
        assert (site / page / "index.html").is_file(), page


def test_the_readme_is_short_and_its_links_into_the_docs_resolve():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 300
    assert "make demo" in "\n".join(text.splitlines()[:80]) and "make test" in text
    for target in re.findall(r"\]\(((?:docs/)[^)#]+|CHANGELOG\.md)\)", text):
        assert (ROOT / target).is_file(), target
