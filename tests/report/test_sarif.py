"""`--output-format sarif`: a SARIF 2.1.0 log that validates against the OASIS schema, with
every rule described, fixes as replacements, and fingerprints that survive line moves."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from sortlint import __version__
from sortlint.cli import main
from sortlint.linter.rules import rules


def shared_schema() -> Path:
    """The schema in the steering repository's `shared/schemas/`, next to this repository
    (or to the work tree this test runs from)."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "schemas" / "sarif-2.1.0.json"
        if candidate.is_file():
            return candidate
    pytest.fail("shared/schemas/sarif-2.1.0.json is not next to the repository")


# Constants declared without the engine knowing them (fixes unsafe).
CATALOG = (
    "sources:\n  events:\n    columns: {host: string not null, time: timestamp not null, level: string}\n"
    "    constants: {host: h, time: '2024-01-01 00:00:00'}\n    engine_known: false\ntarget: datafusion\n"
)
QUERIES = """\
SELECT host, time FROM events ORDER BY host, time;
SELECT host FROM events WHERE level = 'x' ORDER BY level, host;
SELECT host FROM events ORDER BY host, time;
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text(QUERIES)
    (tmp_path / "broken.sql").write_text("SELECT (;\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sarif(capsys, *paths: str) -> dict:
    assert main(["check", "--output-format", "sarif", *paths]) in (1, 2)
    return json.loads(capsys.readouterr().out)


def test_the_log_validates_against_the_sarif_2_1_0_schema(repo, capsys):
    log = sarif(capsys, "q.sql", "broken.sql")
    schema = json.loads(shared_schema().read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(log)
    assert log["version"] == "2.1.0"


def test_the_driver_describes_every_rule(repo, capsys):
    driver = sarif(capsys, "q.sql")["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("sortlint", __version__)
    assert [r["id"] for r in driver["rules"]] == [rule.code for rule in rules()]
    first = driver["rules"][0]
    assert first == {
        "id": "SL001",
        "name": "unnecessary-sort",
        "shortDescription": {"text": "Reports an `ORDER BY` whose whole requirement the rows already satisfy when they reach it."},
        "fullDescription": {"text": "Reports an `ORDER BY` whose whole requirement the rows already satisfy when they reach it."},
        "help": {"text": rules()[0].doc.strip(), "markdown": rules()[0].doc.strip()},
        "helpUri": "https://sortlint.readthedocs.io/en/latest/rules/unnecessary-sort/",
        "defaultConfiguration": {"level": "warning"},
    }
    assert all(rule["fullDescription"]["text"] and rule["helpUri"] for rule in driver["rules"])


def test_rule_links_point_at_a_teams_mirror_when_the_configuration_names_one(repo, capsys):
    (repo / "sortlint.yml").write_text(CATALOG + "docs_url: https://docs.example.com/sortlint\n")
    driver = sarif(capsys, "q.sql")["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://docs.example.com/sortlint/"
    assert driver["rules"][0]["helpUri"] == "https://docs.example.com/sortlint/rules/unnecessary-sort/"


def test_a_result_with_its_region_fingerprint_and_fix(repo, capsys):
    run = sarif(capsys, "q.sql")["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    first = run["results"][0]
    fingerprint = first["partialFingerprints"]["sortlint/v1"]
    assert len(fingerprint) == 32
    assert first == {
        "ruleId": "SL001",
        "ruleIndex": 0,
        "level": "warning",
        "message": {"text": first["message"]["text"]},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "q.sql", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 1, "startColumn": 31, "endLine": 1, "endColumn": 50},
        }}],
        "partialFingerprints": {"sortlint/v1": fingerprint},
        "properties": {"basis": "declared"},
        "fixes": [{
            "description": {"text": "remove the ORDER BY (unsafe)"},
            "artifactChanges": [{
                "artifactLocation": {"uri": "q.sql", "uriBaseId": "%SRCROOT%"},
                "replacements": [{
                    "deletedRegion": {"startLine": 1, "startColumn": 30, "endLine": 1, "endColumn": 50},
                    "insertedContent": {"text": ""},
                }],
            }],
            "properties": {"applicability": "unsafe"},
        }],
    }
    assert first["message"]["text"] == (
        "ORDER BY [host ASC NULLS LAST, time ASC NULLS LAST] is already satisfied by its input: declared "
        "constant host = 'h' of events (sortlint.yml:2); declared constant time = '2024-01-01 00:00:00' of "
        "events (sortlint.yml:2)"
    )


def test_fingerprints_are_stable_across_runs_and_line_moves(repo, capsys):
    before = [r["partialFingerprints"]["sortlint/v1"] for r in sarif(capsys, "q.sql")["runs"][0]["results"]]
    assert before == [r["partialFingerprints"]["sortlint/v1"] for r in sarif(capsys, "q.sql")["runs"][0]["results"]]
    (repo / "q.sql").write_text("-- a comment moves every line down\n\n" + QUERIES)
    moved = sarif(capsys, "q.sql")["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in moved] == [3, 4, 5]
    assert [r["partialFingerprints"]["sortlint/v1"] for r in moved] == before
    # Two identical findings in one file (lines 1 and 3) are told apart.
    assert len(set(before)) == len(before)


def test_errors_are_notifications_of_an_unsuccessful_run(repo, capsys):
    invocation = sarif(capsys, "q.sql", "broken.sql")["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "broken.sql", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 1},
    }}]
    assert capsys.readouterr().err == ""  # the log holds the error


def test_a_path_outside_the_current_directory_is_a_file_uri(repo, capsys, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run = sarif(capsys, str(repo / "q.sql"), "--config", str(repo / "sortlint.yml"))["runs"][0]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": (repo / "q.sql").as_uri()}


def test_a_result_under_target_spark_carries_its_effect(repo, capsys):
    (repo / "sortlint.yml").write_text(CATALOG.replace("target: datafusion\n", "target: spark\n"))
    first = sarif(capsys, "q.sql")["runs"][0]["results"][0]
    assert first["ruleId"] == "SL001"
    assert first["properties"] == {
        "basis": "declared",
        "effect": {"removes": ["Exchange", "Sort"], "adds": [], "lightens": [], "text": "saves an exchange and a sort"},
    }
