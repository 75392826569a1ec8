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
  Sort[ORDER BY] host ASC NULLS FIRST  (line 5)
    | ordering: [host ASC NULLS FIRST]
    | unique: (host)
    Project events.host AS host, COUNT(*) AS n  (line 1)
      | unique: (host)
      Aggregate keys=[events.host] aggregates=[COUNT(*)]  (line 4)
        mode: Sorted
        | unique: (events.host)
        >> SL101 aggregate-could-stream: GROUP BY input is already ordered by [events.host ASC NULLS FIRST] (declared ordering [host ASC NULLS FIRST, time ASC NULLS FIRST] of events (sortlint.yml:4)), but Spark will hash: spark.sql.execution.replaceHashWithSortAgg is off; the ordering is declared in the catalog, not known to Spark
        Filter[WHERE] events.level = 'x'  (line 3)
          | constants: events.level='x'
          | ordering: [events.host ASC NULLS FIRST, events.time ASC NULLS FIRST]
          Scan events AS events  (line 2)
            | ordering: [events.host ASC NULLS FIRST, events.time ASC NULLS FIRST]
"""


def test_explain_under_datafusion_reports_aggregate_modes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text("target: datafusion\n" + CATALOG)
    (tmp_path / "q.sql").write_text("SELECT level, host, count(*) FROM events GROUP BY level, host\n")
    assert main(["explain", "q.sql"]) == 0
    assert "mode: PartiallySorted([1])" in capsys.readouterr().out
