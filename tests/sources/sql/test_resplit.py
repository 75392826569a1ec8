"""Cutting an edited file into statements from its split before (the language server's
edits): after any sequence of edits - inside strings, quoted names and comments, opening or
closing them, adding and removing semicolons - the units are exactly those of splitting the
final text from scratch, and each one's tokens (handed over, or made by the parser from its
text) are the same; a text that cannot be tokenized is the same error."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sortlint.errors import UserError
from sortlint.plan.tokens import tokenize
from sortlint.sources.sql.files import resplit_statements, split_statements
from sortlint.units import Unit


PATH = Path("q.sql")
IN_LIST = "SELECT a FROM t WHERE b IN (" + ", ".join(map(str, range(120))) + ")"
PIECES = [
    "SELECT a FROM t", "SELECT 1", "SELECT 'x;y' AS s", "WITH c AS (SELECT 1) SELECT * FROM c",
    ";", ";", " ", "\n", "\r\n", "-- line comment\n", "/* block */", "/* multi\nline */",
    "SELECT a\nFROM t\nWHERE b = 1", "SELECT `q;n` FROM t ORDER BY 1", "SET x = 1", IN_LIST,
]
# What an edit types: pieces of statements, and what opens or closes a string, a quoted
# name or a comment.
TYPED = PIECES + ["'", "`", '"', "--", "/*", "*/", "x", "; ", "\n", "'a;b'", "1"]


def split(raw: str):
    """The units of `raw` from scratch, or the error."""
    try:
        return split_statements(PATH, raw, "spark")
    except UserError as error:
        return error


def resplit(raw: str, before):
    try:
        return resplit_statements(PATH, raw, "spark", before)
    except UserError as error:
        return error


def parsed_tokens(unit) -> tuple[list, tuple]:
    """What the parser reads of the unit: its tokens handed over, else its text's, and the
    middle of the long lists they leave out."""
    tokens = unit.tokens.take() if unit.tokens is not None else None
    elided = unit.tokens.elided if unit.tokens is not None else ()
    if tokens is None:
        tokens, elided = tokenize(unit.text, "spark")
    return tokens, elided


def described(tokens, leaving_out) -> list[tuple]:
    """Type, text, line, column, offsets and comments of each token outside the stretches
    `leaving_out`."""
    return [(t.token_type, t.text, t.line, t.col, t.start, t.end, t.comments) for t in tokens
            if not any(e.start <= t.start < e.end for e in leaving_out)]


def assert_same(found, expected) -> None:
    if isinstance(expected, UserError):
        assert isinstance(found, UserError)
        assert (found.message, found.line) == (expected.message, expected.line)
        return
    assert not isinstance(found, UserError), found
    assert [(u.start, u.text, u.raw) for u in found] == [(u.start, u.text, u.raw) for u in expected]
    for mine, theirs in zip(found, expected):
        (tokens, elided), (their_tokens, their_elided) = parsed_tokens(mine), parsed_tokens(theirs)
        # Whether a long IN list is left out may differ: tokenizing a whole file keeps every
        # list whole when one `IN (` of it is in a string or a comment
        # (`sortlint.plan.tokens.tokenize`), a stretch of it only when that one is in it.
        # Either way the plan is the same (it reads no value of such a list).
        assert all(e.rows == 0 for e in elided + their_elided) or elided == their_elided
        # And the tokens are those of the split from scratch - or, where those are not what
        # the statement alone gives (a keyword last in a statement is read with the next
        # statement's first tokens: `sortlint.plan.dialect.names_for_keywords`), those.
        alone, alone_elided = tokenize(mine.text, "spark")
        both = elided + their_elided + alone_elided
        assert described(tokens, both) in (described(their_tokens, both), described(alone, both)), mine.text


def edited_step_by_step(raw: str, edits) -> None:
    """Apply `edits` ((where, how many characters removed, text typed), `where` a fraction
    of the text), each resplit from the units the step before gave, as the server does."""
    before = split(raw)
    for where, removed, typed in edits:
        at = int(where * len(raw))
        raw = raw[:at] + typed + raw[at + removed :]
        found = resplit(raw, [] if isinstance(before, UserError) else before)
        assert_same(found, split(raw))
        before = found  # its tokens taken: a resplit reads only its units' places and texts


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=14),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), st.sampled_from(TYPED)), min_size=1, max_size=6),
)
def test_any_edits_give_the_split_from_scratch(pieces, edits):
    edited_step_by_step("".join(pieces), edits)


@pytest.mark.parametrize("seed", range(20))
def test_seeded_edits_of_a_longer_file(seed):
    chosen = random.Random(seed)
    raw = "".join(chosen.choice(PIECES) + chosen.choice([";\n", ";", " ; -- c\n", "\n;\n"]) for _ in range(60))
    edits = [(chosen.random(), chosen.randrange(0, 20), chosen.choice(TYPED)) for _ in range(15)]
    edited_step_by_step(raw, edits)


@pytest.mark.parametrize(
    ("raw", "edited"),
    [
        # A quote typed opens a string that swallows the rest; closing it ends it again.
        ("SELECT 1;\nSELECT 2;\nSELECT 3;\n", "SELECT 1;\nSELECT '2;\nSELECT 3;\n"),
        ("SELECT 1;\nSELECT '2;\nSELECT 3';\nSELECT 4;", "SELECT 1;\nSELECT '2';\nSELECT 3';\nSELECT 4;"),
        # A comment opened, a semicolon removed, one added inside a string.
        ("SELECT 1;\nSELECT 2;\nSELECT 3;", "SELECT 1;\n/*SELECT 2;\nSELECT 3;"),
        ("SELECT 1;\nSELECT 2;\nSELECT 3;", "SELECT 1;\nSELECT 2\nSELECT 3;"),
        ("SELECT 'a';\nSELECT 2;", "SELECT 'a;';\nSELECT 2;"),
        # An edit in the comment after a `;`, on its line (the comment the `;` holds).
        ("SELECT 1; -- one\nSELECT 2; -- two\nSELECT 3;", "SELECT 1; -- one\nSELECT 2; -- two;\nSELECT 3;"),
        # Everything removed, and typed again.
        ("SELECT 1;\nSELECT 2;", ""),
        ("", "SELECT 1;\nSELECT 2;"),
    ],
)
def test_edits_that_move_statement_boundaries(raw, edited):
    assert_same(resplit(edited, split(raw)), split(edited))


def test_a_one_line_edit_tokenizes_only_the_statement_it_touched():
    raw = "".join(f"SELECT a, b FROM t{i} WHERE c = 'x;y' ORDER BY a, b; -- {i}\n" for i in range(5_000))
    edited = raw.replace("FROM t2500 ", "FROM t2500x ")
    units = resplit_statements(PATH, edited, "spark", split_statements(PATH, raw, "spark"))
    assert [i for i, unit in enumerate(units) if unit.tokens is not None] == [2500]
    assert units[2500].text == "SELECT a, b FROM t2500x WHERE c = 'x;y' ORDER BY a, b"
    assert units[2501].start == raw.index("SELECT a, b FROM t2501 ") + 1
    assert_same(units, split_statements(PATH, edited, "spark"))


def test_units_not_cut_from_a_plain_sql_file_are_split_from_scratch():
    raw = "SELECT 1;\nSELECT 2;"
    before = [Unit(path=unit.path, text=unit.text, start=unit.start, raw=unit.raw, kind="dbt_model")
              for unit in split_statements(PATH, raw, "spark")]
    edited = "SELECT 1;\nSELECT 3;"
    units = resplit_statements(PATH, edited, "spark", before)
    assert all(unit.tokens is not None for unit in units)
    assert_same(units, split_statements(PATH, edited, "spark"))
