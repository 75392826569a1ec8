"""SL201 redundant-window-keys."""

import textwrap

from catalogs import RULES_CATALOG as CATALOG

from sortlint.config import load_config
from sortlint.workspace.check import check


def test_order_key_repeating_the_partition_key(lint):
    assert lint("""
        SELECT row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn FROM events
    """) == [("SL201", 1, "window order key host is a partition key: constant inside each partition")]


def test_repeated_partition_key(codes):
    assert codes("SELECT sum(latency_ms) OVER (PARTITION BY host, host) AS s FROM events") == [("SL201", 1)]


def test_constant_partition_key(codes):
    assert codes("""
        SELECT sum(latency_ms) OVER (PARTITION BY level, host) AS s FROM events
        WHERE level = 'x'
    """) == [("SL201", 1)]


def test_plain_window_is_quiet(codes):
    assert codes("SELECT row_number() OVER (PARTITION BY host ORDER BY time) AS rn FROM events") == []


def test_a_key_of_a_named_window_is_reported_where_the_window_names_it_with_no_fix(tmp_path, monkeypatch):
    """The key is written once, in the WINDOW clause, for every window naming it: the finding
    points at each `OVER w`, and no fix edits the clause the windows share."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(textwrap.dedent(CATALOG).format(target="spark"))
    query = tmp_path / "query.sql"
    query.write_text(
        "SELECT host, row_number() OVER w AS rn, sum(latency_ms) OVER w AS s\n"
        "FROM events\n"
        "WINDOW w AS (PARTITION BY host ORDER BY time, time)\n"
    )
    findings = check([query], load_config(start_paths=[query])).findings
    assert [(f.code, f.line, f.column, f.message, f.fix) for f in findings] == [
        ("SL201", 1, 27, "window order key time repeats an earlier key", None),
        ("SL201", 1, 57, "window order key time repeats an earlier key", None),
    ]
