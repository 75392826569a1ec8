"""The fixer's analysis of a fixed file takes, from the analysis before the fix, the
statements no edit touched - moved to where they now stand - and analyses the others again:
whatever it takes, it finds exactly what analysing the fixed file afresh finds."""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest

from sortlint.config import load_config
from sortlint.diagnostics import apply_edits
from sortlint.linter import analysis
from sortlint.linter.analysis import analyse_file
from sortlint.linter.results import FileAnalysis, Kept
from sortlint.rewriters.apply import non_overlapping
from sortlint.sources.frontend import Reading
from sortlint.workspace.tables import FileTables, RepositoryTables
from statement_files import random_file

# Orders of one day, as declared.
CATALOG = """
sources:
  sales.orders:
    columns: {order_id: bigint not null, order_date: date not null, status: string, amount: double}
    constants: {order_date: '2024-01-01'}
"""


@pytest.fixture
def analysed_afresh(tmp_path: Path, monkeypatch) -> list[str]:
    """The statements analysed (not taken from the earlier analysis), by text."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    texts: list[str] = []
    analyse_unit = analysis.analyse_unit

    def recorded(unit, tables, config, keep):
        texts.append(unit.text)
        return analyse_unit(unit, tables, config, keep)

    monkeypatch.setattr(analysis, "analyse_unit", recorded)
    monkeypatch.chdir(tmp_path)
    return texts


def analysed(text: str, earlier: FileAnalysis | None = None) -> FileAnalysis:
    config = load_config(Path("sortlint.yml"))
    tables = FileTables(RepositoryTables(config))
    return analyse_file(Path("q.sql"), text, Reading(config), tables, Kept.FACTS, earlier=earlier)


def found(result: FileAnalysis) -> list[tuple]:
    return [
        (f.line, f.column, f.end_line, f.end_column, f.code, f.message,
         f.fix and [(e.line, e.column, e.end_line, e.end_column, e.start, e.end, e.content) for e in f.fix.edits])
        for f in result.findings
    ]


def facts(result: FileAnalysis) -> list[tuple]:
    return [(s.unit.start, s.unit.text, s.outputs, s.output_types, s.ungrouped) for s in result.statements]


def fixed_again(before: str, after: str, analysed_afresh: list[str]) -> tuple[FileAnalysis, list[str]]:
    """The analysis of `after` taking from that of `before`, which statements it analysed,
    and - the specification - that it is what analysing `after` afresh gives."""
    earlier = analysed(before)
    analysed_afresh.clear()
    result = analysed(after, earlier)
    again = list(analysed_afresh)
    fresh = analysed(after)
    assert found(result) == found(fresh)
    assert facts(result) == facts(fresh)
    assert result.errors == fresh.errors
    return result, again


def test_statements_on_one_line_move_along_it(analysed_afresh):
    before = (
        "SELECT order_id FROM sales.orders ORDER BY order_id, order_id; "
        "SELECT amount FROM sales.orders ORDER BY amount, amount; "
        "SELECT status FROM sales.orders ORDER BY status, status;\n"
    )
    after = before.replace("order_id, order_id", "order_id", 1)

    result, again = fixed_again(before, after, analysed_afresh)

    assert again == ["SELECT order_id FROM sales.orders ORDER BY order_id"]
    assert [(f.line, f.column, f.code, [(e.column, e.start, e.end) for e in f.fix.edits]) for f in result.findings] == [
        (1, 103, "SL003", [(101, 100, 108)]),  # was at column 113, 10 characters further
        (1, 160, "SL003", [(158, 157, 165)]),
    ]


def test_statements_whose_lines_moved_are_taken_unless_their_messages_cite_a_line(analysed_afresh):
    """Messages cite the lines of clauses (a view's WHERE), which an edit that removes a line
    before them moves: a statement whose messages cite one is analysed again; the others
    after such an edit are taken, their findings moved up a line."""
    before = (
        "SELECT order_id FROM sales.orders\nORDER BY order_id,\n  order_id;\n"
        "CREATE VIEW day AS SELECT * FROM sales.orders WHERE status = 'PAID';\n"
        "SELECT status, amount FROM day ORDER BY status, amount;\n"
        "SELECT order_date, amount FROM sales.orders ORDER BY order_date, amount;\n"
    )
    after = before.replace("ORDER BY order_id,\n  order_id", "ORDER BY order_id")

    result, again = fixed_again(before, after, analysed_afresh)

    assert again == [
        "SELECT order_id FROM sales.orders\nORDER BY order_id",
        "CREATE VIEW day AS SELECT * FROM sales.orders WHERE status = 'PAID'",  # defines: always
        "SELECT status, amount FROM day ORDER BY status, amount",  # cites the view's line 4, now 3
    ]
    assert [(f.line, f.column, f.end_line, f.end_column, f.message) for f in result.findings] == [
        (4, 41, 4, 47, "sort key status is constant: WHERE orders.status = 'PAID' (line 3)"),
        (5, 54, 5, 64, "sort key order_date is constant: declared constant order_date = '2024-01-01' "
                       "of sales.orders (sortlint.yml:3)"),
    ]


def test_a_statement_added_or_removed_leaves_the_others_taken(analysed_afresh):
    first = "SELECT amount FROM sales.orders ORDER BY amount, amount;\n"
    rest = (
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7;\n"
        "SELECT order_id, amount FROM day ORDER BY order_id, amount;\n"
        "SELECT status FROM sales.orders ORDER BY status, status;\n"
    )
    added = "SELECT order_id FROM sales.orders ORDER BY order_id, order_id;\n\n"

    result, again = fixed_again(first + rest, first + added + rest, analysed_afresh)
    assert again == [
        "SELECT order_id FROM sales.orders ORDER BY order_id, order_id",
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7",
        "SELECT order_id, amount FROM day ORDER BY order_id, amount",  # cites the view's WHERE's line
    ]
    assert [(f.line, f.code, f.message) for f in result.findings][-2:] == [
        (5, "SL003", "sort key order_id is constant: WHERE orders.order_id = 7 (line 4)"),
        (6, "SL003", "sort key status repeats an earlier key"),
    ]

    _, again = fixed_again(first + added + rest, first + rest, analysed_afresh)
    assert again == [
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7",
        "SELECT order_id, amount FROM day ORDER BY order_id, amount",
    ]


def test_the_statements_after_a_view_removed_are_analysed_again(analysed_afresh):
    view = "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7;\n"
    rest = (
        "SELECT order_id, amount FROM day ORDER BY order_id, amount;\n"
        "SELECT status FROM sales.orders ORDER BY status, status;\n"
    )

    _, again = fixed_again(view + rest, rest, analysed_afresh)

    assert again == [
        "SELECT order_id, amount FROM day ORDER BY order_id, amount",
        "SELECT status FROM sales.orders ORDER BY status, status",
    ]


def test_the_readers_of_an_edited_view_are_analysed_again(analysed_afresh):
    before = (
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7 ORDER BY amount, amount;\n"
        "SELECT order_id, amount FROM day ORDER BY order_id, amount;\n"
        "SELECT status FROM sales.orders ORDER BY status;\n"
    )
    after = before.replace("ORDER BY amount, amount", "ORDER BY amount")

    result, again = fixed_again(before, after, analysed_afresh)

    assert again == [
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7 ORDER BY amount",
        "SELECT order_id, amount FROM day ORDER BY order_id, amount",
        "SELECT status FROM sales.orders ORDER BY status",
    ]
    assert [(f.line, f.code) for f in result.findings] == [(2, "SL003")]


def test_an_unchanged_view_leaves_its_readers_to_be_taken(analysed_afresh):
    before = (
        "SELECT amount FROM sales.orders ORDER BY amount, amount;\n"
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7;\n"
        "SELECT order_id, amount FROM day ORDER BY order_id, amount;\n"
    )
    after = before.replace("ORDER BY amount, amount", "ORDER BY amount")

    result, again = fixed_again(before, after, analysed_afresh)

    assert again == [
        "SELECT amount FROM sales.orders ORDER BY amount",
        "CREATE VIEW day AS SELECT order_id, amount FROM sales.orders WHERE order_id = 7",
    ]
    assert [(f.line, f.column, f.code) for f in result.findings] == [(3, 43, "SL003")]


def test_statements_that_do_not_parse_are_taken_with_their_errors(analysed_afresh):
    before = "SELECT amount FROM sales.orders ORDER BY amount, amount;\nSELECT FROM WHERE (;\n"
    after = before.replace("ORDER BY amount, amount", "ORDER BY amount")

    result, again = fixed_again(before, after, analysed_afresh)

    assert again == ["SELECT amount FROM sales.orders ORDER BY amount"]
    assert [str(e) for e in result.errors] == ["q.sql:2: cannot parse SQL: Required keyword: 'this' missing for <class 'sqlglot.expressions.core.Paren'>"]


def test_sql_in_python_strings_is_analysed_again_whole(analysed_afresh):
    """Statements decoded from Python strings do not move with their text: none is taken."""
    before = (
        'spark.sql("SELECT amount FROM sales.orders ORDER BY amount, amount")\n'
        'spark.sql("SELECT status FROM sales.orders ORDER BY status, status")\n'
    )
    after = before.replace("ORDER BY amount, amount", "ORDER BY amount")
    config = load_config(Path("sortlint.yml"))

    def analysed_job(text: str, earlier: FileAnalysis | None = None) -> FileAnalysis:
        tables = FileTables(RepositoryTables(config))
        return analyse_file(Path("job.py"), text, Reading(config), tables, Kept.FACTS, earlier=earlier)

    earlier = analysed_job(before)
    analysed_afresh.clear()
    result = analysed_job(after, earlier)

    assert analysed_afresh == [  # the SQL in its string, then the call's DataFrame: the order they run
        "SELECT amount FROM sales.orders ORDER BY amount",
        'spark.sql("SELECT amount FROM sales.orders ORDER BY amount")',
        "SELECT status FROM sales.orders ORDER BY status, status",
        'spark.sql("SELECT status FROM sales.orders ORDER BY status, status")',
    ]
    assert found(result) == found(analysed_job(after))
    assert [(f.line, f.column, f.code) for f in result.findings] == [(2, 61, "SL003")]


def test_random_fixes_of_random_files_find_what_a_fresh_analysis_finds(analysed_afresh):
    taken = 0
    for seed in range(60):
        random = Random(seed)
        before = random_file(random, random.randint(2, 12))
        earlier = analysed(before)
        fixable = [f for f in earlier.findings if f.fix is not None and f.fix.edits and random.random() < 0.5]
        after = apply_edits(before, [e for f in non_overlapping(fixable) for e in f.fix.edits])

        analysed_afresh.clear()
        result = analysed(after, earlier)
        taken += len(result.units) - len(analysed_afresh)
        fresh = analysed(after)

        assert found(result) == found(fresh), seed
        assert facts(result) == facts(fresh), seed
        assert [str(e) for e in result.errors] == [str(e) for e in fresh.errors], seed
    assert taken > 80, taken  # the statements no edit touched were taken, not analysed again
