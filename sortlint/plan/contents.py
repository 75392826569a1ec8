"""What an expression of a SELECT holds outside its nested queries: aggregate calls, window
calls, a generator, nested queries - found in one walk.

The select list, the aggregate, the windows and the projection each ask this of every
select item, and a walk each (with a copy to qualify it and another walk to key it) was
most of the cost of an item; the items of a project's CTE chains number in the tens of
thousands.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sortlint.plan.aggregates import is_aggregate_call, walk_outside_queries, wrapped
from sortlint.plan.generators import is_generator


@dataclass(frozen=True)
class Contents:
    aggregates: tuple[exp.Expression, ...]  # as `aggregates.aggregate_calls` finds them
    windows: tuple[exp.Window, ...]  # as `aggregates.window_calls` finds them
    generator: bool  # a generator call anywhere (`generators.contains_generator`)
    queries: bool  # a query in it, or itself one (`predicates.nested_queries` finds one)


def contents(node: exp.Expression) -> Contents:
    aggregates: list[exp.Expression] = []
    windows: list[exp.Window] = []
    generator = queries = False
    for sub in walk_outside_queries(node):
        if isinstance(sub, exp.Window):
            windows.append(sub)
        elif is_aggregate_call(sub):
            aggregates.append(wrapped(sub))
        elif isinstance(sub, exp.Query):
            queries = True
        generator = generator or is_generator(sub)
    return Contents(tuple(aggregates), tuple(windows), generator, queries)
