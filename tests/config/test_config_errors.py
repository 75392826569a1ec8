"""Specification: every malformed configuration is a ConfigError naming the file, the line of
the offending key or value, and what is wrong. Never a traceback, never a silent skip."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sortlint.config import load_config
from sortlint.config.model import SparkSettings
from sortlint.config.syntax import ACCEPTED_TYPES
from sortlint.errors import ConfigError


def config_error(tmp_path: Path, text: str, name: str = "sortlint.yml") -> ConfigError:
    """Load ``text`` (dedented; its first line is line 1) and return the error it raises."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.path == path
    return caught.value


# --- top level -------------------------------------------------------------------------------


def test_unknown_top_level_key(tmp_path):
    error = config_error(
        tmp_path,
        """
        target: spark
        sorces:
          events: {}
        """,
    )
    assert error.line == 2
    assert error.message == (
        "unknown key 'sorces' in the configuration (did you mean 'sources'?); allowed keys: "
        "airflow, contracts_report, datafusion, dbt, dialect, docs_url, exclude, ignore, ignore_noop, include, select, "
        "sources, spark, target"
    )


def test_unknown_key_under_spark(tmp_path):
    error = config_error(
        tmp_path,
        """
        spark:
          replaceHashWithSortAgg: true
        """,
    )
    assert error.line == 2
    assert error.message == (
        "unknown key 'replaceHashWithSortAgg' in spark (did you mean 'replace_hash_with_sort_agg'?); "
        "allowed keys: ansi, legacy_bucketed_scan_ordering, replace_hash_with_sort_agg, version"
    )


def test_bad_target(tmp_path):
    error = config_error(tmp_path, "target: oracle\n")
    assert (error.line, error.message) == (1, "bad target 'oracle'; expected spark or datafusion")


def test_target_must_be_a_string(tmp_path):
    error = config_error(tmp_path, "target: 3\n")
    assert (error.line, error.message) == (1, "target must be a string, got the integer 3")


def test_include_must_be_a_list(tmp_path):
    error = config_error(
        tmp_path,
        """
        exclude: []
        include: "models/**/*.sql"
        """,
    )
    assert (error.line, error.message) == (
        2,
        "include must be a list, got the string 'models/**/*.sql'",
    )


def test_bad_rule_code_in_select(tmp_path):
    error = config_error(
        tmp_path,
        """
        select:
          - SL
          - E501
        """,
    )
    assert error.line == 3
    assert error.message == (
        "bad rule code 'E501' in select; expected SL followed by up to three digits, "
        "e.g. SL, SL1 or SL001"
    )


def test_unknown_dialect(tmp_path):
    error = config_error(tmp_path, "target: spark\ndialect: sparkk\n")
    assert error.line == 2
    assert error.message.startswith("unknown dialect 'sparkk'; expected a sqlglot dialect: ")
    assert "databricks" in error.message


def test_spark_flag_must_be_a_boolean(tmp_path):
    error = config_error(
        tmp_path,
        """
        spark:
          replace_hash_with_sort_agg: "on"
        """,
    )
    assert (error.line, error.message) == (
        2,
        "spark.replace_hash_with_sort_agg must be true or false, got the string 'on'",
    )


def test_top_level_must_be_a_mapping(tmp_path):
    error = config_error(tmp_path, "- target: spark\n")
    assert (error.line, error.message) == (1, "the configuration must be a mapping, got a list")


# --- YAML itself -----------------------------------------------------------------------------


def test_yaml_syntax_error(tmp_path):
    error = config_error(
        tmp_path,
        """
        target: spark
        sources:
          events:
            orderings: [[time]
        """,
    )
    assert error.message.startswith("YAML syntax error: ")
    assert error.line == 5  # where the parser gave up: the end of the unclosed flow sequence


def test_yaml_mapping_value_error_names_its_line(tmp_path):
    error = config_error(tmp_path, "target: spark\ndialect: spark: hive\n")
    assert (error.line, error.message) == (2, "YAML syntax error: mapping values are not allowed here")


