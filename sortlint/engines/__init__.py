"""Engines: what each target engine does to the properties of rows, operator by operator.

`seeding` turns the catalog's declarations into the properties of a table scan;
`operators` holds the transfer functions both targets share; `spark` and `datafusion` hold
everything that differs, each as a complete transfer table, so each engine's model reads in
one file. `analyse` runs the configured target's table over a plan.
"""

from __future__ import annotations

from sortlint.config import Config
from sortlint.engines import datafusion, spark
from sortlint.engines.analysis import (
    AggregateStrategy, Analysis, Delivered, Engine, Place, PlaceOf, SortFate, propagate,
)
from sortlint.engines.comparisons import Semantics
from sortlint.plan import nodes as n
from sortlint.plan.usage import read_window_functions

TARGETS: dict[str, Engine] = {"spark": spark.ENGINE, "datafusion": datafusion.ENGINE}


def semantics(config: Config) -> Semantics:
    """How the configured target computes and compares values."""
    return spark.semantics(config.spark) if config.target == "spark" else datafusion.SEMANTICS


def analyse(root: n.Node, config: Config, place_of: PlaceOf = lambda span: None) -> Analysis:
    engine = TARGETS[config.target]
    analysis = Analysis(config, place_of, semantics(config), hashes_any_value=engine.hashes_any_value)
    windows = False
    for node in n.walk(root):
        analysis.parents.update((id(child), node) for child in node.children)
        windows = windows or isinstance(node, n.Window)
    if windows:
        analysis.read_windows = read_window_functions(root)
    engine.prepare(root, analysis)
    propagate(root, analysis, engine.transfer)
    return analysis


__all__ = ["TARGETS", "AggregateStrategy", "Analysis", "Delivered", "Place", "PlaceOf", "SortFate", "analyse"]
