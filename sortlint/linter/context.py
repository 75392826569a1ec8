"""What a rule sees of a statement: its plan, the properties of every node, the config."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sortlint.config import Config
from sortlint.config.citations import as_read
from sortlint.diagnostics import Applicability, Edit, Effect, Finding, Fix, Prediction, UneditableRegion
from sortlint.engines import Analysis, spark
from sortlint.ordering import Evidence, Properties, Satisfaction, SortKey, basis_of
from sortlint.plan import nodes as n
from sortlint.sources.frontend import FixShapes
from sortlint.sources.registry import fixes_for
from sortlint.units import Unit

# Operators that pass rows through in the order they arrive (a generator repeats each row
# where it was).
ORDER_PRESERVING = (n.Project, n.Filter, n.Alias, n.Generate)


class FixWithheld(Exception):
    """A rewrite the rule can write but does not offer, and why: the finding shows the reason
    in place of a fix."""


@dataclass
class Context:
    unit: Unit
    root: n.Node
    analysis: Analysis  # of `root`
    # `sort_satisfaction`'s answers, by `id` of the sort
    satisfactions: dict[int, Satisfaction] = field(default_factory=dict)

    @property
    def fixes(self) -> FixShapes:
        """How fixes are written in the unit's kind of file."""
        return fixes_for(self.unit.kind)

    @property
    def config(self) -> Config:
        return self.analysis.config

    @property
    def target(self) -> str:
        return self.analysis.target

    def input_of(self, node: n.Node) -> Properties:
        return self.analysis.of(node.children[0])

    def parent(self, node: n.Node) -> n.Node | None:
        return self.analysis.parent(node)

    def sort_satisfaction(self, node: n.Sort) -> Satisfaction:
        """How many of a sort's keys its input already satisfies, and why: SL001, SL002 and
        SL003 all ask it of the same sorts."""
        found = self.satisfactions.get(id(node))
        if found is None:
            requirement = [SortKey(item.expr, item.options) for item in node.keys]
            found = self.satisfactions[id(node)] = self.input_of(node).satisfaction(requirement)
        return found

    def consumer(self, node: n.Node) -> n.Node | None:
        """The first ancestor that does something with row order (None: the result)."""
        parent = self.parent(node)
        while isinstance(parent, ORDER_PRESERVING) and parent.children[0] is not node:
            node, parent = parent, self.parent(parent)  # a predicate subquery's parent
        while isinstance(parent, ORDER_PRESERVING):
            node, parent = parent, self.parent(parent)
        return parent

    def line_of(self, span: n.Span | None) -> int | None:
        return self.unit.location(span.start)[0] if span else None

    def finding(
        self,
        code: str,
        name: str,
        span: n.Span,
        message: str,
        evidence: Iterable[Evidence],
        fix: Fix | None = None,
        predicted: Prediction | None = None,
    ) -> Finding:
        """`predicted`: what the fix does on Spark (`predicted`), known or why not."""
        line, column = self.unit.location(span.start)
        end_line, end_column = self.unit.location(span.end)
        predicted = predicted or Prediction()
        return Finding(
            code, name, message, self.unit.path, line, column, end_line, end_column,
            basis_of(tuple(evidence)), fix, predicted.effect, predicted.unknown,
        )

    def predicted(self, predict: Callable[[Analysis], Prediction]) -> Prediction:
        """What a fix changes in Spark's executed plan (or why that is not known), or why it is
        withheld (the predictor of `sortlint.engines.spark`), for `target: spark` only: another
        engine's plan has other operators, and its model predicts nothing."""
        return predict(self.analysis) if self.target == "spark" else Prediction()

    def fix(
        self,
        message: str,
        make_edits: Callable[[], list[Edit] | None],
        evidence: Iterable[Evidence] = (),
        effect: Effect | None = None,
    ) -> Fix | None:
        """A fix resting on `evidence`: unsafe when a fact it needs may be false without the
        engine noticing - a declaration the engine does not enforce (the result is right only
        while the contract holds), another file's code, a caveat (`Evidence.fixes_safely`).
        `make_edits` returns the edits, or None when the rewrite is not possible; a
        rewrite that would touch a templated region, or that the rule withholds
        (`FixWithheld`), or that would make Spark's plan worse (`effect`), is reported as
        unavailable, with the reason."""
        try:
            edits = make_edits()
        except (UneditableRegion, FixWithheld) as refusal:
            return Fix(Applicability.DISPLAY_ONLY, f"{message}: {refusal}")
        if not edits:
            return None
        if effect is not None and effect.worsens:
            return Fix(Applicability.DISPLAY_ONLY, f"{message}: {effect.worsens}")
        safe = all(e.fixes_safely for e in evidence)
        return Fix(Applicability.SAFE if safe else Applicability.UNSAFE, message, tuple(edits))


def because(evidence: Iterable[Evidence]) -> str:
    """The facts a conclusion rests on, for a message: declared ones first, and a word on
    those that are another file's code."""
    evidence = set(evidence)
    texts = sorted({str(e) for e in evidence}, key=lambda t: (not t.startswith("declared"), as_read(t)))
    if not texts:
        return "the query itself"
    upstream = " (code outside this statement, which may change)" if any(e.basis == "upstream" for e in evidence) else ""
    return "; ".join(texts) + upstream
