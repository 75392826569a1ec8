"""Every rule's module docstring is its page (`sortlint rule CODE`), written like a ruff rule
page: its code and name, then What it does / Why it matters / Example / Fix safety, in that
order, none of them empty."""

from __future__ import annotations

import re

import pytest

from sortlint.linter.rules import CODES, rules

SECTIONS = ("## What it does", "## Why it matters", "## Example", "## Fix safety")


@pytest.mark.parametrize("rule", rules(), ids=CODES)
def test_a_rule_page_has_the_four_sections(rule):
    page = rule.doc.strip()
    assert page.splitlines()[0] == f"{rule.code} {rule.name}"
    headings = re.findall(r"^## .*$", page, flags=re.M)
    assert headings == list(SECTIONS)
    for section, body in zip(SECTIONS, re.split(r"^## .*$", page, flags=re.M)[1:]):
        assert body.strip(), f"{rule.code}: {section} is empty"


def test_the_rule_codes_are_unique_and_in_order():
    codes = [rule.code for rule in rules()]
    assert codes == sorted(set(codes))


def test_each_rule_module_is_named_after_its_code():
    """The codes are read from the module names, so that knowing them imports no rule."""
    assert CODES == tuple(rule.code for rule in rules())


def test_a_summary_is_the_whole_first_sentence_whatever_code_it_quotes():
    from sortlint.linter.rules import rule

    assert rule("SL301").summary == (
        "Reports a write into a table whose catalog entry declares an ordering - `INSERT INTO` / "
        "`INSERT OVERWRITE ... SELECT`, `CREATE TABLE ... AS SELECT` into a declared name, a dbt "
        "model declared with an ordering, `df.write...saveAsTable(name)` / `.insertInto(name)`, "
        "`df.writeTo(name)...` - when the rows it writes do not come in that order."
    )
    assert rule("SL001").summary == (
        "Reports an `ORDER BY` whose whole requirement the rows already satisfy when they reach it."
    )
