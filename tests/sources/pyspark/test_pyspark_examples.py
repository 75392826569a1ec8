"""The example PySpark jobs (examples/jobs): their findings and their fixes, exactly.

Spark proves the fixed jobs keep their columns in tests/plan/test_dataframe_spark_proof.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import load_config
from sortlint.workspace.check import check

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

FINDINGS = [
    ("jobs/orders_rollup.py", 13, "SL002", "safe"),
    ("jobs/orders_rollup.py", 30, "SL101", "safe"),
    ("jobs/orders_rollup.py", 42, "SL301", "unsafe"),
    ("jobs/orders_rollup.py", 45, "SL103", "unsafe"),
    ("jobs/orders_rollup.py", 51, "SL003", "unsafe"),
    ("jobs/orders_rollup.py", 61, "SL002", "safe"),
    ("jobs/sessionize_events.py", 24, "SL201", "safe"),
    ("jobs/sessionize_events.py", 60, "SL003", "safe"),
]

FIXES = {
    "orders_rollup.py": [
        ('    biggest_first = paid.orderBy(F.col("amount").desc())\n', "    biggest_first = paid\n"),
        ('        .groupBy("line_no", "order_id")\n'
         '        .agg(F.sum(F.col("quantity") * F.col("price")).alias("revenue"))\n',
         '        .groupBy("order_id", "line_no")\n'
         '        .agg(F.sum(F.col("quantity") * F.col("price")).alias("revenue"))'
         '.select("line_no", "order_id", "revenue")\n'),
        ('per_day.write.mode("overwrite")',
         'per_day.orderBy("customer_id", "order_date").write.mode("overwrite")'),
        ('orders.groupBy("order_id", "customer_id").agg(F.sum("amount").alias("amount"))\n',
         'orders.groupBy("order_id").agg(F.any_value("customer_id").alias("customer_id"), '
         'F.sum("amount").alias("amount"))\n'),
        ('.orderBy("region", F.col("amount").desc())', '.orderBy(F.col("amount").desc())'),
        ("            ORDER BY created_at\n", ""),
    ],
    "sessionize_events.py": [
        ('Window.partitionBy("host").orderBy("host", "time")', 'Window.partitionBy("host").orderBy("time")'),
        ('        .orderBy("host", "time")\n', '        .orderBy("time")\n'),
    ],
}


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    root = tmp_path_factory.mktemp("examples") / "repo"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("__pycache__"))
    jobs = sorted((root / "jobs").glob("*.py"))
    before = {path: path.read_text() for path in jobs}
    result = check([root / "jobs"], load_config(root / "sortlint.yml"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["check", "--fix", "--unsafe-fixes", "jobs"]) == 0
    return root, result, before, {path: path.read_text() for path in jobs}


def test_the_example_jobs_findings(fixed):
    root, result, _, _ = fixed
    assert not result.all_errors
    assert [
        (Path(f.path).relative_to(root).as_posix(), f.line, f.code, f.fix.applicability)
        for f in result.findings
    ] == FINDINGS


def test_the_example_jobs_fixes_exactly(fixed):
    root, _, before, after = fixed
    expected = dict(before)
    for name, replacements in FIXES.items():
        path = root / "jobs" / name
        for old, new in replacements:
            assert expected[path].count(old) == 1, (name, old)
            expected[path] = expected[path].replace(old, new)
    assert after == expected
    for text in after.values():
        compile(text, "job.py", "exec")


def test_fixing_the_example_jobs_twice_changes_nothing(fixed):
    root, _, _, after = fixed
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["check", "--fix", "--unsafe-fixes", "jobs"]) == 0
    assert {path: path.read_text() for path in after} == after


def test_the_example_jobs_are_checked_from_the_examples_root(fixed):
    root, _, _, _ = fixed
    config = load_config(root / "sortlint.yml")
    assert any(glob.startswith("jobs/") for glob in config.include)
