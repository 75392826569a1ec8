"""SL102 aggregate-partially-ordered

## What it does
Reports a GROUP BY whose input is ordered on some of its keys but not all, when those
ordered keys do not come first in the GROUP BY.

## Why it matters
An engine that streams partially ordered aggregates (DataFusion's `PartiallySorted`) can
flush its hash table each time the ordered keys change, keeping memory bounded. Putting
the ordered keys first states the order the input has, and is the order a sort-based
aggregate needs.

## Example
With `events` declared ordered by `[host]`:

```sql
SELECT status, host, count(*) FROM events GROUP BY status, host   -- SL102: host is ordered
```

## Fix safety
Reordering GROUP BY keys never changes a SQL result, so the fix is safe.
"""

from __future__ import annotations

from collections.abc import Iterator

from sortlint.diagnostics import Finding
from sortlint.linter.context import Context, because
from sortlint.linter.rules.sl101_aggregate_could_stream import (
    ordered_input,
    reorder_fix,
    varying_keys,
)
from sortlint.ordering import format_ordering
from sortlint.plan import nodes as n

CODE = "SL102"
NAME = "aggregate-partially-ordered"


def check(node: n.Node, context: Context) -> Iterator[Finding]:
    permutation = ordered_input(node, context)
    if permutation is None or len(permutation.indices) == len(node.keys):
        return
    leading = varying_keys(node, permutation, context)
    constant = set(permutation.indices) - set(leading)
    varying = [i for i in range(len(node.keys)) if i not in constant]
    if not leading or leading == varying[: len(leading)]:
        return  # nothing ordered but constants, or the ordered keys already lead
    ordered = ", ".join(node.keys[i].text for i in leading)
    yield context.finding(
        CODE,
        NAME,
        node.span,
        f"GROUP BY input is ordered by {format_ordering(permutation.keys)} "
        f"({because(permutation.evidence)}); put {ordered} first",
        permutation.evidence,
        reorder_fix(node, leading, context),
    )
