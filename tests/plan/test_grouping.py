"""What a grouped SELECT reads outside its group keys and aggregate calls
(sortlint/plan/grouping.py): Spark refuses such a column, so a fix that leaves one is wrong."""

from __future__ import annotations

import pytest

from plan_support import build
from sortlint.plan.grouping import ungrouped_columns


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT host, count(*) FROM events GROUP BY host",
        "SELECT host, level, max(amount) FROM events GROUP BY host, level HAVING max(amount) > 1",
        "SELECT 2 + 1 FROM events GROUP BY host",  # 2 + 1 of the select list, ordinal-free
        "SELECT host || '!' AS h FROM events GROUP BY host ORDER BY h",  # over a group key
        "SELECT lower(host) AS h, count(*) FROM events GROUP BY lower(host)",
        "SELECT host, sum(amount) OVER (ORDER BY host) FROM events GROUP BY host, amount",
        "SELECT host, rank() OVER (ORDER BY count(*)) FROM events GROUP BY host",
        "SELECT count(*) FROM events",
        "SELECT e.host, h.owner, count(*) FROM events e JOIN hosts h ON e.host = h.host GROUP BY 1, 2",
    ],
)
def test_a_select_reading_its_keys_and_aggregates_reads_nothing_else(sql):
    assert ungrouped_columns(build(sql).root) == []


@pytest.mark.parametrize(
    ("sql", "columns"),
    [
        ("SELECT host, level FROM events GROUP BY host", ["events.level (select list)"]),
        ("SELECT host FROM events GROUP BY host HAVING level = 'x'", ["events.level (HAVING)"]),
        ("SELECT host FROM events GROUP BY host ORDER BY level", ["events.level (ORDER BY)"]),
        # A window's own call reads the grouped rows: its argument must be grouped too.
        ("SELECT host, sum(amount) OVER () FROM events GROUP BY host", ["events.amount (window)",
                                                                         "events.amount (select list)"]),
        ("SELECT lower(host) FROM events GROUP BY upper(host)", ["events.host (select list)"]),
    ],
)
def test_a_column_outside_the_keys_is_reported_with_its_clause(sql, columns):
    assert ungrouped_columns(build(sql).root) == columns
