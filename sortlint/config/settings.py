"""The top level of a configuration, read from a node: one function per setting.

The node may come from sortlint.yml or from ``[tool.sortlint]`` in pyproject.toml; both are
read by this one code path so they accept exactly the same things.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from sortlint.config import nodes
from sortlint.config.catalog import parse_source, parse_table_name
from sortlint.config.model import (
    DEFAULT_INCLUDE, AirflowSettings, Config, DataFusionSettings, DbtOptions, Source, SparkSettings, Target,
)
from sortlint.errors import Problems

TOP_KEYS = (
    "target",
    "dialect",
    "include",
    "exclude",
    "select",
    "ignore",
    "ignore_noop",
    "spark",
    "datafusion",
    "airflow",
    "dbt",
    "sources",
    "contracts_report",
    "docs_url",
)
SPARK_KEYS = ("version", *SparkSettings.SESSION_KEYS)
_SPARK_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.\d+)?")
DATAFUSION_KEYS = ("target_partitions", "prefer_hash_join", "repartition_joins", "prefer_existing_sort")
AIRFLOW_KEYS = ("sql_arguments",)
DBT_KEYS = ("renderer", "render_timeout", "render_max_bytes")
DBT_RENDERERS = ("builtin", "dbt")
_SQL_RUNNER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
TARGETS: tuple[Target, ...] = ("spark", "datafusion")
RULE_CODE = re.compile(r"SL\d{0,3}")


def parse_config(
    node: yaml.Node | None,
    path: Path | None,
    root: Path,
    what: str = "the configuration",
    rules: Collection[str] = (),
) -> Config:
    """Resolve a whole configuration; None (an empty file) means every default.

    ``target`` is read first whatever its place in the file, because it sets the defaults of
    the sources. With ``rules`` (the codes of the rules there are), a ``select`` or
    ``ignore`` entry that matches none of them is an error.
    """
    if node is None:
        return Config(root=root, path=path)
    given = nodes.fields(node, path, what, TOP_KEYS)
    problems = Problems()

    def setting(key: str, parse: Callable[..., Any], default: Any, *args: Any) -> Any:
        """The setting's value; its default when absent, or when it is wrong (then the
        error joins the others)."""
        if key in given:
            with problems.part():
                return parse(given[key], path, *args)
        return default

    target = setting("target", parse_target, "spark")
    config = Config(
        target=target,
        dialect=setting("dialect", parse_dialect, "spark"),
        include=setting("include", parse_globs, DEFAULT_INCLUDE),
        exclude=setting("exclude", parse_globs, ()),
        select=setting("select", parse_rule_codes, ("SL",), rules),
        ignore=setting("ignore", parse_rule_codes, (), rules),
        ignore_noop=setting("ignore_noop", parse_flag, False),
        spark=setting("spark", parse_spark, SparkSettings()),
        datafusion=setting("datafusion", parse_datafusion, DataFusionSettings()),
        airflow=setting("airflow", parse_airflow, AirflowSettings()),
        dbt=setting("dbt", parse_dbt, DbtOptions()),
        sources=setting("sources", parse_sources, (), target),
        contracts_report=setting("contracts_report", parse_report_path, None, root),
        docs_url=setting("docs_url", parse_docs_url, None),
        root=root,
        path=path,
    )
    problems.raise_any()
    return config


def parse_target(entry: nodes.Entry, path: Path | None) -> Target:
    value = nodes.string(entry.value, path, "target").strip().lower()
    if value not in TARGETS:
        nodes.fail(
            f"bad target {entry.value.value!r}; expected spark or datafusion", entry.value, path
        )
    return value  # type: ignore[return-value]


def parse_flag(entry: nodes.Entry, path: Path | None) -> bool:
    return nodes.boolean(entry.value, path, entry.key)


def parse_dialect(entry: nodes.Entry, path: Path | None) -> str:
    """A sqlglot dialect name. sqlglot is imported only when a dialect other than spark is named,
    so loading the usual configuration stays cheap."""
    value = nodes.string(entry.value, path, "dialect").strip().lower()
    if value == "spark":
        return value
    from sqlglot.dialects import Dialects

    known = sorted(d.value for d in Dialects if d.value)
    if value not in known:
        nodes.fail(
            f"unknown dialect {entry.value.value!r}; "
            f"expected a sqlglot dialect: {', '.join(known)}",
            entry.value,
            path,
        )
    return value


def parse_globs(entry: nodes.Entry, path: Path | None) -> tuple[str, ...]:
    """Glob patterns, relative to the configuration's directory."""
    return nodes.strings(entry.value, path, entry.key)


