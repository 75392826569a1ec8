"""What a table keeps of the statement that wrote it: the row-set facts of its query.

A table's files hold the rows its writer's query produced. What that query guarantees of
each row and of the set of rows - constants, columns equal to each other, columns never
null, column types, keys no two rows share - therefore holds of the table read back; its
order does not (Spark reads a table's files largest first, and a view's sort is the
optimizer's to drop). So a statement reading a table that another statement of the
repository wrote - a dbt model's `ref`, a `CREATE TABLE ... AS` or `INSERT` of an earlier
SQL file, a PySpark `saveAsTable` - starts from those facts.

How the write leaves the table decides what survives (`Write.rows`): a replacing write
keeps every fact; an appending write - INSERT OVERWRITE too, which under dynamic partition
overwrite keeps the partitions its rows do not touch - keeps only what holds both of the
rows already there and of the new ones (`Properties.union`: constants of the same value,
types, columns never null) - and nothing when what was there is not known; a dbt incremental model keeps what
every run of its query guarantees (the union of its facts with themselves).

Every fact is re-cited as `upstream`: it rests on another statement's code (of another file,
or earlier in the same one), which may change without the reading statement changing, so a
fix resting on it is unsafe. Its message says so, in words that hold for both; its text
names the file (the clause's own line is in its text already).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sortlint.engines.analysis import Analysis
from sortlint.ordering import Constant, EquivalenceClass, Evidence, Expr, Properties, UniqueKey
from sortlint.plan import nodes as n


def rows_written(
    write: n.Write, outputs: Sequence[str], analysis: Analysis, previous: Properties | None, file: str
) -> Properties | None:
    """What the rows of `write.target` satisfy once the statement has run, over its
    unqualified column names; None when nothing is known (`previous`: what they satisfied
    before, for an append)."""
    if write.rows == "unknown" or not outputs:
        return None
    if len(write.columns) != len(outputs) or len(set(outputs)) < len(outputs):
        return None
    mapping = [(Expr.column(output), Expr.column(column)) for output, column in zip(outputs, write.columns)]
    facts = cited(analysis.of(write.children[0]).project(mapping).without_orderings(), write.target, file)
    if write.rows == "replace":
        return facts
    if write.rows == "increments":
        return Properties.union([facts, facts])
    return None if previous is None else Properties.union([previous, facts])


def cited(props: Properties, table: str, file: str) -> Properties:
    """The facts with their evidence re-cited as another file's code (`file`, which writes
    `table`); a fact the query makes without a clause to cite (`'email' AS kind`) cites the
    query."""
    cache: dict[Evidence, Evidence] = {}
    the_query = frozenset((Evidence("upstream", f"the query that writes {table} in {file}"),))

    def upstream(evidence: frozenset[Evidence]) -> frozenset[Evidence]:
        if not evidence:
            return the_query
        return frozenset(cache.setdefault(e, _cited(e, file)) for e in evidence)

    return props.but(
        constants={e: Constant(c.value, upstream(c.evidence)) for e, c in props.constants.items()},
        classes=tuple(EquivalenceClass(c.members, upstream(c.evidence)) for c in props.classes),
        unique_keys=tuple(UniqueKey(k.exprs, upstream(k.evidence), k.nulls_distinct) for k in props.unique_keys),
    )


def _cited(evidence: Evidence, file: str) -> Evidence:
    if evidence.basis == "upstream":
        return evidence  # it names its own file already
    text = str(replace(evidence, caveat=None))
    return Evidence("upstream", f"{text} in {file}", caveat=evidence.caveat)


def read_back(props: Properties, stored: Properties, alias: str) -> Properties:
    """`props` (what the catalog declares of a table) with what its rows are known to
    satisfy (`stored`, over unqualified columns), read under `alias`. A declared type wins."""
    columns = [c for c in stored.mentioned_columns() if c.column_name is not None]
    qualified = stored.project([(column, Expr.column(column.column_name or "", alias)) for column in columns])
    for expr, constant in qualified.constants.items():
        props = props.with_constant(expr, constant.value, constant.evidence)
    for cls in qualified.classes:
        for member in cls.members[1:]:
            props = props.with_equality(cls.representative, member, cls.evidence)
    for key in qualified.unique_keys:
        props = props.with_unique_key(key.exprs, key.evidence, key.nulls_distinct)
    types = {e: t for e, t in qualified.types.items() if e not in props.types}
    return props.with_not_null(qualified.not_null).with_types(types)
