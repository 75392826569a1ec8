"""What a PySpark job computes, as read from its Python source: DataFrame operations and
column expressions, before any name is resolved.

The reader (`sortlint.sources.pyspark.reader`) evaluates a job's statements abstractly: every
Python expression becomes a `Value` - a DataFrame (an `Op` tree), a Column (a `CExpr` tree),
a window specification, a plain Python constant, or `Unknown`. The plan builder
(`sortlint.sources.pyspark.build`) turns the `Op` tree of one consumed DataFrame into the IR, resolving
column names against the DataFrames they are applied to.

Every position here is an offset into the raw file (`Range` = [start, end)).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from functools import cached_property

from sortlint.sources.sql.preparation import written_names

Range = tuple[int, int]


# --- Python values -----------------------------------------------------------------------------


class Value:
    """The abstract value of a Python expression."""


@dataclass(frozen=True)
class Arg:
    """An argument as written: its value, where it is, and its text."""

    value: Value
    span: Range
    text: str
    indirect: bool = False  # unpacked from a list written elsewhere (`*KEYS`): not editable here


@dataclass(eq=False)
class Unknown(Value):
    """Anything the reader does not model. `name` is the dotted name it was read from (`spark`,
    `self.spark`), which is enough to recognise a session passed in as a parameter."""

    reason: str = ""
    name: str = ""


@dataclass(eq=False)
class SqlText:
    """A Python string literal (or f-string) holding SQL: its value as the SQL parser sees it,
    with a map from that text back to the raw file (see `sortlint.sources.pyspark.units`)."""

    text: str
    offsets: object  # a sortlint.sources.python.strings.MappedText
    start: int  # raw offset of the literal's first character of content
    span: Range  # the whole literal expression
    units: tuple = ()  # its SQL units, one per statement (set by the front end)
    run_time_fields: tuple[str, ...] = ()  # format fields whose values are known only at run time
    # Where it runs: the one `spark.sql` call of the module's own code that runs it; or
    # `elsewhere` (in a function's body, or from two places), each run forgetting what the
    # tables it writes were known to satisfy.
    run_at: Range | None = None
    elsewhere: bool = False

    @cached_property
    def written(self) -> tuple[str, ...]:
        """The tables its statements may write (`written_names`), found once."""
        return tuple(written_names(self.text))


@dataclass(eq=False)
class Formatting:
    """`template.format(...)` or `template % ...`: the style ("format" or "%") and the
    arguments' values."""

    style: str
    positional: tuple[Value, ...] = ()
    keywords: tuple[tuple[str, Value], ...] = ()
    keywords_known: bool = True  # False: some come from a `**mapping` not known here

    def argument(self, key: int | str) -> Value | None:
        if isinstance(key, int):
            return self.positional[key] if key < len(self.positional) else None
        return next((value for name, value in self.keywords if name == key), None)


@dataclass(eq=False)
class PyValue(Value):
    """A Python constant: str, int, float, bool or None. A string read from a literal keeps the
    literal's node (`spark.sql` reads SQL from it), with the formatting applied to it
    (`"...".format(...)`, `"..." % ...`); an f-string's or a formatted string's `value` is None
    when a field's value is not known."""

    value: object
    literal: object = None  # the libcst string node
    fstring: bool = False
    formatting: Formatting | None = None

    @property
    def known(self) -> bool:
        """Whether the value is known: an f-string's is not when a field is not a constant."""
        return not self.fstring or self.value is not None


@dataclass(eq=False)
class PyList(Value):
    items: tuple[Arg, ...] = ()


@dataclass(eq=False)
class PyDict(Value):
    items: tuple[tuple[Arg, Arg], ...] = ()


@dataclass(eq=False)
class Module(Value):
    """A module or class of PySpark, by its dotted path (`pyspark.sql.functions`)."""

    path: str


@dataclass(eq=False)
class FunctionRef(Value):
    """A function of `pyspark.sql.functions`, by name."""

    name: str


@dataclass(eq=False)
class Session(Value):
    pass


@dataclass(eq=False)
class UserFunction(Value):
    """A function of the job, or of a module of the repository the job imports (a lambda too),
    read once: what it returns, and the sinks its body makes of its parameters' DataFrames,
    with a placeholder `Op` ("param") standing for each parameter used as a DataFrame. A call
    applies that summary to its arguments (`Instance`)."""

    name: str
    node: object  # the libcst FunctionDef or Lambda
    params: tuple[str, ...]
    scope: object  # the names its body sees (its module's, live)
    reader: object  # the JobReader of its file
    state: str = "new"  # new, reading, read
    placeholders: dict[str, Op] = field(default_factory=dict)
    returns: list[Value] = field(default_factory=list)
    result: Value | None = None
    sinks: list[Sink] = field(default_factory=list)  # sinks of its body that read a parameter
    changes: tuple[str, ...] = ()  # the tables its body (and what it calls) writes or changes