def parse_rule_codes(entry: nodes.Entry, path: Path | None, rules: Collection[str] = ()) -> tuple[str, ...]:
    """Rule codes or prefixes: ``SL``, ``SL1``, ``SL001``; each must match a rule of ``rules``
    (when given)."""
    result = []
    for item in nodes.items(entry.value, path, entry.key):
        code = nodes.string(item, path, f"each item of {entry.key}")
        if not RULE_CODE.fullmatch(code):
            nodes.fail(
                f"bad rule code {code!r} in {entry.key}; expected SL followed by up to three "
                "digits, e.g. SL, SL1 or SL001",
                item,
                path,
            )
        problem = unknown_rule_code(code, rules, f"in {entry.key}")
        if problem is not None:
            nodes.fail(problem, item, path)
        result.append(code)
    return tuple(result)


def unknown_rule_code(code: str, rules: Collection[str], where: str) -> str | None:
    """Why a rule code or prefix selects no rule of `rules` (with the closest code, when
    one is close, and the list), or None when it selects some (or `rules` is empty)."""
    if not rules or any(rule.startswith(code) for rule in rules):
        return None
    close = difflib.get_close_matches(code, sorted(rules), n=len(rules))
    # Among the closest, the one that shares the longest beginning (SL03 is SL003, not SL103).
    best = max(sorted(close), key=lambda rule: (difflib.SequenceMatcher(None, code, rule).ratio(), len(os.path.commonprefix([code, rule]))), default=None)
    hint = f"; did you mean {best}?" if best else ";"
    return f"unknown rule code {code!r} {where}{hint} the rules are {', '.join(sorted(rules))}"


def parse_spark(entry: nodes.Entry, path: Path | None) -> SparkSettings:
    """The session settings Spark's model depends on; each one left out keeps Spark's default."""
    given = dict(nodes.fields(entry.value, path, "spark", SPARK_KEYS))
    defaults = SparkSettings()
    version = given.pop("version", None)
    if version is not None:
        nodes.scalar(version.value, path, "spark.version")
        text = str(version.value.value).strip()  # as written: YAML reads 3.10 as the number 3.1
        match = _SPARK_VERSION.fullmatch(text)
        if match is None:
            nodes.fail(f"bad spark.version {text!r}; expected a Spark version such as 3.5 or 4.3.0", version.value, path)
        defaults = SparkSettings.of_version(int(match[1]), int(match[2]))
    flags = {key: nodes.boolean(flag.value, path, f"spark.{key}") for key, flag in given.items()}
    return replace(defaults, **flags)


def parse_datafusion(entry: nodes.Entry, path: Path | None) -> DataFusionSettings:
    """The session settings DataFusion's model depends on; one left out is not known (see
    `DataFusionSettings`)."""
    given = nodes.fields(entry.value, path, "datafusion", DATAFUSION_KEYS)
    partitions = given.pop("target_partitions", None)
    flags = {key: nodes.boolean(flag.value, path, f"datafusion.{key}") for key, flag in given.items()}
    if partitions is None:
        return DataFusionSettings(**flags)
    return DataFusionSettings(
        target_partitions=nodes.positive_integer(partitions.value, path, "datafusion.target_partitions"), **flags
    )


