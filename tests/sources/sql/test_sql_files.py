"""Cutting a SQL file into statements with the dialect's tokenizer."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlglot.errors import TokenError

from sortlint.errors import UserError
from sortlint.plan.dialect import sql_dialect
from sortlint.plan.tokens import dialect_tokenizer, tokenize
from sortlint.sources.sql import files
from sortlint.sources.sql.files import split_statements

PATH = Path("models/q.sql")


def texts(raw: str) -> list[str]:
    return [unit.text for unit in split_statements(PATH, raw, "spark")]


def test_one_unit_per_statement_without_the_semicolon():
    assert texts("SELECT 1;\nSELECT 2;\n") == ["SELECT 1", "SELECT 2"]


def test_a_last_statement_needs_no_semicolon():
    assert texts("SELECT 1;\nSELECT 2\n") == ["SELECT 1", "SELECT 2"]


def test_semicolons_in_strings_comments_and_quoted_names_do_not_split():
    raw = (
        "SELECT ';' AS `a;b`, \"x;y\" FROM t -- not here; nor here\n"
        "WHERE c = 'it''s; fine' /* ; */;\n"
        "SELECT 2"
    )
    assert texts(raw) == [
        "SELECT ';' AS `a;b`, \"x;y\" FROM t -- not here; nor here\n"
        "WHERE c = 'it''s; fine'",
        "SELECT 2",
    ]


def test_empty_statements_and_comment_only_statements_are_skipped():
    raw = ";;\n-- only a comment;\n/* and ; this */;\nSELECT 1;;\n-- trailing\n"
    assert texts(raw) == ["SELECT 1"]
    assert split_statements(PATH, "-- nothing\n", "spark") == []
    assert split_statements(PATH, "", "spark") == []


def test_units_know_their_exact_place_in_the_raw_file():
    raw = "-- header\nSELECT a\n  FROM t ;  \n\n  SELECT b FROM u;"
    first, second = split_statements(PATH, raw, "spark")
    assert raw[first.start : first.start + len(first.text)] == first.text == "SELECT a\n  FROM t"
    assert first.raw is raw and first.path == PATH and first.kind == "sql"
    assert first.location(0) == (2, 1)
    assert second.text == "SELECT b FROM u"
    assert second.location(0) == (5, 3)


def test_crlf_files_keep_their_line_endings_inside_units():
    raw = "SELECT a,\r\n       b\r\nFROM t;\r\nSELECT 2;\r\n"
    first, second = split_statements(PATH, raw, "spark")
    assert first.text == "SELECT a,\r\n       b\r\nFROM t"
    assert first.location(first.text.index("b")) == (2, 8)
    assert second.location(0) == (4, 1)


@pytest.mark.parametrize(
    ("raw", "line", "near"),
    [
        ("SELECT 1;\nSELECT 'abc\nFROM t", 2, "'abc"),
        ("SELECT 1;\n\nSELECT `abc FROM t", 3, "`abc FROM t"),
        ("SELECT 1; /* done */\nSELECT 2 /* never\nclosed", 2, "/* never"),
    ],
)
def test_a_tokenizer_error_is_the_users_error_with_file_and_line(raw, line, near):
    with pytest.raises(UserError) as caught:
        split_statements(PATH, raw, "spark")
    assert caught.value.path == PATH
    assert caught.value.line == line
    assert near in caught.value.message


# A file of every kind of gap between statements: semicolons in strings, quoted names and
# comments, comments hung on a `;`, a command (whose rest the tokenizer reads as a string),
# a multi-line string, CRLF, empty statements and long VALUES and IN lists.
MIXED = "".join(
    statement + gap
    for statement, gap in zip(
        [
            "SELECT a, b FROM t ORDER BY a", "SELECT ';' AS `q;w`, \"x;y\"", "-- c ; d\nSELECT 1",
            "/* a ; b */ SELECT 2 /* c */", "SET spark.x = 1", "ADD JAR 'x;y'",
            "INSERT INTO t VALUES " + ", ".join(f"({i}, 'v')" for i in range(150)),
            "SELECT * FROM t WHERE k IN (" + ", ".join(map(str, range(130))) + ")",
            "SELECT 'multi\nline ; string'", "\r\nSELECT 3\r\n",
        ] * 7,
        ["; -- tail ; here\n", ";", ";;\n", " ;\r\n", ";/* x; */ ", "\n;\n", "; "] * 10,
    )
)


@pytest.mark.parametrize("piece", [5, 40, 333, 4000])
def test_a_big_file_split_in_pieces_gives_the_statements_of_the_whole(monkeypatch, piece):
    whole = [(unit.start, unit.text) for unit in split_statements(PATH, MIXED, "spark")]
    monkeypatch.setattr(files, "PIECE", piece)
    units = split_statements(PATH, MIXED, "spark")
    assert [(unit.start, unit.text) for unit in units] == whole
    assert len(whole) == 70 and all(unit.tokens is None for unit in units)


@pytest.mark.parametrize("piece", [5, 40, 4000])
def test_a_tokenizer_error_after_pieces_is_at_its_line(monkeypatch, piece):
    monkeypatch.setattr(files, "PIECE", piece)
    with pytest.raises(UserError) as caught:
        split_statements(PATH, MIXED + ";\nSELECT 'never closed\nFROM t", "spark")
    assert caught.value.line == MIXED.count("\n") + 2
    assert "'never closed" in caught.value.message


def test_the_reused_tokenizer_keeps_nothing_of_a_text_it_failed_on():
    """The dialect's tokenizer is made once per thread (`dialect_tokenizer`) and reused for
    every statement parsed: one that stopped halfway through a bad text reads the next text
    as a new one would. Splitting a file lets it go (it would hold the file's tokens)."""
    text = "SELECT a -- c\nFROM t WHERE b = 'x;y' ORDER BY a"
    fresh = [(t.token_type, t.text, t.start, t.end, t.line, t.col, t.comments) for t in sql_dialect("spark").tokenize(text)]
    reused = dialect_tokenizer("spark")
    with pytest.raises(TokenError):
        tokenize("SELECT 1, 'never closed\nFROM t", "spark")
    assert dialect_tokenizer("spark") is reused
    tokens = reused.tokenize(text)
    assert [(t.token_type, t.text, t.start, t.end, t.line, t.col, t.comments) for t in tokens] == fresh
    split_statements(PATH, "SELECT 1;\nSELECT 2", "spark")
    assert dialect_tokenizer("spark") is not reused
    elsewhere: list[object] = []
    thread = threading.Thread(target=lambda: elsewhere.append(dialect_tokenizer("spark")))
    thread.start()
    thread.join()
    assert elsewhere[0] is not dialect_tokenizer("spark")