@dataclass(eq=False)
class Instance:
    """The detail of an `Op` of kind "call": a function's summary applied at a call. The op's
    inputs are the arguments' DataFrames; `positions` maps each placeholder (by id) to the
    input it stands for; `template` is what the function made of the placeholders."""

    function: UserFunction
    template: Op
    positions: dict[int, int]

    @property
    def foreign(self) -> bool:
        """The function is in another file (its positions are not this file's)."""
        return bool(getattr(self.function.reader, "imported", False))


@dataclass(eq=False)
class Reader(Value):
    """`spark.read` with the format set so far."""

    format: str | None = None


@dataclass(eq=False)
class Bound(Value):
    """A method looked up on a value, not called yet."""

    receiver: Value
    name: str
    dot: int  # offset of the `.` before the name
    name_at: int  # offset of the name


@dataclass(frozen=True)
class SpecKey:
    """A key of a window specification: its column expression, where it is, and its text."""

    expr: CExpr
    span: Range
    text: str
    indirect: bool = False


@dataclass(eq=False)
class WindowSpec(Value):
    """`Window.partitionBy(...).orderBy(...).rowsBetween(...)`: keys, frame, and the calls they
    were written in (`calls`: (method, [dot, close)) in order)."""

    partition: tuple[SpecKey, ...] = ()
    order: tuple[SpecKey, ...] = ()
    frame: tuple[str, object, object] | None = None  # ("ROWS" | "RANGE", start, end)
    partition_call: Range | None = None  # `.partitionBy(...)`, from its dot
    order_call: Range | None = None
    calls: tuple[tuple[str, Range], ...] = ()


@dataclass(eq=False)
class Column(Value):
    expr: CExpr


@dataclass(eq=False)
class DataFrame(Value):
    op: Op


@dataclass(eq=False)
class Grouped(Value):
    """`df.groupBy(...)` (or rollup / cube), waiting for its aggregation."""

    input: Op
    method: str  # groupBy, rollup, cube
    keys: tuple[Arg, ...]
    call: Range  # `.groupBy(...)` from its dot
    name_at: int


@dataclass(eq=False)
class Writer(Value):
    """`df.write...` (or `df.writeTo(name)...`): the DataFrame and what the chain says so far."""

    input: Op
    start: int
    table: str | None = None  # writeTo's table
    mode: str | None = None  # `.mode(...)`, lower case; "" when not a literal; None when not set


# --- DataFrame operations ----------------------------------------------------------------------


@dataclass(eq=False)
class Op:
    """One DataFrame: a source or a method applied to `inputs[0]` (joins and unions have more).

    `kind` is a source kind (`table`, `read`, `sql`, `elsewhere`, `opaque`, `merge`) or the
    DataFrame method (`select`, `orderBy`, ...; `agg` for every aggregation of a `Grouped`).
    `call` runs from the method's dot to its closing parenthesis; `extent` is the whole
    expression, for the text of the unit."""

    kind: str
    inputs: tuple[Op, ...] = ()
    args: tuple[Arg, ...] = ()
    kwargs: tuple[tuple[str, Arg], ...] = ()
    call: Range | None = None
    name_at: int | None = None
    extent: Range | None = None
    detail: object = None  # table name, SqlSource, reason, AggregateDetail, alias name

    def kwarg(self, name: str) -> Arg | None:
        for key, value in self.kwargs:
            if key == name:
                return value
        return None


@dataclass(eq=False)
class SqlSource:
    """`spark.sql(...)`: its SQL unit, or why it cannot be analysed."""

    sql: SqlText | None  # None: the SQL is built at run time
    reason: str = ""


@dataclass(eq=False)
class AggregateDetail:
    """An aggregation of a `Grouped`: how the rows were grouped, and which aggregation
    (`agg`, `count`, `sum`, `avg`, `mean`, `max`, `min`) finished it."""

    method: str
    grouping: str  # groupBy, rollup, cube, or "" for df.agg(...)
    keys: tuple[Arg, ...] = ()
    group_call: Range | None = None
    group_name_at: int | None = None


@dataclass(eq=False)
class DeltaTable(Value):
    """A Delta table of delta-spark's API: `DeltaTable.forName(spark, name)` (`builder` ""),
    a builder of one (`DeltaTable.create(spark).tableName(name)...`: "create") or a merge into
    one (`dt.merge(source, condition)...`: "merge"). `table` is the catalog table, lower case;
    None when it is named by path or at run time."""

    table: str | None
    builder: str = ""


