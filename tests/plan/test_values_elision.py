"""A long VALUES list is tokenized without its middle rows, and a filter's long IN list
without its middle values: the tokens are exactly the full tokenization's, less those, and
the plan still knows the VALUES list's width, extent and number of rows. Everything after
it - lines, columns, findings, fixes - is where it is."""

from __future__ import annotations

from pathlib import Path

import sqlglot
from hypothesis import given
from hypothesis import strategies as st

from sortlint.cli import main
from sortlint.plan.tokens import ELIDED_AFTER_ROWS, tokenize

LITERALS = st.sampled_from([
    "1", "-2", "3.5", "1e3", "1L", "2.0BD", "'a'", "''", "'-- not a comment'", "NULL", "true",
    "DATE'2024-01-01'", "TIMESTAMP '2024-01-01 10:00:00'", "X'0f'",
])
SPACE = st.sampled_from(["", " ", "\n", "\r\n", "  \t", "\r"])


def key(token):
    return (token.token_type, token.text, token.line, token.col, token.start, token.end, tuple(token.comments))


def rows_text(rows: list[list[str]], spaces: list[str]) -> str:
    return ",".join(f"{spaces[i % len(spaces)]}({', '.join(row)})" for i, row in enumerate(rows))


@given(
    st.integers(ELIDED_AFTER_ROWS + 1, ELIDED_AFTER_ROWS + 30),
    st.lists(LITERALS, min_size=1, max_size=4),
    st.lists(SPACE, min_size=1, max_size=5),
    st.sampled_from(["", "-- head\n", "SELECT 'VALUES (1)' AS x;\n"]),
    st.sampled_from(["", "\n-- tail", " AS v ORDER BY 1;\nSELECT a FROM t ORDER BY a"]),
)
def test_the_tokens_are_the_full_tokens_less_the_middle_rows(count, row, spaces, head, tail):
    text = f"{head}INSERT INTO t VALUES{rows_text([row] * count, spaces)}{tail}"
    full = sqlglot.Dialect.get_or_raise("spark").tokenize(text)
    tokens, elided = tokenize(text, "spark")
    [rows] = elided
    assert rows.rows == count - 2
    assert [key(t) for t in tokens] == [key(t) for t in full if not rows.start <= t.start < rows.end]


def test_a_list_cut_short_by_anything_but_a_literal_is_not_elided():
    text = "VALUES " + ", ".join(["(1)"] * 50 + ["(x)"] + ["(2)"] * 50)
    assert tokenize(text, "spark")[1] == ()


def test_values_in_a_string_or_comment_are_left_alone():
    many = ", ".join(["(1)"] * (ELIDED_AFTER_ROWS + 5))
    for text in (f"SELECT 'VALUES {many}'", f"SELECT 1 -- VALUES {many}\n", f"SELECT 1 /* VALUES {many} */"):
        assert_tokenized_whole(text)


def assert_tokenized_whole(text: str) -> None:
    """Nothing of the text is left out: its tokens are sqlglot's own."""
    tokens, elided = tokenize(text, "spark")
    assert elided == ()
    assert [key(t) for t in tokens] == [key(t) for t in sqlglot.Dialect.get_or_raise("spark").tokenize(text)]


def test_the_plan_counts_every_row_and_findings_after_the_list_are_in_place(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rows = ",\n".join(f"  ({i}, 'name {i}', DATE'2024-01-01')" for i in range(5000))
    Path("q.sql").write_text(
        f"INSERT INTO t VALUES\n{rows};\n"
        "SELECT x.a FROM (SELECT a FROM t ORDER BY a) x JOIN u ON x.a = u.a;\n"
    )
    assert main(["explain", "q.sql"]) == 0
    out = capsys.readouterr().out
    assert "    Values 5000 rows (col1, col2, col3)  (line 1)\n" in out
    assert main(["check", "q.sql"]) == 1
    assert capsys.readouterr().out.splitlines()[0].startswith("q.sql:5002:34: SL002 [*] ORDER BY has no effect")
    assert main(["check", "--fix", "q.sql"]) == 0
    assert Path("q.sql").read_text().endswith(
        "  (4999, 'name 4999', DATE'2024-01-01');\nSELECT x.a FROM (SELECT a FROM t) x JOIN u ON x.a = u.a;\n"
    )


@given(
    st.integers(ELIDED_AFTER_ROWS + 1, ELIDED_AFTER_ROWS + 30),
    st.lists(LITERALS, min_size=1, max_size=4),
    st.sampled_from(["WHERE k", "WHERE a = 1 AND k NOT", "GROUP BY k HAVING k", "JOIN u ON k"]),
    st.sampled_from(["", "\n-- tail", " ORDER BY k;\nSELECT a FROM t ORDER BY a"]),
)
def test_a_filters_in_list_is_tokenized_without_its_middle_values(count, values, clause, tail):
    listed = ",\n ".join(values[i % len(values)] for i in range(count))
    text = f"SELECT k FROM t {clause} IN ({listed}){tail}"
    full = sqlglot.Dialect.get_or_raise("spark").tokenize(text)
    tokens, elided = tokenize(text, "spark")
    [values_left_out] = elided
    assert values_left_out.rows == 0
    kept = [key(t) for t in full if not values_left_out.start <= t.start < values_left_out.end]
    assert [key(t) for t in tokens] == kept
    assert [t.text for t in tokens].count(",") == text.count(",", values_left_out.end)


def test_an_in_list_outside_a_filter_is_kept_whole():
    listed = ", ".join(str(i) for i in range(ELIDED_AFTER_ROWS + 5))
    for text in (
        f"SELECT k IN ({listed}) FROM t",
        f"SELECT CASE WHEN k IN ({listed}) THEN 1 END AS f FROM t",
        f"SELECT k FROM t WHERE k IN ({listed}, k)",
        f"SELECT k FROM t WHERE k IN ({listed} + 1)",
        f"SELECT 'WHERE k IN ({listed})'",
    ):
        assert_tokenized_whole(text)


def test_a_long_in_list_changes_no_finding(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    listed = ",\n  ".join(f"'{i:08}'" for i in range(5000))
    Path("q.sql").write_text(
        f"SELECT k, v FROM t WHERE k IN ({listed}) AND v IN (1) ORDER BY v, k, k;\n"
        f"SELECT k IN ({listed}) AS f FROM t ORDER BY f, f;\n"
    )
    assert main(["check", "q.sql"]) == 1
    assert capsys.readouterr().out.splitlines()[:-1] == [
        "q.sql:5000:43: SL003 [*] sort key k repeats an earlier key [query]",
        "q.sql:10000:39: SL003 [*] sort key f repeats an earlier key [query]",
    ]
    assert main(["check", "--fix", "q.sql"]) == 0
    fixed = Path("q.sql").read_text()
    assert "'00004999') AND v IN (1) ORDER BY v, k;\n" in fixed and fixed.endswith("'00004999') AS f FROM t ORDER BY f;\n")
