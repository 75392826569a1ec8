"""Whatever the input - random bytes, SQL, Python or YAML cut off anywhere, random Jinja in a
dbt model - `sortlint check` ends with 0, 1 or 2, shows no traceback, and meets no bug of
its own (an internal error would be one: the input's problems are the user's errors)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sortlint.cli import main
from sortlint.errors import InternalError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SQL = sorted(EXAMPLES.rglob("*.sql"))
PYTHON = sorted(EXAMPLES.rglob("*.py"))
CATALOG = (EXAMPLES / "sortlint.yml").read_text()
DBT_PROJECT = (EXAMPLES / "dbt" / "dbt_project.yml").read_text()

# Each example is a whole check: a bounded slice in `make test`, the profile's count in
# `make fuzz`.
EXAMPLES_PER_TEST = None if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 60
BOUNDED = settings(
    max_examples=EXAMPLES_PER_TEST or settings.default.max_examples,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def check(files: dict[str, bytes], capsys) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        code = main(["check", "--jobs", "1", str(root)])
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert code in (0, 1, 2), shown
    assert "Traceback" not in shown
    assert InternalError.ISSUES not in shown, shown  # what every internal error asks


def cut(data: bytes, at: float) -> bytes:
    return data[: int(len(data) * at)]


@BOUNDED
@given(st.binary(max_size=400), st.sampled_from(["q.sql", "job.py", "sortlint.yml"]))
def test_random_bytes(capsys, data, name):
    check({name: data, "other.sql": b"SELECT a FROM t ORDER BY a;\n"}, capsys)


@BOUNDED
@given(st.sampled_from(SQL + PYTHON), st.floats(0, 1), st.sampled_from([b"", b"\xef\xbb\xbf"]))
def test_sql_and_python_cut_off_anywhere(capsys, source, at, mark):
    catalog = CATALOG.encode()
    check({"sortlint.yml": catalog, f"x/{source.name}": mark + cut(source.read_bytes(), at)}, capsys)


@BOUNDED
@given(st.floats(0, 1), st.sampled_from(SQL))
def test_a_catalog_cut_off_anywhere(capsys, at, source):
    check({"sortlint.yml": cut(CATALOG.encode(), at), source.name: source.read_bytes()}, capsys)


JINJA = st.sampled_from([
    "{{", "}}", "{%", "%}", "{#", "#}", " ref('stg_orders') ", " source('shop', 'orders') ",
    " if is_incremental() ", " endif ", " for x in [1, 2] ", " endfor ", " var('report_start') ",
    " config(materialized='table') ", "select ", "order_id", ", ", " from ", " where ", " = ",
    "'2024-01-01'", " order by ", " group by ", "\n", ";", "(", ")", " x ", "-- c\n", "/*", "*/",
])


@BOUNDED
@given(st.lists(JINJA, max_size=40))
def test_random_jinja_in_a_dbt_model(capsys, pieces):
    check({
        "sortlint.yml": CATALOG.encode(),
        "dbt/dbt_project.yml": DBT_PROJECT.encode(),
        "dbt/models/stg_orders.sql": b"select order_id, amount from {{ source('shop', 'orders') }}\n",
        "dbt/models/random.sql": "".join(pieces).encode(),
    }, capsys)
