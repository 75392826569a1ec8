"""A unit maps its own offsets to raw file positions: lines and columns a person reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from sortlint.diagnostics import UneditableRegion, apply_edits
from sortlint.units import LinearMap, Unit


def unit_at(raw: str, text: str) -> Unit:
    start = raw.index(text)
    return Unit(Path("q.sql"), text, start, raw)


def test_linear_map_shifts_by_the_start():
    raw = "SELECT 1;\nSELECT 2"
    unit = unit_at(raw, "SELECT 2")
    assert unit.raw_offset(0) == 10
    assert unit.raw_offset(7) == 17
    assert LinearMap(10).to_raw(3) == 13


def test_location_is_one_based_line_and_column_in_the_raw_file():
    raw = "-- header\nSELECT a,\n       b\nFROM t"
    unit = unit_at(raw, "SELECT a,\n       b\nFROM t")
    assert unit.location(0) == (2, 1)
    assert unit.location(unit.text.index("b")) == (3, 8)
    assert unit.location(unit.text.index("FROM")) == (4, 1)


def test_crlf_counts_one_line_break_and_columns_count_characters():
    raw = "SELECT 1;\r\n\r\nSELECT é,\r\n  b\r\nFROM t"
    unit = unit_at(raw, "SELECT é,\r\n  b\r\nFROM t")
    assert unit.location(0) == (3, 1)
    assert unit.location(unit.text.index("é")) == (3, 8)
    assert unit.location(unit.text.index(",")) == (3, 9)
    assert unit.location(unit.text.index("b")) == (4, 3)
    assert unit.location(unit.text.index("FROM")) == (5, 1)


def test_an_offset_map_can_be_non_linear():
    @dataclass(frozen=True)
    class Placeholder:
        """`{{ x }}` in the raw text was rendered as `t` in the unit."""

        def to_raw(self, offset: int) -> int:
            return offset if offset < 14 else offset + 6

    raw = "SELECT a FROM {{ x }} WHERE b"
    unit = Unit(Path("m.sql"), "SELECT a FROM t WHERE b", 0, raw, kind="jinja", offsets=Placeholder())
    assert unit.raw_offset(unit.text.index("WHERE")) == raw.index("WHERE")
    assert unit.location(unit.text.index("b")) == (1, raw.index("b") + 1)


def test_an_edit_of_unit_text_is_an_edit_of_the_raw_file():
    raw = "-- header\nSELECT a, b\nFROM t"
    unit = unit_at(raw, "SELECT a, b\nFROM t")
    edit = unit.edit(unit.text.index(","), unit.text.index("b") + 1, "")
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (2, 9, 2, 12)
    assert (edit.start, edit.end) == (raw.index(","), raw.index("b") + 1)
    assert apply_edits(raw, [edit]) == "-- header\nSELECT a\nFROM t"


def test_an_offset_map_refuses_an_edit_and_encodes_what_it_inserts():
    @dataclass(frozen=True)
    class Quoted:
        """The unit is the value of `'...'` from raw offset 7: quotes are escaped there."""

        def to_raw(self, offset: int) -> int:
            return offset + 7

        def uneditable(self, start: int, end: int) -> str | None:
            return "the edit would change the macro {{ ds }}" if start < 6 else None

        def encode(self, text: str) -> str:
            return text.replace("'", "\\'")

    raw = "sql = 'SELECT a FROM t'"
    unit = Unit(Path("d.py"), "SELECT a FROM t", 7, raw, offsets=Quoted())
    with pytest.raises(UneditableRegion, match="macro"):
        unit.edit(0, 6, "")
    edit = unit.edit(8, 8, " AS 'x'")
    assert edit.content == " AS \\'x\\'"
    assert apply_edits(raw, [edit]) == "sql = 'SELECT a AS \\'x\\' FROM t'"
