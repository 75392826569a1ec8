"""Specification: a fix that keeps Spark's plan but drops a key from an operator that stays
says so (`effect.lightens`: the operators then run by fewer keys), and only a fix whose
operators are all absent or unchanged says "no runtime effect". Spark plans each fixed query
here: every operator the prediction lightens is in the fixed plan (counts cannot show fewer
keys - benchmarks/spark_gain.py measures the time: docs/rules/index.md#effects)."""

from __future__ import annotations

import json

import pytest

from sortlint.cli import main
from sortlint.integrations.spark.plan_effect import statement_counts
from spark_support import NEEDS_SPARK, spark  # noqa: F401  (the session fixture)

pytestmark = NEEDS_SPARK

CATALOG = (
    "target: spark\nsources:\n  lit_events:\n"
    "    columns: {id: bigint not null, k: bigint not null, s: string not null, v: bigint not null}\n"
)
# query -> (code, removes, adds, lightens, words)
CASES = {
    "a constant sort key": (
        "SELECT id, s FROM lit_events WHERE s = 'a' ORDER BY s, id",
        ("SL003", [], [], ["Exchange", "Sort"], "same plan: an exchange and a sort by fewer keys"),
    ),
    "a constant string group key": (
        "SELECT s, k, count(*) AS n FROM lit_events WHERE s = 'a' GROUP BY s, k",
        ("SL103", [], [], ["HashAggregate"], "same plan: a hash aggregate by fewer keys"),
    ),
    "a constant window order key": (
        "SELECT id, row_number() OVER (PARTITION BY k ORDER BY s, v) AS r FROM lit_events WHERE s = 'a'",
        ("SL201", [], [], ["Sort", "Window"], "same plan: a sort and a window by fewer keys"),
    ),
    "a window partition key": (
        "SELECT id, sum(v) OVER (PARTITION BY id, k) AS t FROM lit_events WHERE k = 3",
        ("SL201", [], [], ["Exchange", "Sort", "Window"], "same plan: an exchange, a sort and a window by fewer keys"),
    ),
    # Spark drops the sort under an aggregate that ignores order: nothing runs by fewer keys.
    "a sort Spark drops itself": (
        "SELECT k, count(*) AS n FROM (SELECT k, v FROM lit_events ORDER BY v) e GROUP BY k",
        ("SL002", [], [], [], "no runtime effect"),
    ),
}


@pytest.fixture(scope="module")
def lit_events(spark):  # noqa: F811
    # Repartitioned: a range's rows are partitioned and sorted by id, which no table's are.
    spark.range(0, 200, 1, 4).selectExpr("id", "id % 7 AS k", "'a' AS s", "id % 5 AS v").repartition(4) \
        .createOrReplaceTempView("lit_events")
    yield
    spark.catalog.dropTempView("lit_events")


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> dict[str, tuple[dict, str]]:
    """Each case's one finding's JSON effect, and its fixed text."""
    root = tmp_path_factory.mktemp("lightened")
    (root / "sortlint.yml").write_text(CATALOG)
    for i, (query, _) in enumerate(CASES.values()):
        (root / f"q{i}.sql").write_text(query + "\n")
    found = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        main(["check", "--no-cache", "--output-format", "json", "--output-file", "r.json", "."])
        findings = json.loads((root / "r.json").read_text())
        main(["check", "--no-cache", "--fix", "--unsafe-fixes", "."])
    for i, name in enumerate(CASES):
        mine = [f for f in findings if f["path"] == f"q{i}.sql"]
        assert len(mine) == 1, mine
        found[name] = (mine[0], (root / f"q{i}.sql").read_text().strip())
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_the_effect_names_the_operators_a_fix_lightens(spark, lit_events, reported, name):  # noqa: F811
    query, (code, removes, adds, lightens, words) = CASES[name]
    finding, fixed = reported[name]
    assert finding["code"] == code
    assert finding["effect"] == {"removes": removes, "adds": adds, "lightens": lightens}
    from sortlint.diagnostics import Effect

    assert Effect(tuple(removes), tuple(adds), tuple(lightens)).words() == words
    assert fixed != query
    before, after = statement_counts(spark, query), statement_counts(spark, fixed)
    assert before == after  # the same plan
    assert all(after[operator] for operator in lightens)
