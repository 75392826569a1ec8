"""Checking with worker processes finds exactly what a sequential check finds: files that
depend on views created by files before them are analysed again in order, errors come back
from the workers, and a worker that dies leaves its files to the parent."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import textwrap
import threading
from pathlib import Path
from random import Random

import pytest

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.linter import analysis
from sortlint.linter.results import Kept
from sortlint.plan.nodes import Span
from sortlint.workspace import workers
from sortlint.workspace.check import Workspace, check
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import build
from sortlint.sources.sql.files import sql_units
from sortlint.workspace.records import Definition, FileRecord, answer
from sortlint.workspace.tables import FileTables, RepositoryTables
from sortlint.workspace.workers import balanced_shares
from statement_files import random_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# One day's orders, as declared: views carry the constants to their readers.
CATALOG = """
target: datafusion
sources:
  sales.orders:
    columns:
      order_id: bigint not null
      order_date: date not null
      created_at: timestamp not null
      status: string
      amount: double
    constants: {order_date: '2024-01-01', created_at: '2024-01-01 00:00:00'}
"""

SORTED_SCAN = "SELECT order_date, created_at, amount FROM sales.orders ORDER BY order_date, created_at;\n"
VIEW_READ = "SELECT order_date, created_at FROM paid_orders ORDER BY order_date, created_at;\n"

FILES = {
    # Before the view's file in path order: the view's file is analysed first, on demand.
    "a_early_read.sql": VIEW_READ,
    "b_create_view.sql": """
        CREATE OR REPLACE TEMP VIEW paid_orders AS
        SELECT order_date, created_at, amount FROM sales.orders WHERE status = 'PAID';
        """,
    "c_scan.sql": SORTED_SCAN,
    "d_broken.sql": "SELECT order_date FROM sales.orders ORDER BY (order_date;\n",
    "e_scan.sql": "-- a comment first\n" + SORTED_SCAN,
    "f_reads_view.sql": VIEW_READ,
    "g_scan.sql": SORTED_SCAN,
    "h_unsorted.sql": "SELECT order_id FROM sales.orders ORDER BY order_id;\n",
    "i_scan.sql": SORTED_SCAN,
    "j_reads_view.sql": "-- reads the view\n-- created above\n" + VIEW_READ,
    "k_scan.sql": SORTED_SCAN,
    "l_scan.sql": SORTED_SCAN,
}

EXPECTED = [
    ("a_early_read.sql", "SL001", 1),
    ("c_scan.sql", "SL001", 1),
    ("e_scan.sql", "SL001", 2),
    ("f_reads_view.sql", "SL001", 1),
    ("g_scan.sql", "SL001", 1),
    ("i_scan.sql", "SL001", 1),
    ("j_reads_view.sql", "SL001", 3),
    ("k_scan.sql", "SL001", 1),
    ("l_scan.sql", "SL001", 1),
]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    for name, text in FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    (tmp_path / "m_latin1.sql").write_bytes("SELECT 'café' AS x;\n".encode("latin-1"))
    return tmp_path


def run(root: Path, jobs: int):
    result = check([root], load_config(root / "sortlint.yml"), jobs=jobs)
    findings = [(f.path.name, f.code, f.line, f.message) for f in result.findings]
    errors = [str(e).replace(str(root) + os.sep, "") for e in result.all_errors]
    return result, findings, errors


@pytest.fixture
def analysed_here(monkeypatch) -> list[str]:
    """The files this process analysed itself (not taken from a worker's record), by name."""
    names: list[str] = []
    analyse = Workspace.analyse

    def recorded(workspace, path, raw):
        names.append(path.name)
        return analyse(workspace, path, raw)

    monkeypatch.setattr(Workspace, "analyse", recorded)
    return names


@pytest.mark.parametrize("jobs", [2, 3])
def test_workers_find_what_a_sequential_check_finds(repository: Path, jobs: int, analysed_here):
    _, sequential, sequential_errors = run(repository, jobs=1)
    analysed_here.clear()
    result, parallel, errors = run(repository, jobs=jobs)

    assert [(name, code, line) for name, code, line, _ in parallel] == EXPECTED
    assert parallel == sequential
    assert errors == sequential_errors
    assert [e.split(":")[0] for e in errors] == ["m_latin1.sql", "d_broken.sql"]
    # A worker analyses the view's file on demand, as the parent does: what the workers
    # analysed (the view's readers too) holds, and is taken; nothing is analysed twice.
    assert len(analysed_here) == len(set(analysed_here)) < len(FILES)


def test_a_worker_that_dies_leaves_its_files_to_the_parent(repository: Path, monkeypatch, analysed_here):
    parent = os.getpid()
    analyse = workers._analyse_share

    def dies_in_a_worker(share, start):
        if os.getpid() != parent:
            raise RuntimeError("worker killed")
        return analyse(share, start)

    monkeypatch.setattr(workers, "_analyse_share", dies_in_a_worker)
    _, sequential, sequential_errors = run(repository, jobs=1)
    analysed_here.clear()
    result, parallel, errors = run(repository, jobs=2)

    assert parallel == sequential
    assert errors == sequential_errors
    assert set(analysed_here) == set(FILES)  # m_latin1.sql cannot be read


def test_few_files_are_checked_by_the_parent_alone(repository: Path):
    few = [repository / "c_scan.sql", repository / "f_reads_view.sql"]
    result = check(few, load_config(repository / "sortlint.yml"), jobs=4, plans=True)
    assert [len(f.statements) for f in result.files] == [1, 1]


def test_a_record_made_ahead_holds_only_while_the_tables_it_read_are_answered_the_same():
    config = load_config(None)
    empty = RepositoryTables(config)
    reader = FileRecord(analysis=None, reads=(("paid_orders", answer(empty, "paid_orders")),))
    assert reader.holds(empty)

    with_view = RepositoryTables(config)
    statement = build(sql_units(Path("v.sql"), "CREATE VIEW paid_orders AS SELECT 1 AS a", Reading(config))[0],
                      with_view, config)
    Definition.of(statement).register(with_view.created)
    assert not reader.holds(with_view)


def test_shares_balance_bytes(tmp_path: Path):
    sizes = {"a.sql": 900, "b.sql": 500, "c.sql": 400, "d.sql": 300, "e.sql": 100}
    for name, size in sizes.items():
        (tmp_path / name).write_text("x" * size)
    shares = balanced_shares(sorted(tmp_path.iterdir()), 2)
    assert [[p.name for p in share] for share in shares] == [["a.sql", "d.sql"], ["b.sql", "c.sql", "e.sql"]]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_workers_started_either_way_find_what_a_sequential_check_finds(start_method: str, analysed_here):
    """A spawned worker starts from nothing: it rebuilds the catalog and the dbt models from
    the configuration and the file list it is sent (the example repository has all four kinds
    of source, dbt models reading each other among them)."""
    config = load_config(EXAMPLES / "sortlint.yml")
    sequential = check([EXAMPLES], config, jobs=1)
    analysed_here.clear()
    parallel = check([EXAMPLES], config, jobs=3, start_method=start_method)

    assert [(f.path, f.line, f.code, f.message) for f in parallel.findings] == [
        (f.path, f.line, f.code, f.message) for f in sequential.findings
    ]
    assert [str(e) for e in parallel.all_errors] == [str(e) for e in sequential.all_errors]
    made_ahead = {file.path.name for file in parallel.files} - set(analysed_here)
    assert len(made_ahead) > 3  # the workers' analyses were kept


def test_the_platform_decides_how_workers_start(monkeypatch):
    monkeypatch.setattr(workers.sys, "platform", "linux")
    assert workers.default_start_method() == "fork"
    monkeypatch.setattr(workers.sys, "platform", "darwin")
    assert workers.default_start_method() == "spawn"


# One file of many statements, checked alone: runs of its statements go to workers.
STATEMENTS = [
    SORTED_SCAN,  # SL001
    VIEW_READ,  # before the view exists: nothing to say
    "SELECT order_id FROM sales.orders ORDER BY order_id;\n",
    "SELECT order_date FROM sales.orders ORDER BY (order_date;\n",  # does not parse
    "CREATE OR REPLACE TEMP VIEW paid_orders AS\n"
    "SELECT order_date, created_at, amount FROM sales.orders WHERE status = 'PAID';\n",
    VIEW_READ,  # SL001, through the view
    SORTED_SCAN.replace(";", "; -- noqa: SL001"),
    "CREATE TABLE daily AS SELECT order_date, order_id, amount FROM sales.orders;\n",
    "SELECT order_date, amount FROM daily ORDER BY order_date, amount;\n",  # SL003, the table's constant
    SORTED_SCAN,  # SL001
    VIEW_READ,  # SL001, through the view
    "SELECT order_id FROM sales.orders ORDER BY order_id;\n",
]


@pytest.fixture
def one_big_file(tmp_path: Path, monkeypatch) -> Path:
    """The file, with a worker for every 3 statements (a real file needs 500)."""
    monkeypatch.setattr(workers, "STATEMENTS_PER_WORKER", 3)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "big.sql").write_text("".join(STATEMENTS))
    return tmp_path / "big.sql"


