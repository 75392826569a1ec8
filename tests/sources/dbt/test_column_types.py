"""Column types a dbt project gives (issue 20, item 7): `data_type` in its property files,
and `<target-path>/catalog.json` from `dbt docs generate`. A type makes a column's facts
those of its type: `host = 'app.example.com'` on a string column is a constant whose fix is
safe, where on a column of unknown type it carries a caveat and its fix is unsafe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sortlint.cli import main

SCHEMA = """\
version: 2
sources:
  - name: raw
    tables:
      - name: logs
        columns:
          - name: host
            data_type: {host_type}
          - name: level
models:
  - name: daily
    columns:
      - name: host
        data_type: string
"""
DAILY = """\
select host, level, count(*) as n
from {{ source('raw', 'logs') }}
where host = 'app.example.com'
group by host, level
"""
READER = "select host, n from {{ ref('daily') }} where host = 'x' order by host, n\n"
CAVEAT = "if logs.host is a plain string: no other type equals 'app.example.com'"
# SL103's fix keeps host as the constant of its type
FIXED_DAILY = DAILY.replace("select host,", "select 'app.example.com' AS host,").replace("by host, level", "by level")


def catalog(nodes: dict[str, dict[str, str]], sources: dict[str, dict[str, str]]) -> str:
    """A catalog.json as `dbt docs generate` writes it: columns by unique id."""

    def entries(tables: dict[str, dict[str, str]]) -> dict:
        return {
            unique_id: {
                "metadata": {"type": "table", "name": unique_id.rsplit(".", 1)[-1]},
                "columns": {name: {"type": type_, "index": i, "name": name, "comment": None}
                            for i, (name, type_) in enumerate(columns.items(), 1)},
                "stats": {}, "unique_id": unique_id,
            }
            for unique_id, columns in tables.items()
        }

    return json.dumps({"metadata": {"dbt_version": "1.10.0"}, "nodes": entries(nodes),
                       "sources": entries(sources), "errors": None})


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    files = {
        "sortlint.yml": "target: spark\n",
        "dbt_project.yml": "name: shop\n",
        "models/schema.yml": SCHEMA.format(host_type="string"),
        "models/daily.sql": DAILY,
        "models/reader.sql": READER,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *flags: str) -> list[str]:
    capsys.readouterr()
    main(["check", "--dbt-renderer", "builtin", "--no-cache", *flags, "."])
    return [line for line in capsys.readouterr().out.splitlines() if ": SL" in line]


def test_a_data_type_makes_the_fix_safe(project, capsys):
    assert check(capsys) == [
        "models/daily.sql:4:10: SL103 [*] group key host is constant: "
        "WHERE logs.host = 'app.example.com' (line 3) [query]",
        # daily's own `data_type` of host
        "models/reader.sql:1:66: SL003 [*] sort key host is constant: WHERE daily.host = 'x' (line 1) [query]",
    ]
    check(capsys, "--fix")
    assert (project / "models/daily.sql").read_text() == FIXED_DAILY
    assert (project / "models/reader.sql").read_text() == READER.replace("order by host, n", "order by n")


@pytest.mark.parametrize("host_type", ["text", "varchar2(10)", "timestmp", "''"])
def test_a_data_type_sortlint_does_not_read_leaves_the_type_unknown(project, capsys, host_type):
    (project / "models/schema.yml").write_text(SCHEMA.format(host_type=host_type))
    assert check(capsys)[0] == (
        f"models/daily.sql:4:10: SL103 group key host is constant: WHERE logs.host = 'app.example.com' "
        f"(line 3), {CAVEAT} [query]"
    )
    check(capsys, "--fix")
    assert (project / "models/daily.sql").read_text() == DAILY


def test_the_catalog_of_dbt_docs_generate_gives_the_types_the_property_files_do_not(project, capsys):
    (project / "models/schema.yml").write_text(SCHEMA.format(host_type="text"))
    (project / "target").mkdir()
    (project / "target/catalog.json").write_text(catalog(
        # The property file's `data_type: string` of daily.host wins over the catalog's; a
        # table of another package is another table. (A binary host: no fact, no finding.)
        nodes={"model.shop.daily": {"HOST": "binary", "n": "bigint"}, "seed.shop.countries": {"code": "string"}},
        sources={"source.other_package.raw.logs": {"host": "binary"},
                 "source.shop.raw.logs": {"host": "string", "level": "string"}},
    ))
    assert check(capsys) == [
        "models/daily.sql:4:10: SL103 [*] group key host is constant: "
        "WHERE logs.host = 'app.example.com' (line 3) [query]",
        "models/reader.sql:1:66: SL003 [*] sort key host is constant: WHERE daily.host = 'x' (line 1) [query]",
    ]


def test_the_catalog_is_read_under_the_projects_target_path(project, capsys):
    (project / "dbt_project.yml").write_text("name: shop\ntarget-path: build\n")
    (project / "models/schema.yml").write_text(SCHEMA.format(host_type="text"))
    (project / "build").mkdir()
    (project / "build/catalog.json").write_text(catalog({}, {"source.shop.raw.logs": {"host": "string"}}))
    assert check(capsys)[0].startswith("models/daily.sql:4:10: SL103 [*] group key host is constant")


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"nodes": []}', '{"sources": {"source.shop.raw.logs": 1}}'])
def test_a_catalog_that_does_not_read_as_one_gives_nothing(project, capsys, text):
    (project / "models/schema.yml").write_text(SCHEMA.format(host_type="text"))
    (project / "target").mkdir()
    (project / "target/catalog.json").write_text(text)
    assert CAVEAT in check(capsys)[0]


def test_a_type_sortlint_yml_declares_wins(project, capsys):
    # sortlint's own declaration of logs (no type for host) is the contract; the data_type
    # fills what it leaves open: host is a string, level stays of unknown type.
    (project / "sortlint.yml").write_text(
        "target: spark\nsources:\n  raw.logs:\n    columns: {host: null, level: null}\n    unique: [[level]]\n"
    )
    assert check(capsys)[0].startswith("models/daily.sql:4:10: SL103 [*] group key host is constant")
    (project / "sortlint.yml").write_text(
        "target: spark\nsources:\n  raw.logs:\n    columns: {host: binary, level: null}\n"
    )
    # a binary compared with a string: not modelled, no fact (the declared type wins)
    assert [line for line in check(capsys) if "daily.sql" in line] == []

