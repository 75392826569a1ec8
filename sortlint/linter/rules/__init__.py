"""The rule set. Each rule is one module: its docstring is the rule's page
(`sortlint rule SL001`), `NODE` the kind of plan node it looks at, and `check(node, context)`
yields its findings about one such node."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import import_module

# One module per rule, in code order.
MODULES = (
    "sl001_unnecessary_sort",
    "sl002_sort_without_effect",
    "sl003_redundant_sort_keys",
    "sl101_aggregate_could_stream",
    "sl102_aggregate_partially_ordered",
    "sl103_redundant_group_keys",
    "sl201_redundant_window_keys",
    "sl301_write_breaks_layout",
)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    doc: str
    node: type  # the plan nodes (subclasses included) `check` is called with
    check: Callable[..., Iterator]

    @property
    def summary(self) -> str:
        """The first sentence of "What it does": up to the first full stop outside code
        (`INSERT OVERWRITE ... SELECT` is not a sentence's end)."""
        paragraphs = self.doc.split("## What it does", 1)[-1].strip().split("\n\n")
        text = " ".join(paragraphs[0].split())
        in_code = False
        for index, character in enumerate(text):
            if character == "`":
                in_code = not in_code
            elif character == "." and not in_code and text[index + 1 : index + 2] in ("", " "):
                return text[: index + 1]
        return text.rstrip(".") + "."


def _rule(name: str) -> Rule:
    module = import_module(f"{__name__}.{name}")
    return Rule(module.CODE, module.NAME, module.__doc__ or "", module.NODE, module.check)


# Each module is named after its code, so the codes are known without importing the rules
# (and the engines and sqlglot under them): a check whose files are all cached needs none.
CODES: tuple[str, ...] = tuple(name.split("_")[0].upper() for name in MODULES)


@cache
def rules() -> tuple[Rule, ...]:
    """Every rule, imported on first use."""
    return tuple(_rule(name) for name in MODULES)


def rule(code_or_name: str) -> Rule | None:
    """The rule with this code (`SL001`) or name (`unnecessary-sort`), as ruff's `rule` takes either."""
    wanted = code_or_name.strip()
    return next((r for r in rules() if r.code == wanted.upper() or r.name == wanted.lower()), None)
