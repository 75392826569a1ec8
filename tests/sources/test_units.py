"""A unit maps its own offsets to raw file positions: lines and columns a person reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sortlint.sources.units import LinearMap, Unit


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
