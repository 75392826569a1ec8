"""The plan of a PySpark pipeline: DataFrame operations turned into the IR.

`build_unit` is the plan builder of units of kind `"pyspark"` (see
`sortlint.sources.pyspark.units`). A pipeline's payload holds the consumed DataFrame as an `Op`
tree; each operation becomes the nodes SQL would give it:

| DataFrame call | IR |
| --- | --- |
| `spark.table(t)`, `spark.read.table(t)` | `Scan` of the catalog table (columns qualified by the table's name) |
| `spark.read.parquet(path)`, `.load(...)` | `Scan` of the path (nothing declared about it) |
| a parameter, a DataFrame from elsewhere, `spark.createDataFrame`, what `.sample` gives | `Scan` of `<what it is>`, a name no catalog has: columns not known, nothing known of its rows |
| `spark.sql(q)` | the SQL statement's plan, under an `Alias` whose origin is the SQL unit |
| `select`, `selectExpr`, `withColumn(s)`, `withColumnRenamed`, `drop`, `toDF` | `Project` (over an `Aggregate` / `Window` when the expressions call them) |
| `filter`, `where` | `Filter` (conjuncts of `&` / `AND`) |
| `groupBy(...).agg(...)`, `.count()`, `.sum(...)`, `df.agg(...)`, `rollup`, `cube` | `Aggregate` + `Project` |
| `orderBy`, `sort` / `sortWithinPartitions` | `Sort` (global / per partition) |
| `join`, `crossJoin` | `Join` (sides under an `Alias` when their columns are not qualified) |
| `union`, `unionAll`, `unionByName`, `intersect(All)`, `subtract`, `exceptAll` | `SetOp` |
| `distinct`, `dropDuplicates()` | `Distinct` |
| `limit`, `offset`, `first`, `head`, `take`, `show` | `Limit` |
| `repartition`, `repartitionByRange` | `Repartition` |
| `coalesce`, `dropDuplicates(subset)`, anything else | `Opaque` (columns kept when known) |
| `alias`, `cache`, `persist`, `hint` | nothing (the same rows) |
| `write...saveAsTable/insertInto/save`, `createOrReplaceTempView` | `Write` |
| `count()`, `isEmpty()` | an `Aggregate` of `count(*)` |

`coalesce(n)` merges partitions without a shuffle: order within them is kept and, across
them, not guaranteed either way, so it is opaque rather than a `Repartition` (a sort before
`coalesce(1).write` is a common way to write one ordered file). `dropDuplicates` on a subset
keeps the first row it meets, so a sort before it may matter: opaque too.

Column names resolve as Spark resolves them: by name (case-insensitively) in the DataFrame
the call is applied to, `df.col` / `df["col"]` by the column's identity (so the two sides of
a join are told apart), `F.col("o.x")` through `df.alias("o")`. A name that cannot be
resolved stays a bare name that no fact speaks of.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sortlint.ordering import Expr, SortOptions
from sortlint.plan.aggregates import aggregate_calls, arithmetic, is_ranking, order_sensitive, window_calls as sql_windows
from sortlint.plan.built import NotUnderstood
from sortlint.plan.dialect import sql_dialect
from sortlint.plan.generators import (
    GeneratorCall, alias_names, contains_generator, generate, generator_call, is_generator,
)
from sortlint.plan.names import output_name
from sortlint.plan.nodes import (
    Aggregate, AggregateCall, Alias, Distinct, Filter, GroupKey, Join, Limit, Node, Opaque,
    OutputColumn, Project, Repartition, Scan, SetOp, Sort, SortItem, Span, Window,
    WindowFunction, Write,
)
from sortlint.plan.statement import Statement, build_statement
from sortlint.sources.sql.files import build as build_sql
from sortlint.units import Unit
from sortlint.sources.pyspark.columns import (
    Name, Opaques, direction, is_ranking_call, literal_or_column, name_or_column, pretty, sql,
)
from sortlint.sources.pyspark.values import (
    AggregateDetail, Arg, CAlias, CCall, CExpr, Column, COpaque, CRef, CSort, CSql, CStar,
    CWindow, Instance, Op, Pipeline, PyDict, PyList, PyValue, Range, SpecKey, UserFunction, walk,
    window_calls,
)

GENERATOR_FUNCTIONS = frozenset({
    "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer",
})
JOIN_KINDS = {
    "inner": "inner", "cross": "cross", "left": "left", "leftouter": "left", "left_outer": "left",
    "right": "right", "rightouter": "right", "right_outer": "right", "full": "full",
    "outer": "full", "fullouter": "full", "full_outer": "full", "semi": "semi",
    "leftsemi": "semi", "left_semi": "semi", "anti": "anti", "leftanti": "anti",
    "left_anti": "anti",
}
SET_OPERATIONS = {"union": ("union", False), "unionAll": ("union", False),
                  "unionByName": ("union", False), "intersect": ("intersect", True),
                  "intersectAll": ("intersect", False), "subtract": ("except", True),
                  "exceptAll": ("except", False)}
# Opaque methods after which the rows still have the input's columns.
KEEPS_COLUMNS = frozenset("""
    na.fill na.drop na.replace fillna dropna replace withWatermark observe withMetadata
    coalesce dropDuplicates drop_duplicates
""".split())


# --- what the fixes need besides the IR -------------------------------------------------------


@dataclass(frozen=True)
class SortCall:
    """On a DataFrame `Sort`: whether its keys can be dropped where they are written."""

    editable: bool
    reason: str = ""


@dataclass(frozen=True)
class Aggregation:
    """On a DataFrame `Aggregate`: how to rewrite its call and keep the output's columns."""

    method: str  # agg, count, sum, avg, mean, max, min
    keys_editable: bool
    call: Span  # the aggregation call from its dot (`.agg(...)`, `.count()`)
    args: tuple[Span, ...]  # the aggregation's arguments (`.agg(a, b)`)
    key_names: tuple[str | None, ...]
    names: tuple[str | None, ...]  # every output, in order
    certain: bool  # every name is one the tests prove against Spark
    functions: str | None  # what `pyspark.sql.functions` is imported as
    reason: str = ""


@dataclass(frozen=True)
class WindowUse:
    """On a DataFrame `Window`, one per function: the spec's calls and the columns showing it."""

    editable: bool
    # The spec's first call (`Window.partitionBy(...)`, from its dot): it stays, with `()`,
    # when its keys go, so that what remains is still a WindowSpec and not `Window` itself.
    first_call: Span | None
    columns: tuple[tuple[Span | None, str | None, bool], ...]  # (expression span, old name, named)
    reason: str = ""


# --- frames ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Col:
    name: str | None
    expr: exp.Expression  # the column as the frame's node outputs it
    attr: tuple  # identity, kept through operations that pass the column on
    qualifiers: frozenset[str] = frozenset()
    certain: bool = True


@dataclass(frozen=True)
class Frame:
    node: Node
    columns: tuple[Col, ...] = ()
    complete: bool = False
    unknown: tuple[str, ...] = ()  # qualifiers of the columns not known (a `*` passes them)
    alias: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        if not self.complete or any(c.name is None for c in self.columns):
            return ()
        return tuple(c.name for c in self.columns)  # type: ignore[misc]


def build_unit(unit, tables, config) -> Statement:
    """The plan of a `"pyspark"` unit: its pipeline."""
    return Builder(unit, unit.payload, tables, config).statement()