def parse_airflow(entry: nodes.Entry, path: Path | None) -> AirflowSettings:
    """`sql_arguments`: `ClassName: keyword` (an operator, or a hook made with its SQL) or
    `ClassName.method: keyword` (a method given the SQL first or by that keyword)."""
    given = nodes.fields(entry.value, path, "airflow", AIRFLOW_KEYS)
    arguments = given.get("sql_arguments")
    if arguments is None:
        return AirflowSettings()
    pairs = []
    for runner in nodes.entries(arguments.value, path, "airflow.sql_arguments"):
        what = f"airflow.sql_arguments.{runner.key}"
        if not _SQL_RUNNER.fullmatch(runner.key):
            nodes.fail(f"bad SQL runner {runner.key!r}; expected ClassName or ClassName.method",
                       runner.key_node, path)
        keyword = nodes.string(runner.value, path, what).strip()
        if not keyword.isidentifier():
            nodes.fail(f"{what} must name an argument, got {keyword!r}", runner.value, path)
        pairs.append((runner.key, keyword))
    return AirflowSettings(tuple(pairs))


def parse_dbt(entry: nodes.Entry, path: Path | None) -> DbtOptions:
    """Who renders models (`renderer`: builtin or dbt) and what one rendering of a template
    may cost: `render_timeout` (whole seconds) and `render_max_bytes` (of its output); the
    rest of `DbtOptions` is the command line's."""
    given = nodes.fields(entry.value, path, "dbt", DBT_KEYS)

    def budget(key: str, default: int) -> int:
        return nodes.positive_integer(given[key].value, path, f"dbt.{key}") if key in given else default

    configured = "auto"
    if "renderer" in given:
        configured = nodes.string(given["renderer"].value, path, "dbt.renderer").strip()
        if configured not in DBT_RENDERERS:
            nodes.fail(f"bad dbt.renderer {configured!r}; expected builtin or dbt", given["renderer"].value, path)
    return DbtOptions(configured_renderer=configured,  # type: ignore[arg-type]
                      render_timeout=budget("render_timeout", DbtOptions.render_timeout),
                      render_max_bytes=budget("render_max_bytes", DbtOptions.render_max_bytes))


def parse_report_path(entry: nodes.Entry, path: Path | None, root: Path) -> Path:
    """The file `sortlint contracts --write-report` wrote, relative to the configuration's
    directory. It may not exist yet: `check` then says no declaration was verified."""
    text = nodes.string(entry.value, path, "contracts_report").strip()
    if not text:
        nodes.fail("empty contracts_report; name the file `sortlint contracts --write-report` "
                   "writes", entry.value, path)
    return root / text


def parse_docs_url(entry: nodes.Entry, path: Path | None) -> str:
    """Where a team's mirror of the documentation lives (rule links point into it): an
    http(s) address, read as a folder."""
    text = nodes.string(entry.value, path, "docs_url").strip()
    if not text.startswith(("https://", "http://")):
        nodes.fail(f"docs_url must be an http(s) address, got {text!r}", entry.value, path)
    return text if text.endswith("/") else text + "/"


def parse_sources(entry: nodes.Entry, path: Path | None, target: Target) -> tuple[Source, ...]:
    """The catalog. Names are case-insensitive, so ``Events`` and ``events`` are one table twice."""
    first: dict[str, nodes.Entry] = {}
    result = []
    problems = Problems()
    for table in nodes.entries(entry.value, path, "sources"):
        with problems.part():
            line = nodes.line_of(table.key_node)
            name = parse_table_name(table.key, path, line)
            earlier = first.get(name)
            if earlier is not None:
                nodes.fail(
                    f"duplicate table {table.key!r}: {earlier.key!r} is already declared at line "
                    f"{nodes.line_of(earlier.key_node)} (table names are case-insensitive)",
                    table.key_node,
                    path,
                )
            first[name] = table
            result.append(parse_source(table.key, table.value, path, target, line=line))
    problems.raise_any()
    return tuple(result)
