"""`sortlint explain`: the plan, the properties at every node, and the rules that fired."""

from sortlint.cli import main

CATALOG = """\
sources:
  events:
    columns: {host: string not null, time: timestamp not null, level: string}
    orderings: [[host, time]]
"""


def test_explain_shows_plan_properties_modes_and_findings(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text(
        "SELECT host, count(*) AS n\nFROM events\nWHERE level = 'x'\nGROUP BY host\nORDER BY host;\n"
    )
    assert main(["explain", "q.sql"]) == 0
    assert capsys.readouterr().out == """\
q.sql:1: statement (target: spark)
  Sort ORDER BY [host ASC NULLS FIRST]  (line 5)
    | ordering: [host ASC NULLS FIRST]
    | unique: (host)
    Project [events.host AS host, COUNT(*) AS n]  (line 1)
      | unique: (host)
      Aggregate keys=[events.host] aggregates=[COUNT(*)]  (line 4)
        mode: Sorted
        | unique: (events.host)
        >> SL101 aggregate-could-stream: GROUP BY input is already ordered by [events.host ASC NULLS FIRST] (declared ordering [host ASC NULLS FIRST, time ASC NULLS FIRST] of events (sortlint.yml:4)), but Spark will hash: spark.sql.execution.replaceHashWithSortAgg is off; the ordering is declared in the catalog, not known to Spark
        Filter WHERE [events.level = 'x']  (line 3)
          | constants: events.level='x'
          | ordering: [events.host ASC NULLS FIRST, events.time ASC NULLS FIRST]
          Scan events (host, time, level)  (line 2)
            | ordering: [events.host ASC NULLS FIRST, events.time ASC NULLS FIRST]
"""


def test_explain_under_datafusion_reports_aggregate_modes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text("target: datafusion\n" + CATALOG)
    (tmp_path / "q.sql").write_text("SELECT level, host, count(*) FROM events GROUP BY level, host\n")
    assert main(["explain", "q.sql"]) == 0
    assert "mode: PartiallySorted([1])" in capsys.readouterr().out


DBT_CATALOG = """\
sources:
  shop.orders:
    columns: {order_id: bigint not null, day: date not null, amount: double}
    orderings: [[day, order_id]]
    unique: [[order_id]]
"""


def shop(root):
    (root / "sortlint.yml").write_text(DBT_CATALOG)
    (root / "dbt_project.yml").write_text("name: shop\nmodel-paths: [models]\n")
    (root / "models").mkdir()
    (root / "jobs").mkdir()
    return root


def test_explain_a_dbt_model_shows_the_rendered_statement(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(shop(tmp_path))
    (tmp_path / "models" / "daily.sql").write_text(
        "select day, order_id, amount\n"
        "from {{ source('shop', 'orders') }}\n"
        "where day = '{{ var(\"day\", \"2024-01-01\") }}'\n"
        "order by day, order_id\n"
    )
    assert main(["explain", "models/daily.sql"]) == 0
    assert capsys.readouterr().out == """\
models/daily.sql:1: statement (target: spark)
  Sort ORDER BY [day ASC NULLS FIRST, order_id ASC NULLS FIRST]  (line 4)
    | constants: day=CAST('2024-01-01' AS DATE)
    | ordering: [order_id ASC NULLS FIRST]
    | unique: (order_id)
    >> SL001 unnecessary-sort: ORDER BY [day ASC NULLS FIRST, order_id ASC NULLS FIRST] is already satisfied by its input: declared ordering [day ASC NULLS FIRST, order_id ASC NULLS FIRST] of shop.orders (sortlint.yml:4); WHERE orders.day = '2024-01-01' (line 3)
    Project [orders.day AS day, orders.order_id AS order_id, orders.amount AS amount]  (line 1)
      | constants: day=CAST('2024-01-01' AS DATE)
      | ordering: [order_id ASC NULLS FIRST]
      | unique: (order_id)
      Filter WHERE [orders.day = '2024-01-01']  (line 3)
        | constants: orders.day=CAST('2024-01-01' AS DATE)
        | ordering: [orders.order_id ASC NULLS FIRST]
        | unique: (orders.order_id)
        Scan shop.orders (order_id, day, amount)  (line 2)
          | ordering: [orders.day ASC NULLS FIRST, orders.order_id ASC NULLS FIRST]
          | unique: (orders.order_id)
"""


def test_explain_a_pyspark_job_shows_each_pipeline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(shop(tmp_path))
    (tmp_path / "jobs" / "rollup.py").write_text(
        "from pyspark.sql import functions as F\n"
        "\n"
        "\n"
        "def rollup(spark):\n"
        '    orders = spark.table("shop.orders")\n'
        '    daily = orders.groupBy("day", "order_id").agg(F.sum("amount").alias("amount"))\n'
        '    daily.orderBy("day").write.saveAsTable("shop.daily")\n'
    )
    assert main(["explain", "jobs/rollup.py"]) == 0
    assert capsys.readouterr().out == """\
jobs/rollup.py:5: statement (target: spark)
  Write table shop.daily  (line 7)
    | ordering: [day ASC NULLS FIRST]
    | unique: (order_id)
    | unique: (day, order_id)
    Sort orderBy [day ASC NULLS FIRST]  (line 7)
      | ordering: [day ASC NULLS FIRST]
      | unique: (order_id)
      | unique: (day, order_id)
      Project [orders.day AS day, orders.order_id AS order_id, SUM(orders.amount) AS amount]  (line 6)
        | unique: (order_id)
        | unique: (day, order_id)
        Aggregate keys=[orders.day, orders.order_id] aggregates=[SUM(orders.amount)]  (line 6)
          mode: Sorted
          | unique: (orders.order_id)
          | unique: (orders.day, orders.order_id)
          >> SL101 aggregate-could-stream: GROUP BY input is already ordered by [orders.day ASC NULLS FIRST, orders.order_id ASC NULLS FIRST] (declared ordering [day ASC NULLS FIRST, order_id ASC NULLS FIRST] of shop.orders (sortlint.yml:4)), but Spark will hash: spark.sql.execution.replaceHashWithSortAgg is off; the ordering is declared in the catalog, not known to Spark
          Scan shop.orders (order_id, day, amount)  (line 5)
            | ordering: [orders.day ASC NULLS FIRST, orders.order_id ASC NULLS FIRST]
            | unique: (orders.order_id)
"""
