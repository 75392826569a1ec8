"""Seeded random files of many SQL statements over `sales.orders` (the catalogs of
tests/linter/test_unchanged.py and tests/workspace/test_workers.py): for the tests that
compare two ways of analysing a file (taking statements from workers, or from the analysis
before a fix) with analysing it afresh, in order."""

from __future__ import annotations

from random import Random

# Statements drawn at random into files: views and tables created, replaced, appended to and
# read, sorts with fixes (some removing a line), a statement that does not parse, noqa.
POOL = [
    "SELECT order_id FROM sales.orders ORDER BY order_id, order_id",
    "SELECT amount FROM sales.orders\nORDER BY amount,\n  amount",
    "SELECT status FROM sales.orders ORDER BY status, status -- noqa: SL003\n",
    "CREATE OR REPLACE TEMP VIEW v{k} AS SELECT order_date, amount FROM sales.orders WHERE status = 'PAID' ORDER BY amount, amount",
    "CREATE OR REPLACE TEMP VIEW v{k} AS SELECT order_date, amount FROM sales.orders WHERE amount = 5",
    "SELECT order_date, amount FROM v{k} ORDER BY order_date, amount, amount",
    "CREATE TABLE t{k} AS SELECT order_date, order_id FROM sales.orders",
    "INSERT INTO t{k} SELECT order_date, order_id FROM sales.orders WHERE order_id = 3",
    "SELECT order_date, order_id FROM t{k} ORDER BY order_date, order_id, order_id",
    "SELECT x.order_id FROM (SELECT order_id FROM sales.orders ORDER BY order_id) x JOIN sales.orders o ON x.order_id = o.order_id",
    "SELECT FROM WHERE (",
]


def random_file(random: Random, statements: int) -> str:
    return "".join(
        random.choice(POOL).format(k=random.randint(1, 2)) + random.choice([";\n", "; ", ";\n\n"])
        for _ in range(statements)
    )