class Builder:
    def __init__(self, unit, pipeline: Pipeline, tables, config) -> None:
        self.unit = unit
        self.pipeline = pipeline
        self.tables = tables
        self.config = config
        self.base = unit.start
        self.frames: dict[int, Frame] = {}  # the first frame built for each op
        self.qualifiers: set[str] = set()
        self.opaques = Opaques()
        self.refs = itertools.count()
        # The frames a called function's parameters stand for (by the placeholder's id), and
        # whether the ops being built are another file's (their positions are not this one's).
        self.bindings: dict[int, Frame] = {}
        self.foreign = False

    # --- spans ---------------------------------------------------------------------------------

    def span(self, where: Range | None) -> Span | None:
        if where is None or self.foreign:
            return None
        return Span(where[0] - self.base, where[1] - self.base)

    def text(self, where: Range) -> str:
        return self.unit.raw[where[0] : where[1]]

    # --- the statement -------------------------------------------------------------------------

    def statement(self) -> Statement:
        sink = self.pipeline.sink
        if sink.kind == "change":  # it defines the table, knowing nothing of its rows
            reason = f"{sink.target}'s rows change here: a Delta table's update or merge, or a call of a function that writes it"
            return Statement(self.unit, Opaque(span=self.span(sink.call), reason=reason), (), ("table", sink.target))
        frame = self.consumed(self.frame(sink.op), sink.op, frozenset((self.pipeline.index,)))
        node = frame.node
        if isinstance(node, Alias) and node.origin is not None:
            # What another unit holds is linted there: only the root's children are skipped.
            columns = tuple(OutputColumn(name, Expr.column(name)) for name in frame.names)
            node = Project(children=(node,), columns=columns, passthrough=() if columns else ("",))
        call = self.span(sink.call)
        defines = None
        if sink.kind == "write":
            table = sink.names_table
            columns = frame.names
            if sink.write_kind == "insert" and self.tables.columns(sink.target) != columns:
                columns = ()  # insertInto goes by position: known only where the names agree
            node = Write(children=(node,), span=call, target=sink.target, kind=sink.write_kind,
                         rows=sink.rows if table else "unknown", columns=columns)  # type: ignore[arg-type]
            if sink.write_kind == "table" and table:
                defines = ("table", sink.target)
        elif sink.kind == "view":
            node = Write(children=(node,), span=call, target=sink.target, kind="view")
            defines = ("table", sink.target) if sink.target else None
        elif sink.kind == "count":
            count = Expr.parse("count(*)")
            node = Aggregate(children=(node,), span=call, aggregates=(AggregateCall(count),))
            return Statement(self.unit, node, ())
        elif sink.kind == "limit":
            node = Limit(children=(node,), span=call, limit=sink.limit)
        return Statement(self.unit, node, frame.names, defines)

    # --- operations ----------------------------------------------------------------------------

    def frame(self, op: Op) -> Frame:
        owner = self.pipeline.owners.get(id(op))
        if owner is not None:
            return self.owned(op, owner)
        built = self._frame(op)
        self.frames.setdefault(id(op), built)
        return built

    def owned(self, op: Op, owner) -> Frame:
        """An operation an earlier pipeline holds: built with that pipeline's offsets, under
        an Alias whose origin is that pipeline, so it is linted there only."""
        base = self.base
        self.base = owner.start
        try:
            inner = self._frame(op)
        finally:
            self.base = base
        self.frames.setdefault(id(op), inner)
        inner = self.bare(inner)
        names = inner.names
        node = Alias(children=(inner.node,), alias="", columns=names, origin=owner)
        return replace(inner, node=node)

    def _frame(self, op: Op) -> Frame:
        method = getattr(self, "op_" + op.kind.replace("-", "_"), None)
        if method is None:
            return self.opaque(op, f".{op.kind}(...)")
        return method(op)

    def input(self, op: Op, index: int = 0) -> Frame:
        return self.consumed(self.frame(op.inputs[index]), op.inputs[index], self.readers(op))

    def readers(self, op: Op) -> frozenset[int]:
        return self.pipeline.readers.get(id(op), frozenset((self.pipeline.index,)))

    def consumed(self, frame: Frame, op: Op, consumers: frozenset[int]) -> Frame:
        """A DataFrame other pipelines read too keeps its rows for them: a sort in it
        matters to someone, whatever this pipeline does next. A `Write` above it says so
        (it keeps every property, and no rule calls a sort feeding a write useless)."""
        if self.readers(op) <= consumers or id(op) in self.pipeline.owners:
            return frame
        node = Write(children=(frame.node,), target="(read by other pipelines too)", kind="view")
        return replace(frame, node=node)

    def opaque(self, op: Op, reason: str, keep_columns: bool = False) -> Frame:
        inputs = [self.frame(child) for child in op.inputs]
        node = Opaque(children=tuple(f.node for f in inputs), span=self.span(op.call or op.extent),
                      reason=reason)
        if keep_columns and inputs and inputs[0].complete and inputs[0].names:
            first = inputs[0]
            node.columns = first.names
            columns = tuple(replace(c, expr=exp.column(c.name)) for c in first.columns)  # type: ignore[arg-type]
            return Frame(node, columns, True, alias=first.alias)
        return Frame(node, (), False, ("",))

    # sources

    def op_table(self, op: Op) -> Frame:
        name = str(op.detail).lower()
        view = self.tables.view(name) if hasattr(self.tables, "view") else None
        if view is not None:
            return self.view(op, name, view)
        qualifier = self.qualifier(name.rsplit(".", 1)[-1])
        columns = self.tables.columns(name)
        scan = Scan(span=self.span(op.extent), table=name, alias=qualifier, columns=tuple(columns or ()),
                    stored=self.tables.stored(name))
        cols = tuple(
            Col(c, exp.column(c, table=qualifier), (id(op), i)) for i, c in enumerate(columns or ())
        )
        return Frame(scan, cols, columns is not None, () if columns is not None else (qualifier,))

    def view(self, op: Op, name: str, view) -> Frame:
        """`spark.table` of a view a SQL statement created: the view's plan, linted where the
        view is defined."""
        from sortlint.units import Unit

        text = f"SELECT * FROM {name}"
        unit = Unit(self.unit.path, text, 0, text)
        statement = build_statement(unit, self.tables, self.config.dialect, self.config.target)
        return self.embedded(op, statement, view.unit)

    def embedded(self, op: Op, statement: Statement, origin) -> Frame:
        names = statement.outputs
        node = Alias(children=(statement.root,), span=self.span(op.extent), alias="", columns=names,
                     origin=origin)
        cols = tuple(Col(n, exp.column(n), (id(op), i)) for i, n in enumerate(names))
        return Frame(node, cols, bool(names), () if names else ("",))

    def op_read(self, op: Op) -> Frame:
        name = str(op.detail)
        qualifier = self.qualifier("files")
        scan = Scan(span=self.span(op.extent), table=name, alias=qualifier)
        return Frame(scan, (), False, (qualifier,))

    def op_sql(self, op: Op) -> Frame:
        source = op.detail
        units = source.sql.units if source.sql is not None else ()
        if len(units) != 1:
            reason = source.reason or "spark.sql of several statements"
            return Frame(Opaque(span=self.span(op.extent), reason=reason), (), False, ("",))
        unit = units[0]
        statement = build_sql(unit, self.tables, self.config)
        if statement.error is not None:
            return Frame(Opaque(span=self.span(op.extent), reason="SQL that does not parse"), (), False, ("",))
        if isinstance(statement.root, Write) or statement.defines is not None:
            return Frame(Opaque(span=self.span(op.extent), reason="spark.sql of a statement that is not a query"),
                         (), False, ("",))
        return self.embedded(op, statement, unit)

    def op_opaque(self, op: Op) -> Frame:
        return self.opaque(op, str(op.detail))

    def op_elsewhere(self, op: Op) -> Frame:
        return self.open(op, str(op.detail))

    def open(self, op: Op, what: str, name: str = "input") -> Frame:
        """Rows from outside what is read (a parameter, a function not followed,
        `spark.createDataFrame`): a scan of a source no catalog can name (`<...>`), of
        columns not known. Nothing is known of its rows, so only what the operations over
        it establish is; a column the code names is one of its columns (`unresolved`).
        Each build is a relation of its own qualifier: two DataFrames made of one parameter
        (`x = df.filter(...)`, `y = df.filter(...)`, `x.join(y, "k")`) have columns of one
        name that hold different facts."""
        qualifier = self.qualifier(name)
        scan = Scan(span=self.span(op.extent), table=f"<{what}>", alias=qualifier)
        return Frame(scan, (), False, (qualifier,))

    # functions of the job

    def op_param(self, op: Op) -> Frame:
        """A function's parameter: the caller's DataFrame where a call binds it, else rows of
        columns not known (the body is linted for what it does whatever it is given)."""
        bound = self.bindings.get(id(op))
        if bound is not None:
            return bound
        param = op.detail
        return self.open(op, f"{param.reason} of {param.function.name}()", param.name)  # type: ignore[attr-defined]

    def op_call(self, op: Op) -> Frame:
        """A call of a function of the job: the function's operations over the caller's
        DataFrames. Those operations are linted where the function is (its own pipelines),
        the caller's here: the call is an Alias whose origin is the function, and each
        argument's plan under it an Alias whose origin is this unit again."""
        instance: Instance = op.detail  # type: ignore[assignment]
        arguments = []
        for index in range(len(op.inputs)):
            frame = self.bare(self.input(op, index))
            node = Alias(children=(frame.node,), alias=frame.alias or "", columns=frame.names, origin=self.unit)
            arguments.append(replace(frame, node=node))
        bindings = {key: arguments[index] for key, index in instance.positions.items()}
        saved = self.bindings, self.foreign, dict(self.frames)
        self.bindings = {**self.bindings, **bindings}
        self.frames.update(bindings)
        self.foreign = self.foreign or instance.foreign
        try:
            inner = self.bare(self.frame(instance.template))
        finally:
            self.bindings, self.foreign, self.frames = saved
        node = Alias(children=(inner.node,), span=self.span(op.extent), alias="", columns=inner.names,
                     origin=function_unit(instance.function))
        return replace(inner, node=node)

    def op_merge(self, op: Op) -> Frame:
        return self.opaque(op, str(op.detail))

    def op_opaque_method(self, op: Op) -> Frame:
        detail = str(op.detail)
        return self.opaque(op, f".{detail}(...)", keep_columns=detail in KEEPS_COLUMNS)

    # row-wise

    def op_filter(self, op: Op) -> Frame:
        frame = self.input(op)
        if not op.args:
            return self.opaque(op, ".filter() without a condition")
        condition = self.condition(op.args[0], frame)
        conjuncts = tuple(Expr.of(c) for c in _conjuncts(condition))
        node = Filter(children=(frame.node,), span=self.span(op.call), conjuncts=conjuncts)
        return replace(frame, node=node)

    op_where = op_filter

    def condition(self, arg: Arg, frame: Frame) -> exp.Expression:
        value = arg.value
        if isinstance(value, PyValue) and isinstance(value.value, str):
            return self.resolve(CSql(value.value, arg.span), frame)
        return self.resolve(literal_or_column(value), frame)

    def op_select(self, op: Op) -> Frame:
        frame = self.input(op)
        items: list[tuple[CExpr, Arg]] = []
        for arg in _flatten(op.args):
            items.append((name_or_column(arg.value), arg))
        return self.project(op, frame, items)

    def op_selectExpr(self, op: Op) -> Frame:
        frame = self.input(op)
        items = []
        for arg in _flatten(op.args):
            value = arg.value
            if isinstance(value, PyValue) and isinstance(value.value, str):
                text = value.value.strip()
                items.append((CStar() if text == "*" else CSql(text, arg.span), arg))
            else:
                items.append((COpaque("selectExpr of text built at run time"), arg))
        return self.project(op, frame, items, select_expr=True)

    def project(self, op: Op, frame: Frame, items: list[tuple[CExpr, Arg]], select_expr: bool = False) -> Frame:
        columns: list[OutputColumn] = []
        cols: list[Col] = []
        passthrough: list[str] = []
        trees: list[exp.Expression] = []
        windows: list[CWindow] = []
        uses: dict[int, list] = {}
        generators: list[tuple[GeneratorCall, exp.Expression, Arg]] = []
        for index, (expr, arg) in enumerate(items):
            try:
                generator = self.generator(expr, frame, select_expr)
            except NotUnderstood as error:
                return self.opaque(op, error.reason)
            if generator is not None:
                generators.append((*generator, arg))
                for position, name in enumerate(generator[0].names):
                    columns.append(OutputColumn(name, Expr.column(name), self.span(arg.span), True, exp.column(name)))
                    cols.append(Col(name, exp.column(name), (id(op), index, position)))
                continue
            if isinstance(expr, CStar):
                wanted = expr.qualifier.lower() if expr.qualifier else None
                chosen = [c for c in frame.columns
                          if wanted is None or wanted in c.qualifiers or _table_of(c.expr) == wanted]
                for col in chosen:
                    columns.append(OutputColumn(col.name or "", Expr.of(col.expr), None, False, col.expr))
                    cols.append(replace(col, expr=exp.column(col.name or "")))
                passthrough += [q for q in frame.unknown if expr.qualifier is None]
                continue
            name, tree = self.named(expr, frame, select_expr)
            if contains_generator(tree):
                return self.opaque(op, "a generator inside an expression")
            trees.append(tree)
            for window in window_calls(expr):
                windows.append(window)
                named = isinstance(expr, CAlias)
                shown = name.text if window is expr and name.certain else None
                uses.setdefault(id(window), []).append((self.span(arg.span), shown, named))
            attr = self.attr_of(expr, frame) or (id(op), index)
            aliased = isinstance(expr, CAlias) or isinstance(tree, exp.Alias)
            value = tree.this if isinstance(tree, exp.Alias) else tree
            columns.append(OutputColumn(name.text or "", Expr.of(value), self.span(arg.span), aliased, tree))
            cols.append(Col(name.text, exp.column(name.text or f"sortlint_unnamed_{index}"), attr,
                            certain=name.certain))
        node = frame.node
        if generators:
            if len(generators) > 1 or windows or _has_window(trees) or any(next(aggregate_calls(t), None) for t in trees):
                return self.opaque(op, "a generator beside another generator, an aggregate or a window")
            called, resolved, arg = generators[0]
            node = generate(node, called, resolved, None, self.span(arg.span))
        node = self.below_project(node, trees, windows, frame, op, uses)
        project = Project(children=(node,), span=self.span(op.call), columns=tuple(columns),
                          passthrough=tuple(passthrough))
        built = Frame(project, tuple(cols), not passthrough, tuple("" for _ in passthrough[:1]))
        return self.order_guard(built, [expr for expr, _ in items], op)

    def generator(self, expr: CExpr, frame: Frame, select_expr: bool) -> tuple[GeneratorCall, exp.Expression] | None:
        """A select item that is a generator call (`F.explode("tags").alias("tag")`,
        `selectExpr("posexplode(tags) AS (i, tag)")`): the call with the names of its columns,
        and the call resolved in the frame; NotUnderstood when the names are not known."""
        names: tuple[str, ...] = ()
        if isinstance(expr, CAlias):
            expr, names = expr.expr, (expr.name,)
        if isinstance(expr, CSql):
            try:
                written = sqlglot.parse_one(f"SELECT {expr.text}" if select_expr else expr.text,
                                            read=sql_dialect(self.config.dialect))
            except SqlglotError:
                return None
            if select_expr:
                written = written.expressions[0] if isinstance(written, exp.Select) else written
            value = written.this if isinstance(written, (exp.Alias, exp.Aliases)) else written
            if not is_generator(value):
                return None
            names = names or alias_names(written)
            return generator_call(value, names), self.qualify(value, frame)
        if isinstance(expr, CCall) and expr.name in GENERATOR_FUNCTIONS:
            tree = self.resolve(expr, frame)
            return generator_call(tree, names), tree
        return None

    def order_guard(self, frame: Frame, exprs: Iterable[CExpr], op: Op) -> Frame:
        """Columns whose values depend on the order rows arrive in (`monotonically_increasing_id`)
        make the projection opaque: a sort below it matters, whatever consumes it."""
        dependent = [e for expr in exprs for e in walk(expr) if isinstance(e, COpaque) and e.order_dependent]
        if not dependent:
            return frame
        node = Opaque(children=(frame.node,), span=self.span(op.call),
                      reason=f"{dependent[0].reason} depends on the order of the rows", columns=frame.names)
        return replace(frame, node=node)

    def below_project(self, node: Node, trees: list[exp.Expression], windows: list[CWindow],
                      frame: Frame, op: Op, uses=None) -> Node:
        """The Aggregate (a select of aggregate functions without groupBy) and the Window
        nodes the select's expressions need."""
        calls: dict[Expr, exp.Expression] = {}
        for tree in trees:
            for call in aggregate_calls(tree):
                calls.setdefault(Expr.of(call), call)
        if calls:
            node = Aggregate(children=(node,), span=self.span(op.call),
                             aggregates=tuple(AggregateCall(e, order_sensitive(c), arithmetic(c)) for e, c in calls.items()))
        if windows or _has_window(trees):
            node = self.window(node, windows, frame, op, uses, trees)
        return node

    def window(self, node: Node, windows: list[CWindow], frame: Frame, op: Op, uses=None,
               trees: Sequence[exp.Expression] = ()) -> Window:
        """The Window node of the window functions of a select: those built with `.over(w)`,
        and those written in SQL text (`selectExpr("... OVER (...)")`, `F.expr(...)`),
        found in the resolved `trees`."""
        functions: dict[Expr, WindowFunction] = {}
        infos: dict[Expr, WindowUse] = {}
        for window in windows:
            function = self.window_function(window, frame)
            functions.setdefault(function.expr, function)
            infos.setdefault(function.expr, self.window_use(window, uses or {}))
        for written in (w for tree in trees for w in sql_windows(tree)):
            function = self.sql_window_function(written)
            if function.expr not in functions:
                functions[function.expr] = function
                infos[function.expr] = WindowUse(False, False, (), "the window is written in SQL text")
        built = Window(children=(node,), span=self.span(op.call),
                       functions=tuple(functions.values()))
        built.dataframe = tuple(infos[f.expr] for f in built.functions)  # type: ignore[attr-defined]
        return built

    def window_function(self, window: CWindow, frame: Frame) -> WindowFunction:
        spec = window.spec
        partition = tuple(
            GroupKey(Expr.of(self.resolve(key.expr, frame)), self.span(key.span), key.text)
            for key in spec.partition
        )
        order = tuple(self.sort_item(key.expr, key.span, key.text, frame) for key in spec.order)
        return WindowFunction(
            expr=Expr.of(self.resolve(window, frame)),
            partition_by=partition,
            order_by=order,
            ranking=is_ranking_call(window.function),
            span=self.span(spec.calls[0][1] if spec.calls else None),
            partition_span=self.span(spec.partition_call),
            order_span=self.span(spec.order_call),
        )

    def sql_window_function(self, window: exp.Window) -> WindowFunction:
        """A window function written in SQL, its columns already resolved."""
        order = window.args.get("order")
        return WindowFunction(
            expr=Expr.of(window),
            partition_by=tuple(GroupKey(Expr.of(key), None, key.sql()) for key in window.args.get("partition_by") or ()),
            # The text is Spark SQL, read with Spark's null placement: sqlglot's Spark dialect
            # fills in the placement Spark uses when none is written.
            order_by=tuple(
                SortItem(Expr.of(key.this), SortOptions(bool(key.args.get("desc")), bool(key.args.get("nulls_first"))),
                         None, key.sql())
                for key in (order.expressions if order is not None else ())
            ),
            ranking=is_ranking(window.this),
        )

    def window_use(self, window: CWindow, uses) -> WindowUse:
        spec = window.spec
        keys: Sequence[SpecKey] = (*spec.partition, *spec.order)
        editable = not any(k.indirect for k in keys)
        first = self.span(spec.calls[0][1]) if spec.calls else None
        return WindowUse(editable, first, tuple(uses.get(id(window), ())),
                         "" if editable else "the keys are unpacked from a list written elsewhere")

    def op_withColumn(self, op: Op) -> Frame:
        if len(op.args) < 2 or not isinstance(op.args[0].value, PyValue):
            return self.opaque(op, ".withColumn of a name known at run time")
        return self.with_columns(op, [(op.args[0].value.value, op.args[1])])

    def op_withColumns(self, op: Op) -> Frame:
        if len(op.args) != 1 or not isinstance(op.args[0].value, PyDict):
            return self.opaque(op, ".withColumns of columns known at run time")
        pairs = []
        for key, value in op.args[0].value.items:
            if not isinstance(key.value, PyValue) or not isinstance(key.value.value, str):
                return self.opaque(op, ".withColumns of names known at run time")
            pairs.append((key.value.value, value))
        return self.with_columns(op, pairs)

    def with_columns(self, op: Op, pairs: list[tuple[object, Arg]]) -> Frame:
        """The input's columns, each new one added (or put in place of the one of its name).
        Over columns not all known, the others pass through by name (a `*`), in an order
        not known."""
        frame = self.input(op)
        if not frame.complete and (any(c.name is None for c in frame.columns) or not frame.unknown):
            return self.opaque(op, f".{op.kind} over columns not all known")
        passthrough = () if frame.complete else frame.unknown
        columns = [OutputColumn(c.name or "", Expr.of(c.expr), None, False, c.expr) for c in frame.columns]
        cols = [replace(c, expr=exp.column(c.name or "")) for c in frame.columns]
        trees, windows = [], []
        uses: dict[int, list] = {}
        generated: tuple[GeneratorCall, exp.Expression] | None = None
        for index, (name, arg) in enumerate(pairs):
            if not isinstance(name, str):
                return self.opaque(op, f".{op.kind} of a name known at run time")
            expr = literal_or_column(arg.value)
            try:
                generator = self.generator(CAlias(expr, name), frame, False)
            except NotUnderstood as error:
                return self.opaque(op, error.reason)
            if generator is not None:
                if generated is not None or len(generator[0].names) != 1:
                    return self.opaque(op, f".{op.kind} of a generator of several columns")
                generated = generator
                tree = exp.column(name)
            else:
                tree = self.resolve(expr, frame)
                if contains_generator(tree):
                    return self.opaque(op, "a generator inside an expression")
            trees.append(tree)
            for window in window_calls(expr):
                windows.append(window)
                uses.setdefault(id(window), []).append((self.span(arg.span), name, True))
            column = OutputColumn(name, Expr.of(tree), self.span(arg.span), True, tree)
            col = Col(name, exp.column(name), self.attr_of(expr, frame) or (id(op), index, "new"))
            position = next((i for i, c in enumerate(cols) if (c.name or "").lower() == name.lower()), None)
            if position is None:
                columns.append(column)
                cols.append(col)
            else:
                columns[position] = column
                cols[position] = col
        node = frame.node
        if generated is not None:
            if windows or _has_window(trees):
                return self.opaque(op, "a generator beside a window")
            node = generate(node, generated[0], generated[1], None, self.span(op.call))
        if windows or _has_window(trees):
            node = self.window(node, windows, frame, op, uses, trees)
        project = Project(children=(node,), span=self.span(op.call), columns=tuple(columns), passthrough=passthrough)
        built = Frame(project, tuple(cols), not passthrough, ("",) if passthrough else (), frame.alias)
        return self.order_guard(built, [literal_or_column(arg.value) for _, arg in pairs], op)

    def op_withColumnRenamed(self, op: Op) -> Frame:
        names = [a.value.value for a in op.args[:2] if isinstance(a.value, PyValue)]
        if len(names) != 2 or not all(isinstance(n, str) for n in names):
            return self.opaque(op, ".withColumnRenamed of names known at run time")
        return self.renamed(op, {names[0].lower(): names[1]})

    def op_withColumnsRenamed(self, op: Op) -> Frame:
        if len(op.args) != 1 or not isinstance(op.args[0].value, PyDict):
            return self.opaque(op, ".withColumnsRenamed of names known at run time")
        mapping = {}
        for key, value in op.args[0].value.items:
            if not (isinstance(key.value, PyValue) and isinstance(value.value, PyValue)):
                return self.opaque(op, ".withColumnsRenamed of names known at run time")
            mapping[str(key.value.value).lower()] = str(value.value.value)
        return self.renamed(op, mapping)

    def renamed(self, op: Op, mapping: dict[str, str]) -> Frame:
        """The columns renamed. Over columns not all known, a name not among the known ones
        is the unknown relation's column, renamed; its old name is hidden from the `*`."""
        frame = self.input(op)
        if not frame.complete and not self.open_names(frame):
            return self.opaque(op, f".{op.kind} over columns not all known")
        columns, cols = [], []
        for col in frame.columns:
            name = mapping.get((col.name or "").lower(), col.name)
            columns.append(OutputColumn(name or "", Expr.of(col.expr), None, name != col.name, col.expr))
            cols.append(replace(col, name=name, expr=exp.column(name or "")))
        if frame.complete:
            project = Project(children=(frame.node,), span=self.span(op.call), columns=tuple(columns))
            return Frame(project, tuple(cols), True, (), frame.alias)
        for old, new in mapping.items():
            if _by_name(frame, old) is None:
                tree = self.unresolved(old, frame)
                columns.append(OutputColumn(new, Expr.of(tree), None, True, tree))
                cols.append(Col(new, exp.column(new), (id(op), old)))
                columns.append(self.hidden(old))
        return self.passing(op, frame, columns, cols)

    def open_names(self, frame: Frame) -> bool:
        """Whether a name the frame's known columns do not hold is a column of the rows'
        unknown part: there is one such part, and every known column's name is certain."""
        return len(frame.unknown) == 1 and all(c.name is not None and c.certain for c in frame.columns)

    def hidden(self, name: str) -> OutputColumn:
        """An output standing in for a column a `*` must not pass on (dropped, renamed):
        a listed name is never passed through, and this one holds no value anything is
        known of - it is no column of the DataFrame the code sees."""
        tree = exp.Anonymous(this="dropped", expressions=[])
        return OutputColumn(name, Expr.of(tree), None, True, tree)

    def passing(self, op: Op, frame: Frame, columns: list[OutputColumn], cols: list[Col]) -> Frame:
        """A projection of `columns` that passes the frame's unknown columns on."""
        project = Project(children=(frame.node,), span=self.span(op.call), columns=tuple(columns),
                          passthrough=frame.unknown)
        return Frame(project, tuple(cols), False, ("",), frame.alias)

    def op_drop(self, op: Op) -> Frame:
        frame = self.input(op)
        dropped_names, dropped_attrs = set(), set()
        for arg in _flatten(op.args):
            value = arg.value
            if isinstance(value, PyValue) and isinstance(value.value, str):
                dropped_names.add(value.value.lower())
            elif isinstance(value, Column) and isinstance(value.expr, CRef):
                attr = self.attr_of(value.expr, frame)
                if attr is None:
                    dropped_names.add(value.expr.name.lower())
                else:
                    dropped_attrs.add(attr)
            else:
                return self.opaque(op, ".drop of columns known at run time")
        if not frame.complete and not self.open_names(frame):
            return self.opaque(op, ".drop over columns not all known")
        kept = [c for c in frame.columns if (c.name or "").lower() not in dropped_names and c.attr not in dropped_attrs]
        columns = tuple(OutputColumn(c.name or "", Expr.of(c.expr), None, False, c.expr) for c in kept)
        if not frame.complete:
            cols = [replace(c, expr=exp.column(c.name or "")) for c in kept]
            return self.passing(op, frame, [*columns, *(self.hidden(name) for name in sorted(dropped_names))], cols)
        project = Project(children=(frame.node,), span=self.span(op.call), columns=columns)
        return Frame(project, tuple(replace(c, expr=exp.column(c.name or "")) for c in kept), True, (), frame.alias)

    def op_toDF(self, op: Op) -> Frame:
        frame = self.input(op)
        names = [a.value.value for a in _flatten(op.args) if isinstance(a.value, PyValue)]
        if not frame.complete or len(names) != len(frame.columns) or not all(isinstance(n, str) for n in names):
            return self.opaque(op, ".toDF with names not known")
        columns = tuple(OutputColumn(n, Expr.of(c.expr), None, True, c.expr) for n, c in zip(names, frame.columns))
        cols = tuple(replace(c, name=n, expr=exp.column(n)) for n, c in zip(names, frame.columns))
        return Frame(Project(children=(frame.node,), span=self.span(op.call), columns=columns), cols, True)

    def op_alias(self, op: Op) -> Frame:
        frame = self.input(op)
        name = op.args[0].value.value if op.args and isinstance(op.args[0].value, PyValue) else None
        if not isinstance(name, str):
            return frame
        cols = tuple(replace(c, qualifiers=c.qualifiers | {name.lower()}) for c in frame.columns)
        return replace(frame, columns=cols, alias=name.lower())

    def identity(self, op: Op) -> Frame:
        return self.input(op)

    op_cache = op_persist = op_unpersist = op_localCheckpoint = op_checkpoint = identity

    def op_hint(self, op: Op) -> Frame:
        frame = self.input(op)
        name = op.args[0].value.value if op.args and isinstance(op.args[0].value, PyValue) else ""
        if str(name).upper() in ("REPARTITION", "REPARTITION_BY_RANGE", "REBALANCE", "COALESCE"):
            return self.opaque(op, f".hint({name!r})", keep_columns=True)
        return frame

    # ordering and partitioning

    def op_orderBy(self, op: Op) -> Frame:
        return self.sort(op, "global")

    op_sort = op_orderBy

    def op_sortWithinPartitions(self, op: Op) -> Frame:
        return self.sort(op, "partition")

    def sort(self, op: Op, scope: str) -> Frame:
        frame = self.input(op)
        args = _flatten(op.args)
        ascending = op.kwarg("ascending")
        flags: list[bool] | None = None
        reason = ""
        if ascending is not None:
            value = ascending.value
            if isinstance(value, PyValue) and isinstance(value.value, (bool, int)):
                flags = [bool(value.value)] * len(args)
            elif isinstance(value, PyList) and all(isinstance(i.value, PyValue) for i in value.items):
                flags = [bool(i.value.value) for i in value.items]  # type: ignore[attr-defined]
                reason = "the keys' directions are a separate list (ascending=[...])"
            else:
                return self.opaque(op, f".{op.kind} with directions known at run time")
        items = []
        for index, arg in enumerate(args):
            expr = name_or_column(arg.value)
            if flags is not None and index < len(flags) and not isinstance(expr, CSort):
                expr = CSort(expr, not flags[index], None)
            items.append(self.sort_item(expr, arg.span, arg.text, frame))
        if any(arg.indirect for arg in args):
            reason = "the keys are unpacked from a list written elsewhere"
        node = Sort(children=(frame.node,), span=self.span(op.call), keys=tuple(items), scope=scope,
                    clause=op.kind)
        node.dataframe = SortCall(not reason, reason)  # type: ignore[attr-defined]
        return replace(frame, node=node)

    def sort_item(self, expr: CExpr, where: Range, text: str, frame: Frame) -> SortItem:
        descending, nulls_first = direction(expr)
        inner = expr.expr if isinstance(expr, CSort) else expr
        if nulls_first is None:
            options = SortOptions.default(self.config.target, descending)
        else:
            options = SortOptions(descending, nulls_first)
        return SortItem(Expr.of(self.resolve(inner, frame)), options, self.span(where), text)

    def op_limit(self, op: Op) -> Frame:
        frame = self.input(op)
        count = op.args[0].value.value if op.args and isinstance(op.args[0].value, PyValue) else None
        node = Limit(children=(frame.node,), span=self.span(op.call), limit=count if isinstance(count, int) else None)
        return replace(frame, node=node)

    def op_offset(self, op: Op) -> Frame:
        frame = self.input(op)
        count = op.args[0].value.value if op.args and isinstance(op.args[0].value, PyValue) else None
        node = Limit(children=(frame.node,), span=self.span(op.call), offset=count if isinstance(count, int) else None)
        return replace(frame, node=node)

    def op_repartition(self, op: Op) -> Frame:
        frame = self.input(op)
        args = list(op.args)
        if args and isinstance(args[0].value, PyValue) and isinstance(args[0].value.value, int):
            args = args[1:]
        keys = tuple(Expr.of(self.resolve(name_or_column(a.value), frame)) for a in _flatten(args))
        node = Repartition(children=(frame.node,), span=self.span(op.call), keys=keys, clause=op.kind)
        return replace(frame, node=node)

    op_repartitionByRange = op_repartition

    def op_coalesce(self, op: Op) -> Frame:
        return self.opaque(op, ".coalesce(...) merges partitions: their order across is not known",
                           keep_columns=True)

    def op_distinct(self, op: Op) -> Frame:
        frame = self.bare(self.input(op))
        return replace(frame, node=Distinct(children=(frame.node,), span=self.span(op.call)))

    def op_dropDuplicates(self, op: Op) -> Frame:
        subset = [a for a in _flatten(op.args)] + [a for k, a in op.kwargs if k == "subset"]
        if subset and not (len(subset) == 1 and isinstance(subset[0].value, PyValue) and subset[0].value.value is None):
            reason = ".dropDuplicates on a subset of columns keeps the first row it meets"
            return self.opaque(op, reason, keep_columns=True)
        return self.op_distinct(op)

    op_drop_duplicates = op_dropDuplicates

    # combining

    def op_join(self, op: Op) -> Frame:
        left, right = self.input(op, 0), self.input(op, 1)
        on = op.args[1] if len(op.args) > 1 else op.kwarg("on")
        how = op.args[2] if len(op.args) > 2 else op.kwarg("how")
        kind_name = "inner"
        if how is not None:
            if not isinstance(how.value, PyValue) or not isinstance(how.value.value, str):
                return self.opaque(op, ".join of a kind known at run time")
            kind_name = how.value.value.lower()
        kind = JOIN_KINDS.get(kind_name)
        if kind is None:
            return self.opaque(op, f".join how={kind_name!r}")
        left, right = self.distinguish(left, right)
        names = _join_names(on)
        if names is not None:
            return self.using_join(op, left, right, names, kind)
        combined = Frame(left.node, left.columns + right.columns, left.complete and right.complete,
                         left.unknown + right.unknown)
        equalities, residual = [], []
        if on is not None:
            if isinstance(on.value, PyList):
                conditions = [self.resolve(literal_or_column(item.value), combined) for item in on.value.items]
            else:
                conditions = [self.resolve(literal_or_column(on.value), combined)]
            left_side = {Expr.of(c.expr) for c in left.columns}
            right_side = {Expr.of(c.expr) for c in right.columns}
            for condition in conditions:
                for conjunct in _conjuncts(condition):
                    pair = _equality(conjunct, left, right, left_side, right_side)
                    if pair is not None:
                        equalities.append(pair)
                    else:
                        residual.append(Expr.of(conjunct))
        node = Join(children=(left.node, right.node), span=self.span(op.call), kind=kind,  # type: ignore[arg-type]
                    equalities=tuple(equalities), residual=tuple(residual))
        if kind in ("semi", "anti"):
            return replace(left, node=node)
        return replace(combined, node=node, alias=None)

    def op_crossJoin(self, op: Op) -> Frame:
        left, right = self.distinguish(self.input(op, 0), self.input(op, 1))
        node = Join(children=(left.node, right.node), span=self.span(op.call), kind="cross")
        return Frame(node, left.columns + right.columns, left.complete and right.complete,
                     left.unknown + right.unknown)

    def using_join(self, op: Op, left: Frame, right: Frame, names: list[str], kind: str) -> Frame:
        pairs = []
        for name in names:
            l_col, r_col = _by_name(left, name), _by_name(right, name)
            l_expr = l_col.expr if l_col else exp.column(name, table=_qualifier_of(left))
            r_expr = r_col.expr if r_col else exp.column(name, table=_qualifier_of(right))
            pairs.append((name, l_col, r_col, l_expr, r_expr))
        equalities = tuple((Expr.of(l), Expr.of(r)) for _, _, _, l, r in pairs)
        node = Join(children=(left.node, right.node), span=self.span(op.call), kind=kind,  # type: ignore[arg-type]
                    equalities=equalities)
        keys = {n.lower() for n in names}
        key_cols = []
        for name, l_col, r_col, l_expr, r_expr in pairs:
            if kind == "full":
                expr = exp.func("coalesce", l_expr.copy(), r_expr.copy())
                key_cols.append(Col(l_col.name if l_col else name, expr, (id(op), name)))
            elif kind == "right":
                key_cols.append(r_col or Col(name, r_expr, (id(op), name)))
            else:
                key_cols.append(l_col or Col(name, l_expr, (id(op), name)))
        rest_left = [c for c in left.columns if (c.name or "").lower() not in keys]
        if kind in ("semi", "anti"):
            return Frame(node, tuple(key_cols + rest_left), left.complete, left.unknown, left.alias)
        rest_right = [c for c in right.columns if (c.name or "").lower() not in keys]
        return Frame(node, tuple(key_cols + rest_left + rest_right), left.complete and right.complete,
                     left.unknown + right.unknown)

    def distinguish(self, left: Frame, right: Frame) -> tuple[Frame, Frame]:
        """Sides whose columns could be mistaken for each other go under an Alias."""
        left_exprs = {Expr.of(c.expr) for c in left.columns}
        clash = any(Expr.of(c.expr) in left_exprs for c in right.columns)
        clash = clash or ("" in left.unknown and "" in right.unknown)
        if not clash:
            return left, right
        sides = []
        for frame, default in ((left, "l"), (right, "r")):
            if all(isinstance(c.expr, exp.Column) and not c.expr.table for c in frame.columns) and (
                not frame.unknown or frame.unknown == ("",)
            ):
                sides.append(self.aliased(frame, frame.alias or default))
            else:
                sides.append(frame)
        return sides[0], sides[1]

    def aliased(self, frame: Frame, name: str) -> Frame:
        qualifier = self.qualifier(name)
        node = Alias(children=(frame.node,), alias=qualifier, columns=frame.names)
        cols = tuple(replace(c, expr=exp.column(c.name or "", table=qualifier)) for c in frame.columns)
        return Frame(node, cols, frame.complete, (qualifier,) if frame.unknown else (), frame.alias)

    def bare(self, frame: Frame) -> Frame:
        """The frame with bare output names (a Project over qualified columns), as a set
        operation, DISTINCT or an Alias needs."""
        if all(isinstance(c.expr, exp.Column) and not c.expr.table for c in frame.columns) and (
            frame.unknown in ((), ("",))
        ):
            return frame
        if not frame.complete or not frame.names or len({n.lower() for n in frame.names}) != len(frame.names):
            return frame
        columns = tuple(OutputColumn(c.name or "", Expr.of(c.expr), None, False, c.expr) for c in frame.columns)
        cols = tuple(replace(c, expr=exp.column(c.name or "")) for c in frame.columns)
        return Frame(Project(children=(frame.node,), columns=columns), cols, True, (), frame.alias)

    def set_operation(self, op: Op) -> Frame:
        kind, distinct = SET_OPERATIONS[op.kind]
        left, right = self.bare(self.input(op, 0)), self.bare(self.input(op, 1))
        if op.kind == "unionByName":
            allow = op.kwarg("allowMissingColumns")
            missing = allow is not None and not (isinstance(allow.value, PyValue) and allow.value.value is False)
            if missing and not (isinstance(allow.value, PyValue) and allow.value.value is True):
                return self.opaque(op, ".unionByName with allowMissingColumns known at run time")
            if missing:
                # Each side gets the other's columns it lacks, as NULLs: the left's columns
                # first, then the right's others, in their order.
                if not (left.complete and right.complete and left.names and right.names):
                    return self.opaque(op, ".unionByName of columns not all known")
                extra = [c for c in right.columns if _by_name(left, c.name or "") is None]
                left = self.with_nulls(left, [c.name or "" for c in extra])
                right = self.with_nulls(right, [c.name or "" for c in left.columns])
            right = self.reordered(right, left)
            if right is None:
                return self.opaque(op, ".unionByName of columns not all known")
        names = left.names
        node = SetOp(children=(left.node, right.node), span=self.span(op.call), kind=kind,  # type: ignore[arg-type]
                     distinct=distinct, columns=names)
        cols = tuple(Col(c.name, exp.column(c.name or ""), (id(op), i)) for i, c in enumerate(left.columns))
        return Frame(node, cols, left.complete and right.complete and bool(names),
                     () if names else ("",))

    op_union = op_unionAll = op_unionByName = op_intersect = op_intersectAll = set_operation
    op_subtract = op_exceptAll = set_operation

    def with_nulls(self, frame: Frame, names: list[str]) -> Frame:
        """The frame with a NULL column for each of `names` it does not have."""
        absent = [name for name in names if _by_name(frame, name) is None]
        if not absent:
            return frame
        null = exp.Null()
        columns = [OutputColumn(c.name or "", Expr.of(c.expr), None, False, c.expr) for c in frame.columns]
        columns += [OutputColumn(name, Expr.of(null), None, True, exp.alias_(null.copy(), name)) for name in absent]
        cols = [replace(c, expr=exp.column(c.name or "")) for c in frame.columns]
        cols += [Col(name, exp.column(name), ("null", name)) for name in absent]
        return Frame(Project(children=(frame.node,), columns=tuple(columns)), tuple(cols), True)

    def reordered(self, frame: Frame, like: Frame) -> Frame | None:
        if not frame.complete or not like.complete:
            return None
        chosen = []
        for col in like.columns:
            match = _by_name(frame, col.name or "")
            if match is None:
                return None
            chosen.append(match)
        if [c.name for c in chosen] == [c.name for c in frame.columns]:
            return frame
        columns = tuple(OutputColumn(c.name or "", Expr.of(c.expr), None, False, c.expr) for c in chosen)
        return Frame(Project(children=(frame.node,), columns=columns),
                     tuple(replace(c, expr=exp.column(c.name or "")) for c in chosen), True)

    # aggregation

    def op_agg(self, op: Op) -> Frame:
        detail: AggregateDetail = op.detail  # type: ignore[assignment]
        frame = self.input(op)
        key_args = _flatten(detail.keys)
        keys: list[GroupKey] = []
        key_names: list[Name] = []
        columns: list[OutputColumn] = []
        cols: list[Col] = []
        for index, arg in enumerate(key_args):
            expr = name_or_column(arg.value)
            if isinstance(expr, CStar):
                return self.opaque(op, "groupBy('*')")
            name, tree = self.named(expr, frame)
            if isinstance(tree, exp.Alias):
                tree = tree.this
            keys.append(GroupKey(Expr.of(tree), self.span(arg.span), arg.text))
            key_names.append(name)
            columns.append(OutputColumn(name.text or "", Expr.of(tree), self.span(arg.span),
                                        isinstance(expr, CAlias), tree))
            cols.append(Col(name.text, exp.column(name.text or ""), self.attr_of(expr, frame) or (id(op), "key", index),
                            certain=name.certain))
        outputs = self.aggregations(op, detail, frame)
        if outputs is None:
            return self.opaque(op, f".{detail.method}(...) of columns known at run time")
        calls: dict[Expr, exp.Expression] = {}
        for index, (name, tree, where) in enumerate(outputs):
            for call in aggregate_calls(tree):
                calls.setdefault(Expr.of(call), call)
            value = tree.this if isinstance(tree, exp.Alias) else tree
            columns.append(OutputColumn(name.text or "", Expr.of(value), self.span(where), True, value))
            cols.append(Col(name.text, exp.column(name.text or ""), (id(op), "agg", index), certain=name.certain))
        group_span = self.span((detail.group_name_at, detail.group_call[1])) if detail.group_call else self.span(op.call)
        node = Aggregate(
            children=(frame.node,), span=group_span, keys=tuple(keys),
            aggregates=tuple(AggregateCall(e, order_sensitive(c), arithmetic(c)) for e, c in calls.items()),
            grouping_sets=detail.grouping in ("rollup", "cube"),
        )
        names = tuple(c.name for c in cols)
        certain = all(c.certain and c.name is not None for c in cols) and not (
            detail.method == "agg" and len(op.args) == 1 and isinstance(op.args[0].value, PyDict)
            and len(op.args[0].value.items) > 1
        )
        indirect = any(a.indirect for a in key_args) or any(a.indirect for a in op.args)
        node.dataframe = Aggregation(  # type: ignore[attr-defined]
            method=detail.method, keys_editable=not indirect and bool(detail.group_call),
            call=self.span(op.call), args=tuple(self.span(a.span) for a in op.args),
            key_names=tuple(n.text for n in key_names), names=names, certain=certain,
            functions=self.pipeline.functions,
            reason="the keys are unpacked from a list written elsewhere" if indirect else "",
        )
        project = Project(children=(node,), span=self.span(op.call), columns=tuple(columns))
        complete = certain or all(n is not None for n in names)
        if detail.method == "agg" and len(op.args) == 1 and isinstance(op.args[0].value, PyDict) and len(op.args[0].value.items) > 1:
            complete = False  # a dict's aggregates come out in an order Spark does not promise
        return Frame(project, tuple(cols), complete, () if complete else ("",))

    def aggregations(self, op: Op, detail: AggregateDetail, frame: Frame):
        """(name, tree, span) of each aggregate output, or None when they are not known."""
        method = detail.method
        outputs = []
        if method == "count":
            return [(Name("count"), exp.alias_(Expr.parse("count(*)").node.copy(), "count"), op.call)]
        if method in ("sum", "avg", "mean", "max", "min"):
            if not op.args:
                return None
            for arg in _flatten(op.args):
                if not isinstance(arg.value, PyValue) or not isinstance(arg.value.value, str):
                    return None
                function = "avg" if method == "mean" else method
                expr = CCall(function, (CRef(arg.value.value),))
                name, tree = self.named(expr, frame)
                outputs.append((name, tree, arg.span))
            return outputs
        args = list(op.args)
        if len(args) == 1 and isinstance(args[0].value, PyDict):
            for key, value in args[0].value.items:
                if not (isinstance(key.value, PyValue) and isinstance(value.value, PyValue)):
                    return None
                column, function = str(key.value.value), str(value.value.value).lower()
                function = {"mean": "avg", "average": "avg", "std": "stddev"}.get(function, function)
                target = CStar() if column == "*" else CRef(column)
                expr = CCall(function, (target,))
                name, tree = self.named(expr, frame)
                outputs.append((name, tree, key.span))
            return outputs
        for arg in _flatten(args):
            if not isinstance(arg.value, Column):
                return None
            name, tree = self.named(arg.value.expr, frame)
            outputs.append((name, tree, arg.span))
        return outputs

    # --- expressions ---------------------------------------------------------------------------

    def named(self, expr: CExpr, frame: Frame, select_expr: bool = False) -> tuple[Name, exp.Expression]:
        """Spark's name for a column expression, and its resolved tree (an `Alias` kept)."""
        if isinstance(expr, CSql) and select_expr:
            try:
                written = sqlglot.parse_one(f"SELECT {expr.text}", read=sql_dialect(self.config.dialect)).expressions[0]
            except SqlglotError:
                return Name(None, False), self.opaque_tree()
            tree = self.qualify(written, frame)
            if isinstance(written, exp.Alias):
                return Name(written.alias), tree
            return Name(output_name(written, expr.text)), tree
        if isinstance(expr, CRef):
            parts = attribute_parts(expr.name)
            return Name(parts[-1] if parts else None, bool(parts)), self.resolve(expr, frame)
        name = pretty(expr, self.sql_name)
        tree = self.resolve(expr, frame)
        if isinstance(expr, CAlias):
            tree = exp.alias_(tree, expr.name, quoted=not expr.name.isidentifier())
        return name, tree

    def sql_name(self, expr: CSql) -> Name:
        try:
            node = sqlglot.parse_one(expr.text, read=sql_dialect(self.config.dialect))
        except SqlglotError:
            return Name(None, False)
        return Name(output_name(node, expr.text), False)

    def resolve(self, expr: CExpr, frame: Frame) -> exp.Expression:
        """The expression as a sqlglot tree, its columns resolved in the frame."""
        refs: dict[str, exp.Expression] = {}

        def ref(e: CExpr) -> str:
            placeholder = f"sortlint_ref_{next(self.refs)}"
            if isinstance(e, CStar):
                return "*"
            refs[placeholder] = self.column(e, frame)  # type: ignore[arg-type]
            return placeholder

        text = sql(expr, ref, self.opaques)
        try:
            tree = sqlglot.parse_one(text, read=sql_dialect(self.config.dialect))
        except SqlglotError:
            return self.opaque_tree()
        tree = _strip_parens(tree)

        def substitute(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and not node.table:
                found = refs.get(node.name)
                if found is not None:
                    return found.copy()
            if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
                return self.by_name(node, frame)
            return node

        return tree.transform(substitute)

    def qualify(self, tree: exp.Expression, frame: Frame) -> exp.Expression:
        def substitute(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
                return self.by_name(node, frame)
            return node

        tree = tree.copy()
        value = tree.this if isinstance(tree, exp.Alias) else tree
        resolved = value.transform(substitute)
        if isinstance(tree, exp.Alias):
            tree.set("this", resolved)
            return tree
        return resolved

    def by_name(self, column: exp.Column, frame: Frame) -> exp.Expression:
        qualifier = column.table.lower() if column.table else None
        found = self.lookup(CRef(f"{qualifier}.{column.name}" if qualifier else column.name), frame)
        if found is not None:
            return found.expr.copy()
        return exp.column(column.name.lower(), table=qualifier) if qualifier else self.unresolved(column.name, frame)

    def column(self, ref: CRef, frame: Frame) -> exp.Expression:
        found = self.lookup(ref, frame)
        if found is not None:
            return found.expr
        parts = attribute_parts(ref.name)
        if len(parts) == 1:
            return self.unresolved(parts[0], frame, ref.frame)
        if len(parts) == 2:
            # `q.x` of a relation not found, or a struct's field: never the bare `x`, which
            # another struct's `x` would be too
            return exp.column(parts[1].lower(), table=parts[0].lower())
        return self.opaque_tree()

    def unresolved(self, name: str, frame: Frame, origin: Op | None = None) -> exp.Expression:
        """A column name the frame's known columns do not hold. When the rest of its columns
        are one relation's (`open_names`), or `df.name` names the DataFrame that is one of
        them, it is that relation's column, so that what the code teaches of it passes
        through a `*`; otherwise a bare name, of which nothing the relations hold is known
        (Spark fails on a name it finds in neither, or in both)."""
        relation = None
        if self.open_names(frame):
            relation = frame.unknown[0]
        elif origin is not None:
            named = self.frames.get(id(origin))
            if named is not None and self.open_names(named) and named.unknown[0] in frame.unknown:
                relation = named.unknown[0]
        return exp.column(name.lower(), table=relation or None)

    def lookup(self, ref: CRef, frame: Frame) -> Col | None:
        """The frame's column a reference reads, or None."""
        if ref.frame is not None:
            attr = self.attr_in(ref.frame, ref.name)
            if attr is not None:
                for col in frame.columns:
                    if col.attr == attr:
                        return col
        parts = attribute_parts(ref.name)
        if not parts or len(parts) > 2:
            return None
        name = parts[-1]
        qualifier = parts[0].lower() if len(parts) == 2 else None
        matches = [
            c for c in frame.columns
            if (c.name or "").lower() == name.lower() and (qualifier is None or qualifier in c.qualifiers
                                                          or _table_of(c.expr) == qualifier)
        ]
        if len(matches) == 1:
            return matches[0]
        return None

    def attr_in(self, op: Op, name: str) -> tuple | None:
        frame = self.frames.get(id(op))
        if frame is None:
            return None
        matches = [c for c in frame.columns if (c.name or "").lower() == name.lower()]
        return matches[0].attr if len(matches) == 1 else None

    def attr_of(self, expr: CExpr, frame: Frame) -> tuple | None:
        """The identity a plain column reference keeps."""
        if isinstance(expr, CRef):
            col = self.lookup(expr, frame)
            return col.attr if col is not None else None
        return None

    def opaque_tree(self) -> exp.Expression:
        return sqlglot.parse_one(self.opaques.next())

    def qualifier(self, wanted: str) -> str:
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in wanted.lower()) or "t"
        name, number = base, 1
        while name in self.qualifiers:
            number += 1
            name = f"{base}_{number}"
        self.qualifiers.add(name)
        return name


# --- helpers ------------------------------------------------------------------------------------


def function_unit(function: UserFunction) -> Unit:
    """The text of a function, as the origin of its operations where it is called."""
    made = getattr(function, "unit", None)
    if made is None:
        reader = function.reader
        start, end = reader.range(function.node)  # type: ignore[attr-defined]
        made = Unit(path=getattr(reader, "path", None) or Path(function.name), text=reader.raw[start:end],  # type: ignore[attr-defined]
                    start=start, raw=reader.raw, kind="pyspark")  # type: ignore[attr-defined]
        function.unit = made  # type: ignore[attr-defined]
    return made


def _has_window(trees: Iterable[exp.Expression]) -> bool:
    return any(next(sql_windows(tree), None) is not None for tree in trees)


def _flatten(args: Iterable[Arg]) -> list[Arg]:
    args = list(args)
    if len(args) == 1 and isinstance(args[0].value, PyList):
        return list(args[0].value.items)
    return args


def _conjuncts(tree: exp.Expression) -> list[exp.Expression]:
    tree = _strip_parens(tree)
    if isinstance(tree, exp.And):
        return _conjuncts(tree.this) + _conjuncts(tree.expression)
    return [tree]


def _strip_parens(tree: exp.Expression) -> exp.Expression:
    while isinstance(tree, exp.Paren):
        tree = tree.this
    return tree


def _equality(conjunct, left: Frame, right: Frame, left_side, right_side):
    if not isinstance(conjunct, exp.EQ):
        return None
    a, b = Expr.of(conjunct.this), Expr.of(conjunct.expression)

    def side(e: Expr):
        columns = e.columns
        if columns and columns <= left_side:
            return "left"
        if columns and columns <= right_side:
            return "right"
        return None

    sa, sb = side(a), side(b)
    if sa == "left" and sb == "right":
        return a, b
    if sa == "right" and sb == "left":
        return b, a
    return None


def _join_names(on: Arg | None) -> list[str] | None:
    """`on="k"` or `on=["a", "b"]`: the names of a join on equal columns."""
    if on is None:
        return None
    value = on.value
    if isinstance(value, PyValue) and isinstance(value.value, str):
        return [value.value]
    if isinstance(value, PyList) and value.items and all(
        isinstance(i.value, PyValue) and isinstance(i.value.value, str) for i in value.items
    ):
        return [i.value.value for i in value.items]  # type: ignore[attr-defined]
    return None


def _by_name(frame: Frame, name: str) -> Col | None:
    matches = [c for c in frame.columns if (c.name or "").lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None


def _qualifier_of(frame: Frame) -> str | None:
    for q in frame.unknown:
        return q or None
    return None


def _table_of(expr: exp.Expression) -> str | None:
    return expr.table.lower() if isinstance(expr, exp.Column) and expr.table else None


def attribute_parts(name: str) -> list[str]:
    """A column name as Spark's `col(...)` reads it: parts split at dots outside backquotes,
    a doubled backquote inside them standing for one. [] when it does not read."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(name):
        char = name[i]
        if quoted:
            if char == "`" and name[i + 1 : i + 2] == "`":
                current.append("`")
                i += 2
                continue
            if char == "`":
                quoted = False
            else:
                current.append(char)
        elif char == "`":
            quoted = True
        elif char == ".":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    if quoted:
        return []
    parts.append("".join(current))
    return parts if all(parts) else []
