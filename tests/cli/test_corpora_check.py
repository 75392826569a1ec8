"""Real SQL: every TPC-DS and TPC-H query (Spark's own renderings) goes through
`sortlint check` without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.config import Config
from sortlint.workspace.check import check

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"


@pytest.mark.parametrize("corpus, count", [("tpcds", 103), ("tpch", 22)])
def test_corpus_checks_without_errors(corpus, count, tmp_path):
    folder = CORPORA / corpus
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    result = check([folder], Config(root=folder), plans=True)
    assert len(result.files) == count
    assert result.all_errors == []
    assert sum(len(f.statements) for f in result.files) == count