@pytest.fixture
def statements_analysed_here(monkeypatch) -> list[int]:
    """The lines of the statements this process analysed itself (not a worker)."""
    lines: list[int] = []
    parent, analyse_unit = os.getpid(), analysis.analyse_unit

    def recorded(unit, tables, config, keep):
        if os.getpid() == parent:
            lines.append(unit.location(0)[0])
        return analyse_unit(unit, tables, config, keep)

    monkeypatch.setattr(analysis, "analyse_unit", recorded)
    return lines


def check_file(path: Path, jobs: int):
    result = check([path], load_config(path.parent / "sortlint.yml"), jobs=jobs)
    return [(f.line, f.code, f.message) for f in result.findings], [str(e) for e in result.all_errors]


@pytest.mark.parametrize("jobs", [2, 3])
def test_workers_analyse_runs_of_a_big_files_statements_as_a_sequential_check_would(
    one_big_file: Path, jobs: int, statements_analysed_here
):
    sequential, sequential_errors = check_file(one_big_file, jobs=1)
    assert statements_analysed_here == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13]
    statements_analysed_here.clear()

    parallel, errors = check_file(one_big_file, jobs=jobs)

    assert [(line, code) for line, code, _ in parallel] == [(1, "SL001"), (7, "SL001"), (10, "SL003"), (11, "SL001"), (12, "SL001")]
    assert parallel == sequential
    assert errors == sequential_errors == [f"{one_big_file}:4: cannot parse SQL: Expecting )"]
    # What creates a view or a table, and what reads them after, is analysed here, in
    # order; the workers' other statements are taken from them.
    assert {5, 7, 9, 10, 12} <= set(statements_analysed_here)
    assert {11, 13}.isdisjoint(statements_analysed_here)


