"""`sortlint explain`: each statement's plan, the properties at every node, and which
rule fired where - the debugging view DataFusion's EXPLAIN VERBOSE gives its optimizer."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.diagnostics import Finding
from sortlint.engines import Analysis
from sortlint.ordering import Properties, format_ordering
from sortlint.plan import nodes as n


def render_statement(
    title: str, root: n.Node, analysis: Analysis, findings: Sequence[Finding], locate
) -> str:
    """`locate(span)` gives the raw (line, column) where a span starts."""
    line_of = lambda span: locate(span)[0] if span else None  # noqa: E731
    lines = [title]
    by_line: dict[int, list[Finding]] = {}
    for finding in findings:
        by_line.setdefault(finding.line, []).append(finding)
    _render(root, analysis, 1, lines, by_line, line_of, locate)
    return "\n".join(lines)


def _render(node, analysis, depth, lines, by_line, line_of, locate) -> None:
    indent = "  " * depth
    line = line_of(node.span)
    where = f"  (line {line})" if line else ""
    lines.append(f"{indent}{describe(node)}{where}")
    if isinstance(node, n.Aggregate):
        lines.append(f"{indent}  mode: {analysis.permutation(node).mode}")
    for text in describe_properties(analysis.of(node)):
        lines.append(f"{indent}  | {text}")
    fired = [f for f in by_line.get(line, ()) if _points_into(f, node, locate)]
    for finding in fired:
        lines.append(f"{indent}  >> {finding.code} {finding.name}: {finding.message}")
    for child in node.children:
        _render(child, analysis, depth + 1, lines, by_line, line_of, locate)


def _points_into(finding: Finding, node: n.Node, locate) -> bool:
    """Whether the finding points at this node's clause or at one of its keys."""
    spans = [node.span] + [key.span for key in getattr(node, "keys", ())]
    for function in getattr(node, "functions", ()):
        spans += [function.span] + [k.span for k in function.partition_by + function.order_by]
    return any(span is not None and locate(span) == (finding.line, finding.column) for span in spans)


def describe(node: n.Node) -> str:
    if isinstance(node, n.Scan):
        return f"Scan {node.table} AS {node.alias}"
    if isinstance(node, n.Filter):
        return f"Filter[{node.clause}] " + " AND ".join(str(c) for c in node.conjuncts)
    if isinstance(node, n.Project):
        return "Project " + ", ".join(f"{c.expr} AS {c.name}" for c in node.columns)
    if isinstance(node, n.Alias):
        return f"Alias {node.alias}"
    if isinstance(node, n.Aggregate):
        keys = ", ".join(str(k.expr) for k in node.keys)
        calls = ", ".join(str(a.expr) for a in node.aggregates)
        return f"Aggregate keys=[{keys}] aggregates=[{calls}]"
    if isinstance(node, n.Window):
        return "Window " + ", ".join(str(f.expr) for f in node.functions)
    if isinstance(node, n.Sort):
        return f"Sort[{node.clause}] " + ", ".join(f"{i.expr} {i.options}" for i in node.keys)
    if isinstance(node, n.Limit):
        return f"Limit {node.limit}" + (f" OFFSET {node.offset}" if node.offset else "")
    if isinstance(node, n.Join):
        on = " AND ".join(f"{l} = {r}" for l, r in node.equalities)
        return f"Join[{node.kind}]" + (f" ON {on}" if on else "")
    if isinstance(node, n.SetOp):
        return f"SetOp {node.kind.upper()} {'DISTINCT' if node.distinct else 'ALL'}"
    if isinstance(node, n.Repartition):
        return "Repartition " + ", ".join(str(k) for k in node.keys)
    if isinstance(node, n.Write):
        return f"Write[{node.kind}] {node.target}"
    if isinstance(node, n.Opaque):
        return f"Opaque ({node.reason})"
    return node.label


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
    for key in props.unique_keys:
        out.append("unique: (" + ", ".join(sorted(map(str, key.exprs))) + ")")
    return out
