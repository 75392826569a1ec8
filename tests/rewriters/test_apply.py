"""The proof `--fix` runs before it writes (sortlint/rewriters/apply.py): the fixed text must
parse, keep every output column's name and - where the analysis knows it - its type, read no
column a grouped SELECT does not group by, and no longer have the fixed findings. A finding
that appears because of a fix is fixed in the next round, not a reason to drop the fix."""

from __future__ import annotations

from pathlib import Path

from catalogs import FIX_SHAPES_CATALOG
from sortlint.cli import main
from sortlint.rewriters.apply import proof_failure, signatures


def test_an_output_that_changes_type_fails_the_proof(analysed):
    before = analysed("SELECT day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY day, code")
    after = analysed("SELECT '2024-01-02' AS day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY code")
    assert proof_failure(before, after, [], []) == (
        "statement 1's output column day would change type from date to string"
    )


def test_an_output_whose_type_is_no_longer_known_fails_the_proof(analysed):
    before = analysed("SELECT qty, code, count(*) AS n FROM orders GROUP BY qty, code")
    after = analysed("SELECT some_udf(qty) AS qty, code, count(*) AS n FROM orders GROUP BY code")
    assert proof_failure(before, after, [], []) == (
        "statement 1's output column qty would change type from bigint to unknown"
    )


def test_a_column_read_without_grouping_by_it_fails_the_proof(analysed):
    join = "FROM orders o JOIN orders p ON o.code = p.code"
    before = analysed(f"SELECT o.code, p.code AS code2, count(*) AS n {join} GROUP BY o.code, p.code ORDER BY p.code")
    after = analysed(f"SELECT o.code, o.code AS code2, count(*) AS n {join} GROUP BY o.code ORDER BY p.code")
    assert proof_failure(before, after, [], []) == "statement 1 would read p.code (ORDER BY) without grouping by it"


def test_the_same_output_types_pass_the_proof(analysed):
    before = analysed("SELECT day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY day, code")
    after = analysed(
        "SELECT DATE '2024-01-02' AS day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY code"
    )
    assert proof_failure(before, after, [], []) is None


def test_a_finding_a_fix_makes_appear_is_fixed_in_the_next_round(tmp_path: Path, capsys):
    # Dropping the constant PARTITION BY level leaves a window over all rows sorted by time,
    # which makes the final ORDER BY time unnecessary: a new SL001, fixed in turn.
    (tmp_path / "sortlint.yml").write_text(FIX_SHAPES_CATALOG)
    path = tmp_path / "q.sql"
    path.write_text(
        "SELECT host, rank() OVER (PARTITION BY level ORDER BY time) AS r FROM events WHERE level = 'x' ORDER BY time\n"
    )
    assert main(["check", "--fix", str(path)]) == 0
    assert path.read_text() == "SELECT host, rank() OVER (ORDER BY time) AS r FROM events WHERE level = 'x'\n"
    assert "fix dropped" not in capsys.readouterr().out


def test_a_finding_belongs_to_its_own_statement_on_a_line_of_many(analysed):
    """What proves a fix counts findings per statement: on a line of several statements,
    each finding is its own statement's, not the line's last one's."""
    result = analysed("SELECT code FROM orders ORDER BY code, code; SELECT qty FROM orders ORDER BY qty, qty;")
    assert [(f.line, f.code) for f in result.findings] == [(1, "SL003"), (1, "SL003")]
    assert signatures(result, result.findings) == [(0, "SL003"), (1, "SL003")]
