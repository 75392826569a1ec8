"""Where sortlint's documentation is published: the one place that says so."""

from __future__ import annotations

HOME = "https://sortlint.dev/"
# A rule's page is its documentation (`sortlint rule SL001` prints the same text).
RULE_PAGE = HOME + "rules/{name}/"


def rule_url(name: str) -> str:
    """The page of the rule named `name` (e.g. "unnecessary-sort")."""
    return RULE_PAGE.format(name=name)
