"""A file checked alone gives exactly the findings a check of the whole repository gives it
(the files that define what it reads - its upstream dbt models, another file's view - are
analysed on demand), and the number of worker processes never changes the output."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from sortlint.config import DbtOptions, load_config
from sortlint.workspace.check import check
from sortlint.workspace.discovery import discover

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODELS = sorted((EXAMPLES / "dbt" / "models").rglob("*.sql"))
EXAMPLE_FILES = discover([EXAMPLES], load_config(EXAMPLES / "sortlint.yml")).files


def shown(findings) -> list[tuple]:
    return [(str(f.path), f.line, f.column, f.code, f.message) for f in findings]


@pytest.fixture(scope="module")
def whole():
    config = replace(load_config(EXAMPLES / "sortlint.yml"), dbt=DbtOptions(renderer="builtin"))
    return config, check([EXAMPLES], config, jobs=1)


def test_the_example_project_has_models_with_findings(whole):
    _, result = whole
    assert len(MODELS) >= 8
    with_findings = {f.path for f in result.findings if f.path in MODELS}
    assert len(with_findings) >= 4


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.relative_to(EXAMPLES).as_posix())
def test_one_file_checked_alone_gets_the_whole_checks_findings(whole, path: Path):
    """Every file of the example repository: dbt models, plain SQL, DAGs, DataFrame jobs."""
    config, result = whole
    alone = check([path], config, jobs=1)
    assert shown(alone.findings) == shown(f for f in result.findings if f.path == path)
    assert [str(e) for e in alone.all_errors] == [str(e) for e in result.all_errors if str(path) in str(e)]


def test_neither_the_number_of_jobs_nor_the_cache_changes_the_output(tmp_path):
    def run(*options: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "sortlint", "check", "--dbt-renderer", "builtin", *options, "."],
            cwd=EXAMPLES, capture_output=True, text=True, timeout=600,
        )
        return done.returncode, done.stdout, done.stderr

    one = run("--no-cache", "--jobs", "1")
    assert one[0] == 1 and "Found 42 findings" in one[1]
    assert run("--no-cache") == one
    assert run("--no-cache", "--jobs", "3") == one
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert run(*cache) == one  # workers filling the cache
    assert run(*cache) == one  # every record taken from it
    assert run(*cache, "--jobs", "1") == one


@pytest.mark.parametrize("reader", ["b.sql", "0_reader.sql"])  # after the view's file, and before it
def test_a_plain_sql_file_checked_alone_sees_a_view_another_file_defines(tmp_path: Path, reader: str):
    (tmp_path / "sortlint.yml").write_text("target: spark\nsources:\n  t: {columns: {a: int, b: int}}\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "views.sql").write_text("CREATE VIEW v AS\nSELECT a, b FROM t\nWHERE b = 1;\n")
    (tmp_path / reader).write_text("SELECT a, b FROM v ORDER BY b, a;\n")
    config = load_config(tmp_path / "sortlint.yml")
    expected = [(str(tmp_path / reader), 1, 29, "SL003",
                 f"sort key b is constant: WHERE t.b = 1 ({tmp_path / 'a' / 'views.sql'}:3) (code outside this statement, which may change)")]

    whole = check([tmp_path], config, jobs=1)
    alone = check([tmp_path / reader], config, jobs=1)

    assert shown(whole.findings) == expected
    assert shown(alone.findings) == expected


def test_beside_a_dbt_project_at_the_root_plain_sql_files_see_each_others_views(tmp_path: Path):
    """As in a repository without dbt_project.yml: `sql/` is no dbt folder."""
    (tmp_path / "sortlint.yml").write_text("target: spark\nsources:\n  t: {columns: {a: int, b: int}}\n")
    (tmp_path / "dbt_project.yml").write_text("name: shop\n")
    for name, text in {"models/m.sql": "select a, b from {{ source('raw', 't') }}\n",
                       "sql/a.sql": "CREATE VIEW v AS\nSELECT a, b FROM t\nWHERE b = 1;\n",
                       "sql/b.sql": "SELECT a, b FROM v ORDER BY b, a;\n"}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    config = replace(load_config(tmp_path / "sortlint.yml"), dbt=DbtOptions(renderer="builtin"))
    expected = [(str(tmp_path / "sql" / "b.sql"), 1, 29, "SL003",
                 f"sort key b is constant: WHERE t.b = 1 ({tmp_path / 'sql' / 'a.sql'}:3) (code outside this statement, which may change)")]

    assert shown(check([tmp_path], config, jobs=1).findings) == expected
    assert shown(check([tmp_path / "sql" / "b.sql"], config, jobs=1).findings) == expected


REPOSITORY = {
    "views/v.sql": "CREATE VIEW v AS\nSELECT a, b FROM t\nWHERE b = 1;\n",
    "views/w.sql": "CREATE VIEW w AS SELECT a, b FROM v WHERE a = 3;\n",  # reads another file's view
    "tables/s.sql": "CREATE TABLE s AS SELECT a, b FROM t WHERE a = 2;\n",
    "jobs/append_s.sql": "INSERT INTO s SELECT a, b FROM t WHERE a = 2;\n",  # a second writer of s
    "reports/read.sql": "SELECT a, b FROM w ORDER BY a, b;\nSELECT a, b FROM s ORDER BY a, b;\n",
}


@pytest.mark.parametrize("prefix", ["", "z_"])  # the readers' folder first in path order, and last
def test_every_plain_sql_file_checked_alone_gets_the_whole_checks_findings_whatever_the_path_order(
    tmp_path: Path, prefix: str
):
    (tmp_path / "sortlint.yml").write_text("target: spark\nsources:\n  t: {columns: {a: int, b: int}}\n")
    files = []
    for name, text in REPOSITORY.items():
        path = tmp_path / (prefix + name if name.startswith("views") else name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        files.append(path)
    config = load_config(tmp_path / "sortlint.yml")

    whole = check([tmp_path], config, jobs=1)

    # w's constants reach its reader through two files; s, written by two, is not known.
    views = tmp_path / f"{prefix}views"
    assert [(f.path.name, f.line, f.code, f.message) for f in whole.findings] == [
        ("read.sql", 1, "SL001", "ORDER BY [a ASC NULLS FIRST, b ASC NULLS FIRST] is already satisfied by its "
                                 f"input: WHERE t.b = 1 ({views / 'v.sql'}:3); WHERE v.a = 3 ({views / 'w.sql'}:1) "
                                 "(code outside this statement, which may change)"),
    ]
    for path in files:
        alone = check([path], config, jobs=1)
        assert shown(alone.findings) == shown(f for f in whole.findings if f.path == path)


ORDERS_CATALOG = """\
sources:
  sales.orders:
    columns: {order_id: bigint not null, order_date: date not null, status: string, amount: double}
    constants: {order_date: '2024-01-01'}
