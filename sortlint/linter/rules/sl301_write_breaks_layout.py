"""SL301 write-breaks-layout

## What it does
Reports a write into a table whose catalog entry declares an ordering - `INSERT INTO` /
`INSERT OVERWRITE ... SELECT`, `CREATE TABLE ... AS SELECT` into a declared name, a dbt model
declared with an ordering, `df.write...saveAsTable(name)` / `.insertInto(name)`,
`df.writeTo(name)...` - when the rows it writes do not come in that order. Every write is
checked, a DataFrame's that other statements of the job read too (`staged.write...` then
`staged.count()`) included; the DataFrame fix sorts at the write call
(`staged.orderBy("k").write...`), so what the other readers get is unchanged.

A view stores no files, so it holds no layout: a `CREATE VIEW`, and a dbt model materialized
as a `view` (dbt's default, unless its `dbt_project.yml` `+materialized`, property-file
`config:` or own `config(materialized=...)` says otherwise, the later winning) or as
`ephemeral`, is never reported and never given an `ORDER BY`. An ordering declared on such a
model is a configuration mistake, warned of on stderr at its declaration's line
(`warning: models/schema.yml:3: stg is a view: it stores no files, so its declared ordering is
never a layout (no SL301)`).

A declared ordering is the table's **layout**: the order its files hold. Spark keeps an
order in the files only where the query gives it, so under `target: spark`:

* a global ordering (`scope: global`) needs the query to end with an `ORDER BY` (`orderBy`)
  that satisfies it: each written file is then a sorted, separate range of keys;
* a `scope: partition` ordering with `partitioned_by: [p]` needs each writing task's rows
  sorted by the partition columns first, then by the ordering: `SORT BY p, <ordering>`
  (`sortWithinPartitions("p", ...)`), optionally after `DISTRIBUTE BY p`, or an
  `ORDER BY p, <ordering>`. Spark sorts a partitioned write by its partition columns unless
  the query already starts with them, and that sort replaces a `SORT BY` under it - so
  `DISTRIBUTE BY p SORT BY ts` writes files *not* sorted by `ts`, and an `ORDER BY ts` keeps
  its order only while the write's sort does not spill;
* a bucketed table (`bucketing: {by, buckets, sorted_by}`) is sorted by Spark itself: every
  bucket file by `sorted_by`, whatever the query. Nothing is asked of its writers (a sort
  they write is without effect: SL002).

A sort that establishes a declared layout is never reported as unnecessary (SL001) or
without effect (SL002). Under `target: datafusion` writes are not modelled and the rule stays
quiet.

## Why it matters
Readers of the table, `sortlint contracts`, and every declaration-based finding trust the
declared layout; a writer that breaks it breaks them all, silently.

## Example
With `telemetry.host_daily` declared `orderings: [[host]]`, `scope: partition`,
`partitioned_by: [day]`:

```sql
INSERT OVERWRITE TABLE telemetry.host_daily      -- SL301
SELECT day, host, count(*) AS requests FROM telemetry.events GROUP BY day, host
DISTRIBUTE BY day SORT BY host                   -- dropped by the write's sort by day
```

## Fix safety
The fix writes the clause (or DataFrame call) that establishes the layout: it replaces the
query's final sort, or adds one. The rows written are the same:

* a `SORT BY` or `CLUSTER BY` that must become an `ORDER BY` is replaced together with the
  `DISTRIBUTE BY` before it, and a `DISTRIBUTE BY` alone likewise (Spark does not parse
  `DISTRIBUTE BY k ORDER BY id`); for a partition layout, `CLUSTER BY k` becomes
  `DISTRIBUTE BY k SORT BY p, <ordering>`;
* under a `LIMIT` the sort decides which rows are written, so nothing below the `LIMIT`
  changes: the query is sorted above it, `SELECT * FROM (<query> LIMIT n) ORDER BY <keys>`,
  which writes the same columns (names and types) and rows. There is no fix when a key's name
  is shared by two outputs (the outer sort could not name it).

It is unsafe because it rests on the declaration, and because the sort it adds costs a shuffle
or a sort.
The finding has no `effect`: its fix adds the sort the layout needs, by design, and the
model does not predict it; `effect_unknown` says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sortlint.config import Source
from sortlint.config.model import DeclaredOrdering
from sortlint.diagnostics import Finding
from sortlint.engines import Delivered, spark
from sortlint.linter.context import Context
from sortlint.ordering import Evidence, Expr, Properties, SortKey, SortOptions, format_ordering
from sortlint.plan import nodes as n
from sortlint.sources.frontend import WrittenKey

CODE = "SL301"
NAME = "write-breaks-layout"
NODE = n.Write  # the plan nodes `check` is called with


def check(node: n.Write, context: Context) -> Iterator[Finding]:
    if node.span is None:
        return
    source = layout_of(node, context)
    delivered = context.analysis.delivered_to(node)
    if source is None or delivered is None or source.bucketing is not None:
        return
    outputs = written_columns(node.children[0])
    props = context.input_of(node)
    for ordering in source.orderings:
        required = _requirement(source, ordering, node, outputs)
        if required is None:
            continue  # the declaration cannot be said over this query's columns
        per_partition = source.scope == "partition"
        if _holds(delivered, required, per_partition, props):
            continue
        yield _finding(node, source, ordering, required, per_partition, context)


def layout_of(write: n.Write, context: Context) -> Source | None:
    """The catalog entry of the table a write fills, when it declares a layout."""
    if write.kind == "view":
        return None
    source = context.config.source(write.target)
    if source is None or not (source.orderings or source.bucketing):
        return None
    return source


def feeds_declared_layout(sort: n.Sort, context: Context) -> bool:
    """Whether the sort's rows go straight into a write of a table with a declared layout:
    its order is the layout's business (SL301), not a sort to remove."""
    consumer = context.consumer(sort)
    return isinstance(consumer, n.Write) and layout_of(consumer, context) is not None


