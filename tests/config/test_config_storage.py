"""Specification: the catalog's storage declarations — `bucketing`, `location`/`format`/`options`
and the top-level `contracts_report` — read into typed objects, and every mistake in them an
error naming the file, the line and what is wrong."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.config.model import Bucketing, Location, Storage
from sortlint.errors import ConfigError


def load(tmp_path: Path, text: str):
    path = tmp_path / "sortlint.yml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return load_config(path)


def error(tmp_path: Path, text: str) -> tuple[int | None, str]:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    assert caught.value.path == tmp_path / "sortlint.yml"
    return caught.value.line, caught.value.message


def test_bucketing_is_read_with_its_line(tmp_path):
    config = load(
        tmp_path,
        """
        sources:
          sales.customers:
            columns: {customer_id: bigint, name: string}
            bucketing: {by: [customer_id], buckets: 8, sorted_by: [Customer_ID]}
        """,
    )
    path = tmp_path / "sortlint.yml"
    assert config.sources[0].bucketing == Bucketing(
        ("customer_id",), 8, ("customer_id",), Location(path, 4)
    )
    assert config.sources[0].storage is None


def test_bucketing_without_sorted_by(tmp_path):
    config = load(tmp_path, "sources:\n  t:\n    bucketing: {by: [a, b], buckets: 2}\n")
    assert config.sources[0].bucketing.sorted_by == ()
    assert config.sources[0].bucketing.by == ("a", "b")


@pytest.mark.parametrize(
    ("bucketing", "line", "message"),
    [
        ("{buckets: 4}", 3, "bucketing of source 't' needs 'by'"),
        ("{by: [a]}", 3, "bucketing of source 't' needs 'buckets'"),
        ("{by: [], buckets: 4}", 3, "empty 'by' in bucketing of source 't'; list at least one column"),
        ("{by: [a], buckets: 0}", 3, "buckets of bucketing of source 't' must be at least 1, got 0"),
        (
            "{by: [a], buckets: four}",
            3,
            "buckets of bucketing of source 't' must be a whole number, got the string 'four'",
        ),
        (
            "{by: [a], buckets: 2, sorted: [a]}",
            3,
            "unknown key 'sorted' in bucketing of source 't' (did you mean 'sorted_by'?); "
            "allowed keys: buckets, by, sorted_by",
        ),
        (
            "{by: [z], buckets: 2}",
            3,
            "bucketing by names column 'z', which is not among the columns of source 't' (a, b)",
        ),
        (
            "{by: [a], buckets: 2, sorted_by: [b, b]}",
            3,
            "column 'b' appears twice in sorted_by of bucketing of source 't'",
        ),
        ("{by: a, buckets: 2}", 3, "by of bucketing of source 't' must be a list, got the string 'a'"),
    ],
)
def test_bucketing_errors(tmp_path, bucketing, line, message):
    text = f"sources:\n  t:\n    bucketing: {bucketing}\n    columns: {{a: int, b: int}}\n"
    assert error(tmp_path, text) == (line, message)


def test_location_defaults_to_parquet_and_resolves_relative_paths(tmp_path):
    config = load(
        tmp_path,
        """
        sources:
          events:
            location: data/events
          logs:
            location: s3a://bucket/logs/
            format: JSON
          raw:
            location: /abs/raw
            format: csv
            options: {header: true, sep: ";", samplingRatio: 0.5}
        """,
    )
    events, logs, raw = config.sources
    assert events.storage == Storage(str(tmp_path.resolve() / "data" / "events"), "parquet")
    assert logs.storage == Storage("s3a://bucket/logs/", "json")
    assert raw.storage == Storage(
        "/abs/raw", "csv", (("header", "true"), ("sep", ";"), ("samplingRatio", "0.5"))
    )


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            "    format: parquet\n",
            3,
            "format of source 't' needs a location (a table Spark reads by name has its own format)",
        ),
        (
            "    options: {header: true}\n",
            3,
            "options of source 't' needs a location (a table Spark reads by name has its own format)",
        ),
        (
            "    location: /x\n    format: avro\n",
            4,
            "bad format 'avro' for source 't'; expected one of parquet, orc, delta, csv, json",
        ),
        ("    location: ''\n", 3, "empty location for source 't'"),
        ("    location: 3\n", 3, "location of source 't' must be a string, got the integer 3"),
        (
            "    location: /x\n    options: {header: [a]}\n",
            4,
            "option 'header' of source 't' must be a single value, got a list",
        ),
    ],
)
def test_storage_errors(tmp_path, body, line, message):
    assert error(tmp_path, "sources:\n  t:\n" + body) == (line, message)


def test_contracts_report_is_relative_to_the_configuration(tmp_path):
    config = load(tmp_path, "contracts_report: reports/contracts.json\n")
    assert config.contracts_report == tmp_path.resolve() / "reports" / "contracts.json"
    assert load(tmp_path, "target: spark\n").contracts_report is None


def test_contracts_report_must_be_a_file_name(tmp_path):
    assert error(tmp_path, "contracts_report: [a]\n") == (
        1,
        "contracts_report must be a string, got a list",
    )