"""


@pytest.mark.parametrize("seed", range(12))
def test_random_repositories_give_each_file_alone_the_whole_checks_findings_whatever_the_path_order(
    tmp_path: Path, seed: int
):
    """Files of random statements that create, replace, append to and read the same few
    views and tables (one writer, several, none; read before and after their files)."""
    from random import Random

    from statement_files import random_file

    random = Random(seed)
    texts = [random_file(random, 5) for _ in range(4)]

    def repository(root: Path, names: list[str]) -> tuple[list[tuple], int]:
        """The whole check's findings, each file and each file cited by its index (each
        file checked alone asserted to get its own), and how many errors it found."""
        root.mkdir()
        (root / "sortlint.yml").write_text(ORDERS_CATALOG)
        paths = [root / name for name in names]
        for path, text in zip(paths, texts):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        config = load_config(root / "sortlint.yml")
        whole = check([root], config, jobs=1)
        for path in paths:
            alone = check([path], config, jobs=1)
            assert shown(alone.findings) == shown(f for f in whole.findings if f.path == path), path.name

        def by_index(finding) -> tuple:
            message = finding.message
            for index, path in enumerate(paths):
                message = message.replace(str(path), f"<{index}>")
            return paths.index(finding.path), finding.line, finding.column, finding.code, message.replace(str(root), "")

        return sorted(map(by_index, whole.findings)), len(whole.all_errors)

    forward = repository(tmp_path / "forward", ["a.sql", "b/c.sql", "d.sql", "e/f.sql"])
    backward = repository(tmp_path / "backward", ["z.sql", "y/x.sql", "c.sql", "b/a.sql"])
    assert forward == backward
