"""What a finding's fix changes in Spark's executed plan: the physical operators it removes
from the statement's plan and the ones it adds (adaptive query execution off)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

# The operators an effect counts, by the names Spark's physical plan gives them.
OPERATORS = ("Sort", "Exchange", "HashAggregate", "SortAggregate", "ObjectHashAggregate",
             "Window", "TakeOrderedAndProject")

# How a report names each operator, singular and plural.
_NAMES = {
    "Sort": ("a sort", "sorts"),
    "Exchange": ("an exchange", "exchanges"),
    "HashAggregate": ("a hash aggregate", "hash aggregates"),
    "SortAggregate": ("a sort aggregate", "sort aggregates"),
    "ObjectHashAggregate": ("an object hash aggregate", "object hash aggregates"),
    "Window": ("a window", "windows"),
    "TakeOrderedAndProject": ("a sorted top-k", "sorted top-ks"),
}


@dataclass(frozen=True)
class Effect:
    """One entry per operator instance, sorted: `removes=("Exchange", "Sort")` is one
    exchange and one sort fewer."""

    removes: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()

    @classmethod
    def between(cls, before: Counter[str], after: Counter[str]) -> Effect:
        """The effect that turns a plan with operator counts `before` into one with `after`."""
        return cls(tuple(sorted((before - after).elements())), tuple(sorted((after - before).elements())))

    @property
    def saves_work(self) -> bool:
        return bool(self.removes) and not self.adds

    @property
    def none(self) -> bool:
        """The plan keeps every operator: the fix changes only the query's text (and, at
        most, what an operator computes, such as a sort by fewer keys)."""
        return not self.removes and not self.adds

    @property
    def worsens(self) -> str | None:
        """Why a fix with this effect makes the plan worse, or None: it adds a sort or an
        exchange, or an aggregate whose buffers are objects (a sort aggregate in place of a
        hash aggregate is the point of streaming over sorted rows, and sorts nothing)."""
        added = [o for o in self.adds if o in ("Sort", "Exchange", "ObjectHashAggregate")]
        return f"it would add {_listed(tuple(added))} to Spark's plan" if added else None

    def as_json(self) -> dict[str, list[str]]:
        return {"removes": list(self.removes), "adds": list(self.adds)}

    def words(self) -> str:
        """The effect in a few words, for a report: "saves an exchange and a sort"."""
        if self.none:
            return "no runtime effect"
        if self.removes and self.adds:
            return f"runs {_listed(self.adds)} in place of {_listed(self.removes)}"
        return f"saves {_listed(self.removes)}" if self.removes else f"adds {_listed(self.adds)}"


def _listed(operators: tuple[str, ...]) -> str:
    counts = Counter(operators)
    names = [_NAMES[o][0] if k == 1 else f"{k} {_NAMES[o][1]}" for o, k in sorted(counts.items(), key=_order)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _order(item: tuple[str, int]) -> int:
    return OPERATORS.index(item[0]) if item[0] != "Exchange" else -1  # "an exchange and a sort"
