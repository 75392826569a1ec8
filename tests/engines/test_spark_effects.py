"""Issue 32's acceptance on queries written like real pipelines, not for the model: for each
finding, its fix applied alone is planned by the local Spark before and after (adaptive
execution off), and the difference must be the finding's predicted `effect`; no fix offered
may make the plan worse (`Effect.worse`), and a fix withheld must have had a reason.

The shapes are those `test_spark_rules.py`'s EFFECTS table lacks: CTE chains, joins of three
tables (sort-merge and broadcast), outer joins, UNION ALL, subqueries in FROM, windows after
joins and aggregates, several window specifications, ORDER BY ... LIMIT, DISTINCT, keys of
every type, CLUSTER BY / DISTRIBUTE BY / SORT BY, and writes into declared layouts. Each case
is the query, the Spark settings it runs under beyond `SHUFFLED`, and each finding's rule code
with its expected effect (None: the model does not know it, and says so).
"""

from __future__ import annotations

import datetime as dt
import random
import textwrap
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

import spark_oracle as oracle
import spark_support
from spark_oracle import settings
from spark_support import spark  # noqa: F401  (the session fixture)

from sortlint.config import load_config
from sortlint.diagnostics import Effect
from sortlint.diagnostics.effects import OPERATORS
from sortlint.workspace.check import check

pytestmark = spark_support.NEEDS_SPARK

DB = "spark_effects"
CATALOG = f"""\
target: spark
sources:
  {DB}.orders:
    columns: {{order_id: bigint not null, customer_id: bigint not null, order_date: date not null,
               amount: "decimal(12,2) not null", status: string not null, price: double}}
    unique: [[order_id]]
  {DB}.customers:
    columns: {{customer_id: bigint not null, region: string not null, segment: string}}
    unique: [[customer_id]]
  {DB}.items:
    columns: {{order_id: bigint not null, line: int not null, sku: string not null, qty: int not null}}
    unique: [[order_id, line]]
  {DB}.daily_orders:
    columns: {{order_id: bigint not null, amount: "decimal(12,2) not null", order_date: date not null}}
    orderings: [[order_id]]
    scope: partition
    partitioned_by: [order_date]
"""

# Four shuffle partitions, and sort-merge joins unless a case says otherwise.
SHUFFLED = {"spark.sql.shuffle.partitions": "4", "spark.sql.autoBroadcastJoinThreshold": "-1"}
BROADCAST = {"spark.sql.autoBroadcastJoinThreshold": "10485760"}

SAVES_A_SORT = Effect(removes=("Exchange", "Sort"))
SORT = Effect(removes=("Sort",))
NONE = Effect()

O, C, I = f"{DB}.orders", f"{DB}.customers", f"{DB}.items"

Expected = dict[str, Effect | None] | list[tuple[str, Effect | None]]
# name: (query, settings beyond SHUFFLED, [(rule code, expected effect)] in the findings' order,
# {rule code: the text a withheld fix would have written})
CASES: dict[str, tuple[str, dict[str, str], list[tuple[str, Effect | None]], dict[str, str]]] = {}


def case(name: str, query: str, expected: Expected, session: dict[str, str] | None = None,
         by_hand: dict[str, str] | None = None) -> None:
    findings = list(expected.items()) if isinstance(expected, dict) else expected
    CASES[name] = (textwrap.dedent(query).strip(), session or {}, findings, by_hand or {})


# --- SL001 ----------------------------------------------------------------------------------
case("SL001 CTE chain, ORDER BY a constant", f"""
    WITH paid AS (SELECT order_id, customer_id, amount FROM {O} WHERE status = 'paid'),
         big AS (SELECT * FROM paid WHERE customer_id = 7)
    SELECT customer_id, order_id, amount FROM big ORDER BY customer_id
""", {"SL001": SAVES_A_SORT})
case("SL001 date key bound by WHERE", f"""
    SELECT order_date, order_id FROM {O} WHERE order_date = DATE '2024-03-01' ORDER BY order_date
""", {"SL001": SAVES_A_SORT})
case("SL001 ORDER BY LIMIT of a constant", f"""
    SELECT order_id, status FROM {O} WHERE status = 'open' ORDER BY status LIMIT 10
""", {"SL001": Effect(removes=("TakeOrderedAndProject",))})
case("SL001 three-table join, constant key", f"""
    SELECT o.order_id, c.region, i.sku FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id
    JOIN {I} i ON i.order_id = o.order_id WHERE c.region = 'EU' ORDER BY c.region
""", {"SL001": SAVES_A_SORT})
case("SL001 DISTINCT + ORDER BY a constant", f"""
    SELECT DISTINCT status, customer_id FROM {O} WHERE status = 'paid' AND customer_id = 3 ORDER BY status, customer_id
""", {"SL001": SAVES_A_SORT})

