"""One statement's plan: queries, INSERT ... SELECT, CREATE TABLE ... AS, CREATE VIEW.

`build_statement` does not raise for SQL content: text sqlglot cannot parse becomes the
statement's `error` (with the raw file line), a statement that is not a query becomes an
`Opaque` root, and a query construct the builder does not model becomes an `Opaque` subtree.
Anything else it raises is a bug, reported as an internal error by its caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from sqlglot import exp

from sortlint.errors import UserError
from sortlint.plan.built import Built
from sortlint.plan.context import Context
from sortlint.plan.nodes import Node, Opaque, Span, Write
from sortlint.plan.parse import parse_unit
from sortlint.plan.positions import NamedKey
from sortlint.plan.query import build_query
from sortlint.plan.tables import TableLookup, Tables, ViewDefinition
from sortlint.units import Unit

if TYPE_CHECKING:
    from sortlint.ordering import Properties

QUERIES = (exp.Query, exp.Values)
# Statements that change a table's values or columns in a way the plan does not follow: what
# its rows were known to satisfy is forgotten (they define it, knowing nothing). A DELETE or
# a TRUNCATE leaves some of the rows, which satisfy all the rows did.
CHANGES = (exp.Update, exp.Merge, exp.Alter)


@dataclass
class Statement:
    """A unit's plan and what the caller needs around it: the output names (for the fix
    contract), what the statement defines (for the statements after it), and the error when
    it does not parse (then `root` is an Opaque node)."""

    unit: Unit
    root: Node
    outputs: tuple[str, ...] = ()  # output column names in order; () when not known
    defines: tuple[str, str] | None = None  # ("view" | "table", name) for the caller to register
    error: UserError | None = None
    view: ViewDefinition | None = None  # what a CREATE VIEW defines (see Tables.register_view)
    # The outputs' types, where the analysis knows them (set once the statement is analysed).
    output_types: tuple[str | None, ...] = ()
    # What its grouped SELECTs read outside their keys and aggregate calls (see
    # `sortlint.plan.grouping`), set once the statement is analysed: the fixer's proof
    # compares it before and after a fix.
    ungrouped: tuple[str, ...] = ()
    # What the rows of the table it writes satisfy after it (`sortlint.engines.stored`),
    # set once the statement is analysed; None: nothing is known.
    stored: Properties | None = None
    # Its GROUP BY and ORDER BY keys that name an aggregate or a literal (see
    # `sortlint.plan.positions`), set and compared like `ungrouped`.
    keys_naming_nothing: tuple[NamedKey, ...] = ()
    switches_database: bool = False  # USE x: see `switches_database`

    @property
    def defined(self) -> str | None:
        """The view or table the statement makes known to the statements after it: one it
        creates, or one it inserts into (which changes what its rows are known to satisfy)."""
        if self.view is not None:
            return self.view.name
        if self.defines is not None:
            return self.defines[1]
        if isinstance(self.root, Write) and self.root.kind == "insert" and self.root.target:
            return self.root.target
        return None

    @property
    def created_columns(self) -> tuple[str, ...]:
        """The columns of the table it creates (an insert creates none)."""
        return self.outputs if self.defines is not None else ()

    def register(self, tables: Tables) -> None:
        """Make what the statement defines known to `tables`."""
        if self.view is not None:
            tables.register_view(self.view)
        elif self.defined is not None:
            tables.register_table(self.defined, self.created_columns, self.stored)

    def without_plan(self) -> Statement:
        """The statement as the fixer keeps it while it proves its fixes: what the proof
        compares, its plan left out (and the tree and tokens behind it), so that a file's
        plans are not all alive at once - twice over, before and after a fix. Its span keeps no
        unit (None: the statement's own), so that a statement sent from a worker does not
        carry the unit, and the whole file's text, along."""
        span = self.root.span
        if isinstance(self.root, Opaque) and not self.root.children and (span is None or span.unit is None):
            return self  # nothing to leave out (a statement kept so already, one that did not parse)
        kept = Span(span.start, span.end) if span is not None else None
        return replace(self, root=Opaque(span=kept, reason="the plan is not kept"))


def build_statement(unit: Unit, tables: TableLookup, dialect: str, target: str) -> Statement:
    """The plan of one unit, parsed with the sqlglot `dialect`; sort keys without NULLS
    FIRST/LAST take the `target` engine's default ("spark" or "datafusion")."""
    try:
        tree, spans = parse_unit(unit, dialect)
    except UserError as error:
        whole = Span(0, len(unit.text))
        return Statement(unit, Opaque(span=whole, reason="cannot parse SQL"), error=error)
    ctx = Context(unit=unit, tables=tables, dialect=dialect, target=target, spans=spans)
    return build_tree(tree, ctx)


def build_tree(tree: exp.Expression, ctx: Context) -> Statement:
    unit = ctx.unit
    if isinstance(tree, QUERIES):
        built = build_query(tree, ctx, None)
        return Statement(unit, built.node, built.columns)
    if isinstance(tree, exp.Insert):
        return insert(tree, ctx)
    if isinstance(tree, exp.Create):
        return create(tree, ctx)
    reason = f"{statement_kind(tree)} is not a query"
    changed = tree.this if isinstance(tree, CHANGES) and tree.args.get("kind") in (None, "TABLE") else None
    defines = ("table", table_name(changed)) if isinstance(changed, exp.Table) else None
    return Statement(unit, Opaque(span=ctx.spans.whole(), reason=reason), defines=defines,
                     switches_database=switches_database(tree))


def switches_database(tree: exp.Expression) -> bool:
    """`USE [CATALOG | DATABASE | SCHEMA] x`, `SET CATALOG x`: the names written without a
    database after it are another database's tables."""
    if isinstance(tree, exp.Use):
        return True
    return (isinstance(tree, exp.Command) and tree.name.upper() == "SET"
            and tree.text("expression").split()[:1] == ["CATALOG"])


def insert(tree: exp.Insert, ctx: Context) -> Statement:
    query = tree.expression
    target = tree.this.find(exp.Table) if tree.this is not None else None
    if not isinstance(query, QUERIES) or target is None:
        return Statement(ctx.unit, Opaque(span=ctx.spans.whole(), reason="an INSERT without a query"))
    built = build_query(query, ctx.with_ctes(tree.args.get("with_")), None)
    name = table_name(target)
    root = Write(children=(built.node,), span=ctx.spans.head(query), target=name, kind="insert",
                 rows=inserted_rows(tree), columns=inserted_columns(tree, name, built, ctx))
    return Statement(ctx.unit, root, built.columns)


def inserted_rows(tree: exp.Insert) -> Literal["append", "unknown"]:
    """INSERT INTO appends. So, as far as what its rows satisfy, does INSERT OVERWRITE: under
    dynamic partition overwrite (a session setting; dbt-spark's `insert_overwrite` sets it)
    a partitioned table keeps the partitions the new rows do not touch, so the table holds
    new rows and some old ones. An overwrite of a named partition, or anything else the
    statement adds, leaves rows it does not show."""
    written = {key for key, value in tree.args.items() if value and key not in ("this", "expression", "overwrite", "with_")}
    target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if written or not isinstance(target, exp.Table) or target.args.get("partition"):
        return "unknown"
    return "append"


def inserted_columns(tree: exp.Insert, name: str, built: Built, ctx: Context) -> tuple[str, ...]:
    """The target's columns the query's outputs go to: its column list, or - Spark inserts
    by position - the outputs' own names when the target's columns are those, in that order."""
    if not built.columns:
        return ()
    if isinstance(tree.this, exp.Schema):
        listed = tuple(column.name.lower() for column in tree.this.expressions)
        return listed if len(listed) == len(built.columns) else ()
    outputs = tuple(column.lower() for column in built.columns)
    return outputs if ctx.tables.columns(name) == outputs else ()


def create(tree: exp.Create, ctx: Context) -> Statement:
    kind = (tree.args.get("kind") or "").upper()
    target = tree.this.find(exp.Table) if tree.this is not None else None
    query = tree.expression
    if kind not in ("TABLE", "VIEW") or target is None or not isinstance(query, QUERIES):
        reason = f"CREATE {kind} without a query"
        return Statement(ctx.unit, Opaque(span=ctx.spans.whole(), reason=reason))
    name = table_name(target)
    built = build_query(query, ctx, None)
    columns = view_columns(tree) if kind == "VIEW" else ()
    outputs = columns or built.columns
    write_kind = "view" if kind == "VIEW" else "table"
    # CREATE TABLE IF NOT EXISTS may leave the rows it finds; a column list may cast them
    created = kind == "TABLE" and not tree.args.get("exists") and not isinstance(tree.this, exp.Schema)
    root = Write(children=(built.node,), span=ctx.spans.head(query), target=name, kind=write_kind,
                 rows="replace" if created else "unknown", columns=outputs)
    view = ViewDefinition(name, query, ctx.unit, columns, ctx.spans) if kind == "VIEW" else None
    return Statement(ctx.unit, root, outputs, (write_kind, name), view=view)


def view_columns(tree: exp.Create) -> tuple[str, ...]:
    """`CREATE VIEW v (a, b COMMENT '...') AS ...`: the names it gives the query's outputs."""
    schema = tree.this
    if not isinstance(schema, exp.Schema):
        return ()
    return tuple(column.name for column in schema.expressions)


def table_name(table: exp.Table) -> str:
    return ".".join(part.lower() for part in (table.catalog, table.db, table.name) if part)


def statement_kind(tree: exp.Expression) -> str:
    if isinstance(tree, exp.Command):
        return f"{tree.this.upper()} statement"
    return f"{tree.key.upper()} statement"


def build_statements(
    units: Iterable[Unit], tables: Tables, dialect: str, target: str
) -> list[Statement]:
    """Statements in order, each view or table a statement creates registered for the next."""
    statements = []
    for unit in units:
        statement = build_statement(unit, tables, dialect, target)
        statement.register(tables)
        statements.append(statement)
    return statements
