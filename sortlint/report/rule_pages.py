"""Where sortlint's documentation is published: the one place that says so. The site is
built from `docs/` (MkDocs); each rule's page from the text `sortlint rule CODE` prints.
A team may point the links at its own mirror (`docs_url:` in the configuration)."""

from __future__ import annotations

# As `[project.urls] Documentation` in pyproject.toml says (a test holds them equal).
HOME = "https://sortlint.readthedocs.io/en/latest/"


def rule_path(name: str) -> str:
    """Where a rule's page is in the site, without its suffix (e.g. "rules/unnecessary-sort")."""
    return f"rules/{name}"


def rule_url(name: str, home: str = HOME) -> str:
    """The page of the rule named `name` (e.g. "unnecessary-sort") in the site at `home`."""
    return f"{home}{rule_path(name)}/"