# --- SL002 ----------------------------------------------------------------------------------
case("SL002 sort in a CTE under a GROUP BY", f"""
    WITH s AS (SELECT customer_id, amount FROM {O} ORDER BY customer_id)
    SELECT customer_id, sum(amount) AS total FROM s GROUP BY customer_id
""", {"SL002": NONE})
case("SL002 sort in a subquery under a join", f"""
    SELECT o.order_id, c.region FROM (SELECT * FROM {O} ORDER BY order_date) o
    JOIN {C} c ON o.customer_id = c.customer_id
""", {"SL002": NONE})
case("SL002 sort under UNION ALL", f"""
    SELECT order_id, amount FROM (SELECT order_id, amount FROM {O} WHERE status = 'paid' ORDER BY amount) a
    UNION ALL
    SELECT order_id, amount FROM {O} WHERE status = 'open'
""", {"SL002": SAVES_A_SORT})
case("SL002 sort under a LEFT JOIN, broadcast", f"""
    SELECT o.order_id, c.segment FROM (SELECT * FROM {O} ORDER BY customer_id) o
    LEFT JOIN {C} c ON o.customer_id = c.customer_id
""", {"SL002": NONE}, BROADCAST)
case("SL002 sort under a window by a string", f"""
    SELECT order_id, row_number() OVER (PARTITION BY status ORDER BY amount DESC) AS rn
    FROM (SELECT * FROM {O} ORDER BY status) o
""", {"SL002": SORT})
case("SL002 sort under a window by a double", f"""
    SELECT order_id, rank() OVER (PARTITION BY price ORDER BY order_id) AS r
    FROM (SELECT * FROM {O} ORDER BY price) o
""", {"SL002": SAVES_A_SORT})
case("SL002 SORT BY under a GROUP BY with collect_list", f"""
    SELECT customer_id, collect_list(order_id) AS ids FROM (SELECT * FROM {O} SORT BY order_date) o GROUP BY customer_id
""", {})
case("SL002 sort under DISTRIBUTE BY", f"""
    SELECT * FROM (SELECT order_id, customer_id FROM {O} ORDER BY order_id) o DISTRIBUTE BY customer_id
""", {"SL002": NONE})

# --- SL003 ----------------------------------------------------------------------------------
case("SL003 key after a unique key", f"""
    SELECT order_id, customer_id, amount FROM {O} ORDER BY order_id, customer_id
""", {"SL003": NONE})
case("SL003 constant key of a date, LIMIT", f"""
    SELECT order_date, amount, order_id FROM {O} WHERE order_date = DATE '2024-01-01'
    ORDER BY order_date, amount DESC LIMIT 5
""", {"SL003": NONE})
case("SL003 CTE aggregate, ORDER BY its keys", f"""
    WITH daily AS (SELECT order_date, customer_id, sum(amount) AS total FROM {O} GROUP BY order_date, customer_id)
    SELECT order_date, customer_id, total FROM daily WHERE customer_id = 5 ORDER BY customer_id, order_date
""", {"SL003": NONE})
case("SL003 duplicated key", f"""
    SELECT status, amount FROM {O} ORDER BY status, amount, status
""", {"SL003": NONE})
case("SL003 join key repeated from the other side", f"""
    SELECT o.order_id, c.customer_id, o.customer_id AS oc FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id
    ORDER BY o.customer_id, c.customer_id, o.order_id
""", {"SL003": NONE})

# --- SL101 ----------------------------------------------------------------------------------
case("SL101 aggregate over a window on a date", f"""
    SELECT status, order_date, max(rn) AS m FROM (
      SELECT order_date, status, row_number() OVER (PARTITION BY order_date ORDER BY status) AS rn FROM {O}) w
    GROUP BY status, order_date
""", {"SL101": Effect(removes=("HashAggregate",), adds=("SortAggregate",))})

