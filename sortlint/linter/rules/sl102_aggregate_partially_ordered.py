"""SL102 aggregate-partially-ordered

## What it does
Reports a GROUP BY that the engine streams on some of its keys - the input is ordered on
them, not on the others - when those ordered keys do not come first in the GROUP BY.

Only an engine that streams partially ordered groups counts: DataFusion
(`ordering_mode=PartiallySorted`, `target: datafusion`). Spark does not: its sort aggregate
needs the input ordered on every GROUP BY key (SL101), so under `target: spark` the rule
stays quiet - reordering the keys would change nothing Spark does.

## Why it matters
An engine that streams partially ordered aggregates flushes its hash table each time the
ordered keys change, keeping memory bounded. Putting the ordered keys first states the order
the input has, and is the order a sort-based aggregate needs if the other keys become
ordered too.

## Example
With `events` declared `WITH ORDER (host)` (`target: datafusion`):

```sql
SELECT status, host, count(*) FROM events GROUP BY status, host   -- SL102: host is ordered
```

## Fix safety
Reordering GROUP BY keys never changes a SQL result, so the fix is safe.
The finding has no `effect` (DataFusion's operators are not Spark's; Spark never reports it).
"""

from __future__ import annotations

from collections.abc import Iterator

from sortlint.diagnostics import Finding
from sortlint.linter.context import Context, because
from sortlint.linter.rules.sl101_aggregate_could_stream import reorder_fix
from sortlint.ordering import format_ordering
from sortlint.plan import nodes as n

CODE = "SL102"
NAME = "aggregate-partially-ordered"
NODE = n.Aggregate  # the plan nodes `check` is called with


def check(node: n.Aggregate, context: Context) -> Iterator[Finding]:
    if node.span is None:
        return
    strategy = context.analysis.strategy(node)
    props = context.input_of(node)
    leading = [
        i for i in strategy.partially_ordered
        if not props.is_constant(props.normalize_expr(node.keys[i].expr)[0])[0]
    ]
    constant = set(strategy.partially_ordered) - set(leading)
    varying = [i for i in range(len(node.keys)) if i not in constant]
    if not leading or leading == varying[: len(leading)]:
        return  # nothing ordered but constants (SL103 reports them), or they already lead
    ordered = ", ".join(node.keys[i].text for i in leading)
    yield context.finding(
        CODE,
        NAME,
        node.span,
        f"GROUP BY input is ordered by {format_ordering(strategy.input_ordering)} "
        f"({because(strategy.evidence)}); put {ordered} first",
        strategy.evidence,
        reorder_fix(node, leading, context),
    )
