"""`sortlint check --fix`: exact rewritten text for every rule, over awkward shapes.

The catalog is `tests/catalogs.py`'s: `events` stored ordered by (host, time), `customers`
bucketed and sorted (Spark reports each bucket's order) with one declared region,
`host_days` sorted by host inside each day's partition."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs import FIX_SHAPES_CATALOG as CATALOG
from sortlint.cli import main



@pytest.fixture
def fix(tmp_path: Path):
    def run(sql: str, *flags: str, newline: str = "\n", catalog: str = CATALOG) -> str:
        (tmp_path / "sortlint.yml").write_text(catalog)
        path = tmp_path / "q.sql"
        path.write_bytes(sql.replace("\n", newline).encode())
        main(["check", "--fix", *flags, str(path)])
        return path.read_bytes().decode()

    return run


def test_sl002_removes_a_clause_that_stands_on_its_own_line(fix):
    assert fix(
        "SELECT count(*) AS n\n"
        "FROM (\n"
        "  SELECT host\n"
        "  FROM events\n"
        "  ORDER BY latency_ms\n"
        ") t;\n"
    ) == (
        "SELECT count(*) AS n\n"
        "FROM (\n"
        "  SELECT host\n"
        "  FROM events\n"
        ") t;\n"
    )


def test_sl002_inline_clause_and_trailing_comment(fix):
    assert fix(
        "SELECT count(*) AS n FROM (SELECT host FROM events ORDER BY latency_ms) t; -- nightly\n"
    ) == "SELECT count(*) AS n FROM (SELECT host FROM events) t; -- nightly\n"


def test_sl001_safe_on_keys_the_query_fixes_keeps_limit(fix):
    assert fix("SELECT host, time FROM events WHERE host = 'a' ORDER BY host LIMIT 10") == (
        "SELECT host, time FROM events WHERE host = 'a' LIMIT 10"
    )


def test_sl001_on_a_declared_constant_needs_unsafe_fixes(fix):
    sql = "SELECT customer_id, region FROM customers\nWHERE customer_id = 1\nORDER BY region;\n"
    assert fix(sql) == sql
    assert fix(sql, "--unsafe-fixes") == "SELECT customer_id, region FROM customers\nWHERE customer_id = 1;\n"


def test_sl003_drops_keys_with_their_commas_and_keeps_comments(fix):
    assert fix(
        "SELECT * FROM events WHERE level = 'x'\n"
        "ORDER BY\n"
        "  level,       -- always 'x' here\n"
        "  latency_ms,\n"
        "  latency_ms DESC\n"
    ) == (
        "SELECT * FROM events WHERE level = 'x'\n"
        "ORDER BY\n"
        "  -- always 'x' here\n"
        "  latency_ms\n"
    )


def test_sl003_in_a_cte_with_crlf_line_endings(fix):
    sql = "WITH t AS (\n  SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms, level LIMIT 3\n)\nSELECT * FROM t\n"
    assert fix(sql, newline="\r\n") == (
        "WITH t AS (\r\n  SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms LIMIT 3\r\n)\r\nSELECT * FROM t\r\n"
    )


def test_sl003_statement_ending_the_file_without_newline(fix):
    assert fix("SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms") == (
        "SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms"
    )


def test_sl101_reorders_group_by_keys_to_the_input_order(fix):
    assert fix("SELECT region, customer_id, count(*) AS n\nFROM customers\nGROUP BY region, customer_id;\n") == (
        "SELECT region, customer_id, count(*) AS n\nFROM customers\nGROUP BY customer_id, region;\n"
    )


def test_sl102_puts_the_ordered_keys_first(fix):
    catalog = CATALOG.replace("target: spark", "target: datafusion")
    assert fix("SELECT level, host, count(*) AS n FROM events GROUP BY level, host", catalog=catalog) == (
        "SELECT level, host, count(*) AS n FROM events GROUP BY host, level"
    )


def test_sl301_adds_the_sort_that_keeps_the_layout(fix):
    sql = (
        "INSERT OVERWRITE TABLE host_days\n"
        "SELECT host, to_date(time) AS day, count(*) AS events\n"
        "FROM events\n"
        "GROUP BY host, to_date(time);\n"
    )
    assert fix(sql) == sql
    assert fix(sql, "--unsafe-fixes") == sql.replace(");\n", ")\nSORT BY day, host;\n")


def test_sl301_replaces_a_sort_the_write_would_drop(fix):
    assert fix(
        "INSERT INTO host_days SELECT host, day, events FROM host_days DISTRIBUTE BY day SORT BY host",
        "--unsafe-fixes",
    ) == "INSERT INTO host_days SELECT host, day, events FROM host_days DISTRIBUTE BY day SORT BY day, host"


def test_sl103_constant_key_becomes_its_literal(fix):
    assert fix(
        "SELECT host, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY host, level"
    ) == "SELECT 'a' AS host, level, count(*) AS n FROM events WHERE host = 'a' GROUP BY level"


def test_sl103_equal_key_becomes_the_kept_key(fix):
    assert fix(
        "SELECT host, level AS lvl, host AS h2, count(*) AS n FROM events WHERE host = level GROUP BY host, level"
    ) == "SELECT host, host AS lvl, host AS h2, count(*) AS n FROM events WHERE host = level GROUP BY host"


def test_sl103_determined_key_becomes_any_value(fix):
    assert fix(
        "SELECT event_id, latency_ms, time, count(*) AS n FROM events GROUP BY event_id, latency_ms, time",
        "--unsafe-fixes",
    ) == (
        "SELECT event_id, any_value(latency_ms) AS latency_ms, any_value(time) AS `time`, count(*) AS n "
        "FROM events GROUP BY event_id"
    )


def test_sl103_withholds_any_value_of_a_string_on_spark(fix, tmp_path, capsys):
    # Spark cannot update a string's aggregation buffer in place: any_value(level) would make
    # the aggregate a SortAggregate (tests/rewriters/test_spark_runs_fixes.py measures it).
    sql = "SELECT event_id, level, count(*) AS n FROM events GROUP BY event_id, level"
    assert fix(sql, "--unsafe-fixes") == sql
    capsys.readouterr()
    main(["check", "--output-format", "full", str(tmp_path / "q.sql")])
    assert (
        "= no fix: drop the group key level: keeping its column as any_value would make the aggregate sort "
        "every row (a SortAggregate, not a HashAggregate): a string has no fixed-width aggregation buffer"
    ) in capsys.readouterr().out
    # A key the select list does not show needs no any_value: it is dropped.
    assert fix(
        "SELECT event_id, count(*) AS n FROM events GROUP BY event_id, level", "--unsafe-fixes"
    ) == "SELECT event_id, count(*) AS n FROM events GROUP BY event_id"
    # DataFusion hashes whatever the value's type.
    assert fix(sql, "--unsafe-fixes", catalog=CATALOG.replace("target: spark", "target: datafusion")) == (
        "SELECT event_id, any_value(level) AS level, count(*) AS n FROM events GROUP BY event_id"
    )


def test_sl103_constant_is_written_as_a_value_of_the_key_type(fix):
    # The date, not the string '2024-01-02'; a bigint, not the int 1; a decimal(12,2).
    assert fix(
        "SELECT day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY day, code"
    ) == "SELECT DATE '2024-01-02' AS day, code, count(*) AS n FROM orders WHERE day = '2024-01-02' GROUP BY code"
    assert fix(
        "SELECT qty, code, count(*) AS n FROM orders WHERE qty = 1 GROUP BY qty, code"
    ) == "SELECT CAST(1 AS BIGINT) AS qty, code, count(*) AS n FROM orders WHERE qty = 1 GROUP BY code"
    assert fix(
        "SELECT amount, code, count(*) AS n FROM orders WHERE amount = 2.5 GROUP BY amount, code"
    ) == "SELECT CAST(2.5 AS DECIMAL(12,2)) AS amount, code, count(*) AS n FROM orders WHERE amount = 2.5 GROUP BY code"


def test_sl103_ordinal_keys_are_the_select_items_they_name(fix):
    assert fix(
        "SELECT code, qty, count(*) AS n FROM orders WHERE qty = 1 GROUP BY 1, 2"
    ) == "SELECT code, CAST(1 AS BIGINT) AS qty, count(*) AS n FROM orders WHERE qty = 1 GROUP BY 1"
    assert fix(
        "SELECT o.code, p.code AS code2, count(*) AS n FROM orders o JOIN orders p ON o.code = p.code GROUP BY 1, 2"
    ) == "SELECT o.code, o.code AS code2, count(*) AS n FROM orders o JOIN orders p ON o.code = p.code GROUP BY 1"


def test_sl103_alias_keys_are_the_select_items_they_name(fix):
    # `any_value(q1) AS q1` would not resolve: the alias is the item being rewritten.
    assert fix(
        "SELECT order_id, qty + 1 AS q1, count(*) AS n FROM orders WHERE qty = 1 GROUP BY order_id, q1"
    ) == "SELECT order_id, any_value(qty + 1) AS q1, count(*) AS n FROM orders WHERE qty = 1 GROUP BY order_id"


def test_sl103_leaves_a_key_the_statement_still_reads(fix):
    for sql in (
        # ORDER BY names the dropped key: Spark could no longer resolve it.
        "SELECT o.code, p.code AS code2, count(*) AS n FROM orders o JOIN orders p ON o.code = p.code "
        "GROUP BY o.code, p.code ORDER BY p.code",
        # An equal key of another type (string = int casts the string): no equality at all.
        "SELECT code, qty, count(*) AS n FROM orders WHERE code = 1 GROUP BY code, qty",
        # price equals amount, but is a double: not `amount AS price`, and a double's groups
        # show -0.0 as 0.0 where any_value(price) would not.
        "SELECT amount, price, count(*) AS n FROM orders WHERE price = amount GROUP BY amount, price",
    ):
        assert fix(sql, "--unsafe-fixes") == sql


def test_sl201_drops_the_window_key_and_keeps_the_column_name(fix):
    assert fix(
        "SELECT host, row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn FROM events"
    ) == "SELECT host, row_number() OVER (PARTITION BY host ORDER BY time) AS rn FROM events"
    assert fix("SELECT sum(latency_ms) OVER (PARTITION BY host, host) FROM events") == (
        "SELECT sum(latency_ms) OVER (PARTITION BY host) AS "
        "`sum(latency_ms) OVER (PARTITION BY host, host ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)` FROM events"
    )


def test_second_run_changes_nothing(fix, tmp_path):
    once = fix("SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms;\n")
    assert fix(once) == once


def test_diff_writes_nothing_and_exits_1(tmp_path, capsys):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    path = tmp_path / "q.sql"
    sql = "SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms\n"
    path.write_text(sql)
    assert main(["check", "--diff", str(path)]) == 1
    assert path.read_text() == sql
    out = capsys.readouterr().out
    assert f"-{sql}" in out and "+SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms\n" in out
    assert out.rstrip().endswith("1 would be fixed, 0 remaining.")


def test_file_mode_is_kept(fix, tmp_path):
    path = tmp_path / "q.sql"
    path.write_text("x")
    path.chmod(0o640)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    path.write_text("SELECT * FROM events WHERE level = 'x' ORDER BY level, latency_ms\n")
    main(["check", "--fix", str(path)])
    assert path.stat().st_mode & 0o777 == 0o640
    assert path.read_text() == "SELECT * FROM events WHERE level = 'x' ORDER BY latency_ms\n"


# Fixed text as a person would write it (issue 20): no comma alone on a line, no blank line
# inside a clause, no trailing blanks; a dropped key takes its comma, on its side of the
# list's layout; comments stay.
LAYOUTS = [
    ('keys one per line, first dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    level,\n    host,\n    time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    time\n"),
    ('keys one per line, middle dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    level,\n    time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    time\n"),
    ('keys one per line, last dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    time,\n    level\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    time\n"),
    ('leading commas, first dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    level\n  , host\n  , time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n  , time\n"),
    ('leading commas, middle dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n  , level\n  , time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n  , time\n"),
    ('leading commas, last dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n  , time\n  , level\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n  , time\n"),
    ('leading commas after the clause word, first dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY level\n       , host\n       , time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY host\n       , time\n"),
    ('comments after keys, first dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    level,  -- constant\n    host,   -- the host\n    time    -- then time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    -- constant\n    host,   -- the host\n    time    -- then time\n"),
    ('comments after keys, middle dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,   -- the host\n    level,  -- constant\n    time    -- then time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,   -- the host\n    -- constant\n    time    -- then time\n"),
    ('comments after keys, last dropped', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,   -- the host\n    time,   -- then time\n    level   -- constant\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,   -- the host\n    time   -- then time\n    -- constant\n"),
    ('a comment above the dropped key', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    -- the level is constant\n    level,\n    time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    -- the level is constant\n    time\n"),
    ('a clause of keys one per line removed', 'SELECT count(*) AS n\nFROM (\n    SELECT host\n    FROM events\n    ORDER BY\n        latency_ms,\n        host\n) t\n',
     'SELECT count(*) AS n\nFROM (\n    SELECT host\n    FROM events\n) t\n'),
    ('a one-line clause removed', 'SELECT count(*) AS n\nFROM (\n    SELECT host FROM events\n    ORDER BY latency_ms\n) t\n',
     'SELECT count(*) AS n\nFROM (\n    SELECT host FROM events\n) t\n'),
    ('a clause inside a line removed', 'SELECT count(*) AS n\nFROM (SELECT host FROM events ORDER BY latency_ms) t\n',
     'SELECT count(*) AS n\nFROM (SELECT host FROM events) t\n'),
    ('a clause removed before the closing bracket', 'SELECT count(*) AS n\nFROM (\n    SELECT host FROM events\n    ORDER BY\n        latency_ms\n) t\nLIMIT 3\n',
     'SELECT count(*) AS n\nFROM (\n    SELECT host FROM events\n) t\nLIMIT 3\n'),
    ('GROUP BY one per line, first dropped', "SELECT level, host, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    level,\n    host\n",
     "SELECT 'x' AS level, host, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host\n"),
    ('GROUP BY one per line, last dropped', "SELECT host, level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host,\n    level\n",
     "SELECT host, 'x' AS level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host\n"),
    ('GROUP BY leading commas, last dropped', "SELECT host, level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host\n  , level\n",
     "SELECT host, 'x' AS level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host\n"),
    ('GROUP BY leading commas, first dropped', "SELECT host, level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    level\n  , host\n",
     "SELECT host, 'x' AS level, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY\n    host\n"),
    ('window ORDER BY one per line', 'SELECT host,\n    row_number() OVER (\n        PARTITION BY host\n        ORDER BY\n            host,\n            time\n    ) AS rn\nFROM events\n',
     'SELECT host,\n    row_number() OVER (\n        PARTITION BY host\n        ORDER BY\n            time\n    ) AS rn\nFROM events\n'),
    ('window PARTITION BY one per line', "SELECT\n    row_number() OVER (\n        PARTITION BY\n            level,\n            host\n        ORDER BY time\n    ) AS rn\nFROM events\nWHERE level = 'x'\n",
     "SELECT\n    row_number() OVER (\n        PARTITION BY\n            host\n        ORDER BY time\n    ) AS rn\nFROM events\nWHERE level = 'x'\n"),
    ('window keys inline', 'SELECT row_number() OVER (PARTITION BY host ORDER BY host, time) AS rn FROM events\n',
     'SELECT row_number() OVER (PARTITION BY host ORDER BY time) AS rn FROM events\n'),
    ('CRLF, middle dropped', "SELECT * FROM events WHERE level = 'x'\r\nORDER BY\r\n    host,\r\n    level,\r\n    time\r\n",
     "SELECT * FROM events WHERE level = 'x'\r\nORDER BY\r\n    host,\r\n    time\r\n"),
    ('CRLF leading commas, last dropped', "SELECT * FROM events WHERE level = 'x'\r\nORDER BY\r\n    host\r\n  , time\r\n  , level\r\n",
     "SELECT * FROM events WHERE level = 'x'\r\nORDER BY\r\n    host\r\n  , time\r\n"),
    ('the statement ends on the dropped key, a comment after it', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    level; -- nightly\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host; -- nightly\n"),
    ('the statement ends on the dropped key, its ; alone after it', "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host,\n    level\n;\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY\n    host\n;\n"),
    ('two keys dropped', "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY\n    host,\n    level,\n    latency_ms,\n    time\n",
     "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY\n    host,\n    time\n"),
    ('block comments between keys', "SELECT * FROM events WHERE level = 'x'\nORDER BY host /* first, */, level /* constant */, time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY host /* first, */, /* constant */ time\n"),
    ('a space before a comma', "SELECT * FROM events WHERE level = 'x'\nORDER BY host, level , time\n",
     "SELECT * FROM events WHERE level = 'x'\nORDER BY host, time\n"),
    ('two keys dropped inside one line', "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY host, level, time, latency_ms\n",
     "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY host, time\n"),
    ('the first and a middle key dropped inside one line', "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY level, host, latency_ms, time\n",
     "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3\nORDER BY host, time\n"),
    ('keys dropped at a line\'s start and end', "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3 ORDER BY level,\n  host, latency_ms,\n  time\n",
     "SELECT * FROM events WHERE level = 'x' AND latency_ms = 3 ORDER BY host,\n  time\n"),
]


@pytest.mark.parametrize(("sql", "fixed"), [case[1:] for case in LAYOUTS], ids=[case[0] for case in LAYOUTS])
def test_a_fix_leaves_the_layout_a_person_would_write(fix, sql, fixed):
    newline = "\r\n" if "\r\n" in sql else "\n"
    assert fix(sql.replace("\r\n", "\n"), newline=newline) == fixed