@dataclass(eq=False)
class Sink:
    """Where a DataFrame is consumed: written (`write`), made a view (`view`), turned into a
    local result (`result`), counted (`count`), or taken from (`limit`); or where a table's
    rows change in a way no DataFrame shows (`change`: a Delta table updated or merged into,
    a function that writes tables called), whose `op` stands for nothing."""

    op: Op
    kind: str
    at: int  # raw offset of the consuming expression: pipelines are taken in this order
    call: Range | None = None
    target: str = ""
    write_kind: str = "table"  # insert | table | view
    rows: str = "unknown"  # what a write leaves in its table (`sortlint.plan.nodes.Write.rows`)
    limit: int | None = None
    extent: Range | None = None

    @property
    def names_table(self) -> bool:
        """Whether its target is a table of the catalog (a write's may be a path)."""
        return bool(self.target) and "/" not in self.target and ":" not in self.target

    @property
    def changes_table(self) -> bool:
        """Whether it changes a table of the catalog: a write of one, or a `change`."""
        return self.kind == "change" or (self.kind == "write" and self.names_table)


# --- column expressions ------------------------------------------------------------------------


class CExpr:
    """A Column expression as PySpark builds it."""


@dataclass(eq=False)
class CRef(CExpr):
    """A column by name: `"a"`, `F.col("a")`, or `df.a` / `df["a"]` (bound to `frame`)."""

    name: str
    frame: Op | None = None


@dataclass(eq=False)
class CStar(CExpr):
    qualifier: str | None = None
    frame: Op | None = None


@dataclass(eq=False)
class CLit(CExpr):
    value: object  # str, int, float, bool, None


@dataclass(eq=False)
class CCall(CExpr):
    """A function of `pyspark.sql.functions`, by its PySpark name, arguments converted."""

    name: str
    args: tuple[CExpr, ...] = ()


@dataclass(eq=False)
class COp(CExpr):
    """An operator or Column method: `+`, `==`, `&`, `~`, `neg`, `isNull`, `isin`, `cast`..."""

    op: str
    args: tuple[CExpr, ...] = ()


@dataclass(eq=False)
class CCase(CExpr):
    whens: tuple[tuple[CExpr, CExpr], ...] = ()
    default: CExpr | None = None


@dataclass(eq=False)
class CAlias(CExpr):
    expr: CExpr
    name: str


@dataclass(eq=False)
class CSort(CExpr):
    expr: CExpr
    descending: bool = False
    nulls_first: bool | None = None  # None: the direction's default


@dataclass(eq=False)
class CWindow(CExpr):
    function: CExpr
    spec: WindowSpec


@dataclass(eq=False)
class CSql(CExpr):
    """SQL text: `F.expr("...")`, a `selectExpr` item, a string `filter` condition."""

    text: str
    span: Range | None = None


@dataclass(eq=False)
class COpaque(CExpr):
    reason: str = ""
    order_dependent: bool = False  # its value depends on the order rows arrive in


# --- one pipeline ------------------------------------------------------------------------------


@dataclass(eq=False)
class Pipeline:
    """A unit's payload: the consumed DataFrame, and what the builder needs around it.

    `owners` maps `id(op)` of operations an earlier pipeline of the file already holds to that
    pipeline's unit: they are built under an `Alias` whose `origin` is that unit, so what is
    found there is reported once, where it belongs."""

    sink: Sink
    owners: dict[int, object] = field(default_factory=dict)
    functions: str | None = None  # the name `pyspark.sql.functions` is imported as, if any
    # id(op) -> the pipelines (by index) whose DataFrame holds that operation
    readers: dict[int, frozenset[int]] = field(default_factory=dict)
    index: int = 0


def walk(expr: object) -> Iterator[CExpr]:
    """Every column expression inside `expr` (window specs' keys included)."""
    if isinstance(expr, tuple):
        for item in expr:
            yield from walk(item)
        return
    if isinstance(expr, CExpr):
        yield expr
    if isinstance(expr, (CExpr, SpecKey, WindowSpec)):
        for item in fields(expr):
            yield from walk(getattr(expr, item.name))


def window_calls(expr: CExpr) -> list[CWindow]:
    """The window calls of an expression, outermost first, in the order written."""
    found: list[CWindow] = []

    def visit(e: object) -> None:
        if isinstance(e, CWindow):
            found.append(e)
            return
        if isinstance(e, tuple):
            for item in e:
                visit(item)
            return
        if isinstance(e, CExpr):
            for item in fields(e):
                visit(getattr(e, item.name))

    visit(expr)
    return found
