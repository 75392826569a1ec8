"""Mid-size versions of `benchmarks/big_statements.py`'s inputs give exactly the findings and
fixes they always gave: a long IN list, many statements on one line, a file of many fixes.
(The benchmark times the full sizes; these only pin the output.)"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.sources.sql import files

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "big_statements.py"


def _benchmark():
    """benchmarks/big_statements.py as a module (benchmarks/ is not a package): the shapes
    the benchmark times are the ones pinned here."""
    spec = importlib.util.spec_from_file_location("big_statements_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SHAPES = _benchmark()
ONE_LINE, FIXABLE = _SHAPES.ONE_LINE, _SHAPES.FIXABLE
FIXED = (
    "SELECT order_id, amount FROM sales.orders WHERE region = 'EU' ORDER BY order_id;\n"
    "SELECT x.order_id FROM (SELECT order_id FROM sales.orders) x "
    "JOIN sales.customers c ON x.order_id = c.id;\n"
    "SELECT customer_id, sum(amount) AS total FROM sales.orders GROUP BY customer_id;\n"
)


def findings(capsys, *args: str) -> list[dict]:
    capsys.readouterr()
    main(["check", "--output-format", "json", *args])
    return json.loads(capsys.readouterr().out)


def test_a_long_in_list(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    values = ", ".join(f"'{i:08}'" for i in range(20_000))
    Path("q.sql").write_text(f"SELECT k, v FROM sales.t WHERE k IN ({values}) ORDER BY k, v, k;\n")
    [finding] = findings(capsys, "q.sql")
    assert (finding["code"], finding["line"], finding["column"]) == ("SL003", 1, 240_053)
    assert main(["check", "--fix", "q.sql"]) == 0
    assert Path("q.sql").read_text().endswith("'00019999') ORDER BY k, v;\n")


# Each test runs once as it is and once with the file tokenized in pieces of 2,000
# characters, as a file of more than `files.PIECE` is (the full-size inputs are).
PIECES = pytest.mark.parametrize("piece", [files.PIECE, 2_000])


@PIECES
def test_many_statements_on_one_line(tmp_path, monkeypatch, capsys, piece):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files, "PIECE", piece)
    Path("q.sql").write_text(ONE_LINE * 300 + "\n")
    found = findings(capsys, "q.sql")
    assert Counter(f["code"] for f in found) == {"SL002": 300}
    assert {f["line"] for f in found} == {1}
    assert [f["column"] for f in found[:2]] == [104, 104 + len(ONE_LINE)]
    assert found[-1]["column"] == 104 + 299 * len(ONE_LINE)


@PIECES
def test_a_file_of_many_fixes(tmp_path, monkeypatch, capsys, piece):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files, "PIECE", piece)
    Path("q.sql").write_text(FIXABLE * 300)
    assert Counter(f["code"] for f in findings(capsys, "q.sql")) == {"SL002": 300, "SL003": 300}
    assert main(["check", "--fix", "q.sql"]) == 0
    assert Path("q.sql").read_text() == FIXED * 300
