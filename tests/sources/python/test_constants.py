"""One evaluator of Python constants serves the DAG and PySpark front ends: literals, names a
front end knows, `-x`, `+` of strings and lists, arithmetic on numbers, path arithmetic and
f-string fields; anything known only at run time is UNKNOWN."""

from __future__ import annotations

from pathlib import Path, PurePath

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from sortlint.sources.python.constants import UNKNOWN, Evaluator, fold, formatted
from sortlint.sources.python.strings import SourceSpans


class Names(Evaluator):
    """A file whose names hold what `bound` says."""

    def __init__(self, source: str, bound: dict[str, object], file: Path | None = None) -> None:
        module = cst.parse_module(source)
        super().__init__(source, SourceSpans(MetadataWrapper(module, unsafe_skip_copy=True), source), file)
        self.module = module
        self.bound = bound

    def name_value(self, name: str, depth: int) -> object:
        return self.bound.get(name, UNKNOWN)

    def value(self) -> object:
        return self.evaluate(self.module.body[0].body[0].value)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = 'a' 'b'", "ab"),
        ("x = 42", 42),
        ("x = 1_000.5", 1000.5),
        ("x = -3", -3),
        ("x = [True, None, 'a']", [True, None, "a"]),
        ("x = {'k': 1, 2: 'v'}", {"k": 1, 2: "v"}),
        ("x = DB + '.events'", "sales.events"),
        ("x = f'{DB}.{TABLE!r}'", "sales.'t'"),
        ("x = DAYS * 2 - 1", 13),
        ("x = '-' * 3", "---"),
        ("x = dict(a=DB)", {"a": "sales"}),
        ("x = Param(DAYS, type='integer')", 7),
    ],
)
def test_constants_the_file_fixes(source, expected):
    assert Names(source, {"DB": "sales", "TABLE": "t", "DAYS": 7}).value() == expected


@pytest.mark.parametrize(
    "source",
    ["x = run_id", "x = f'{DB:>10}'", "x = f'{ITEMS}'", "x = DB + 1", "x = b'bytes'", "x = call()", "x = '-' * 10**6"],
)
def test_what_is_known_only_at_run_time_is_unknown(source):
    assert Names(source, {"DB": "sales", "ITEMS": [1]}).value() is UNKNOWN


def test_paths_from_the_dag_file(tmp_path):
    file = tmp_path / "dags" / "d.py"
    assert Names("x = Path(__file__).parent / 'sql'", {}, file).value() == file.resolve().parent / "sql"
    assert Names("x = os.path.join(os.path.dirname(__file__), 'sql')", {}, file).value() == str(
        file.resolve().parent / "sql"
    )
    assert Names("x = __file__", {}).value() is UNKNOWN  # no file: not known


def test_folding_and_formatting():
    assert fold("+", [1], [2]) == [1, 2]
    assert fold("+", "a", 1) is UNKNOWN
    assert fold("/", PurePath("a"), "b") == PurePath("a/b")
    assert fold("-", True, 1) is UNKNOWN  # a bool is not a number here
    assert formatted(1.5, None, False) == "1.5"
    assert formatted("x", "r", False) == "'x'"
    assert formatted("x", None, True) is UNKNOWN
    assert formatted(UNKNOWN, None, False) is UNKNOWN