# --- SL103 ----------------------------------------------------------------------------------
case("SL103 group key after a unique key", f"""
    SELECT order_id, customer_id, sum(amount) AS total FROM {O} GROUP BY order_id, customer_id
""", {"SL103": NONE})
case("SL103 constant string key", f"""
    SELECT status, customer_id, count(*) AS n FROM {O} WHERE status = 'paid' GROUP BY status, customer_id
""", {"SL103": NONE})
case("SL103 constant date key over a CTE", f"""
    WITH d AS (SELECT * FROM {O} WHERE order_date = DATE '2024-02-02')
    SELECT order_date, customer_id, sum(amount) AS total FROM d GROUP BY order_date, customer_id
""", {"SL103": NONE})
case("SL103 GROUP BY over a CTE sorted upstream", f"""
    WITH s AS (SELECT * FROM {O} WHERE status = 'paid' ORDER BY customer_id)
    SELECT customer_id, status, sum(amount) AS total FROM s GROUP BY customer_id, status
""", [("SL002", NONE), ("SL103", NONE)])

# --- SL201 ----------------------------------------------------------------------------------
case("SL201 window partition key after a unique key", f"""
    SELECT order_id, sum(amount) OVER (PARTITION BY order_id, customer_id) AS t FROM {O}
""", {"SL201": NONE})
# rank() keeps its only ORDER BY key (determined by the partition keys): no fix, nothing to predict.
case("SL201 window after an aggregate", f"""
    SELECT customer_id, total, rank() OVER (PARTITION BY customer_id, status ORDER BY total DESC) AS r FROM (
      SELECT customer_id, status, sum(amount) AS total FROM {O} WHERE status = 'paid' GROUP BY customer_id, status) a
""", [("SL201", Effect(adds=("Exchange",))), ("SL201", None), ("SL103", NONE)], by_hand={"SL201": f"""
    SELECT customer_id, total, rank() OVER (PARTITION BY customer_id ORDER BY total DESC) AS r FROM (
      SELECT customer_id, status, sum(amount) AS total FROM {O} WHERE status = 'paid' GROUP BY customer_id, status) a
"""})
case("SL201 constant window key, double", f"""
    SELECT order_id, row_number() OVER (PARTITION BY price, customer_id ORDER BY order_id) AS rn FROM {O}
    WHERE price = 1.5
""", {"SL201": NONE})
case("SL201 window after a join", f"""
    SELECT o.order_id, row_number() OVER (PARTITION BY c.region, o.customer_id ORDER BY o.order_date) AS rn
    FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id WHERE c.region = 'EU'
""", {"SL201": NONE})


