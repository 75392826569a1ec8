"""A fixed-seed slice of the writer fuzzer (`tests/fuzz/writes.py`): writes into tables with a
declared layout, each one's SL301 and fix checked against the files Spark writes."""

from __future__ import annotations

import pytest

import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)

from fuzz.writes import fuzz_writes

pytestmark = spark_support.NEEDS_SPARK

SEED = 20
COUNT = 30


@pytest.fixture(scope="module")
def report(spark, tmp_path_factory):  # noqa: F811
    return fuzz_writes(spark, SEED, COUNT, tmp_path_factory.mktemp("write-fuzz"))


def test_the_slice_covers_the_writers_shapes(report):
    shapes = " | ".join(report.shapes)
    for shape in ("limit", "distribute by", "cluster by", "ctas", "sort by", "order by"):
        assert shape in shapes, shape
    assert report.outcomes["fixed"] > 0 and report.outcomes["kept"] > 0


def test_every_write_fix_plans_keeps_the_rows_and_writes_the_layout(report):
    assert report.failures == []