def test_a_worker_that_dies_leaves_its_statements_to_the_parent(one_big_file: Path, monkeypatch, statements_analysed_here):
    parent, analyse_units = os.getpid(), analysis._analyse_units

    def dies_in_a_worker(*args):
        if os.getpid() != parent:
            raise RuntimeError("worker killed")
        return analyse_units(*args)

    monkeypatch.setattr(analysis, "_analyse_units", dies_in_a_worker)
    sequential = check_file(one_big_file, jobs=1)
    statements_analysed_here.clear()
    assert check_file(one_big_file, jobs=3) == sequential
    assert statements_analysed_here == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13]


def test_a_big_file_is_fixed_the_same_with_workers(one_big_file: Path, capsys, statements_analysed_here):
    parsed = [statement for statement in STATEMENTS if "(order_date;" not in statement]  # a file that does not parse is not fixed
    one_big_file.write_text("".join(parsed).replace("ORDER BY order_id;", "ORDER BY order_id, order_id;"))
    copy = one_big_file.with_name("copy.sql")
    copy.write_text(one_big_file.read_text())

    assert main(["check", "--fix", "--jobs", "1", str(copy)]) == 1
    sequential = capsys.readouterr().out.replace("copy.sql", "big.sql")
    analysed_in_sequence = len(statements_analysed_here)
    statements_analysed_here.clear()
    assert main(["check", "--fix", "--jobs", "3", str(one_big_file)]) == 1

    assert capsys.readouterr().out == sequential
    assert len(statements_analysed_here) < analysed_in_sequence  # the fixed text's too
    assert sequential.endswith("Found 1 finding in 1 file.\n6 fixed, 1 remaining.\n")
    assert one_big_file.read_text() == copy.read_text()
    assert one_big_file.read_text().count("ORDER BY order_id;") == 2


