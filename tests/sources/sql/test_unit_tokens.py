"""A unit's tokens, cut from its file's, are exactly what tokenizing the unit alone gives:
type, text, line, column, offsets and comments (the parser reads them instead of the text)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from sortlint.sources.sql.files import split_statements

PATH = Path("q.sql")


def described(tokens) -> list[tuple]:
    return [(t.token_type, t.text, t.line, t.col, t.start, t.end, t.comments) for t in tokens]


def assert_tokens_as_if_alone(raw: str) -> None:
    for unit in split_statements(PATH, raw, "spark"):
        alone = sqlglot.Dialect.get_or_raise("spark").tokenize(unit.text)
        if unit.tokens is None:  # left to the parser
            continue
        assert described(unit.tokens.take()) == described(alone), unit.text
        assert unit.tokens.take() is None  # handed over once


@pytest.mark.parametrize(
    "raw",
    [
        "SELECT 1",
        "SELECT a FROM t;\nSELECT b FROM u;\n",
        "  SELECT a,\n    b FROM t ;  SELECT 2",
        "-- header\n/* block\n   comment */ SELECT a -- same line\nFROM t -- before the semicolon\n;",
        "SELECT 1; -- after the semicolon, same line\n-- own line\nSELECT 2 /* x */ ; /* y */ SELECT 3",
        "SELECT 1 -- trailing at the end of the file",
        "SELECT 1\n-- own line before the semicolon\n;\n\n;; -- empty statements\nSELECT 2",
        "SELECT x;/* a */ /* b */\n/* c */ SELECT y /* d */\n/* e */;",
        "SELECT a,\r\n       b\r\nFROM t;\r\n-- c\r\nSELECT 'multi\r\nline', `q\nid` FROM u\r\n",
        "SELECT 1;\rSELECT 2\r-- c\rFROM t",
        "SET spark.sql.shuffle.partitions = 10 -- note\n;\nSELECT 1",
        "SELECT 1;\tSELECT\t2 GROUP\nBY 1;SELECT 3",
        "'multi\nline';SELECT 1",
        "SELECT 1;\n(SELECT 2)\n  UNION ALL (SELECT 3) -- u\n",
    ],
)
def test_unit_tokens_are_those_of_the_unit_alone(raw):
    assert_tokens_as_if_alone(raw)


def test_a_first_token_spanning_lines_leaves_tokenizing_to_the_parser():
    (unit,) = split_statements(PATH, "-- c\n'a\nb'", "spark")
    assert unit.tokens is None


PIECES = st.sampled_from([
    "SELECT a FROM t", "SELECT 1", "SELECT 'x;y' AS s", "WITH c AS (SELECT 1) SELECT * FROM c",
    ";", ";", " ", "  ", "\n", "\r\n", "\t", "-- line comment\n", "/* block */", "/* multi\nline */",
    "SELECT a\nFROM t\nWHERE b = 1", "SELECT `q;n` FROM t ORDER BY 1", "SET x = 1",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=12))
def test_any_layout_of_statements_comments_and_semicolons(pieces):
    assert_tokens_as_if_alone("".join(pieces))


@pytest.mark.parametrize("running", [True, False])
def test_a_file_is_split_without_the_collector_going_over_its_tokens(running: bool):
    """A big file's tokens are none of them garbage: the cyclic collector is paused while
    they are made and cut into units (a running one goes over them once, when it resumes),
    and left running (or not) as it was."""
    collections: list[int] = []

    def counted(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    raw = "SELECT a, b FROM t WHERE c = 'x' ORDER BY a, b;\n" * 5_000  # ~100,000 tokens
    was = gc.isenabled()
    (gc.enable if running else gc.disable)()
    gc.callbacks.append(counted)
    try:
        units = split_statements(PATH, raw, "spark")
        assert gc.isenabled() is running
    finally:
        gc.callbacks.remove(counted)
        (gc.enable if was else gc.disable)()
    assert len(units) == 5_000
    assert len(collections) <= (1 if running else 0)