def test_duplicate_yaml_key(tmp_path):
    """PyYAML would silently keep the second value; the node tree shows both."""
    error = config_error(
        tmp_path,
        """
        target: spark
        select: [SL]
        target: datafusion
        """,
    )
    assert error.line == 3
    assert error.message == "duplicate key 'target' in the configuration (first at line 1)"


def test_duplicate_yaml_key_inside_a_source(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings: [[time]]
            scope: global
            orderings: [[host]]
        """,
    )
    assert error.line == 5
    assert error.message == "duplicate key 'orderings' in source 'events' (first at line 3)"


def test_merge_keys_are_refused_rather_than_misread(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          a: &shared {scope: global}
          b:
            <<: *shared
        """,
    )
    assert error.line == 4
    assert error.message == "YAML merge keys (<<) are not supported; repeat the keys instead"


# --- sources ---------------------------------------------------------------------------------


def test_unknown_source_key(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns: {time: timestamp}
            ordering: [[time]]
        """,
    )
    assert error.line == 4
    assert error.message == (
        "unknown key 'ordering' in source 'events' (did you mean 'orderings'?); allowed keys: "
        "bucketing, columns, constants, engine_known, format, location, options, orderings, "
        "partitioned_by, scope, statistics, unbounded, unique"
    )


def test_duplicate_table(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          db.events:
            orderings: [[time]]
          db.Events:
            orderings: [[host]]
        """,
    )
    assert error.line == 4
    assert error.message == (
        "duplicate table 'db.Events': 'db.events' is already declared at line 2 "
        "(table names are case-insensitive)"
    )


def test_duplicate_table_differing_only_in_case(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          EVENTS: {}
          clicks: {}
          events: {}
        """,
    )
    assert error.line == 4
    assert error.message == (
        "duplicate table 'events': 'EVENTS' is already declared at line 2 "
        "(table names are case-insensitive)"
    )


def test_bad_table_name(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          my events: {}
        """,
    )
    assert error.line == 2
    assert error.message == (
        "bad table name 'my events'; expected name, db.name or catalog.db.name "
        "(quote unusual parts with backticks)"
    )


def test_sources_must_be_a_mapping(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          - events
        """,
    )
    assert (error.line, error.message) == (2, "sources must be a mapping, got a list")


# --- orderings -------------------------------------------------------------------------------


def test_ordering_names_a_column_missing_from_columns(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns: {time: timestamp, amount: int}
            orderings:
              - [time]
              - [amount, price desc]
        """,
    )
    assert error.line == 6
    assert error.message == (
        "ordering item 'price desc' names column 'price', which is not among the columns of "
        "source 'events' (time, amount)"
    )


def test_ordering_columns_are_not_checked_when_columns_are_unknown(tmp_path):
    config = load_config_text(tmp_path, "sources:\n  events:\n    orderings: [[anything]]\n")
    assert config.sources[0].orderings[0].items[0].column == "anything"


def test_bad_direction(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings:
              - [time descending]
        """,
    )
    assert error.line == 4
    assert error.message == (
        "bad direction 'descending' in ordering item 'time descending'; expected asc or desc"
    )


def test_bad_null_placement(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings:
              - [host]
              - [time desc nulls middle]
        """,
    )
    assert error.line == 5
    assert error.message == (
        "bad null placement 'nulls middle' in ordering item 'time desc nulls middle'; "
        "expected nulls first or nulls last"
    )


def test_empty_ordering_item(tmp_path):
    error = config_error(tmp_path, 'sources:\n  events:\n    orderings: [[""]]\n')
    assert (error.line, error.message) == (
        3,
        "empty ordering item; expected a column name, e.g. 'time desc'",
    )