def test_runs_of_statements_balance_their_text():
    assert workers.contiguous_shares([5, 1, 1, 1, 1, 1], 2) == [(0, 1), (1, 6)]
    assert workers.contiguous_shares([1] * 7, 3) == [(0, 3), (3, 5), (5, 7)]
    assert workers.contiguous_shares([1, 1], 1) == [(0, 2)]
    assert workers.contiguous_shares([1, 1], 0) == [(0, 2)]


def test_a_statement_sent_from_a_worker_carries_its_facts_and_not_its_file(tmp_path: Path):
    """What a worker sends of each statement it analysed ahead for the fixer: its findings,
    outputs and types - not its unit, whose file text the receiver holds already (sent along
    once, it was a third of what the workers sent, and a copy of the file to read back)."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    config = load_config(tmp_path / "sortlint.yml")
    raw = "SELECT order_id, status FROM sales.orders ORDER BY order_id, order_id;\n" * 500
    units = sql_units(tmp_path / "q.sql", raw, Reading(config))
    tables = FileTables(RepositoryTables(config))

    sent = analysis._analyse_units(units, tables, config, Kept.FACTS, frozenset(), 10, 12)

    assert [done.statement.outputs for done in sent] == [("order_id", "status")] * 2
    assert [done.statement.output_types for done in sent] == [("bigint", "string")] * 2
    assert [(f.line, f.code) for done in sent for f in done.findings] == [(11, "SL003"), (12, "SL003")]
    assert [done.statement.root.span for done in sent] == [Span(42, 69)] * 2  # the ORDER BY: the root
    assert all(done.statement.root.span.unit is None for done in sent)
    assert len(pickle.dumps(sent)) < len(raw) / 10


def test_a_forked_worker_leaves_what_it_inherited_out_of_its_collectors_reach():
    """A worker's full collections would go over the whole heap it was forked with (a big
    file's tokens, the fixer's analyses), copying it page by page as they mark it: what the
    parent held when it forked is frozen, in the parent and so in the worker."""
    inherited = [object()]  # a container: the cyclic collector tracks it
    assert any(o is inherited for o in gc.get_objects())
    context = multiprocessing.get_context("fork")
    process, receive = workers._started(context, lambda: any(o is inherited for o in gc.get_objects()))
    assert workers._collect(process, receive, None) is False
    assert not any(o is inherited for o in gc.get_objects())


def test_random_files_are_analysed_by_workers_as_in_sequence(tmp_path: Path, monkeypatch, statements_analysed_here):
    monkeypatch.setattr(workers, "STATEMENTS_PER_WORKER", 2)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    path = tmp_path / "q.sql"
    taken = 0
    for seed in range(20):
        path.write_text(random_file(Random(seed), 12))
        sequential = check_file(path, jobs=1)
        statements_analysed_here.clear()
        assert check_file(path, jobs=3) == sequential, seed
        taken += 12 - len(statements_analysed_here)
    assert taken > 40, taken  # most statements were taken from the workers


def test_a_ctrl_c_that_lands_while_a_worker_is_forked_reaches_the_check():
    """A SIGINT that arrives while Python runs its at-fork hooks is printed and dropped there
    ("Exception ignored in"), and the check went on to the end (exit 1, not 130): a race a
    loaded machine lost about once in twenty. A worker is started with signals held, so the
    interruption lands just after. The signal is sent to this thread: sent to the process, it
    may go to another thread of the test process (Spark's, from earlier tests), whose handler
    runs whenever that thread is next scheduled - on a loaded machine, after the check."""
    armed: list[bool] = []
    main = threading.main_thread().ident
    os.register_at_fork(after_in_parent=lambda: armed and signal.pthread_kill(main, signal.SIGINT))
    armed.append(True)
    try:
        with pytest.raises(KeyboardInterrupt):
            workers._started(multiprocessing.get_context("fork"), int)
    finally:
        armed.clear()
        for worker in multiprocessing.active_children():
            worker.join()
