"""Specification: what a valid configuration resolves to, and where it is found."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sortlint.config import (
    Column,
    Config,
    DataFusionSettings,
    DeclaredOrdering,
    Location,
    OrderingItem,
    Source,
    SparkSettings,
    find_config,
    load_config,
)
from sortlint.errors import ConfigError

FULL_EXAMPLE = """
target: {target}
dialect: databricks
include: ["models/**/*.sql", "jobs/**/*.py"]
exclude: ["target/**"]
select: ["SL"]
ignore: [SL2]
spark:
  legacy_bucketed_scan_ordering: true
sources:
  Analytics.Events:
    columns: {{Time: timestamp not null, host: string, amount: int, price: "DECIMAL(10, 2)",
              currency: string, event_id: bigint, tags: array<string>}}
    orderings:
      - [time]
      - [amount, price desc nulls last]
      - [host DESC, "`Time` asc nulls first"]
    constants: {{currency: USD}}
    unique: [[event_id]]
"""


def write(directory: Path, name: str, text: str) -> Path:
    """Write dedented ``text`` (its first line is line 1) and return the path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def item(column, descending, nulls_first, defaulted):
    return OrderingItem(column, descending, nulls_first, defaulted)


def test_full_example_under_spark(tmp_path):
    path = write(tmp_path, "sortlint.yml", FULL_EXAMPLE.format(target="spark"))
    at = lambda line: Location(path, line)  # noqa: E731

    assert load_config(path) == Config(
        target="spark",
        dialect="databricks",
        include=("models/**/*.sql", "jobs/**/*.py"),
        exclude=("target/**",),
        select=("SL",),
        ignore=("SL2",),
        spark=SparkSettings(legacy_bucketed_scan_ordering=True),  # replaceHashWithSortAgg: Spark's default
        sources=(
            Source(
                name="analytics.events",
                columns=(
                    Column("time", "timestamp", nullable=False),
                    Column("host", "string"),
                    Column("amount", "int"),
                    Column("price", "decimal(10,2)"),
                    Column("currency", "string"),
                    Column("event_id", "bigint"),
                    Column("tags", "array<string>"),
                ),
                orderings=(
                    # Spark: ASC defaults to NULLS FIRST, DESC to NULLS LAST.
                    DeclaredOrdering((item("time", False, True, True),), at(14)),
                    DeclaredOrdering(
                        (item("amount", False, True, True), item("price", True, False, False)),
                        at(15),
                    ),
                    DeclaredOrdering(
                        (item("host", True, False, True), item("time", False, True, False)),
                        at(16),
                    ),
                ),
                constants=(("currency", "USD"),),
                unique=(("event_id",),),
                scope="global",
                partitioned_by=(),
                engine_known=False,  # Spark knows nothing of a YAML declaration
                location=at(10),
            ),
        ),
        root=tmp_path.resolve(),
        path=path,
    )


def test_full_example_under_datafusion_changes_only_the_defaults(tmp_path):
    path = write(tmp_path, "sortlint.yml", FULL_EXAMPLE.format(target="datafusion"))
    config = load_config(path)
    events = config.sources[0]

    assert config.target == "datafusion"
    # DataFusion: ASC defaults to NULLS LAST, DESC to NULLS FIRST; written placements stay.
    assert [o.items for o in events.orderings] == [
        (item("time", False, False, True),),
        (item("amount", False, False, True), item("price", True, False, False)),
        (item("host", True, True, True), item("time", False, True, False)),
    ]
    assert events.engine_known is True  # a DataFusion WITH ORDER source is read in order


def test_engine_known_written_overrides_the_target_default(tmp_path):
    path = write(
        tmp_path,
        "sortlint.yml",
        """
        target: datafusion
        sources:
          events: {engine_known: false}
          bucketed: {engine_known: yes}
        """,
    )
    events, bucketed = load_config(path).sources
    assert (events.engine_known, bucketed.engine_known) == (False, True)


def test_partition_scope(tmp_path):
    path = write(
        tmp_path,
        "sortlint.yml",
        """
        sources:
          events:
            columns: {dt: date, time: timestamp}
            orderings: [[time]]
            scope: partition
            partitioned_by: [DT]
        """,
    )
    events = load_config(path).sources[0]
    assert (events.scope, events.partitioned_by) == ("partition", ("dt",))


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("timestamp not null", Column("c", "timestamp", False)),
        ("string NOT NULL", Column("c", "string", False)),
        ("decimal( 10 , 2 )", Column("c", "decimal(10,2)", True)),
        ("Array<String>", Column("c", "array<string>", True)),
        ("map<string, array<int>> not null", Column("c", "map<string,array<int>>", False)),
        ("'struct<a: int, b: string>'", Column("c", "struct<a:int,b:string>", True)),
        ("interval day to second", Column("c", "interval day to second", True)),
        ("{type: int, nullable: false}", Column("c", "int", False)),
        ("{type: int not null}", Column("c", "int", False)),
        ("{nullable: false}", Column("c", None, False)),
        ("null", Column("c", None, True)),
    ],
)
def test_column_forms(tmp_path, written, expected):
    path = write(tmp_path, "sortlint.yml", f"sources:\n  t:\n    columns:\n      C: {written}\n")
    assert load_config(path).sources[0].columns == (expected,)


