"""Findings with no runtime effect on Spark in the text report: the concise line says so,
and a pattern of them that repeats across files is counted in one line under the summary. A
fix that keeps the plan but sorts by fewer keys saves work (`Effect.lightens`): not counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from sortlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
CATALOG = "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null}\n"
DROPPED = "SELECT host, count(*) AS n FROM (SELECT host, time FROM events ORDER BY time) e GROUP BY host;\n"
CONSTANT = "SELECT host, time FROM events WHERE host = 'a' ORDER BY host, time;\n"
SAVES = "SELECT host FROM events WHERE host = 'a' ORDER BY host;\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A pattern with no runtime effect in 5 files; one of a sort by fewer keys, 5 times in 4
    files; a finding that saves an exchange and a sort."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    for i in range(1, 6):
        (tmp_path / f"r{i}.sql").write_text(DROPPED)
    for i in range(1, 5):
        (tmp_path / f"c{i}.sql").write_text(CONSTANT * (2 if i == 1 else 1))
    (tmp_path / "s.sql").write_text(SAVES)
    return tmp_path


def constant(name: str, line: int) -> str:
    return f"{name}:{line}:57: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line {line}) [query]"


def dropped(name: str) -> str:
    return (f"{name}:1:64: SL002 [*] ORDER BY has no effect: its rows feed an aggregate whose functions do not "
            "depend on row order. Spark removes this sort itself; the clause only misleads readers [query] "
            "(no runtime effect)")


SAVING = ("s.sql:1:42: SL001 [*] ORDER BY [host ASC NULLS FIRST] is already satisfied by its input: "
          "WHERE events.host = 'a' (line 1) [query]")
GROUPED = ("5 findings SL002 'ORDER BY has no effect' in 5 files have no runtime effect on "
           "Spark: --ignore-noop leaves them out.")


def test_a_pattern_in_five_files_is_counted_in_one_line_and_one_in_four_is_not(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "concise", "."]) == 1
    assert capsys.readouterr().out.splitlines() == [
        constant("c1.sql", 1), constant("c1.sql", 2), constant("c2.sql", 1), constant("c3.sql", 1),
        constant("c4.sql", 1),
        *[dropped(f"r{i}.sql") for i in range(1, 6)],
        SAVING,
        "Found 11 findings in 10 files.",
        GROUPED,
    ]


def test_the_full_form_says_the_effect_under_the_finding_and_groups_alike(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "full", "r1.sql", "r2.sql", "r3.sql", "r4.sql",
                 "r5.sql"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == dropped("r1.sql").removesuffix(" (no runtime effect)")
    assert out[5] == "  = on Spark: no runtime effect"
    assert out[-2:] == ["Found 5 findings in 5 files.", GROUPED]
    # as Getting started shows it
    assert f"```\nFound 5 findings in 5 files.\n{GROUPED}\n```" in (ROOT / "docs" / "getting-started.md").read_text()


def test_ignore_noop_leaves_them_out_and_the_line_that_counts_them(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "concise", "--ignore-noop", "."]) == 1
    assert capsys.readouterr().out.splitlines() == [
        constant("c1.sql", 1), constant("c1.sql", 2), constant("c2.sql", 1), constant("c3.sql", 1),
        constant("c4.sql", 1), SAVING, "Found 6 findings in 5 files.",
    ]


def test_a_sort_by_fewer_keys_is_said_in_the_full_form(repo, capsys):
    assert main(["check", "--no-cache", "--output-format", "full", "c2.sql"]) == 1
    assert "  = on Spark: same plan: an exchange and a sort by fewer keys" in capsys.readouterr().out.splitlines()
