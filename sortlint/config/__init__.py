"""The catalog and configuration: which files and rules, which engine, and what each table declares.

Read from ``sortlint.yml`` (or ``[tool.sortlint]`` in pyproject.toml, or ``--config``) into
frozen objects; nothing downstream reads raw YAML. Every malformed input is a ``ConfigError``
naming the file and line. Importing this package does not import sqlglot.
"""

from __future__ import annotations

from sortlint.config.catalog import parse_source
from sortlint.config.discovery import find_config, load_config
from sortlint.config.model import (
    Column,
    ColumnTypes,
    Config,
    DataFusionSettings,
    DbtOptions,
    DeclaredOrdering,
    Location,
    OrderingItem,
    Source,
    SparkSettings,
    Target,
)

__all__ = [
    "Column",
    "ColumnTypes",
    "Config",
    "DataFusionSettings",
    "DbtOptions",
    "DeclaredOrdering",
    "Location",
    "OrderingItem",
    "Source",
    "SparkSettings",
    "Target",
    "find_config",
    "load_config",
    "parse_source",
]
