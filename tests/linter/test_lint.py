"""Evidence cites where its clause was written: a view's WHERE is in the view's file."""

from __future__ import annotations

import json
from pathlib import Path

from sortlint.cli import main

CATALOG = "target: spark\nsources:\n  t: {columns: {a: int, b: int}}\n"


def test_evidence_from_a_view_in_another_file_names_that_file_and_its_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "views.sql").write_text("-- the view\n\n\nCREATE VIEW v AS\nSELECT a, b FROM t\nWHERE b = 1;\n")
    (tmp_path / "b.sql").write_text("SELECT a, b FROM v ORDER BY b, a;\n")
    (tmp_path / "c.sql").write_text("CREATE VIEW w AS SELECT a, b FROM t\nWHERE b = 1;\nSELECT a, b FROM w ORDER BY b, a;\n")
    assert main(["check", "--jobs", "1", "."]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "b.sql:1:29: SL003 [*unsafe] sort key b is constant: WHERE t.b = 1 (a/views.sql:6) (code outside this statement, which may change) [upstream]",
        "c.sql:3:29: SL003 [*] sort key b is constant: WHERE t.b = 1 (line 2) [query]",
        "Found 2 findings in 2 files.",
    ]


def test_a_cte_read_twice_reports_only_what_holds_for_every_reader(tmp_path, monkeypatch, capsys):
    """The ORDER BY of a CTE that a join and a collect_list both read does nothing for the
    join, but it is the order collect_list sees: no SL002 (dbt_project_evaluator's
    fct_model_naming_conventions orders a CTE so for listagg)."""
    from sortlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text("target: spark\n")
    cte = "with p as (select model_type, prefix_value from prefixes order by prefix_value)\n"
    (tmp_path / "both.sql").write_text(
        cte + "select m.name, agg.prefixes from models m join p on m.model_type = p.model_type\n"
        "join (select model_type, array_join(collect_list(prefix_value), ', ') as prefixes from p "
        "group by model_type) agg on m.model_type = agg.model_type\n")
    (tmp_path / "join_only.sql").write_text(
        cte + "select m.name, p.prefix_value from models m join p on m.model_type = p.model_type\n"
        "join p q on m.model_type = q.model_type\n")
    assert main(["check", "--no-cache", "."]) == 1
    assert [line for line in capsys.readouterr().out.splitlines() if ": SL" in line] == [
        "join_only.sql:1:58: SL002 [*] ORDER BY has no effect: its rows feed a join, which does not keep "
        "the order of its inputs. Spark removes this sort itself; the clause only misleads readers [query] (no runtime effect)"
    ]


def test_each_rule_is_called_with_the_plan_nodes_it_looks_at_and_only_those():
    """A rule declares the node type it checks (`NODE`); the linter hands it those nodes
    and no others, and honours `select` / `ignore` while doing so."""
    from sortlint.linter.lint import enabled_rules
    from sortlint.plan import nodes as n

    every = enabled_rules(("SL",), ())
    assert [rule.code for rule in every[n.Sort]] == ["SL001", "SL002", "SL003"]
    assert [rule.code for rule in every[n.Aggregate]] == ["SL101", "SL102", "SL103"]
    assert [rule.code for rule in every[n.Window]] == ["SL201"]
    assert [rule.code for rule in every[n.Write]] == ["SL301"]
    assert every[n.Project] == () and every[n.Filter] == ()
    some = enabled_rules(("SL0",), ("SL002",))
    assert [rule.code for rule in some[n.Sort]] == ["SL001", "SL003"]
    assert some[n.Aggregate] == ()


def test_a_fix_to_a_cte_read_twice_has_the_effect_of_every_copy(tmp_path, monkeypatch, capsys):
    """The fix edits the CTE once, so it changes the plan under each reader: Spark drops the
    sort under the join and runs it, with its exchange, under the UNION ALL; the finding has
    the UNION ALL copy's effect and message (the first copy's alone said "none", and "Spark
    removes this sort itself"; planned in tests/engines/test_spark_effects_hidden.py)."""

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sortlint.yml").write_text("target: spark\n")
    (tmp_path / "both.sql").write_text(
        "with s as (select user_id, event_id from events order by user_id)\n"
        "select s.event_id, u.country from s join users u on s.user_id = u.user_id\n"
        "union all\n"
        "select event_id, null from s where user_id is null\n")
    assert main(["check", "--no-cache", "--output-format", "json", "."]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["code"], f["message"], f["effect"], f["fix"]["applicability"]) for f in found] == [(
        "SL002",
        "ORDER BY has no effect: its rows feed a set operation, which does not keep the order of its "
        "inputs. Spark runs this sort: an exchange and a sort",
        {"removes": ["Exchange", "Sort"], "adds": [], "lightens": []},
        "safe",
    )]
