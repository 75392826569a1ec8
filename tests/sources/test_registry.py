"""The registry names every front end once: which files each reads, in which order, how its
units become plans and how fixes are written in them."""

from __future__ import annotations

from pathlib import Path

from sortlint.config import Config
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import FRONT_ENDS, SUFFIXES, fixes_for, load, unit_kind, units_of


def test_every_function_the_registry_names_loads():
    for front_end in FRONT_ENDS:
        assert callable(load(front_end.units))
        for kind in front_end.kinds.values():
            assert callable(load(kind.build))
            assert load(kind.fixes).group_by in ("GROUP BY", "groupBy")
    assert SUFFIXES == (".sql", ".hql", ".py")


def test_a_sql_file_belongs_to_the_first_front_end_that_claims_it(tmp_path: Path):
    reading = Reading(Config(root=tmp_path))
    plain = units_of(tmp_path / "q.sql", "SELECT 1; SELECT 2", reading)
    templated = units_of(tmp_path / "t.sql", "SELECT {{ 1 + 1 }} AS two", reading)
    assert [(u.kind, u.text) for u in plain] == [("sql", "SELECT 1"), ("sql", "SELECT 2")]
    assert [(u.kind, u.text) for u in templated] == [("sql", "SELECT 2 AS two")]


def test_every_python_front_end_reads_a_python_file(tmp_path: Path):
    raw = (
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "SQLExecuteQueryOperator(task_id='t', sql='SELECT 1 AS one')\n"
        "spark.table('events').write.saveAsTable('copy')\n"
    )
    units = units_of(tmp_path / "job.py", raw, Reading(Config(root=tmp_path)))
    assert sorted(u.kind for u in units) == ["pyspark", "sql"]


def test_unit_kinds_know_their_builders_and_fix_shapes():
    assert unit_kind("dbt_model").build == "sortlint.sources.dbt.models:build_model"
    assert fixes_for("sql") is fixes_for("dbt_model")
    assert fixes_for("pyspark").group_by == "groupBy"