def test_constants_keep_scalar_values(tmp_path):
    path = write(
        tmp_path,
        "sortlint.yml",
        """
        sources:
          t:
            constants: {currency: USD, year: 2024, rate: 1.5, live: true, region: null,
                        dt: 2024-01-31, code: "007"}
        """,
    )
    assert load_config(path).sources[0].constants == (
        ("currency", "USD"),
        ("year", 2024),
        ("rate", 1.5),
        ("live", True),
        ("region", None),
        ("dt", "2024-01-31"),  # a YAML date stays the text the user wrote
        ("code", "007"),
    )


def test_null_means_not_given(tmp_path):
    """``sources:`` with every entry commented out is an empty catalog, not an error."""
    path = write(
        tmp_path,
        "sortlint.yml",
        """
        target:
        sources:
          # events: {orderings: [[time]]}
        """,
    )
    config = load_config(path)
    assert (config.target, config.sources) == ("spark", ())


def test_empty_file_gives_defaults(tmp_path):
    path = write(tmp_path, "sortlint.yml", "# nothing yet\n")
    assert load_config(path) == Config(root=tmp_path.resolve(), path=path)


def test_no_config_anywhere_gives_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config(start_paths=[tmp_path])
    assert config == Config(root=tmp_path, path=None)
    assert (config.target, config.dialect, config.include, config.sources) == (
        "spark",
        "spark",
        ("**/*.sql", "**/*.py"),
        (),
    )


# --- discovery -------------------------------------------------------------------------------


def test_discovery_walks_up_from_a_nested_directory(tmp_path):
    config_path = write(tmp_path, "sortlint.yml", "target: datafusion\n")
    nested = tmp_path / "models" / "staging"
    nested.mkdir(parents=True)

    assert find_config([nested]) == config_path.resolve()
    config = load_config(start_paths=[nested])
    assert (config.target, config.root, config.path) == (
        "datafusion",
        tmp_path.resolve(),
        config_path.resolve(),
    )


def test_discovery_from_a_file_starts_in_its_directory(tmp_path):
    write(tmp_path, "sortlint.yml", "target: spark\n")
    inner = write(tmp_path / "jobs", "sortlint.yml", "target: datafusion\n")
    job = write(tmp_path / "jobs", "daily.py", "pass\n")
    assert find_config([job]) == inner.resolve()


def test_discovery_uses_only_the_first_path(tmp_path):
    write(tmp_path / "a", "sortlint.yml", "target: spark\n")
    second = write(tmp_path / "b", "sortlint.yml", "target: datafusion\n")
    (tmp_path / "c").mkdir()
    assert find_config([tmp_path / "c", second.parent]) is None


def test_nearest_directory_wins_over_a_higher_one(tmp_path):
    write(tmp_path, "sortlint.yml", "target: spark\n")
    nearer = write(tmp_path / "sub", "pyproject.toml", "[tool.sortlint]\ntarget = 'datafusion'\n")
    assert find_config([tmp_path / "sub"]) == nearer.resolve()


def test_within_a_directory_sortlint_yml_beats_pyproject(tmp_path):
    yml = write(tmp_path, "sortlint.yml", "target: spark\n")
    write(tmp_path, "pyproject.toml", "[tool.sortlint]\ntarget = 'datafusion'\n")
    assert find_config([tmp_path]) == yml.resolve()


@pytest.mark.parametrize("name", ["sortlint.yaml", ".sortlint.yml"])
def test_other_yaml_names(tmp_path, name):
    path = write(tmp_path, name, "target: datafusion\n")
    assert find_config([tmp_path]) == path.resolve()


def test_pyproject_without_tool_sortlint_is_passed_over(tmp_path):
    outer = write(tmp_path, "sortlint.yml", "target: datafusion\n")
    write(tmp_path / "pkg", "pyproject.toml", '[project]\nname = "pkg"\n')
    assert find_config([tmp_path / "pkg"]) == outer.resolve()


def test_broken_pyproject_of_another_tool_is_passed_over(tmp_path):
    outer = write(tmp_path, "sortlint.yml", "target: datafusion\n")
    write(tmp_path / "pkg", "pyproject.toml", "[project\nname = 1\n")
    assert find_config([tmp_path / "pkg"]) == outer.resolve()


def test_broken_pyproject_that_mentions_sortlint_is_reported(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.sortlint]\ntarget = = 'spark'\n")
    with pytest.raises(ConfigError) as caught:
        find_config([tmp_path])
    assert caught.value.line == 2


# --- pyproject.toml --------------------------------------------------------------------------


