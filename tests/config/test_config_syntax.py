"""Specification: the small grammars of catalog strings (types, ordering items, names)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sortlint.config.syntax import ACCEPTED_TYPES, BadText, column_type, ordering_item, table_name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("time", ("time", False, None)),
        ("Time ASC", ("time", False, None)),
        ("time desc", ("time", True, None)),
        ("  time   DESC   NULLS   LAST ", ("time", True, False)),
        ("time nulls first", ("time", False, True)),
        ("time asc nulls last", ("time", False, False)),
        ("`Event Time` desc", ("event time", True, None)),
        ("`a``b`", ("a`b", False, None)),
    ],
)
def test_ordering_items(text, expected):
    assert ordering_item(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty ordering item; expected a column name, e.g. 'time desc'"),
        ("time descending", "bad direction 'descending' in ordering item 'time descending'; expected asc or desc"),
        ("time desc nulls", "bad null placement 'nulls' in ordering item 'time desc nulls'; expected nulls first or nulls last"),
        ("time nulls middle", "bad null placement 'nulls middle' in ordering item 'time nulls middle'; expected nulls first or nulls last"),
        ("time desc nulls last please", "bad null placement 'nulls last please' in ordering item 'time desc nulls last please'; expected nulls first or nulls last"),
        ("time desc asc", "bad null placement 'asc' in ordering item 'time desc asc'; expected nulls first or nulls last"),
    ],
)
def test_bad_ordering_items(text, message):
    with pytest.raises(BadText) as caught:
        ordering_item(text)
    assert str(caught.value) == message


@given(
    column=st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
    direction=st.sampled_from(["", "asc", "desc", "ASC", "Desc"]),
    nulls=st.sampled_from(["", "nulls first", "NULLS LAST", "nulls   last"]),
    gap=st.sampled_from([" ", "  ", "\t"]),
)
def test_any_well_formed_item_reads_back(column, direction, nulls, gap):
    text = gap.join(part for part in (column, direction, nulls) if part)
    expected_nulls = None if not nulls else nulls.lower().split()[1] == "first"
    assert ordering_item(text) == (column, direction.lower() == "desc", expected_nulls)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("int", ("int", True)),
        ("INT NOT NULL", ("int", False)),
        ("timestamp  not   null", ("timestamp", False)),
        ("decimal(10,2)", ("decimal(10,2)", True)),
        ("Decimal ( 10 , 2 ) not null", ("decimal(10,2)", False)),
        ("array<string>", ("array<string>", True)),
        ("array<decimal(10, 2)>", ("array<decimal(10,2)>", True)),
        ("interval year to month not null", ("interval year to month", False)),
        ("interval", ("interval", True)),
        ("Timestamp Without  Time Zone", ("timestamp without time zone", True)),
        ("numeric ( 12 )", ("numeric(12)", True)),
        ("varchar(20) not null", ("varchar(20)", False)),
        ("time(3)", ("time(3)", True)),
        ("struct<a int not null, `b c`: map<string, array<bigint>>>", ("struct<a:int not null,`b c`:map<string,array<bigint>>>", True)),
    ],
)
def test_column_types(text, expected):
    assert column_type(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "not null", "int not nul", "int null", "int nullable", "string garbage", "decimal(10,2",
     "array<string>>", "decimal(10,2) x", "map<string,int)", "(int)", "double precision",
     "timestamp with time zone", "varchar", "char", "decimal(39)", "decimal(10,11)",
     "interval day to month", "time(7)", "binary(4)", "map<string>", "int!"],
)
def test_bad_column_types(text):
    with pytest.raises(BadText, match="^bad column type "):
        column_type(text)


@pytest.mark.parametrize(
    ("text", "unknown", "suggestion"),
    [("timestmp", "timestmp", "timestamp"), ("array<strng>", "strng", "string"), ("text", "text", None),
     ("bool", "bool", "boolean"), ("datetime", "datetime", "time"), ("int64", "int64", "int")],
)
def test_unknown_column_types_name_the_word_and_the_closest_type(text, unknown, suggestion):
    with pytest.raises(BadText) as raised:
        column_type(text)
    message = str(raised.value)
    assert message.startswith(f"unknown column type {unknown!r}")
    assert (f"did you mean {suggestion!r}?" in message) is (suggestion is not None)
    assert message.endswith(f"the types Spark accepts are {ACCEPTED_TYPES}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("events", "events"),
        ("DB.Events", "db.events"),
        ("cat . db . events", "cat.db.events"),
        ("`db`.`events`", "db.events"),
        ("`my-db`.events", "`my-db`.events"),
    ],
)
def test_table_names(text, expected):
    assert table_name(text) == expected


@pytest.mark.parametrize("text", ["", "my events", "a.b.c.d", "db.", "db..events"])
def test_bad_table_names(text):
    with pytest.raises(BadText, match="^bad table name "):
        table_name(text)
