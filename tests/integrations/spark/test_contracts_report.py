"""Specification: `contracts --write-report` records what held, when and for which version of
each table; `check`, when the configuration names the report (`contracts_report:`), says in
every finding that rests on declarations whether each of them was verified."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from spark_commands import run_cli, write_config, write_files
from spark_support import NEEDS_SPARK, spark  # noqa: F401  (the session fixture)

QUERY = "SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id, region ORDER BY customer_id;\n"


@pytest.fixture()
def repository(tmp_path):
    rows = [{"order_id": i, "customer_id": i % 3, "region": "EU"} for i in range(12)]
    write_files(tmp_path / "orders", [rows[:8], rows[8:]])
    write_config(
        tmp_path,
        """
        contracts_report: reports/contracts.json
        sources:
          orders:
            location: orders
            columns: {order_id: bigint not null, customer_id: bigint, region: string}
            constants: {region: EU}
            unique: [[order_id], [customer_id]]
        """,
    )
    (tmp_path / "q.sql").write_text(QUERY)
    return tmp_path


FINDING = (
    "q.sql:1:69: SL103 [*unsafe] group key region is constant: declared constant region = 'EU' "
    "of orders (sortlint.yml:3)"
)


def test_without_a_report_yet_the_findings_say_never_verified(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    code, out, _ = run_cli(capsys, "check", "q.sql")
    assert code == 1
    assert out.splitlines()[0] == (
        f"{FINDING} (contracts: constant region = 'EU' of orders never verified) [declared]"
    )


@pytest.mark.spark
@NEEDS_SPARK[1]
def test_check_cites_what_contracts_recorded(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    code, _, _ = run_cli(capsys, "contracts", "--write-report", "reports/contracts.json")
    assert code == 1  # the unique key (customer_id) is violated
    report = json.loads((repository / "reports" / "contracts.json").read_text())
    [table] = report["tables"]
    assert report["format"] == "sortlint-contracts-report/2"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", table["checked_at"])
    assert table["version"]["format"] == "files" and table["version"]["files"] == 2
    assert [(d["kind"], d["declaration"], d["status"]) for d in table["declarations"]] == [
        ("columns", "order_id bigint not null, customer_id bigint, region string", "holds"),
        ("not_null", "order_id", "holds"),
        ("constant", "region = 'EU'", "holds"),
        ("unique", "(order_id)", "holds"),
        ("unique", "(customer_id)", "violated"),
    ]
    code, out, _ = run_cli(capsys, "check", "q.sql")
    modified = table["version"]["modified"][:19]
    assert out.splitlines()[0] == (
        f"{FINDING} (contracts: constant region = 'EU' of orders held on {table['checked_at']}, "
        f"2 files, newest modified {modified}) [declared]"
    )


@pytest.mark.spark
@NEEDS_SPARK[1]
def test_a_violated_declaration_is_said_loudly(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    (repository / "q.sql").write_text("SELECT customer_id FROM orders GROUP BY customer_id, order_id;\n")
    run_cli(capsys, "contracts", "--write-report", "reports/contracts.json")
    code, out, _ = run_cli(capsys, "check", "q.sql", "--output-format", "json")
    [finding] = json.loads(out)
    assert finding["code"] == "SL103"
    message = re.sub(r"on \S+Z, 2 files, newest modified \S+:", "on <time>:", finding["message"])
    assert message == (
        "group key order_id is determined by the earlier keys: declared unique key (customer_id) of "
        "orders (sortlint.yml:3) (contracts: unique (customer_id) of orders VIOLATED on <time>: 3 keys "
        "are shared by several of 12 rows: (customer_id=0) × 4; (customer_id=1) × 4; (customer_id=2) × 4)"
    )


def test_a_report_that_is_not_one_is_an_error(repository, capsys, monkeypatch):
    monkeypatch.chdir(repository)
    (repository / "reports").mkdir()
    (repository / "reports" / "contracts.json").write_text("{\n  \"tables\": [\n")
    code, out, err = run_cli(capsys, "check", "q.sql")
    assert code == 2
    assert err == (
        f"error: {repository / 'reports' / 'contracts.json'}:3: not a contracts report "
        "(invalid JSON: Expecting value)\n"
    )
    assert textwrap.dedent(out) == ""


def test_a_layout_finding_says_what_the_report_knows_of_its_ordering(tmp_path, capsys, monkeypatch):
    """SL301 rests on the written table's declared ordering, as SL103 rests on a constant."""
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        """
        contracts_report: reports/contracts.json
        sources:
          src:
            columns: {k: bigint not null}
          w:
            columns: {k: bigint not null}
            orderings: [[k]]
        """,
    )
    (tmp_path / "q.sql").write_text("INSERT INTO w SELECT k FROM src;\n")
    code, out, _ = run_cli(capsys, "check", "q.sql")
    assert code == 1
    assert out.splitlines()[0] == (
        "q.sql:1:1: SL301 [*unsafe] the write into w does not keep its layout, the declared ordering "
        "[k ASC NULLS FIRST] of w (sortlint.yml:7): the rows need a final ORDER BY k; the rows come "
        "in no known order (contracts: ordering [k ASC NULLS FIRST] of w never verified) [declared]"
    )