def test_pyproject_tool_sortlint_with_source_tables(tmp_path):
    path = write(
        tmp_path,
        "pyproject.toml",
        """
        [project]
        name = "pipelines"

        [tool.sortlint]
        target = "spark"
        include = ["models/**/*.sql"]
        ignore = ["SL003"]

        [tool.sortlint.spark]
        replace_hash_with_sort_agg = false

        [tool.sortlint.sources.events]
        columns = { time = "timestamp not null", host = "string", amount = "int" }
        orderings = [
            ["time"],
            ["host", "amount desc nulls first"],
        ]
        constants = { host = "web-1" }
        unique = [["time", "host"]]

        [tool.sortlint.sources."db.clicks"]
        scope = "partition"
        partitioned_by = ["dt"]
        """,
    )
    config = load_config(start_paths=[tmp_path])

    assert (config.path, config.root) == (path.resolve(), tmp_path.resolve())
    assert (config.target, config.include, config.ignore) == ("spark", ("models/**/*.sql",), ("SL003",))
    assert config.spark == SparkSettings(replace_hash_with_sort_agg=False)
    events, clicks = config.sources
    at = lambda line: Location(path.resolve(), line)  # noqa: E731
    assert events == Source(
        name="events",
        columns=(
            Column("time", "timestamp", False),
            Column("host", "string"),
            Column("amount", "int"),
        ),
        orderings=(
            DeclaredOrdering((item("time", False, True, True),), at(15)),
            DeclaredOrdering(
                (item("host", False, True, True), item("amount", True, True, False)), at(16)
            ),
        ),
        constants=(("host", "web-1"),),
        unique=(("time", "host"),),
        location=at(12),
    )
    assert clicks == Source(
        name="db.clicks", scope="partition", partitioned_by=("dt",), location=at(21)
    )


def test_explicit_config_path_is_used_instead_of_discovery(tmp_path, monkeypatch):
    write(tmp_path, "sortlint.yml", "target: spark\n")
    explicit = write(tmp_path / "ci", "strict.yml", "target: datafusion\nselect: [SL0]\n")
    monkeypatch.chdir(tmp_path)

    config = load_config(Path("ci/strict.yml"), start_paths=[tmp_path])
    assert (config.target, config.select) == ("datafusion", ("SL0",))
    assert config.path == Path("ci/strict.yml")
    assert config.root == explicit.parent.resolve()


def test_explicit_pyproject_path(tmp_path):
    path = write(tmp_path / "elsewhere", "pyproject.toml", "[tool.sortlint]\ndialect = 'hive'\n")
    config = load_config(path)
    assert (config.dialect, config.path) == ("hive", path)


def test_importing_the_package_does_not_import_sqlglot():
    """`sortlint check` on one file must start fast; sqlglot loads only when needed."""
    import subprocess
    import sys

    code = "import sys, sortlint.config; print('sqlglot' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert result.stdout.strip() == "False"


def test_spark_ansi_mode_is_on_unless_said_otherwise(tmp_path):
    assert load_config(write(tmp_path, "sortlint.yml", "target: spark\n")).spark.ansi is True
    path = write(tmp_path, "off.yml", "spark:\n  ansi: false\n")
    assert load_config(path).spark == SparkSettings(ansi=False)


def test_datafusion_target_partitions_is_unknown_unless_given(tmp_path):
    """Not given, DataFusion's count is the CPUs of the machine that runs the query, which
    sortlint does not know: None, whatever machine loads the configuration (the cache key,
    the configuration's repr, is the same on every machine)."""
    default = load_config(write(tmp_path, "sortlint.yml", "target: datafusion\n"))
    assert default.datafusion == DataFusionSettings(target_partitions=None)
    assert not default.datafusion.one_partition
    assert (
        "DataFusionSettings(target_partitions=None, prefer_hash_join=True, repartition_joins=True, "
        "prefer_existing_sort=False)" in repr(default)
    )
    assert default.datafusion.join_algorithm == "hash"  # DataFusion's defaults
    merge = load_config(write(tmp_path, "merge.yml", (
        "target: datafusion\ndatafusion: {target_partitions: 4, prefer_hash_join: false, "
        "prefer_existing_sort: true}\n"
    )))
    assert merge.datafusion == DataFusionSettings(4, prefer_hash_join=False, prefer_existing_sort=True)
    assert merge.datafusion.join_algorithm == "sort-merge"
    unknown = load_config(write(tmp_path, "unknown.yml", "datafusion: {prefer_hash_join: false}\n"))
    assert unknown.datafusion.join_algorithm is None  # the partition count decides
    one = load_config(write(tmp_path, "one.yml", "target: datafusion\ndatafusion: {target_partitions: 1}\n"))
    assert one.datafusion.one_partition
    four = load_config(write(tmp_path, "four.yml", "datafusion:\n  target_partitions: 4\n"))
    assert (four.datafusion.target_partitions, four.datafusion.one_partition) == (4, False)
    toml = write(tmp_path / "p", "pyproject.toml",
                 "[tool.sortlint]\ntarget = 'datafusion'\n[tool.sortlint.datafusion]\ntarget_partitions = 1\n")
    assert load_config(toml).datafusion == DataFusionSettings(target_partitions=1)