case("SL201 window over DISTRIBUTE BY a double, constant double key", f"""
    SELECT order_id, sum(amount) OVER (PARTITION BY price, customer_id) AS t
    FROM (SELECT * FROM {O} WHERE price = 2.0 DISTRIBUTE BY price) o
""", {"SL201": NONE})
case("SL201 window over DISTRIBUTE BY a double, other key constant", f"""
    SELECT order_id, sum(amount) OVER (PARTITION BY price, customer_id) AS t
    FROM (SELECT * FROM {O} WHERE customer_id = 4 DISTRIBUTE BY price) o
""", {"SL201": NONE})
case("SL103 aggregate over a window by a double, constant key", f"""
    SELECT price, status, count(*) AS n FROM (
      SELECT price, status, row_number() OVER (PARTITION BY price ORDER BY order_id) AS rn FROM {O} WHERE status = 'paid') w
    GROUP BY price, status
""", {"SL103": NONE})
case("SL103 aggregate over DISTRIBUTE BY a double", f"""
    SELECT price, status, count(*) AS n FROM (SELECT * FROM {O} WHERE status = 'paid' DISTRIBUTE BY price) o
    GROUP BY price, status
""", {"SL103": NONE})
case("SL103 aggregate over DISTRIBUTE BY a double, double key constant", f"""
    SELECT customer_id, price, count(*) AS n FROM (SELECT * FROM {O} WHERE price = 1.5 DISTRIBUTE BY price) o
    GROUP BY customer_id, price
""", {"SL103": Effect(adds=("Exchange",))}, by_hand={"SL103": f"""
    SELECT customer_id, 1.5 AS price, count(*) AS n FROM (SELECT * FROM {O} WHERE price = 1.5 DISTRIBUTE BY price) o
    GROUP BY customer_id
"""})
case("SL201 second window over a window by a double", f"""
    SELECT order_id, rn, sum(amount) OVER (PARTITION BY price, status) AS t FROM (
      SELECT *, row_number() OVER (PARTITION BY price ORDER BY order_id) AS rn FROM {O} WHERE status = 'paid') w
""", {"SL201": None})
case("SL002 ORDER BY a double under a window by it and a key", f"""
    SELECT order_id, row_number() OVER (PARTITION BY price, customer_id ORDER BY order_id) AS rn
    FROM (SELECT * FROM {O} ORDER BY price) o
""", {"SL002": SAVES_A_SORT})
case("SL002 ORDER BY a decimal under a window", f"""
    SELECT order_id, row_number() OVER (PARTITION BY amount ORDER BY order_id) AS rn
    FROM (SELECT * FROM {O} ORDER BY amount) o
""", {"SL002": SORT})
case("SL201 several windows, one droppable key", f"""
    SELECT order_id, row_number() OVER (PARTITION BY customer_id, status ORDER BY order_date) AS rn,
           sum(amount) OVER (PARTITION BY order_date) AS day_total
    FROM {O} WHERE status = 'paid'
""", {"SL201": NONE})
case("SL003 several windows then ORDER BY", f"""
    SELECT order_id, customer_id, lag(amount) OVER (PARTITION BY customer_id ORDER BY order_date) AS prev,
           rank() OVER (ORDER BY amount DESC) AS r
    FROM {O} ORDER BY order_id, customer_id
""", {"SL003": NONE})
case("SL001 TakeOrderedAndProject over an aggregate", f"""
    SELECT customer_id, sum(amount) AS total FROM {O} WHERE customer_id = 9 GROUP BY customer_id
    ORDER BY customer_id LIMIT 3
""", [("SL103", NONE), ("SL001", Effect(removes=("TakeOrderedAndProject",)))])
case("SL003 top-k, a key after a unique one", f"""
    SELECT order_id, amount FROM {O} ORDER BY order_id, amount LIMIT 20
""", {"SL003": NONE})
case("SL002 SORT BY under DISTRIBUTE BY then GROUP BY", f"""
    SELECT customer_id, max(amount) AS m FROM (SELECT * FROM {O} DISTRIBUTE BY customer_id SORT BY customer_id) o
    GROUP BY customer_id
""", {"SL002": NONE})
case("SL002 ORDER BY in FULL JOIN side", f"""
    SELECT coalesce(a.customer_id, c.customer_id) AS id, c.region FROM
    (SELECT customer_id, count(*) AS n FROM {O} GROUP BY customer_id ORDER BY n) a
    FULL JOIN {C} c ON a.customer_id = c.customer_id
""", {"SL002": NONE})
case("SL103 GROUP BY after LEFT JOIN, constant key from the left", f"""
    SELECT o.status, c.region, count(*) AS n FROM {O} o LEFT JOIN {C} c ON o.customer_id = c.customer_id
    WHERE o.status = 'open' GROUP BY o.status, c.region
""", {"SL103": NONE})
case("SL103 GROUP BY a join key, sort-merge", f"""
    SELECT o.customer_id, o.status, sum(i.qty) AS q FROM {O} o JOIN {I} i ON o.order_id = i.order_id
    WHERE o.status = 'paid' GROUP BY o.customer_id, o.status
""", {"SL103": NONE})
case("SL103 three-table broadcast join, constant key", f"""
    SELECT c.region, i.sku, sum(i.qty) AS q FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id
    JOIN {I} i ON i.order_id = o.order_id WHERE c.region = 'US' GROUP BY c.region, i.sku
""", {"SL103": NONE}, BROADCAST)
case("SL103 UNION ALL then GROUP BY", f"""
    SELECT status, customer_id, count(*) AS n FROM (
      SELECT status, customer_id FROM {O} WHERE status = 'paid'
      UNION ALL SELECT status, customer_id FROM {O} WHERE status = 'paid' AND customer_id < 5) u
    GROUP BY status, customer_id
""", {"SL103": NONE})
case("SL103 DISTINCT over a constant", f"""
    SELECT status, customer_id, count(DISTINCT order_date) AS d FROM {O} WHERE status = 'paid' GROUP BY status, customer_id
""", {"SL103": NONE})
case("SL103 decimal constant key, sum", f"""
    SELECT amount, customer_id, sum(amount) AS s FROM {O} WHERE amount = 10.50 GROUP BY amount, customer_id
""", {"SL103": NONE})
case("SL301 INSERT into a partitioned layout", f"""
    INSERT INTO {DB}.daily_orders SELECT order_id, amount, order_date FROM {O} SORT BY order_id
""", {"SL301": None})
case("SL301 INSERT OVERWRITE with ORDER BY", f"""
    INSERT OVERWRITE TABLE {DB}.daily_orders SELECT order_id, amount, order_date FROM {O} ORDER BY order_id
""", {"SL301": None})

