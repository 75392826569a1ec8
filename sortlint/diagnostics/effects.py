"""What a finding's fix changes in Spark's executed plan: the physical operators it removes
from the statement's plan and the ones it adds (adaptive query execution off)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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
    exchange and one sort fewer. `lightens`, for a fix that keeps every operator: those that
    then run by fewer keys (a sort, a hash, a window: less work per row - measured at 10M rows,
    17% to 42% of the statement's time, docs/rules/index.md#effects). It is predicted only:
    a measured plan's operator counts cannot show it, and two effects compare without it."""

    removes: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    lightens: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def between(cls, before: Counter[str], after: Counter[str]) -> Effect:
        """The effect that turns a plan with operator counts `before` into one with `after`."""
        return cls(tuple(sorted((before - after).elements())), tuple(sorted((after - before).elements())))

    @property
    def saves_work(self) -> bool:
        return bool(self.removes) and not self.adds

    @property
    def none(self) -> bool:
        """The plan keeps every operator (some may run by fewer keys: `lightens`)."""
        return not self.removes and not self.adds

    @property
    def noop(self) -> bool:
        """The fix changes nothing Spark runs: the same operators, none by fewer keys (where
        Spark drops the sort itself, or hashes the same keys in another order)."""
        return self.none and not self.lightens

    def worse(self) -> tuple[str, ...]:
        """The operators that make Spark's plan worse, the one definition the rules (a fix
        with such an effect is not offered), the fuzzer's plan oracle and `sortlint verify`
        judge by: a Sort or an Exchange more, or an ObjectHashAggregate (its buffers are
        objects, sorted and spilled under memory pressure). A SortAggregate in place of a
        HashAggregate is worse only through the Sort it needs, counted here (issue 32's
        `any_value` over a string: 2 Sorts and 2 SortAggregates more); with no Sort added it
        streams over rows already in its order, the gain SL101 offers."""
        return tuple(o for o in self.adds if o in ("Sort", "Exchange", "ObjectHashAggregate"))

    @property
    def worsens(self) -> str | None:
        """Why a fix with this effect makes the plan worse (`worse`), or None."""
        added = self.worse()
        return f"it would add {_listed(added)} to Spark's plan" if added else None

    def as_json(self) -> dict[str, list[str]]:
        return {"removes": list(self.removes), "adds": list(self.adds), "lightens": list(self.lightens)}

    def words(self) -> str:
        """The effect in a few words, for a report: "saves an exchange and a sort", "same
        plan: a sort by fewer keys"."""
        if self.noop:
            return "no runtime effect"
        if self.none:
            return f"same plan: {_listed(self.lightens)} by fewer keys"
        if self.removes and self.adds:
            return f"runs {_listed(self.adds)} in place of {_listed(self.removes)}"
        return f"saves {_listed(self.removes)}" if self.removes else f"adds {_listed(self.adds)}"


def _listed(operators: tuple[str, ...]) -> str:
    counts = Counter(operators)
    names = [_NAMES[o][0] if k == 1 else f"{k} {_NAMES[o][1]}" for o, k in sorted(counts.items(), key=_order)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _order(item: tuple[str, int]) -> int:
    return OPERATORS.index(item[0]) if item[0] != "Exchange" else -1  # "an exchange and a sort"


@dataclass(frozen=True)
class Unknown:
    """An effect the Spark model does not predict, and why: what Spark's plan then depends on
    that the model does not know or does not model (a join strategy Spark picks from table
    sizes, a type the catalog does not give). `reason` reads after "runtime effect unknown: "."""

    reason: str


@dataclass(frozen=True)
class Prediction:
    """What the target engine's model says of a proposed fix: its `effect` (None where the
    model does not know it - `unknown` says why - or for an engine whose operators are not
    Spark's), and `withheld`, why the fix is not offered (None: it may be). Rules read it; only
    the engine's predictor knows which plans a fix may make worse."""

    effect: Effect | None = None
    withheld: str | None = None
    unknown: str | None = None
    # why nothing the fix touches runs, where the model knows (the finding's words say it)
    because: str | None = None

    @classmethod
    def of(cls, found: Effect | Unknown, withheld: str | None = None) -> Prediction:
        if isinstance(found, Unknown):
            return cls(None, withheld, found.reason)
        return cls(found, withheld)


def unknown_words(reason: str) -> str:
    """A finding's unknown effect in words, for a report."""
    return f"runtime effect unknown: {reason}"