def written_columns(node: n.Node) -> list[tuple[str, Expr]]:
    """The columns a write receives, in order: each one's name and the expression the
    properties of the rows speak of it by ([] when they are not known). A DataFrame other
    pipelines read too is under a `Write` view saying so: its rows are the written ones."""
    if isinstance(node, (n.Sort, n.Filter, n.Limit, n.Repartition, n.Write)):
        return written_columns(node.children[0])
    if isinstance(node, n.Scan):
        return [(c, Expr.column(c, node.alias or None)) for c in node.columns]
    if isinstance(node, n.Alias) and node.columns:
        return [(c, Expr.column(c, node.alias or None)) for c in node.columns]
    return [(name, Expr.column(name)) for name in n.output_names(node)]


def _requirement(
    source: Source, ordering: DeclaredOrdering, write: n.Write, outputs: Sequence[tuple[str, Expr]]
) -> list[SortKey] | None:
    """The order the written rows need, over the query's output columns: the partition
    columns first (ascending, nulls first: Spark's own sort of a partitioned write), then
    the ordering. None when a declared column is not an output the query names."""
    columns = [c.name for c in source.columns]
    by_position = write.kind == "insert" and len(columns) == len(outputs)

    def output(column: str) -> Expr | None:
        if by_position:
            return outputs[columns.index(column)][1]
        matches = [expr for name, expr in outputs if name.lower() == column]
        return matches[0] if len(matches) == 1 else None

    keys = []
    if source.scope == "partition":
        for column in source.partitioned_by:
            expr = output(column)
            if expr is None:
                return None
            keys.append(SortKey(expr, SortOptions.spark()))
    for item in ordering.items:
        expr = output(item.column)
        if expr is None:
            return None
        keys.append(SortKey(expr, SortOptions(item.descending, item.nulls_first)))
    return keys


def _holds(delivered: Delivered, required: list[SortKey], per_partition: bool, props: Properties) -> bool:
    """A global layout holds when the written rows are in its order (constants and all: each
    file is a sorted range). A partition layout needs the order Spark itself reports to
    start with the partition columns, or the write sorts by them and drops the query's sort -
    a partition column fixed by WHERE does not spare that sort."""
    if not per_partition:
        return props.satisfies(required)
    given = delivered.keys[: len(required)]
    return len(given) == len(required) and all(
        have.expr == want.expr and have.options.satisfies(want.options, props.nullable(want.expr))
        for have, want in zip(given, required)
    )


def _finding(
    write: n.Write,
    source: Source,
    ordering: DeclaredOrdering,
    required: list[SortKey],
    per_partition: bool,
    context: Context,
) -> Finding:
    layout = f"[{', '.join(str(item) for item in ordering.items)}]"
    evidence = Evidence(
        "declared", f"declared ordering {layout} of {source.name} ({ordering.location})"
    )
    keys = [WrittenKey(key.expr.column_name or str(key.expr), key.options) for key in required]
    if per_partition:
        partitions = ", ".join(source.partitioned_by)
        declared = f"{evidence.text} in each partition of ({partitions})"
        missing = (
            f"each writing task's rows must be sorted by the partition columns first: "
            f"{context.fixes.sort_text('partition', keys)} (Spark sorts a partitioned write "
            f"by {partitions} unless the query already does, and drops a sort that does not "
            "start with them)"
        )
    else:
        declared = evidence.text
        missing = f"the rows need a final {context.fixes.sort_text('global', keys)}"
    scope = "partition" if per_partition else "global"
    fix = context.fix(
        f"sort the written rows: {context.fixes.sort_text(scope, keys)}",
        lambda: context.fixes.establish_order(context, write, scope, keys),
        [evidence],
    )
    return context.finding(
        CODE,
        NAME,
        write.span,
        # the declaration's evidence as the other rules cite it, so that `contracts_report`
        # annotates the finding with what Spark found of it
        f"the write into {source.name} does not keep its layout, the {declared}: {missing}; "
        f"the rows come {_described(context, write)}",
        [evidence],
        fix,
        context.predicted(spark.establishing_layout),
    )


def _described(context: Context, write: n.Write) -> str:
    delivered = context.analysis.delivered_to(write)
    if delivered is None or not delivered.keys:
        return "in no known order"
    where = "across all rows" if delivered.scope == "global" else "in each partition only"
    return f"sorted by {format_ordering(delivered.keys)} {where}"