# Fuzz seed 6202 (spark-multifile): a plain LIMIT in place of a subquery's sorted top-k gathers
# its rows with an exchange of its own; only as the statement's result (CollectLimit) not.
case("SL001 top-k in a subquery", f"""
    SELECT s.order_id, s.status FROM (SELECT order_id, status FROM {O} WHERE status = 'open' ORDER BY status LIMIT 6) s
    WHERE s.order_id > 3
""", {"SL001": Effect(removes=("TakeOrderedAndProject",), adds=("Exchange",))}, by_hand={"SL001": f"""
    SELECT s.order_id, s.status FROM (SELECT order_id, status FROM {O} WHERE status = 'open' LIMIT 6) s
    WHERE s.order_id > 3
"""})
# A hash aggregate with a floating-point key keeps its partial half apart on rows needing no
# exchange: dropping the key saves that half.
case("SL103 a constant double key of a hash aggregate on clustered rows", f"""
    SELECT customer_id, price, count(*) AS n FROM (SELECT * FROM {O} WHERE price = 1.5 DISTRIBUTE BY customer_id) o
    GROUP BY customer_id, price
""", {"SL103": Effect(removes=("HashAggregate",))})
case("SL201 a constant double key of a window's partition on clustered rows", f"""
    SELECT order_id, sum(amount) OVER (PARTITION BY customer_id, price) AS t
    FROM (SELECT * FROM {O} WHERE price = 1.5 DISTRIBUTE BY customer_id) o
""", {"SL201": NONE})
case("SL201 a window by a double over a window by it, under an aggregate", f"""
    SELECT price, status, count(*) AS n FROM (
      SELECT price, status, max(rn) OVER (PARTITION BY price, status) AS m FROM (
        SELECT price, status, row_number() OVER (PARTITION BY price ORDER BY order_id) AS rn FROM {O}
        WHERE status = 'paid') w) v
    GROUP BY price, status
""", [("SL201", None), ("SL103", NONE)])


