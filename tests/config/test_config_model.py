"""Specification: how the resolved configuration answers the rest of sortlint."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from sortlint.config import Config, Location, Source, parse_source
from sortlint.errors import ConfigError


def node_at(text: str, *steps: str | int) -> yaml.Node:
    """The node reached from the document's root by mapping keys and list indices."""
    node = yaml.compose(textwrap.dedent(text), Loader=yaml.SafeLoader)
    for step in steps:
        if isinstance(step, int):
            node = node.value[step]
        else:
            node = next(value for key, value in node.value if key.value == step)
    return node


def config_with(*names: str) -> Config:
    return Config(sources=tuple(Source(name) for name in names), root=Path("/repo"))


# --- Config.source -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "query", "found"),
    [
        (["events"], "events", "events"),
        (["events"], "EVENTS", "events"),  # Spark names are case-insensitive
        (["db.events"], "db.events", "db.events"),
        (["db.events"], "DB.Events", "db.events"),
        (["db.events"], "events", "db.events"),  # the query's current database is unknown
        (["events"], "db.events", "events"),  # an unqualified declaration covers any database
        (["db.events"], "other.events", None),  # different databases are different tables
        (["db.events"], "cat.db.events", "db.events"),
        (["db.events"], "events2", None),
        (["events", "db.events"], "db.events", "db.events"),  # exact match wins
        (["events", "db.events"], "other.events", "events"),
        (["db.events", "events"], "cat.db.events", "db.events"),  # most shared parts wins
        (["a.events", "b.events"], "events", None),  # ambiguous: no guess
        (["`my-db`.events"], "`MY-DB`.events", "`my-db`.events"),
    ],
)
def test_source_lookup(declared, query, found):
    source = config_with(*declared).source(query)
    assert (source.name if source else None) == found


# --- Config.rule_enabled -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("select", "ignore", "code", "enabled"),
    [
        (("SL",), (), "SL001", True),
        (("SL",), ("SL0",), "SL001", False),  # longer prefix wins
        (("SL",), ("SL0",), "SL101", True),
        (("SL001",), ("SL",), "SL001", True),  # a longer select beats a shorter ignore
        (("SL001",), ("SL",), "SL002", False),
        (("SL1",), ("SL1",), "SL101", False),  # ties go to ignore
        (("SL1",), (), "SL001", False),  # nothing selects it
        ((), (), "SL001", False),
    ],
)
def test_rule_enabled(select, ignore, code, enabled):
    config = Config(select=select, ignore=ignore, root=Path("/repo"))
    assert config.rule_enabled(code) is enabled


# --- Config.with_sources -----------------------------------------------------------------------


def test_with_sources_adds_declarations():
    config = config_with("events")
    merged = config.with_sources([Source("clicks")])
    assert [s.name for s in merged.sources] == ["events", "clicks"]
    assert [s.name for s in config.sources] == ["events"]  # the original is unchanged


def test_with_sources_refuses_a_second_declaration_of_a_table():
    config = Config(
        sources=(Source("events", location=Location(Path("sortlint.yml"), 4)),),
        root=Path("/repo"),
    )
    dbt = Source("events", location=Location(Path("models/schema.yml"), 12))
    with pytest.raises(ConfigError) as caught:
        config.with_sources([dbt])
    assert caught.value.message == (
        "conflicting declarations of table 'events' at sortlint.yml:4 and models/schema.yml:12"
    )
    assert (caught.value.path, caught.value.line) == (Path("models/schema.yml"), 12)


def test_with_sources_refuses_duplicates_among_the_new_ones():
    first = Source("events", location=Location(Path("a.yml"), 1))
    second = Source("events", location=Location(Path("b.yml"), 2))
    with pytest.raises(ConfigError, match="at a.yml:1 and b.yml:2"):
        config_with().with_sources([first, second])


# --- parse_source: reused for dbt `meta: {sortlint: ...}` blocks -------------------------------


def test_parse_source_reads_a_block_nested_anywhere():
    text = """\
        models:
          - name: daily_events
            meta:
              sortlint:
                columns: {day: date not null, n: bigint}
                orderings: [[day desc]]
        """
    block = node_at(text, "models", 0, "meta", "sortlint")
    source = parse_source("Daily_Events", block, Path("models/schema.yml"), "datafusion", line=2)
    assert source.name == "daily_events"
    assert source.location == Location(Path("models/schema.yml"), 2)
    assert source.column("DAY").nullable is False
    assert [str(o) for o in source.orderings] == ["[day DESC NULLS FIRST]"]
    assert source.engine_known is True


def test_parse_source_errors_name_the_line_in_the_other_file():
    block = node_at("meta:\n  sortlint:\n    orderings: [[day sideways]]\n", "meta", "sortlint")
    with pytest.raises(ConfigError) as caught:
        parse_source("daily", block, Path("models/schema.yml"), "spark")
    assert (caught.value.path, caught.value.line) == (Path("models/schema.yml"), 3)
    assert caught.value.message.startswith("bad direction 'sideways'")


# --- small things ------------------------------------------------------------------------------


def test_location_text():
    assert str(Location(Path("sortlint.yml"), 12)) == "sortlint.yml:12"
    assert str(Location(Path("sortlint.yml"))) == "sortlint.yml"
    assert str(Location()) == "<unknown location>"


def test_objects_are_frozen_and_hashable():
    source = Source("events", constants=(("currency", "USD"),))
    with pytest.raises(AttributeError):
        source.name = "other"  # type: ignore[misc]
    assert hash(Config(sources=(source,), root=Path("/repo")))