def test_ordering_item_that_is_an_expression(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    orderings: [[lower(host)]]\n")
    assert (error.line, error.message) == (
        3,
        "bad column name 'lower(host)' in ordering item 'lower(host)'; expected a column name "
        "(quote unusual names with backticks)",
    )


def test_empty_ordering(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings:
              - [time]
              - []
        """,
    )
    assert (error.line, error.message) == (
        5,
        "empty ordering in source 'events'; list at least one column",
    )


def test_orderings_must_be_a_list(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings: time
        """,
    )
    assert (error.line, error.message) == (
        3,
        "orderings of source 'events' must be a list, got the string 'time'",
    )


def test_each_ordering_must_be_a_list(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    orderings: [time, host]\n")
    assert (error.line, error.message) == (
        3,
        "each ordering of source 'events' must be a list, got the string 'time'",
    )


def test_column_repeated_in_one_ordering(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    orderings:\n      - [time, TIME desc]\n")
    assert (error.line, error.message) == (
        4,
        "column 'time' appears twice in an ordering of source 'events'",
    )


# --- columns ---------------------------------------------------------------------------------


def test_bad_not_null_type_syntax(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns:
              time: timestamp not null
              amount: int not nul
        """,
    )
    assert error.line == 5
    assert error.message == (
        "column 'amount' of source 'events': bad column type 'int not nul' (unexpected 'not'); "
        f"expected a type Spark accepts, optionally followed by 'not null': {ACCEPTED_TYPES}"
    )


def test_unknown_column_type(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    columns:\n      time: timestmp not null\n")
    assert (error.path, error.line, error.message) == (
        tmp_path / "sortlint.yml",
        4,
        "column 'time' of source 'events': unknown column type 'timestmp'; did you mean "
        f"'timestamp'? the types Spark accepts are {ACCEPTED_TYPES}",
    )


def test_unknown_type_inside_a_nested_type(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    columns: {tags: 'map<string, arry<int>>'}\n")
    assert (error.line, error.message) == (
        3,
        "column 'tags' of source 'events': unknown column type 'arry' in 'map<string, arry<int>>'; "
        f"did you mean 'array'? the types Spark accepts are {ACCEPTED_TYPES}",
    )


def test_column_type_must_be_a_string(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    columns: {amount: 3}\n")
    assert (error.line, error.message) == (
        3,
        "type of column 'amount' of source 'events' must be a string, got the integer 3",
    )


def test_duplicate_column_differing_only_in_case(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns:
              Time: timestamp
              time: timestamp
        """,
    )
    assert (error.line, error.message) == (
        5,
        "duplicate column 'time' in source 'events': 'Time' is already declared at line 4 "
        "(column names are case-insensitive)",
    )


def test_unknown_key_in_column_mapping(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns:
              amount: {type: int, null: false}
        """,
    )
    assert error.line == 4
    assert error.message == (
        "unknown key 'null' in column 'amount' of source 'events' (did you mean 'nullable'?); "
        "allowed keys: nullable, type"
    )


def test_not_null_contradicting_nullable_true(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns:
              amount:
                type: int not null
                nullable: true
        """,
    )
    assert (error.line, error.message) == (
        6,
        "column 'amount' of source 'events' says both 'not null' and nullable: true",
    )


# --- constants, unique, scope, partitioned_by ------------------------------------------------


def test_constant_names_an_unknown_column(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns: {time: timestamp, amount: int}
            constants:
              currency: USD
        """,
    )
    assert (error.line, error.message) == (
        5,
        "constants names column 'currency', which is not among the columns of source 'events' "
        "(time, amount)",
    )


def test_constant_must_be_a_scalar(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    constants: {currency: [USD, EUR]}\n")
    assert (error.line, error.message) == (
        3,
        "constant 'currency' of source 'events' must be a single value, got a list",
    )


def test_unique_names_an_unknown_column(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns: {event_id: bigint, time: timestamp}
            unique:
              - [event_id]
              - [host, time]
        """,
    )
    assert (error.line, error.message) == (
        6,
        "unique key names column 'host', which is not among the columns of source 'events' "
        "(event_id, time)",
    )


def test_unique_key_must_be_a_list_of_columns(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    unique: [event_id]\n")
    assert (error.line, error.message) == (
        3,
        "each unique key of source 'events' must be a list, got the string 'event_id'",
    )


def test_empty_unique_key(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    unique:\n      - []\n")
    assert (error.line, error.message) == (
        4,
        "empty unique key in source 'events'; list at least one column",
    )


def test_partitioned_by_names_an_unknown_column(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            columns: {time: timestamp, dt: date}
            scope: partition
            partitioned_by: [dt, region]
        """,
    )
    assert (error.line, error.message) == (
        5,
        "partitioned_by names column 'region', which is not among the columns of source "
        "'events' (time, dt)",
    )


def test_partitioned_by_without_scope_partition(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings: [[time]]
            partitioned_by: [dt]
        """,
    )
    assert (error.line, error.message) == (
        4,
        "partitioned_by requires scope: partition (source 'events')",
    )


def test_bad_scope(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    scope: file\n")
    assert (error.line, error.message) == (
        3,
        "bad scope 'file' for source 'events'; expected global or partition",
    )


def test_engine_known_must_be_a_boolean(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    engine_known: maybe\n")
    assert (error.line, error.message) == (
        3,
        "engine_known of source 'events' must be true or false, got the string 'maybe'",
    )


def test_engine_known_on_a_global_ordering_under_spark(tmp_path):
    error = config_error(
        tmp_path,
        """
        sources:
          events:
            orderings: [[time]]
            engine_known: true
        """,
    )
    assert (error.line, error.message) == (
        4,
        "engine_known: true on source 'events': Spark never reads a table in a global order (its "
        "file scan reads the largest files first); declare the ordering with scope: partition if "
        "the data source reports it to Spark, or drop engine_known (the ordering is then the "
        "table's layout, which writers must keep)",
    )


def test_engine_known_without_a_partition_scope_or_buckets_under_spark(tmp_path):
    error = config_error(tmp_path, "sources:\n  events:\n    engine_known: true\n")
    assert (error.line, error.message) == (
        3,
        "engine_known: true on source 'events' needs scope: partition (an ordering the data "
        "source reports to Spark) or bucketing: Spark knows no other order of a table",
    )


def test_engine_known_the_way_spark_knows_orders(tmp_path):
    path = tmp_path / "sortlint.yml"
    path.write_text(
        "sources:\n"
        "  iceberg:\n    orderings: [[ts]]\n    scope: partition\n    engine_known: true\n"
        "  buckets:\n    bucketing: {by: [k], buckets: 4}\n    engine_known: true\n"
        "target: datafusion\n"
    )
    assert [s.engine_known for s in load_config(path).sources] == [True, True]
    path.write_text(path.read_text().replace("target: datafusion", "target: spark"))
    assert [s.engine_known for s in load_config(path).sources] == [True, True]


def test_engine_known_global_orderings_are_fine_under_datafusion(tmp_path):
    path = tmp_path / "sortlint.yml"
    path.write_text("target: datafusion\nsources:\n  events:\n    orderings: [[time]]\n    engine_known: true\n")
    assert load_config(path).sources[0].engine_known is True


def test_spark_settings_must_be_booleans(tmp_path):
    error = config_error(tmp_path, "spark:\n  legacy_bucketed_scan_ordering: 1\n")
    assert (error.line, error.message) == (
        2,
        "spark.legacy_bucketed_scan_ordering must be true or false, got the integer 1",
    )


def test_a_spark_version_is_a_major_and_minor_number(tmp_path):
    error = config_error(tmp_path, "target: spark\nspark:\n  version: latest\n")
    assert (error.line, error.message) == (3, "bad spark.version 'latest'; expected a Spark version such as 3.5 or 4.3.0")


def test_a_declared_spark_version_sets_the_defaults_and_a_setting_wins(tmp_path):
    path = tmp_path / "sortlint.yml"
    for version, expected in (
        ("3.5", SparkSettings(replace_hash_with_sort_agg=False, ansi=False)),
        ("'4.2.1'", SparkSettings(replace_hash_with_sort_agg=False)),
        ("4.3", SparkSettings()),
        ("3.10", SparkSettings(replace_hash_with_sort_agg=False, ansi=False)),  # not the number 3.1
    ):
        path.write_text(f"spark:\n  version: {version}\n")
        assert load_config(path).spark == expected
    path.write_text("spark:\n  version: 3.5\n  replace_hash_with_sort_agg: true\n")
    assert load_config(path).spark == SparkSettings(ansi=False)


# --- files -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "message"), [
    ("missing.yml", "configuration file not found"),
    # `--config` names a file, as ruff's does; a folder is said to be one, not "not found"
    (".", "is a directory, not a configuration file: name its sortlint.yml or pyproject.toml"),
])
def test_explicit_config_that_is_no_file(tmp_path, given, message):
    path = tmp_path / given
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert (caught.value.path, caught.value.line, caught.value.message) == (path, None, message)


def test_unknown_key_in_pyproject_tool_sortlint(tmp_path):
    """tomllib gives no positions: the line is found by scanning the [tool.sortlint] sections."""
    error = config_error(
        tmp_path,
        """
        [project]
        name = "pipelines"
        target = "not ours: outside [tool.sortlint]"

        [tool.sortlint]
        target = "spark"
        selekt = ["SL"]
        """,
        name="pyproject.toml",
    )
    assert error.line == 7
    assert error.message == (
        "unknown key 'selekt' in [tool.sortlint] (did you mean 'select'?); allowed keys: "
        "airflow, contracts_report, datafusion, dbt, dialect, docs_url, exclude, ignore, ignore_noop, include, select, "
        "sources, spark, target"
    )


def test_unknown_source_key_in_pyproject_subtable(tmp_path):
    error = config_error(
        tmp_path,
        """
        [tool.sortlint]
        target = "spark"

        [tool.sortlint.sources.events]
        columns = { time = "timestamp", host = "string" }
        orderings = [["time"]]
        scop = "global"
        """,
        name="pyproject.toml",
    )
    assert error.line == 7
    assert error.message.startswith("unknown key 'scop' in source 'events' (did you mean 'scope'?)")


def test_bad_ordering_item_in_a_multiline_pyproject_array(tmp_path):
    error = config_error(
        tmp_path,
        """
        [tool.sortlint.sources.events]
        orderings = [
            ["time"],
            ["amount", "price descending"],
        ]
        """,
        name="pyproject.toml",
    )
    assert error.line == 4
    assert error.message == (
        "bad direction 'descending' in ordering item 'price descending'; expected asc or desc"
    )


def test_pyproject_key_after_a_multiline_inline_value(tmp_path):
    error = config_error(
        tmp_path,
        """
        [tool.sortlint.sources.events]
        columns = { time = "timestamp", currency = "string" }
        constants = { currency = "USD" }
        partitioned_by = [
        ]
        unique = [["time"]]
        engine_known = "yes"
        """,
        name="pyproject.toml",
    )
    assert error.line == 7
    assert error.message == (
        "engine_known of source 'events' must be true or false, got the string 'yes'"
    )


def test_toml_syntax_error(tmp_path):
    error = config_error(
        tmp_path,
        """
        [tool.sortlint]
        target = spark
        """,
        name="pyproject.toml",
    )
    assert error.line == 2
    assert error.message.startswith("invalid TOML: ")


def test_explicit_pyproject_without_tool_sortlint(tmp_path):
    error = config_error(tmp_path, '[project]\nname = "x"\n', name="pyproject.toml")
    assert (error.line, error.message) == (None, "no [tool.sortlint] table in this file")


def load_config_text(tmp_path: Path, text: str):
    path = tmp_path / "sortlint.yml"
    path.write_text(text)
    return load_config(path)


def test_spark_ansi_must_be_a_boolean(tmp_path):
    error = config_error(
        tmp_path,
        """
        spark:
          ansi: "off"
        """,
    )
    assert error.message == "spark.ansi must be true or false, got the string 'off'"


# --- a configuration is validated whole ------------------------------------------------------


def test_every_error_of_a_configuration_is_reported_in_one_run(tmp_path, capsys):
    """A wrong type, an unknown column in `orderings` and another in `unique`, a wrong
    setting of a second source and a wrong top-level setting: five errors, each at its
    line, in the order of the file. A column with a wrong type is still a column: the
    sections naming it are checked against it, not reported as naming an unknown one."""
    from sortlint.cli import main

    (tmp_path / "sortlint.yml").write_text(textwrap.dedent("""\
        sources:
          events:
            columns:
              host: string not null
              time: timestampx
            orderings: [[host, time, nope]]
            unique: [[other]]
          t2:
            columns: {a: int}
            scope: sideways
        dialect: nosuch
        """))
    (tmp_path / "q.sql").write_text("SELECT 1\n")
    assert main(["check", str(tmp_path / "q.sql"), "--config", str(tmp_path / "sortlint.yml")]) == 2
    out, err = capsys.readouterr()
    where = tmp_path / "sortlint.yml"
    assert out == ""
    assert [line.split(": ", 2)[1:] for line in err.splitlines()] == [
        [f"{where}:5", "column 'time' of source 'events': unknown column type 'timestampx'; did you "
         "mean 'timestamp'? the types Spark accepts are " + ACCEPTED_TYPES],
        [f"{where}:6", "ordering item 'nope' names column 'nope', which is not among the columns of "
         "source 'events' (host, time)"],
        [f"{where}:7", "unique key names column 'other', which is not among the columns of source "
         "'events' (host, time)"],
        [f"{where}:10", "bad scope 'sideways' for source 't2'; expected global or partition"],
        [f"{where}:11", "unknown dialect 'nosuch'; expected a sqlglot dialect: " + err.split(
            "expected a sqlglot dialect: ")[1].strip()],
    ]
    assert all(line.startswith("error: ") for line in err.splitlines())


# --- datafusion ------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "got"), [
    ("0", "the integer 0"),
    ("-2", "the integer -2"),
    ("4.0", "the number 4.0"),
    ("'4'", "the string '4'"),
    ("true", "the boolean true"),
    ("[1]", "a list"),
])
def test_datafusion_target_partitions_must_be_a_positive_integer(tmp_path, value, got):
    error = config_error(tmp_path, f"target: datafusion\ndatafusion:\n  target_partitions: {value}\n")
    assert (error.line, error.message) == (
        3, f"datafusion.target_partitions must be a positive integer, got {got}"
    )


def test_unknown_key_under_datafusion(tmp_path):
    error = config_error(tmp_path, "datafusion:\n  partitions: 1\n")
    assert (error.line, error.message) == (
        2,
        "unknown key 'partitions' in datafusion (did you mean 'target_partitions'?); allowed keys: "
        "prefer_existing_sort, prefer_hash_join, repartition_joins, target_partitions",
    )


def test_datafusion_optimizer_setting_not_a_boolean(tmp_path):
    error = config_error(tmp_path, "datafusion:\n  prefer_hash_join: sometimes\n")
    assert (error.line, error.message) == (
        2, "datafusion.prefer_hash_join must be true or false, got the string 'sometimes'"
    )


def test_datafusion_settings_must_be_a_mapping(tmp_path):
    error = config_error(tmp_path, "datafusion: 4\n")
    assert (error.line, error.message) == (1, "datafusion must be a mapping, got the integer 4")


def test_a_bad_target_partitions_is_one_error_line_among_the_others(tmp_path, capsys):
    """Validated with the whole configuration: each error on its line, exit 2."""
    from sortlint.cli import main

    (tmp_path / "sortlint.yml").write_text("target: datafusion\ndatafusion: {target_partitions: 0}\ndialect: nosuch\n")
    (tmp_path / "q.sql").write_text("SELECT 1\n")
    assert main(["check", str(tmp_path / "q.sql"), "--config", str(tmp_path / "sortlint.yml")]) == 2
    out, err = capsys.readouterr()
    where = tmp_path / "sortlint.yml"
    assert out == ""
    assert err.splitlines()[0] == (
        f"error: {where}:2: datafusion.target_partitions must be a positive integer, got the integer 0"
    )
    assert err.splitlines()[1].startswith(f"error: {where}:3: unknown dialect 'nosuch'")
    assert len(err.splitlines()) == 2