# Issue 32 item 1, an effect on every finding. The statement's own sorted top-k sorts by fewer
# keys whatever the joins and aggregates beneath (TPC-DS q43's shape; both join strategies).
TOP_K_OVER_A_JOIN = f"""
    SELECT c.region, o.status, sum(o.amount) AS total FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id
    GROUP BY c.region, o.status ORDER BY c.region, o.status, total LIMIT 10
"""
case("SL003 top-k result over a sort-merge join and an aggregate", TOP_K_OVER_A_JOIN, {"SL003": NONE})
case("SL003 top-k result over a broadcast join and an aggregate", TOP_K_OVER_A_JOIN, {"SL003": NONE}, BROADCAST)
# Spark groups by a repeated key once itself (TPC-DS q11).
case("SL103 repeated group key", f"""
    SELECT customer_id, status, count(*) AS n FROM {O} GROUP BY customer_id, status, customer_id
""", {"SL103": NONE})
# Windows of several specifications whose partitionings fit none of the others: each shuffles
# and sorts whatever the order Spark stacks them in.
case("SL201 window order key among windows of other partitionings", f"""
    SELECT order_id, lag(amount) OVER (PARTITION BY customer_id ORDER BY customer_id, order_date) AS prev,
           count(*) OVER (PARTITION BY status, order_date) AS n FROM {O}
""", {"SL201": NONE})
case("SL201 window order key among three windows, ORDER BY above", f"""
    SELECT order_id, lag(amount) OVER (PARTITION BY customer_id ORDER BY customer_id, order_date) AS prev,
           count(*) OVER (PARTITION BY status, order_date) AS n, max(price) OVER (PARTITION BY order_date, line) AS m
    FROM (SELECT o.*, i.line FROM {O} o JOIN {I} i ON o.order_id = i.order_id) j ORDER BY order_id
""", {"SL201": NONE})
case("SL201 partition key among windows of other partitionings, over a join", f"""
    SELECT o.order_id, sum(o.amount) OVER (PARTITION BY o.order_date, c.region) AS t,
           count(*) OVER (PARTITION BY o.status) AS n FROM {O} o JOIN {C} c ON o.customer_id = c.customer_id
    WHERE c.region = 'EU'
""", {"SL201": NONE})
case("SL201 windows whose partitionings fit: not known", f"""
    SELECT order_id, lag(amount) OVER (PARTITION BY customer_id ORDER BY customer_id, order_date) AS prev,
           count(*) OVER (PARTITION BY customer_id, status) AS n FROM {O}
""", {"SL201": None})


# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables(spark):
    previous = spark.catalog.currentDatabase()
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
    r = random.Random(32)
    day = dt.date(2024, 1, 1)
    orders = [
        (i, r.randint(1, 40), day + dt.timedelta(days=r.randint(0, 60)), Decimal(r.randint(100, 99999)) / 100,
         r.choice(["paid", "open", "void"]), r.choice([1.5, 2.0, -0.0, 0.0, None, float("nan")]))
        for i in range(1, 401)
    ]
    r.shuffle(orders)
    schema = "order_id bigint, customer_id bigint, order_date date, amount decimal(12,2), status string, price double"
    spark.createDataFrame(orders, schema).coalesce(1).write.mode("overwrite").saveAsTable(O)
    customers = [(c, r.choice(["EU", "US", "APAC"]), r.choice(["a", "b", None])) for c in range(1, 41)]
    spark.createDataFrame(customers, "customer_id bigint, region string, segment string").write.mode(
        "overwrite").saveAsTable(C)
    items = [(o, n, f"sku{r.randint(1, 30)}", r.randint(1, 5)) for o in range(1, 401) for n in range(1, r.randint(2, 4))]
    spark.createDataFrame(items, "order_id bigint, line int, sku string, qty int").write.mode(
        "overwrite").saveAsTable(I)
    spark.sql(f"DROP TABLE IF EXISTS {DB}.daily_orders")
    spark.sql(f"CREATE TABLE {DB}.daily_orders (order_id bigint, amount decimal(12,2), order_date date) "
              "USING parquet PARTITIONED BY (order_date)")
    yield
    spark.catalog.setCurrentDatabase(previous)


def findings(root: Path, query: str, catalog: str = CATALOG) -> tuple[str, list]:
    (root / "sortlint.yml").write_text(catalog)
    path = root / "q.sql"
    path.write_text(query + "\n")
    result = check([path], load_config(root / "sortlint.yml"))
    assert not result.all_errors, result.all_errors
    return path.read_text(), result.findings


