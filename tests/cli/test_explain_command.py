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
        "SELECT host, time, count(*) AS n, max(r) AS top\n"
        "FROM (SELECT host, time, rank() OVER (PARTITION BY host ORDER BY time) AS r FROM events WHERE level = 'x') w\n"
        "GROUP BY time, host\n"
        "ORDER BY host;\n"
    )
    assert main(["explain", "q.sql"]) == 0
    assert capsys.readouterr().out == """\
q.sql:1: statement (target: spark)
  Sort ORDER BY [host ASC NULLS FIRST]  (line 4)
    engine: Spark runs this sort: an exchange and a sort
    | ordering: [host ASC NULLS FIRST]
    | unique: (host, time)
    Project [w.host AS host, w.time AS time, COUNT(*) AS n, MAX(w.r) AS top]  (line 1)
      | unique: (host, time)
      Aggregate keys=[w.time, w.host] aggregates=[COUNT(*), MAX(w.r)]  (line 3)
        mode: HashAggregate
        | unique: (w.host, w.time)
        >> SL101 aggregate-could-stream: GROUP BY input is already ordered by [w.host ASC NULLS FIRST, w.time ASC NULLS FIRST] (window (line 2)), but it runs as a hash aggregate: the keys must follow the input's order (GROUP BY host, time)
        Alias w (host, time, r)  (line 2)
          | ordering: [w.host ASC NULLS FIRST, w.time ASC NULLS FIRST] within partitions of ['w.host']
          Project [events.host AS host, events.time AS time, RANK() OVER (PARTITION BY events.host ORDER BY events.time) AS r]  (line 2)
            | ordering: [host ASC NULLS FIRST, time ASC NULLS FIRST] within partitions of ['host']
            Window RANK() OVER (PARTITION BY events.host ORDER BY events.time) (ranking)  (line 2)
              | constants: events.level='x'
              | ordering: [events.host ASC NULLS FIRST, events.time ASC NULLS FIRST] within partitions of ['events.host']
              Filter WHERE [events.level = 'x']  (line 2)
                | constants: events.level='x'
                Scan events (host, time, level)  (line 2)
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
  Write view shop.daily  (line 1)
    | constants: day=CAST('2024-01-01' AS DATE)
    | ordering: [order_id ASC NULLS FIRST]
    | unique: (order_id)
    Sort ORDER BY [day ASC NULLS FIRST, order_id ASC NULLS FIRST]  (line 4)
      engine: Spark runs this sort: an exchange and a sort
      | constants: day=CAST('2024-01-01' AS DATE)
      | ordering: [order_id ASC NULLS FIRST]
      | unique: (order_id)
      >> SL003 redundant-sort-keys: sort key day is constant: WHERE orders.day = '2024-01-01' (line 3)
      Project [orders.day AS day, orders.order_id AS order_id, orders.amount AS amount]  (line 1)
        | constants: day=CAST('2024-01-01' AS DATE)
        | unique: (order_id)
        Filter WHERE [orders.day = '2024-01-01']  (line 3)
          | constants: orders.day=CAST('2024-01-01' AS DATE)
          | unique: (orders.order_id)
          Scan shop.orders (order_id, day, amount)  (line 2)
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
      engine: Spark runs this sort: an exchange and a sort
      | ordering: [day ASC NULLS FIRST]
      | unique: (order_id)
      | unique: (day, order_id)
      Project [orders.day AS day, orders.order_id AS order_id, SUM(orders.amount) AS amount]  (line 6)
        | unique: (order_id)
        | unique: (day, order_id)
        Aggregate keys=[orders.day, orders.order_id] aggregates=[SUM(orders.amount)]  (line 6)
          mode: HashAggregate
          | unique: (orders.order_id)
          | unique: (orders.day, orders.order_id)
          Scan shop.orders (order_id, day, amount)  (line 5)
            | unique: (orders.order_id)
"""


def test_a_key_known_on_two_grounds_is_shown_once(tmp_path, monkeypatch, capsys):
    """`id` is unique as declared and as the GROUP BY key: one fact to a reader."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(
        "sources:\n  events:\n    columns: {id: bigint not null, n: int}\n    unique: [[id]]\n"
    )
    (tmp_path / "q.sql").write_text("SELECT id, count(*) AS c FROM events GROUP BY id ORDER BY id\n")
    assert main(["explain", "q.sql"]) == 0
    assert capsys.readouterr().out == """\
q.sql:1: statement (target: spark)
  Sort ORDER BY [id ASC NULLS FIRST]  (line 1)
    engine: Spark runs this sort: an exchange and a sort
    | ordering: [id ASC NULLS FIRST]
    | unique: (id)
    Project [events.id AS id, COUNT(*) AS c]  (line 1)
      | unique: (id)
      Aggregate keys=[events.id] aggregates=[COUNT(*)]  (line 1)
        mode: HashAggregate
        | unique: (events.id)
        Scan events (id, n)  (line 1)
          | unique: (events.id)
"""
