"""`sortlint explain`: each statement's plan, the properties at every node, and which
rule fired where - the debugging view DataFusion's EXPLAIN VERBOSE gives its optimizer. The
plan is printed by `sortlint.plan.render`, the one plan printer."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from sortlint.diagnostics import Finding
from sortlint.engines import Analysis
from sortlint.ordering import Properties, format_ordering
from sortlint.plan import nodes as n
from sortlint.plan.render import render

Locate = Callable[[n.Span], tuple[int, int]]


def render_statement(
    title: str, root: n.Node, analysis: Analysis, findings: Sequence[Finding], locate: Locate
) -> str:
    """`locate(span)` gives the raw (line, column) where a span starts."""
    by_line: dict[int, list[Finding]] = {}
    for finding in findings:
        by_line.setdefault(finding.line, []).append(finding)

    def line_of(node: n.Node) -> int | None:
        return locate(node.span)[0] if node.span else None

    def where(node: n.Node) -> str:
        line = line_of(node)
        return f"  (line {line})" if line else ""

    def notes(node: n.Node) -> Iterator[str]:
        if isinstance(node, n.Aggregate):
            yield f"mode: {analysis.strategy(node).mode}"
        if isinstance(node, n.Sort) and (fate := analysis.sort_fate(node)) is not None:
            yield f"engine: {fate.text}"
        for text in describe_properties(analysis.of(node)):
            yield f"| {text}"
        line = line_of(node)
        for finding in by_line.get(line, ()) if line else ():
            if _points_into(finding, node, locate):
                yield f">> {finding.code} {finding.name}: {finding.message}"

    return title + "\n" + render(root, depth=1, where=where, notes=notes)


def _points_into(finding: Finding, node: n.Node, locate: Locate) -> bool:
    """Whether the finding points at this node's clause or at one of its keys."""
    spans = [node.span] + [key.span for key in getattr(node, "keys", ())]
    for function in getattr(node, "functions", ()):
        spans += [function.span] + [k.span for k in function.partition_by + function.order_by]
    return any(span is not None and locate(span) == (finding.line, finding.column) for span in spans)


def describe_properties(props: Properties) -> list[str]:
    out = []
    if props.constants:
        items = ", ".join(
            f"{e}={c.value}" if c.value is not None else str(e) for e, c in props.constants.items()
        )
        out.append(f"constants: {items}")
    if props.classes:
        out.append("classes: " + " ".join("{" + ", ".join(map(str, c.members)) + "}" for c in props.classes))
    for fact in props.orderings:
        scope = "" if fact.partitioned_by is None else f" within partitions of {sorted(map(str, fact.partitioned_by))}"
        out.append(f"ordering: {format_ordering(fact.keys)}{scope}")
    # One key may be known twice, on two grounds (declared, and grouped by): shown once.
    keys = ("unique: (" + ", ".join(sorted(map(str, key.exprs))) + ")" for key in props.unique_keys)
    out += dict.fromkeys(keys)
    return out