def fixed_alone(text: str, finding) -> str:
    """The text with this one finding's fix applied."""
    for edit in sorted(finding.fix.edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.content + text[edit.end :]
    return text


def counts(spark, sql: str, session: dict[str, str]) -> Counter:
    with settings(spark, {**SHUFFLED, "spark.sql.adaptive.enabled": "false", **session}):
        names = [node.removeprefix("Shuffle") for node in oracle.physical_nodes(spark, sql.strip().rstrip(";"))]
    return Counter(name for name in names if name in OPERATORS)


def observed(spark, root: Path, query: str, session: dict[str, str], by_hand: dict[str, str]):
    """Per finding: (code, predicted effect, the measured effect of its fix alone - or of the
    text by hand of a withheld one; None for a fix that edits nothing - and whether the fix
    is offered)."""
    text, found = findings(root, query)
    before = counts(spark, text, session)
    by_hand = dict(by_hand)
    out = []
    for f in found:
        offered = f.fix is not None and bool(f.fix.edits)
        after = fixed_alone(text, f) if offered else by_hand.pop(f.code, None)
        measured = None if after is None else Effect.between(before, counts(spark, after, session))
        out.append((f.code, f.effect, measured, offered))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_every_predicted_effect_is_what_spark_plans(spark, tables, tmp_path, name):
    query, session, expected, by_hand = CASES[name]
    seen = observed(spark, tmp_path, query, session, by_hand)
    assert [(code, predicted) for code, predicted, _, _ in seen] == expected
    for code, predicted, measured, offered in seen:
        if offered:
            assert not measured.worse(), (code, measured)  # no fix offered makes the plan worse
        if predicted is not None and measured is not None:
            assert measured == predicted, (code, measured)
    assert sum(measured is not None for _, _, measured, offered in seen if not offered) == len(by_hand)


def test_an_effect_not_predicted_says_why(tmp_path):
    """A finding without an effect says what Spark's plan depends on (`effect_unknown`)."""
    unknown = [(name, query) for name, (query, _, expected, _) in CASES.items()
               if any(effect is None for _, effect in expected)]
    assert len(unknown) == 6
    for name, query in unknown:
        _, found = findings(tmp_path, query)
        assert all((f.effect is None) == bool(f.effect_unknown) for f in found), name


# --- TPC-DS, as a new user checks it: no catalog, Spark's own TPC-DS tables -------------------

TPCDS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "tpcds"
TPCDS_TABLES = Path(__file__).with_name("tpcds_tables.sql")
SAME_TOP_K = Effect()  # the sorted top-k (TakeOrderedAndProject) by fewer keys
# query: its findings (line, rule, predicted effect, or why it is not known)
TPCDS_FINDINGS: dict[str, list[tuple[int, str, Effect | str]]] = {
    "q11": [(24, "SL103", NONE)],
    "q14b": [(94, "SL003", SAME_TOP_K)],
    "q43": [(31, "SL003", SAME_TOP_K)] * 4 + [(32, "SL003", SAME_TOP_K)] * 3,
    "q54": [(60, "SL003", SAME_TOP_K)],
    "q60": [(61, "SL003", SAME_TOP_K)],
    "q70": [(25, "SL201", "the function needs its window's only ORDER BY key: there is no fix whose plan to predict")],
    "q74": [(57, "SL003", SAME_TOP_K)] * 2,
    "q78": [(63, "SL003", SAME_TOP_K)],
    "q81": [(36, "SL003", SAME_TOP_K)],
}


@pytest.fixture(scope="module")
def tpcds(spark):
    previous = spark.catalog.currentDatabase()
    spark.sql("CREATE DATABASE IF NOT EXISTS tpcds_effects")
    spark.catalog.setCurrentDatabase("tpcds_effects")
    for statement in TPCDS_TABLES.read_text().split(";"):
        ddl = "\n".join(line for line in statement.splitlines() if not line.startswith("--")).strip()
        if ddl:
            spark.sql(ddl.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
    yield
    spark.catalog.setCurrentDatabase(previous)


@pytest.mark.skipif(not TPCDS.is_dir(), reason="../shared/corpora is not there")
@pytest.mark.parametrize("query", list(TPCDS_FINDINGS))
def test_the_tpc_ds_findings_effects_are_what_spark_plans(spark, tpcds, tmp_path, query):
    """Every TPC-DS finding carries an effect or says why not; each fix's effect is measured
    with sort-merge joins and with broadcast joins (the tables are empty: Spark broadcasts
    every side it may), which the effect does not depend on."""
    text, found = findings(tmp_path, (TPCDS / f"{query}.sql").read_text().rstrip("\n"), "target: spark\n")
    assert [(f.line, f.code, f.effect if f.effect is not None else f.effect_unknown) for f in found] == TPCDS_FINDINGS[query]
    for f in found:
        if f.fix is None or not f.fix.edits:
            continue
        for session in ({}, BROADCAST):
            measured = Effect.between(counts(spark, text, session), counts(spark, fixed_alone(text, f), session))
            assert measured == f.effect, (f.line, f.column, session, measured)
