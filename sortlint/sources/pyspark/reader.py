"""Reading a PySpark job: its Python statements evaluated abstractly, into DataFrame operations.

The reader walks the module with libcst, keeping every position. Module-level statements run
first, then each function body (with the module's names visible and its parameters unknown).
Statements run in order; an `if`, a loop or a `try` runs each branch from the same
environment, and a name a branch assigns becomes, after it, the merge of the values it may
hold (an opaque DataFrame over all of them, or `Unknown`).

Every expression becomes a `Value` (see `sortlint.sources.pyspark.values`): a DataFrame built from
`spark.table`, `spark.read...`, `spark.sql`, and the methods of the DataFrame API; a Column
built from `pyspark.sql.functions` and Column methods; a window specification; a Python
constant; or `Unknown`. A DataFrame method the reader does not model is an opaque operation;
a DataFrame whose origin it cannot see (a parameter, the result of a function it cannot
follow, `spark.createDataFrame`) is rows of unknown columns (`elsewhere`, or the parameter's
placeholder), which the operations on it are read over.

A DataFrame is *consumed* where it is written, turned into a view, turned into a local result
(`collect`, `show`, `toPandas`, ...), returned, or handed to code the reader cannot follow. A
DataFrame that nothing consumes (assigned and never used) is a result too. Each consumed
DataFrame is one pipeline: `Reader.sinks` in source order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from sortlint.sources.pyspark.columns import FUNCTIONS, column_name, literal_or_column, name_or_column
from sortlint.sources.pyspark.values import (
    AggregateDetail, Arg, Bound, CAlias, CCall, CCase, CExpr, CLit, Column, COp, COpaque, CRef,
    CSort, CSql, CStar, CWindow, DataFrame, DeltaTable, Formatting, FunctionRef, Grouped, Instance, Module, Op, PyDict,
    PyList, PyValue, Range, Reader, Session, Sink, SpecKey, SqlSource, SqlText, Unknown, UserFunction, Value,
    WindowSpec, Writer,
)
from sortlint.sources.python import constants
from sortlint.sources.python.strings import MappedText, apply_formatting, format_fields
from sortlint.sources.sql.preparation import written_names
from sortlint.units import line_starts

FUNCTIONS_MODULE = "pyspark.sql.functions"
WINDOW_CLASS = "pyspark.sql.Window"
SESSION_CLASS = "pyspark.sql.SparkSession"
TYPES_MODULE = "pyspark.sql.types"
DELTA_CLASS = "delta.tables.DeltaTable"

# Where PySpark's public names live, whatever path they are imported from.
_CANONICAL = {
    "pyspark.sql.window.Window": WINDOW_CLASS, "pyspark.sql.session.SparkSession": SESSION_CLASS,
    "pyspark.sql.functions.builtin": FUNCTIONS_MODULE, "pyspark.sql.connect.functions": FUNCTIONS_MODULE,
    "pyspark.sql.connect.window.Window": WINDOW_CLASS, "delta.DeltaTable": DELTA_CLASS,
}

DATAFRAME_ATTRIBUTES = frozenset("""
    agg alias approxQuantile asTable cache checkpoint coalesce colRegex collect columns corr count
    cov createGlobalTempView createOrReplaceGlobalTempView createOrReplaceTempView createTempView
    crossJoin crosstab cube describe distinct drop dropDuplicates dropDuplicatesWithinWatermark
    drop_duplicates dropna dtypes exceptAll executionInfo exists explain fillna filter first
    foreach foreachPartition freqItems groupBy groupby groupingSets head hint inputFiles intersect
    intersectAll isEmpty isLocal isStreaming join lateralJoin limit localCheckpoint mapInArrow
    mapInPandas melt mergeInto metadataColumn na nearestByJoin observe offset orderBy pandas_api
    persist plot printSchema randomSplit rdd registerTempTable repartition repartitionById
    repartitionByRange replace rollup sameSemantics sample sampleBy scalar schema select
    selectExpr semanticHash show sort sortWithinPartitions sparkSession stat storageLevel subtract
    summary tail take to toArrow toDF toJSON toLocalIterator toPandas transform transpose union
    unionAll unionByName unpersist unpivot where withColumn withColumnRenamed withColumns
    withColumnsRenamed withMetadata withWatermark write writeStream writeTo zip zipWithIndex
""".split())

# DataFrame methods that make a new DataFrame and that the plan builder models.
TRANSFORMATIONS = frozenset("""
    select selectExpr withColumn withColumns withColumnRenamed withColumnsRenamed filter where
    orderBy sort sortWithinPartitions join crossJoin union unionAll unionByName intersect
    intersectAll subtract exceptAll distinct dropDuplicates drop_duplicates limit offset
    repartition repartitionByRange coalesce alias drop toDF cache persist unpersist hint
    localCheckpoint checkpoint agg
""".split())
# Methods only a Spark DataFrame has: called on something unknown, that something is one.
SPARK_ONLY_METHODS = frozenset("""
    withColumn withColumns withColumnRenamed withColumnsRenamed selectExpr groupBy orderBy
    sortWithinPartitions dropDuplicates repartition repartitionByRange unionByName crossJoin
    createOrReplaceTempView createTempView writeTo
""".split())
# Methods that make a parameter of a function a DataFrame: Spark's own, and the common ones
# another library's object has too (the call binds a DataFrame only when it is given one).
PARAMETER_METHODS = SPARK_ONLY_METHODS | frozenset("""
    select filter where join union distinct drop alias limit agg write transform sort cache
    persist dropna fillna na sample
""".split())
# Actions: what they do with the rows.
RESULT_ACTIONS = frozenset("""
    collect toPandas toLocalIterator foreach foreachPartition toJSON tail toArrow rdd
""".split())
METADATA = frozenset("columns schema dtypes explain printSchema storageLevel isStreaming inputFiles".split())
# A Delta table's methods that leave its rows as they were, or some of them (`delete`: what
# all the rows satisfied, those left satisfy); any other (`update`, `merge(...).execute()`,
# `restoreToVersion`, ...) changes them.
DELTA_KEEPING = frozenset("""
    delete vacuum optimize generate history detail upgradeTableProtocol addFeatureSupport
    dropFeatureSupport isDeltaTable
""".split())
DELTA_CREATORS = frozenset("create createIfNotExists createOrReplace replace".split())
VIEW_ACTIONS = frozenset("""
    createOrReplaceTempView createTempView createGlobalTempView createOrReplaceGlobalTempView
    registerTempTable
""".split())
WRITER_CHAIN = frozenset("""
    mode format option options partitionBy bucketBy sortBy clusterBy using tableProperty
    partitionedBy
""".split())
WRITER_ACTIONS = {"saveAsTable": "table", "insertInto": "insert", "save": "table", "parquet": "table",
                  "csv": "table", "json": "table", "orc": "table", "text": "table", "jdbc": "table",
                  "xml": "table", "append": "insert", "create": "table", "replace": "table",
                  "createOrReplace": "table", "overwrite": "insert", "overwritePartitions": "insert"}
READER_FORMATS = frozenset("parquet csv json orc text load jdbc xml".split())
GROUPED_AGGREGATIONS = frozenset("agg count sum avg mean max min".split())
SORT_METHODS = {"asc": (False, None), "desc": (True, None), "asc_nulls_first": (False, True),
                "asc_nulls_last": (False, False), "desc_nulls_first": (True, True),
                "desc_nulls_last": (True, False)}
SESSION_ATTRIBUTES = frozenset("table sql read createDataFrame range newSession".split())
SESSION_NAMES = ("spark", "session", "sqlcontext", "sql_context", "hivecontext", "hive_context")
TYPE_NAMES = {"IntegerType": "int", "LongType": "bigint", "StringType": "string",
              "DoubleType": "double", "FloatType": "float", "DateType": "date",
              "TimestampType": "timestamp", "BooleanType": "boolean", "ShortType": "smallint",
              "ByteType": "tinyint", "BinaryType": "binary", "TimestampNTZType": "timestamp_ntz"}
# Functions whose value depends on the order rows arrive in (or on where they are).
ORDER_DEPENDENT = frozenset("""
    monotonically_increasing_id spark_partition_id input_file_name input_file_block_start
    input_file_block_length rand randn uuid shuffle
""".split())
UNBOUNDED_PRECEDING = "UNBOUNDED PRECEDING"
UNBOUNDED_FOLLOWING = "UNBOUNDED FOLLOWING"
CURRENT_ROW = "CURRENT ROW"


@dataclass(eq=False)
class Marker(Value):
    """`Window.unboundedPreceding` and friends."""

    bound: str


@dataclass(eq=False)
class NaFunctions(Value):
    """`df.na`: its methods (`drop`, `fill`, `replace`) are opaque operations on `input`."""

    input: Op


@dataclass(eq=False)
class SessionBuilder(Value):
    pass


@dataclass(eq=False)
class Param(Unknown):
    """A parameter of the function being read: unknown, but a DataFrame method called on it
    makes it the function's placeholder for a DataFrame argument."""

    function: UserFunction | None = None


@dataclass(eq=False)
class RepoModule(Value):
    """A module of the repository the job imports (`import helpers`): its names, and - by
    its dotted `path`, when imported by one - its submodules (`import etl.metrics` binds
    `etl`, whose `metrics` is that module). `reader` is None for a package without
    `__init__.py`."""

    reader: JobReader | None
    path: str = ""


@dataclass
class Scope:
    names: dict[str, Value] = field(default_factory=dict)

    def copy(self) -> Scope:
        return Scope(dict(self.names))


class _ScopeConstants(constants.Evaluator):
    """Python constants as the reader sees them: a name holds what the statement being read
    sees it bound to."""

    def __init__(self, reader: JobReader) -> None:
        super().__init__(reader.raw, reader.range)
        self.reader = reader

    def name_value(self, name: str, depth: int) -> object:
        value = self.reader.scope.names.get(name)
        return value.value if isinstance(value, PyValue) and value.known else constants.UNKNOWN


class ReadError(Exception):
    """The file is not Python libcst can read."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class JobReader:
    """Evaluates one Python file. After `run()`: `sinks` (in source order), `sql_texts` (every
    `spark.sql` string that can be analysed, in source order), `functions` (the name
    `pyspark.sql.functions` is imported under)."""

    def __init__(self, raw: str, strings, modules=None, imported: bool = False, path=None, built=None) -> None:
        self.raw = raw
        self.path = path
        self.strings = strings  # (reader, value) -> SqlText | None, see sortlint.sources.pyspark.units
        # (reader, argument node) -> the SqlText of a `spark.sql` argument built at run time, or None
        self.built = built
        # (dotted module, relative level) -> the JobReader of a module of the repository, or None
        self.modules = modules
        self.imported = imported  # read for another file's sake: its functions' positions are not that file's
        try:
            self.module = cst.parse_module(raw)
        except cst.ParserSyntaxError as error:
            raise ReadError(f"cannot parse Python: {error.message}", error.raw_line) from None
        self.positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.starts = line_starts(raw)
        self.sinks: list[Sink] = []
        self.sql_texts: list[SqlText] = []
        self.functions: str | None = None
        self.ops: list[Op] = []
        self.consumed: set[int] = set()
        self._pending: list[UserFunction] = []
        self._sql_cache: dict[int, tuple[object, SqlText | None]] = {}
        self.scope = Scope()  # the names of the statement being read
        self.module_scope = Scope()
        self.current: UserFunction | None = None  # the function whose body is being read
        self.returns: set[int] = set()  # the sinks a `return` made (by id)
        self.bodies: list[tuple[UserFunction, list[Sink]]] = []  # each function read, its body's sinks
        # The job's `main()`: the one function the module calls once, as a statement of its
        # own (`if __name__ == "__main__": main()`); None for a module read for another's sake.
        self.main = None if imported else _called_once(self.module)
        self.constants = _ScopeConstants(self)

    # --- positions -------------------------------------------------------------------------

    def offset(self, position) -> int:
        return self.starts[position.line - 1] + position.column

    def range(self, node: cst.CSTNode) -> Range:
        where = self.positions[node]
        return self.offset(where.start), self.offset(where.end)

    def text(self, span: Range) -> str:
        return self.raw[span[0] : span[1]]

    # --- statements ------------------------------------------------------------------------

    def run(self) -> None:
        self.block(self.module.body, self.module_scope)
        while self._pending:
            function = self._pending.pop(0)
            if function.state == "new":
                self.read_function(function)
        for op in self.ops:
            if id(op) not in self.consumed and op.extent is not None:
                self.sinks.append(Sink(op, "result", op.extent[1], extent=op.extent))
        self.unknown_when_bodies_run()
        self.sinks.sort(key=lambda sink: sink.at)
        self.sql_texts.sort(key=lambda text: text.start)

    def block(self, statements: Iterable[cst.CSTNode], scope: Scope) -> None:
        for statement in statements:
            self.scope = scope
            self.statement(statement, scope)

    def statement(self, node: cst.CSTNode, scope: Scope) -> None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small, scope)
        elif isinstance(node, cst.FunctionDef):
            params = tuple(p.name.value for p in _parameters(node.params))
            function = UserFunction(node.name.value, node, params, scope, self)
            self._pending.append(function)
            scope.names[node.name.value] = function if not node.decorators else Unknown(
                f"the decorated function {node.name.value}")
        elif isinstance(node, cst.ClassDef):
            self.block(_body(node.body), scope.copy())
            scope.names[node.name.value] = Unknown(f"the class {node.name.value}")
        elif isinstance(node, cst.If):
            branches = [_body(node.body)]
            orelse = node.orelse
            while orelse is not None:
                if isinstance(orelse, cst.If):
                    self.expression(orelse.test, scope)
                    branches.append(_body(orelse.body))
                    orelse = orelse.orelse
                else:
                    branches.append(_body(orelse.body))
                    orelse = None
            self.expression(node.test, scope)
            self.branches(scope, branches, keep_before=not _ends_with_else(node))
        elif isinstance(node, (cst.For, cst.While)):
            if isinstance(node, cst.For):
                self.expression(node.iter, scope)
                self.bind(node.target, Unknown("a loop variable"), scope)
            else:
                self.expression(node.test, scope)
            branches = [_body(node.body)]
            if node.orelse is not None:
                branches.append(_body(node.orelse.body))
            self.branches(scope, branches, keep_before=True)
        elif isinstance(node, cst.With):
            for item in node.items:
                self.expression(item.item, scope)  # what it reads or does, as any expression
                if item.asname is not None:
                    self.bind(item.asname.name, Unknown("a context manager"), scope)
            self.block(_body(node.body), scope)
        elif isinstance(node, (cst.Try, cst.TryStar)):
            self.block(_body(node.body), scope)
            branches = [_body(handler.body) for handler in node.handlers]
            if node.orelse is not None:
                branches.append(_body(node.orelse.body))
            if branches:
                self.branches(scope, branches, keep_before=True)
            if node.finalbody is not None:
                self.block(_body(node.finalbody.body), scope)
        elif isinstance(node, cst.Match):
            self.expression(node.subject, scope)
            self.branches(scope, [_body(case.body) for case in node.cases], keep_before=True)

    def branches(self, scope: Scope, bodies: list[Sequence[cst.CSTNode]], keep_before: bool) -> None:
        """Run each body from the same names; merge what they assign."""
        before = scope.names
        results = []
        for body in bodies:
            inner = scope.copy()
            self.block(body, inner)
            results.append(inner.names)
        outcomes = results + ([before] if keep_before else [])
        merged = dict(before)
        for name in {n for names in results for n in names}:
            values = [names.get(name) for names in outcomes]
            merged[name] = self.merge(values)
        scope.names = merged

    def merge(self, values: list[Value | None]) -> Value:
        distinct: list[Value] = []
        for value in values:
            if value is None:
                return Unknown("assigned in only some branches")
            if not any(value is seen for seen in distinct):
                distinct.append(value)
        if len(distinct) == 1:
            return distinct[0]
        if all(isinstance(v, DataFrame) for v in distinct):
            inputs = tuple(v.op for v in distinct)  # type: ignore[attr-defined]
            return DataFrame(self.new_op("merge", inputs, detail="assigned in branches"))
        return Unknown("assigned in branches")

    def small(self, node: cst.CSTNode, scope: Scope) -> None:
        if isinstance(node, cst.Assign):
            value = self.expression(node.value, scope)
            for target in node.targets:
                self.bind(target.target, value, scope)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.expression(node.value, scope), scope)
        elif isinstance(node, cst.AugAssign):
            self.expression(node.value, scope)
            self.bind(node.target, Unknown("an augmented assignment"), scope)
        elif isinstance(node, cst.Expr):
            self.expression(node.value, scope)
        elif isinstance(node, cst.Return):
            if node.value is not None:
                value = self.expression(node.value, scope)
                if self.current is not None:
                    self.current.returns.append(value)
                self.returned(value, self.range(node.value))
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            self.imports(node, scope)

    def bind(self, target: cst.CSTNode, value: Value, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            scope.names[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.items if isinstance(value, PyList) else ()
            elements = [e for e in target.elements]
            for index, element in enumerate(elements):
                item = items[index].value if len(items) == len(elements) else Unknown("unpacked")
                self.bind(element.value, item, scope)
        else:  # an attribute or item: the value is kept where the reader cannot follow it
            self.expression(target, scope)
            self.escape(value, self.range(target))

    def imports(self, node: cst.Import | cst.ImportFrom, scope: Scope) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                path = _dotted(alias.name)
                module = self.modules(path, 0) if self.modules is not None else None
                if module is not None:
                    local = _dotted(alias.asname.name) if alias.asname is not None else None
                    if local is not None:
                        scope.names[local] = RepoModule(module, path)
                    else:
                        first = path.split(".")[0]
                        scope.names[first] = RepoModule(module if first == path else self.modules(first, 0), first)
                    continue
                if alias.asname is not None:
                    local = _dotted(alias.asname.name)
                    scope.names[local] = self.module_value(path)
                    self.note_functions(local, scope.names[local])
                else:
                    if _canonical(path) == FUNCTIONS_MODULE:
                        self.functions = self.functions or path
                    first = path.split(".")[0]
                    scope.names[first] = Module(first)
            return
        if node.relative or node.module is None:
            self.repository_import(node, scope)
            return
        base = _dotted(node.module)
        if self.repository_import(node, scope):
            return
        if isinstance(node.names, cst.ImportStar):
            if _canonical(base) == FUNCTIONS_MODULE:
                for name in FUNCTIONS:
                    scope.names[name] = FunctionRef(name)
                for name in ("col", "column", "lit", "expr", "when", "asc", "desc", "broadcast"):
                    scope.names[name] = FunctionRef(name)
            return
        for alias in node.names:
            name = _dotted(alias.name)
            local = _dotted(alias.asname.name) if alias.asname is not None else name
            scope.names[local] = self.module_value(f"{base}.{name}")
            self.note_functions(local, scope.names[local])

    def repository_import(self, node: cst.ImportFrom, scope: Scope) -> bool:
        """`from helpers import clean` of a module of the repository: its names. False when the
        module is not one of the repository's."""
        if self.modules is None or isinstance(node.names, cst.ImportStar):
            return False
        level = len(node.relative)
        base = _dotted(node.module) if node.module is not None else ""
        module = self.modules(base, level)
        found: dict[str, Value] = {}
        for alias in node.names:
            name = _dotted(alias.name)
            value = module.module_scope.names.get(name) if module is not None else None
            if value is None:  # `from package import module`, `__init__.py` or not
                dotted = f"{base}.{name}" if base else name
                sub = self.modules(dotted, level)
                value = RepoModule(sub, dotted if not level else "") if sub is not None else None
            if value is not None:
                found[_dotted(alias.asname.name) if alias.asname is not None else name] = value
        if module is None and not found:
            return False
        for alias in node.names:
            name = _dotted(alias.name)
            local = _dotted(alias.asname.name) if alias.asname is not None else name
            scope.names[local] = found.get(local, Unknown(name, name))
        return True

    def note_functions(self, local: str, value: Value) -> None:
        if isinstance(value, Module) and value.path == FUNCTIONS_MODULE and self.functions is None:
            self.functions = local

    def module_value(self, path: str) -> Value:
        path = _canonical(path)
        if path == FUNCTIONS_MODULE:
            return Module(path)
        parent, _, name = path.rpartition(".")
        if _canonical(parent) == FUNCTIONS_MODULE:
            return FunctionRef(name)
        return Module(path)

    # --- expressions -----------------------------------------------------------------------

    def expression(self, node: cst.BaseExpression, scope: Scope) -> Value:
        try:
            return self._expression(node, scope)
        except RecursionError:
            return Unknown("too deeply nested")

    def _expression(self, node: cst.BaseExpression, scope: Scope) -> Value:
        constant = constants.literal(node)
        if constant is not constants.UNKNOWN:
            return PyValue(constant)
        if isinstance(node, cst.Name):
            found = scope.names.get(node.value)
            return found if found is not None else Unknown(node.value, node.value)
        if isinstance(node, cst.Attribute):
            receiver = self.expression(node.value, scope)
            dot = self.range(node.dot)[0]
            return self.attribute(receiver, node.attr.value, dot, self.range(node.attr)[0], node)
        if isinstance(node, cst.Call):
            return self.call(node, scope)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return self.string(node)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return PyList(tuple(self.elements(node.elements, scope)))
        if isinstance(node, cst.Dict):
            items = []
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    key = self.expression(element.key, scope)
                    value = self.expression(element.value, scope)
                    items.append((self.arg(key, element.key), self.arg(value, element.value)))
                else:
                    self.expression(element.value, scope)
                    return Unknown("a dict with ** items")
            return PyDict(tuple(items))
        if isinstance(node, cst.Subscript):
            return self.subscript(node, scope)
        if isinstance(node, cst.Lambda):
            params = tuple(p.name.value for p in _parameters(node.params))
            return UserFunction("<lambda>", node, params, scope, self)
        if isinstance(node, cst.BinaryOperation):
            left = self.expression(node.left, scope)
            right = self.expression(node.right, scope)
            return self.binary(_OPERATORS.get(type(node.operator), "?"), left, right)
        if isinstance(node, cst.UnaryOperation):
            operand = self.expression(node.expression, scope)
            if isinstance(operand, Column):
                if isinstance(node.operator, cst.BitInvert):
                    return Column(COp("~", (operand.expr,)))
                if isinstance(node.operator, cst.Minus):
                    return Column(COp("neg", (operand.expr,)))
            if isinstance(operand, PyValue) and constants.is_number(operand.value):
                if isinstance(node.operator, cst.Minus):
                    return PyValue(constants.negated(operand.value))
                if isinstance(node.operator, cst.Plus):
                    return operand
            return Unknown("an operator")
        if isinstance(node, cst.Comparison):
            left = self.expression(node.left, scope)
            values = [self.expression(target.comparator, scope) for target in node.comparisons]
            if len(node.comparisons) == 1:
                operator = _COMPARISONS.get(type(node.comparisons[0].operator))
                if operator is not None:
                    return self.binary(operator, left, values[0])
            return Unknown("a comparison")
        for child in _children(node):
            self.expression(child, scope)
        return Unknown(type(node).__name__)

    def elements(self, elements: Sequence[cst.BaseElement], scope: Scope) -> Iterator[Arg]:
        for element in elements:
            value = self.expression(element.value, scope)
            if isinstance(element, cst.StarredElement):
                if isinstance(value, PyList):
                    yield from (replace(item, indirect=True) for item in value.items)
                else:
                    yield self.arg(Unknown("unpacked"), element)
            else:
                yield self.arg(value, element)

    def arg(self, value: Value, node: cst.CSTNode) -> Arg:
        span = self.range(node)
        return Arg(value, span, self.text(span))

    def string(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, cst.FormattedString) or (
            isinstance(node, cst.ConcatenatedString) and _has_fstring(node)
        ):
            return PyValue(self.fstring_value(node), node, fstring=True)
        value = node.evaluated_value
        if isinstance(value, bytes):
            return Unknown("bytes")
        return PyValue(value, node)

    def fstring_value(self, node: cst.BaseExpression) -> str | None:
        """An f-string whose fields all name string or number constants: its value."""
        from sortlint.sources.python.strings import decode

        missing = []

        def field_text(info) -> str:
            value = self.constant_field(info)
            if value is None:
                missing.append(info)
                return ""
            return value

        text = decode(node, self.raw, self.range, field_text).text
        return None if missing else text

    def constant_field(self, info) -> str | None:
        """An f-string field whose expression is a constant here (`{TABLE}` with `TABLE` bound
        to a string): its text."""
        text = self.constants.field_value(info)
        return None if text is constants.UNKNOWN else text

    def sql_text(self, value: PyValue) -> SqlText | None:
        """The SQL of a string literal (formatted, when it is), made once per literal (a
        constant read by two `spark.sql` calls is one SQL unit)."""
        keyed = value.literal if value.formatting is None else value
        key = id(keyed)
        if key not in self._sql_cache:
            text = self.strings(self, value)
            # The keyed object is kept with its text: an id is only unique while its object
            # lives, and a formatted value is made anew at each call (a freed one's id, taken
            # by the next, returned that one's SQL for it - now and then, as memory fell).
            self._sql_cache[key] = (keyed, text)
            if text is not None:
                self.sql_texts.append(text)
        return self._sql_cache[key][1]

    def built_text(self, node: cst.BaseExpression) -> SqlText | None:
        """The SQL of a `spark.sql` argument the code builds at run time, made once per
        argument."""
        key = id(node)
        if self.built is None:
            return None
        if key not in self._sql_cache:
            text = self.built(self, node)
            self._sql_cache[key] = (node, text)
            if text is not None:
                self.sql_texts.append(text)
        return self._sql_cache[key][1]

    def subscript(self, node: cst.Subscript, scope: Scope) -> Value:
        receiver = self.expression(node.value, scope)
        if isinstance(receiver, Param) and self.used_as_dataframe(receiver):
            receiver = DataFrame(self.placeholder(receiver))
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    self.expression(element.slice.value, scope)
            return Unknown("a subscript")
        key = self.expression(node.slice[0].slice.value, scope)
        if isinstance(receiver, DataFrame):
            if isinstance(key, PyValue) and isinstance(key.value, str):
                if key.value == "*":
                    return Column(CStar(frame=receiver.op))
                return Column(CRef(key.value, receiver.op))
            return Unknown("a DataFrame subscript")
        if isinstance(receiver, Column):
            return Column(COp("item", (receiver.expr, literal_or_column(key))))
        if isinstance(receiver, PyList) and isinstance(key, PyValue) and isinstance(key.value, int):
            items = receiver.items
            if -len(items) <= key.value < len(items):
                return items[key.value].value
        self.escape(receiver, self.range(node.value))
        return Unknown("a subscript")

    def binary(self, operator: str, left: Value, right: Value) -> Value:
        if isinstance(left, Column) or isinstance(right, Column):
            if not isinstance(left, Column):
                # PySpark's reflected operators: `1 + c` is c.plus(1), `1 - c` is lit(1) - c,
                # `1 < c` is c > 1.
                if operator in ("+", "*", "&", "|", "==", "!=", "<=>"):
                    left, right = right, left
                elif operator in _FLIPPED:
                    left, right, operator = right, left, _FLIPPED[operator]
            return Column(COp(operator, (literal_or_column(left), literal_or_column(right))))
        if isinstance(left, PyValue) and isinstance(left.value, str) and operator == "%":
            return self.percent(left, right)
        if isinstance(left, PyValue) and isinstance(right, PyValue) and left.known and right.known:
            folded = constants.fold(operator, left.value, right.value)
            return Unknown("an operation on constants") if folded is constants.UNKNOWN else PyValue(folded)
        return Unknown("an operation")

    def percent(self, template: PyValue, right: Value) -> Value:
        """`template % value`, `% (a, b)`, `% {"name": value}`."""
        if isinstance(right, PyList):
            return self.formatted(template, "%", [item.value for item in right.items], [])
        if isinstance(right, PyDict):
            keywords = [(k.value.value, v.value) for k, v in right.items
                        if isinstance(k.value, PyValue) and isinstance(k.value.value, str)]
            return self.formatted(template, "%", [], keywords, len(keywords) == len(right.items))
        return self.formatted(template, "%", [right], [])

    def formatted(self, template: PyValue, style: str, positional: list[Value],
                  keywords: list[tuple[str, Value]], keywords_known: bool = True) -> Value:
        """`template.format(...)` / `template % ...` of a string literal: the text when every
        field's value is known, and the formatting, from which `spark.sql` reads the SQL with
        a placeholder for each field whose value is not."""
        if template.literal is None or template.fstring or template.formatting is not None:
            return Unknown("a string built at run time")
        formatting = Formatting(style, tuple(positional), tuple(keywords), keywords_known)
        fields = format_fields(str(template.value), style)
        if fields is None:
            return Unknown("a string formatted in a way not followed")
        texts = []
        for placeholder in fields[0]:
            argument = formatting.argument(placeholder.key)
            value = argument.value if isinstance(argument, PyValue) and argument.known else constants.UNKNOWN
            texts.append(constants.format_text(placeholder, style, value))
        text = None
        if all(t is not constants.UNKNOWN for t in texts):
            text = apply_formatting(MappedText(str(template.value), ()), style,
                                    lambda field, before: texts[fields[0].index(field)]).text
        return PyValue(text, template.literal, fstring=text is None, formatting=formatting)

    # --- attributes ------------------------------------------------------------------------

    def attribute(self, receiver: Value, name: str, dot: int, name_at: int, node: cst.Attribute) -> Value:
        if isinstance(receiver, Module):
            path = _canonical(f"{receiver.path}.{name}")
            if receiver.path == FUNCTIONS_MODULE:
                return FunctionRef(name)
            if receiver.path == WINDOW_CLASS:
                marker = {"unboundedPreceding": UNBOUNDED_PRECEDING,
                          "unboundedFollowing": UNBOUNDED_FOLLOWING, "currentRow": CURRENT_ROW}
                if name in marker:
                    return Marker(marker[name])
                return Bound(receiver, name, dot, name_at)
            if receiver.path == SESSION_CLASS:
                if name == "builder":
                    return SessionBuilder()
                return Bound(receiver, name, dot, name_at)
            if receiver.path == DELTA_CLASS:
                return Bound(receiver, name, dot, name_at)
            return self.module_value(path)
        if isinstance(receiver, SessionBuilder):
            return Bound(receiver, name, dot, name_at)
        if isinstance(receiver, Unknown) and name in SESSION_ATTRIBUTES and _looks_like_session(receiver.name):
            receiver = Session()
        if isinstance(receiver, Session):
            if name == "read":
                return Reader()
            return Bound(receiver, name, dot, name_at)
        if isinstance(receiver, DataFrame):
            if name == "write":
                self.consume(receiver.op)
                return Writer(receiver.op, dot)
            if name == "na":
                return NaFunctions(receiver.op)
            if name == "sparkSession":
                return Session()
            if name == "rdd":
                self.sink(receiver.op, "result", node)
                return Unknown("an RDD")
            if name in METADATA:
                return Unknown(f"DataFrame.{name}") if name not in ("explain", "printSchema") else Bound(receiver, name, dot, name_at)
            if name in DATAFRAME_ATTRIBUTES:
                return Bound(receiver, name, dot, name_at)
            return Column(CRef(name, receiver.op))
        if isinstance(receiver, Param) and (name in PARAMETER_METHODS or self.used_as_dataframe(receiver)):
            return self.attribute(DataFrame(self.placeholder(receiver)), name, dot, name_at, node)
        if isinstance(receiver, RepoModule):
            found = receiver.reader.module_scope.names.get(name) if receiver.reader is not None else None
            if found is None and receiver.path and self.modules is not None:
                sub = self.modules(f"{receiver.path}.{name}", 0)
                found = RepoModule(sub, f"{receiver.path}.{name}") if sub is not None else None
            return found if found is not None else Unknown(f"{name} of an imported module", name)
        if isinstance(receiver, Unknown) and name in SPARK_ONLY_METHODS | {"write"}:
            what = receiver.name or receiver.reason
            unknown = self.new_op("elsewhere", detail=f"a DataFrame from elsewhere ({what})", extent=self.range(node.value))
            return self.attribute(DataFrame(unknown), name, dot, name_at, node)
        if isinstance(receiver, (Reader, Writer, Grouped, Column, WindowSpec, NaFunctions, PyValue, Bound, DeltaTable)):
            return Bound(receiver, name, dot, name_at)
        name_path = f"{receiver.name}.{name}" if isinstance(receiver, Unknown) and receiver.name else ""
        return Unknown(name_path or f"attribute {name}", name_path)

    # --- calls -----------------------------------------------------------------------------

    def call(self, node: cst.Call, scope: Scope) -> Value:
        function = self.expression(node.func, scope)
        args: list[Arg] = []
        kwargs: list[tuple[str, Arg]] = []
        for argument in node.args:
            value = self.expression(argument.value, scope)
            if argument.keyword is not None:
                kwargs.append((argument.keyword.value, self.arg(value, argument.value)))
            elif argument.star == "*":
                if isinstance(value, PyList):
                    args.extend(replace(item, indirect=True) for item in value.items)
                else:
                    args.append(replace(self.arg(Unknown("unpacked arguments"), argument), indirect=True))
            elif argument.star == "**":
                if isinstance(value, PyDict):
                    for key, item in value.items:
                        if isinstance(key.value, PyValue) and isinstance(key.value.value, str):
                            kwargs.append((key.value.value, replace(item, indirect=True)))
                else:
                    kwargs.append(("**", self.arg(value, argument)))
            else:
                args.append(self.arg(value, argument))
        span = self.range(node)
        if isinstance(function, UserFunction):
            return self.call_function(function, tuple(args), tuple(kwargs), span)
        if isinstance(function, Bound):
            result = self.method(function, tuple(args), tuple(kwargs), node, span)
        elif isinstance(function, FunctionRef):
            result = self.function(function.name, tuple(args), tuple(kwargs), span)
        elif isinstance(function, Module) and function.path.startswith(TYPES_MODULE + "."):
            result = self.data_type(function.path.rsplit(".", 1)[-1], args)
        else:
            result = Unknown(f"{self.text(self.range(node.func))}(...)")
            for arg in [*args, *(a for _, a in kwargs)]:
                self.escape(arg.value, arg.span)
        return result

    def data_type(self, name: str, args: list[Arg]) -> Value:
        if name in TYPE_NAMES:
            return PyValue(TYPE_NAMES[name])
        if name == "DecimalType":
            values = [a.value.value for a in args if isinstance(a.value, PyValue)]
            precision, scale = (values + [10, 0][len(values):])[:2]
            return PyValue(f"decimal({precision},{scale})")
        return Unknown(f"the type {name}")

    def method(self, bound: Bound, args: tuple[Arg, ...], kwargs: tuple[tuple[str, Arg], ...],
               node: cst.Call, span: Range) -> Value:
        receiver, name = bound.receiver, bound.name
        call = (bound.dot, span[1])
        if isinstance(receiver, Session):
            return self.session_method(name, args, kwargs, node, span)
        if isinstance(receiver, SessionBuilder):
            return Session() if name == "getOrCreate" else receiver
        if isinstance(receiver, Module):
            if receiver.path == SESSION_CLASS and name in ("getActiveSession", "active"):
                return Session()
            if receiver.path == WINDOW_CLASS:
                return self.window_method(WindowSpec(), bound, args, kwargs, span)
            if receiver.path == DELTA_CLASS:
                return self.delta_class_method(name, args, kwargs)
            return Unknown(f"{receiver.path}.{name}(...)")
        if isinstance(receiver, DeltaTable):
            return self.delta_method(receiver, name, args, kwargs, span)
        if isinstance(receiver, Reader):
            if name == "format":
                return Reader(_string(args[0]) if args else None)
            if name in ("option", "options", "schema"):
                return receiver
            if name == "table" and args:
                return self.source("table", _string(args[0]), span, args)
            if name in READER_FORMATS:
                path = _string(args[0]) if args else None
                kind = receiver.format if name == "load" else name
                return self.source("read", f"{kind or 'files'}: {path}" if path else (kind or "files"), span, args)
            return Unknown(f"spark.read.{name}")
        if isinstance(receiver, DataFrame):
            return self.dataframe_method(receiver.op, bound, args, kwargs, node, span)
        if isinstance(receiver, Grouped):
            return self.grouped_method(receiver, bound, args, kwargs, span)
        if isinstance(receiver, Writer):
            if name == "mode":
                return replace(receiver, mode=((_string(args[0]) if args else None) or "").lower())
            if name in WRITER_CHAIN:
                return receiver
            if name in WRITER_ACTIONS:
                target = receiver.table or (_string(args[0]) if args else None) or ""
                kind = WRITER_ACTIONS[name]
                rows = _rows_written(name, receiver.mode, args, dict(kwargs))
                self.sinks.append(Sink(receiver.input, "write", span[1], call=(receiver.start, span[1]),
                                       target=target.lower(), write_kind=kind, rows=rows, extent=span))
                return Unknown("a write")
            return receiver
        if isinstance(receiver, NaFunctions):
            return DataFrame(self.new_op("opaque-method", (receiver.input,), args, kwargs, call,
                                         bound.name_at, span, detail=f"na.{name}"))
        if isinstance(receiver, Column):
            return self.column_method(receiver.expr, name, args, kwargs)
        if isinstance(receiver, WindowSpec):
            return self.window_method(receiver, bound, args, kwargs, span)
        if isinstance(receiver, PyValue) and isinstance(receiver.value, str):
            if name == "format":
                keywords = [(k, a.value) for k, a in kwargs if k != "**"]
                return self.formatted(receiver, "format", [a.value for a in args], keywords,
                                      all(k != "**" for k, _ in kwargs))
            return Unknown("a string built at run time")
        for arg in [*args, *(a for _, a in kwargs)]:
            self.escape(arg.value, arg.span)
        return Unknown(f".{name}(...)")

    def session_method(self, name, args, kwargs, node, span) -> Value:
        if name == "table" and args:
            return self.source("table", _string(args[0]), span, args)
        if name == "sql" and args:
            text = args[0].value
            if isinstance(text, PyValue) and text.literal is not None:
                sql = self.sql_text(text)
            else:  # the same call read again (a function read twice) is the same SQL unit
                sql = self.built_text(node.args[0].value)
            if sql is not None:
                self.run_sql(sql, span)
                return DataFrame(self.new_op("sql", extent=span, detail=SqlSource(sql)))
            # What it writes is not known: what its literal pieces name is forgotten.
            self.changes(written_names(self.text(span)), span)
            reason = "the SQL is built at run time: not analysable"
            return DataFrame(self.new_op("sql", extent=span, detail=SqlSource(None, reason)))
        if name == "createDataFrame":
            return DataFrame(self.new_op("elsewhere", extent=span, detail="spark.createDataFrame(...)"))
        if name == "range":
            return DataFrame(self.new_op("opaque", extent=span, detail="spark.range(...)"))
        if name == "newSession":
            return Session()
        return Unknown(f"spark.{name}(...)")

    def delta_class_method(self, name: str, args: tuple[Arg, ...], kwargs) -> Value:
        """`DeltaTable.forName(spark, "t")` is table t; `forPath` one the catalog does not
        name; `create(spark)` and the like a builder that `tableName` names."""
        if name == "forName":
            named = dict(kwargs).get("tableOrViewName") or (args[1] if len(args) > 1 else None)
            table = _string(named) if named is not None else None
            return DeltaTable(table.lower() if table else None)
        if name == "forPath":
            return DeltaTable(None)
        if name in DELTA_CREATORS:
            return DeltaTable(None, "create")
        for arg in [*args, *(a for _, a in kwargs)]:
            self.escape(arg.value, arg.span)
        return Unknown(f"DeltaTable.{name}(...)")

    def delta_method(self, delta: DeltaTable, name: str, args: tuple[Arg, ...], kwargs, span: Range) -> Value:
        """A Delta table's method, or a builder's: a read (`toDF`), a change of its rows
        (`update`, a merge's or a builder's `execute`, anything unknown), or neither."""
        for arg in [*args, *(a for _, a in kwargs)]:
            self.escape(arg.value, arg.span)  # a merge's source DataFrame is read by it
        if delta.builder == "create" and name == "tableName":
            table = _string(args[0]) if args else None
            return DeltaTable(table.lower() if table else None, "create")
        if delta.builder and name != "execute":
            return delta  # the builder's chain: columns, clauses of the merge
        if not delta.builder:
            if name == "toDF":
                return self.source("table", delta.table, span, ())
            if name == "alias":
                return delta
            if name == "merge":
                return DeltaTable(delta.table, "merge")
            if name in DELTA_KEEPING:
                return Unknown(f"DeltaTable.{name}(...)")
        self.change(delta.table, span)
        return Unknown(f"DeltaTable.{name}(...)")

    def run_sql(self, sql: SqlText, span: Range) -> None:
        """`spark.sql(sql)` at `span`. Run once by the module's own code, its statements are
        read where the call is; run from a function's body or from two places, they are read
        where the string stands, leaving what they write unknown, and each run changes it."""
        if self.in_module_order() and sql.run_at is None and not sql.elsewhere:
            sql.run_at = span
            return
        if sql.run_at is not None:  # the first run, at the module's level, changes it too
            self.changes(sql.written, sql.run_at)
            sql.run_at = None
        sql.elsewhere = True
        self.changes(sql.written, span)

    def in_module_order(self) -> bool:
        """Whether what is being read runs where it stands: the module's own code, or the
        body of its `main()` (see `unknown_when_bodies_run`)."""
        return self.current is None or self.current.node is self.main

    def changes(self, tables: Iterable[str], span: Range) -> None:
        for table in tables:
            self.change(table, span)

    def change(self, table: str | None, span: Range) -> None:
        """The table's rows change here in a way no DataFrame of the job shows: what they
        were known to satisfy is forgotten. (A table named at run time or by path is none
        the catalog knows.)"""
        if table:
            stands_for = Op("opaque", extent=span, detail=f"a change of {table}")
            self.sinks.append(Sink(stands_for, "change", span[1], call=span, target=table, extent=span))

    def source(self, kind: str, name: str | None, span: Range, args: Sequence[Arg]) -> Value:
        if name is None:
            return DataFrame(self.new_op("opaque", extent=span, detail="a table named at run time"))
        return DataFrame(self.new_op(kind, extent=span, detail=name, args=tuple(args)))

    def dataframe_method(self, op: Op, bound: Bound, args, kwargs, node, span) -> Value:
        name = bound.name
        call = (bound.dot, span[1])
        extent = span
        if name == "transform" and args and isinstance(args[0].value, UserFunction):
            receiver = Arg(DataFrame(op), (span[0], bound.dot), self.text((span[0], bound.dot)))
            return self.call_function(args[0].value, (receiver, *args[1:]), kwargs, span)
        if name in ("groupBy", "groupby", "rollup", "cube"):
            return Grouped(op, "groupBy" if name == "groupby" else name, args, call, bound.name_at)
        if name in ("sample", "sampleBy"):
            # Which rows it keeps depends on the order they come in (it draws row by row in
            # each partition): what it is given is a result, whose order nothing discards, and
            # what it gives rows of which nothing is known.
            sampled = (span[0], bound.dot)
            self.escape(DataFrame(op), sampled)
            return DataFrame(self.new_op("elsewhere", extent=span, detail=f"a {name} of {self.text(sampled)}"))
        if name in TRANSFORMATIONS:
            inputs: tuple[Op, ...] = (op,)
            if name in ("join", "crossJoin", "union", "unionAll", "unionByName", "intersect",
                        "intersectAll", "subtract", "exceptAll"):
                other = args[0] if args else next((a for k, a in kwargs if k == "other"), None)
                if other is None:
                    return self.opaque_method(op, bound, args, kwargs, span)
                inputs = (op, self.as_frame(other))
            if name == "agg":
                detail = AggregateDetail("agg", "")
                return DataFrame(self.new_op("agg", inputs, args, kwargs, call, bound.name_at, extent, detail))
            return DataFrame(self.new_op(name, inputs, args, kwargs, call, bound.name_at, extent))
        if name in ("count", "isEmpty"):
            self.sink(op, "count", node, call)
            return Unknown("a count")
        if name in ("first", "head", "take", "show"):
            limit = 20 if name == "show" else 1
            if args and isinstance(args[0].value, PyValue) and isinstance(args[0].value.value, int):
                limit = args[0].value.value
            self.sink(op, "limit", node, call, limit=limit)
            return Unknown(f"the result of {name}")
        if name in RESULT_ACTIONS:
            self.sink(op, "result", node, call)
            return Unknown(f"the result of {name}")
        if name in VIEW_ACTIONS:
            target = _string(args[0]) if args else None
            self.sinks.append(Sink(op, "view", span[1], call=call, target=(target or "").lower(),
                                   write_kind="view", extent=span))
            self.consume(op)
            return Unknown("a view")
        if name == "writeTo":
            self.consume(op)
            return Writer(op, bound.dot, (_string(args[0]) or "") if args else "")
        if name in METADATA:
            return Unknown(f"DataFrame.{name}")
        return self.opaque_method(op, bound, args, kwargs, span)

    def opaque_method(self, op: Op, bound: Bound, args, kwargs, span) -> Value:
        extent = span
        for arg in [*args, *(a for _, a in kwargs)]:
            if isinstance(arg.value, DataFrame):
                self.consume(arg.value.op)
        inputs = (op, *(a.value.op for a in args if isinstance(a.value, DataFrame)))
        return DataFrame(self.new_op("opaque-method", inputs, args, kwargs, (bound.dot, span[1]),
                                     bound.name_at, extent, detail=bound.name))

    def as_frame(self, arg: Arg) -> Op:
        found = self.dataframe_of(arg.value)
        if found is not None:
            return found
        return self.new_op("elsewhere", extent=arg.span, detail=f"a DataFrame from elsewhere ({arg.text})")

    def grouped_method(self, grouped: Grouped, bound: Bound, args, kwargs, span) -> Value:
        name = bound.name
        extent = span
        if name in GROUPED_AGGREGATIONS:
            detail = AggregateDetail(name, grouped.method, grouped.keys, grouped.call, grouped.name_at)
            return DataFrame(self.new_op("agg", (grouped.input,), args, kwargs, (bound.dot, span[1]),
                                         bound.name_at, extent, detail))
        if name == "pivot":
            return Grouped(grouped.input, "pivot", grouped.keys, grouped.call, grouped.name_at)
        return DataFrame(self.new_op("opaque-method", (grouped.input,), args, kwargs, (bound.dot, span[1]),
                                     bound.name_at, extent, detail=f"{grouped.method}(...).{name}"))

    def sink(self, op: Op, kind: str, node: cst.CSTNode, call: Range | None = None, limit: int | None = None) -> None:
        span = self.range(node)
        self.sinks.append(Sink(op, kind, span[1], call=call, limit=limit, extent=span))
        self.consume(op)

    def escape(self, value: Value, span: Range) -> None:
        """A DataFrame handed to code the reader cannot follow: a result. A Delta table
        handed to it: a change (that code may update it)."""
        if isinstance(value, DeltaTable):
            self.change(value.table, span)
        elif isinstance(value, DataFrame):
            self.sinks.append(Sink(value.op, "result", span[1], extent=span))
            self.consume(value.op)
        elif isinstance(value, Grouped):
            self.consume(value.input)
        elif isinstance(value, PyList):
            for item in value.items:
                self.escape(item.value, item.span)

    # --- functions of the job --------------------------------------------------------------

    def read_function(self, function: UserFunction) -> None:
        """Read a function's body once, its parameters unknown (`Param`): its own pipelines
        are analysed so, and what it returns and writes of its parameters is its summary."""
        function.state = "reading"
        saved = self.scope, self.current
        inner = function.scope.copy()  # type: ignore[attr-defined]
        for name in function.params:
            inner.names[name] = Param(f"the parameter {name}", name, function)
        first_sink = len(self.sinks)
        self.current = function
        try:
            node = function.node
            if isinstance(node, cst.Lambda):
                self.scope = inner
                value = self.expression(node.body, inner)
                function.returns.append(value)
                self.returned(value, self.range(node.body))
            else:
                self.block(_body(node.body), inner)  # type: ignore[attr-defined]
        finally:
            self.scope, self.current = saved
        made = self.sinks[first_sink:]
        function.sinks = [sink for sink in made if id(sink) not in self.returns and self.reaches(sink.op, function)]
        function.changes = tuple(dict.fromkeys(sink.target for sink in made if sink.changes_table))
        self.bodies.append((function, made))
        returned = function.returns
        function.result = returned[0] if len(returned) == 1 else (
            self.merge(list(returned)) if returned else Unknown(f"the result of {function.name}()"))
        function.state = "read"

    def unknown_when_bodies_run(self) -> None:
        """When a function's body runs is not known (a call may be hidden: a decorated
        function, a method, a callback), so what the file's tables are there is not either:
        a table a body writes is known by its declarations alone everywhere in the file (its
        writes at the module's level leave nothing known either), and each body begins by
        forgetting what the module's own statements wrote.

        One body is read as the module's own code: that of the job's `main()` when the
        module runs nothing else - it runs once, where it is called, after every statement
        of the module."""
        owned = self.owners()
        in_order = self.main if self.main_runs_alone(owned) else None  # the body read as the module's
        if in_order is None:
            for sql in self.sql_texts:
                if sql.run_at is not None and self.in_main(sql.run_at):  # not where it stands
                    self.changes(sql.written, sql.run_at)
                    sql.elsewhere, sql.run_at = True, None
        bodies = [(function, made) for function, made in self.bodies if function.node is not in_order]
        in_bodies = {key for key, function in owned.items() if function.node is not in_order}
        body_written = {sink.target for sink in self.sinks if id(sink) in in_bodies and sink.changes_table}
        body_written.update(name for sql in self.sql_texts if sql.elsewhere for name in sql.written)
        for sink in self.sinks:
            if sink.kind == "write" and (id(sink) in in_bodies or sink.target in body_written):
                sink.rows = "unknown"
        for sql in self.sql_texts:
            if sql.run_at is not None and body_written.intersection(sql.written):
                sql.elsewhere, sql.run_at = True, None
        module_written = {sink.target for sink in self.sinks if id(sink) not in in_bodies and sink.changes_table}
        module_written.update(name for sql in self.sql_texts for name in sql.written)
        for function, made in bodies:
            if isinstance(function.node, cst.Lambda) or function.reader is not self:
                continue
            start, end = self.range(function.node)
            # only a body with statements of its own (a pipeline, or SQL it runs) reads tables
            if any(id(sink) not in self.returns for sink in made) or any(start <= sql.start < end for sql in self.sql_texts):
                self.changes(sorted(module_written), (start, start))

    def main_runs_alone(self, owned: dict[int, UserFunction]) -> bool:
        """Whether the module's `main()` is all it runs: every sink, and every SQL run in the
        module's order, is a body's (its own or what it calls), and `main()` takes no
        DataFrame."""
        return (
            self.main is not None
            and all(id(sink) in owned for sink in self.sinks)
            and all(sql.run_at is None or self.in_main(sql.run_at) for sql in self.sql_texts)
            and not any(function.placeholders for function, _ in self.bodies if function.node is self.main)
        )

    def owners(self) -> dict[int, UserFunction]:
        """The function whose body made each sink made in one, by sink: the innermost read
        when it was made, or - for a DataFrame its body made and left unused, a result found
        at the end - the innermost whose text holds it."""
        owned = {id(sink): function for function, made in reversed(self.bodies) for sink in made}
        spans = sorted(((self.range(function.node), function) for function, _ in self.bodies),
                       key=lambda item: item[0][1] - item[0][0])
        for sink in self.sinks:
            if id(sink) not in owned:
                holder = next((function for (start, end), function in spans if start < sink.at <= end), None)
                if holder is not None:
                    owned[id(sink)] = holder
        return owned

    def in_main(self, span: Range) -> bool:
        if self.main is None:
            return False
        start, end = self.range(self.main)
        return start <= span[0] < end

    def returned(self, value: Value, span: Range) -> None:
        """A function returns the value: to code the reader cannot follow, a result (the
        function's own pipeline); to a call it follows, the call's value (not a sink of it)."""
        first = len(self.sinks)
        self.escape(value, span)
        self.returns.update(id(sink) for sink in self.sinks[first:])

    def placeholder(self, param: Param) -> Op:
        """The op standing for a parameter's DataFrame in its function's body."""
        function = param.function
        assert function is not None
        if param.name not in function.placeholders:
            function.placeholders[param.name] = self.new_op("param", detail=param)
        return function.placeholders[param.name]

    def used_as_dataframe(self, param: Param) -> bool:
        """Whether the body already read the parameter as a DataFrame (`df.filter(df.x > 0)`:
        `df.x` is then its column, as `df.filter` made it one)."""
        return param.function is not None and param.name in param.function.placeholders

    def reaches(self, op: Op, function: UserFunction) -> bool:
        """Whether `op` is made from a placeholder of `function`."""
        wanted = {id(p) for p in function.placeholders.values()}
        seen: set[int] = set()
        stack = [op]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if id(current) in wanted:
                return True
            stack.extend(current.inputs)
        return False

    def call_function(self, function: UserFunction, args: tuple[Arg, ...], kwargs, span: Range) -> Value:
        """A call of a function of the job: its summary applied to the arguments. Each
        parameter it uses as a DataFrame stands for the argument's DataFrame; each sink of its
        body that reads one is a sink of the caller's DataFrame here; what it returns is made
        from the arguments."""
        if function.state == "new":
            function.reader.read_function(function)  # type: ignore[attr-defined]
        given: dict[str, Arg] = {}
        for name, arg in zip(function.params, args):
            if not arg.indirect:
                given[name] = arg
        for key, arg in kwargs:
            if key in function.params:
                given[key] = arg
        if function.state != "read":  # a recursive call
            for arg in [*args, *(a for _, a in kwargs)]:
                self.escape(arg.value, arg.span)
            return Unknown(f"a recursive call of {function.name}()")
        inputs: list[Op] = []
        positions: dict[int, int] = {}
        for name, placeholder in function.placeholders.items():
            arg = given.get(name)
            op = self.dataframe_of(arg.value) if arg is not None else None
            if op is None:
                what = arg.text if arg is not None else f"the default of {name}"
                op = self.new_op("elsewhere", detail=f"a DataFrame from elsewhere ({what})")
            positions[id(placeholder)] = len(inputs)
            inputs.append(op)
        for name, arg in given.items():
            if name not in function.placeholders:
                self.escape(arg.value, arg.span)
        inputs_tuple = tuple(inputs)
        for sink in function.sinks:
            instance = Op("call", inputs_tuple, extent=span, detail=Instance(function, sink.op, positions))
            self.sinks.append(replace(sink, op=instance, at=span[1], call=None, extent=span))
        if function.reader is not self:  # this file's own bodies: see unknown_when_bodies_run
            self.changes(function.changes, span)
        for op in inputs:
            self.consume(op)
        return self.returned_value(function, function.result, given, inputs_tuple, positions, span)

    def returned_value(self, function: UserFunction, result: Value | None, given: dict[str, Arg],
                       inputs: tuple[Op, ...], positions: dict[int, int], span: Range) -> Value:
        """What a call returns: the function's result made from the call's arguments (each
        item of a returned tuple too)."""
        if isinstance(result, Param) and result.function is function:  # `return df`
            passed = given.get(result.name)
            return passed.value if passed is not None else Unknown(f"the result of {function.name}()")
        if isinstance(result, DataFrame) and self.reaches(result.op, function):
            made = self.new_op("call", inputs, extent=span, detail=Instance(function, result.op, positions))
            return DataFrame(made)
        if isinstance(result, DataFrame) and function.reader is not self:
            # Made by another file's code (`load(spark)` of an imported module): its positions
            # are that file's, and it is linted there.
            return DataFrame(self.new_op("call", extent=span, detail=Instance(function, result.op, {})))
        if isinstance(result, PyList):
            items = tuple(replace(item, value=self.returned_value(function, item.value, given, inputs, positions, span))
                          for item in result.items)
            return PyList(items)
        if isinstance(result, (DataFrame, PyValue)):
            return result
        return Unknown(f"the result of {function.name}()")

    def dataframe_of(self, value: Value) -> Op | None:
        """The DataFrame a value holds; a parameter's placeholder, when passed on."""
        if isinstance(value, DataFrame):
            return value.op
        if isinstance(value, Param) and value.function is not None:
            return self.placeholder(value)
        return None

    # --- pyspark.sql.functions ---------------------------------------------------------------

    def function(self, name: str, args: tuple[Arg, ...], kwargs, span: Range) -> Value:
        values = [a.value for a in args]
        if name in ("col", "column"):
            if values and isinstance(values[0], PyValue) and isinstance(values[0].value, str):
                return Column(column_name(values[0].value))
            return Column(COpaque(f"F.{name} of a name known at run time"))
        if name == "lit":
            if values and isinstance(values[0], Column):
                return values[0]
            if values and isinstance(values[0], PyValue) and values[0].known:
                return Column(CLit(values[0].value))
            return Column(COpaque("F.lit of a value known at run time"))
        if name == "expr":
            if values and isinstance(values[0], PyValue) and isinstance(values[0].value, str):
                return Column(CSql(values[0].value, args[0].span))
            return Column(COpaque("F.expr of text built at run time"))
        if name == "when" and len(values) >= 2:
            return Column(CCase(((literal_or_column(values[0]), literal_or_column(values[1])),)))
        if name in SORT_METHODS and values:
            descending, nulls_first = SORT_METHODS[name]
            return Column(CSort(name_or_column(values[0]), descending, nulls_first))
        if name == "broadcast" and values and isinstance(values[0], DataFrame):
            return values[0]
        if name in ("count", "countDistinct", "count_distinct") and values and _is_star(values[0]):
            return Column(CCall(name, (CStar(),)))
        if name in ORDER_DEPENDENT:
            return Column(COpaque(f"F.{name}", order_dependent=True))
        spec = FUNCTIONS.get(name)
        if spec is None:
            for value in values:
                self.escape(value, span)
            return Column(COpaque(f"F.{name}"))
        converted: list[CExpr] = []
        for index, value in enumerate(values):
            kind = spec.params[index] if index < len(spec.params) else spec.varargs
            if not kind:
                return Column(COpaque(f"F.{name} with unexpected arguments"))
            converted.append(name_or_column(value) if kind == "c" else literal_or_column(value))
        for key, _ in kwargs:
            if key in ("ignorenulls", "ignoreNulls") and name in ("first", "last", "any_value"):
                continue
            return Column(COpaque(f"F.{name} with the keyword argument {key}"))
        return Column(CCall(name, tuple(converted)))

    # --- Column methods ---------------------------------------------------------------------

    def column_method(self, expr: CExpr, name: str, args: tuple[Arg, ...], kwargs) -> Value:
        values = [a.value for a in args]
        if name in ("alias", "name", "as_") and len(values) == 1 and isinstance(values[0], PyValue):
            if isinstance(values[0].value, str):
                return Column(CAlias(expr, values[0].value))
        if name in SORT_METHODS and not values:
            descending, nulls_first = SORT_METHODS[name]
            return Column(CSort(expr, descending, nulls_first))
        if name in ("cast", "astype", "try_cast") and len(values) == 1:
            if isinstance(values[0], PyValue) and isinstance(values[0].value, str) and name != "try_cast":
                return Column(COp("cast", (expr, CLit(values[0].value.lower()))))
            return Column(COpaque("a cast to a type not known"))
        if name in ("isNull", "isNotNull") and not values:
            return Column(COp(name, (expr,)))
        if name == "isin":
            items = values[0].items if len(values) == 1 and isinstance(values[0], PyList) else args
            return Column(COp("isin", (expr, *(literal_or_column(a.value) for a in items))))
        if name == "between" and len(values) == 2:
            return Column(COp("between", (expr, *(literal_or_column(v) for v in values))))
        if name in ("like", "rlike", "ilike", "contains", "startswith", "endswith", "eqNullSafe",
                    "bitwiseAND", "bitwiseOR", "bitwiseXOR") and len(values) == 1:
            op = "<=>" if name == "eqNullSafe" else name
            return Column(COp(op, (expr, literal_or_column(values[0]))))
        if name == "substr" and len(values) == 2:
            return Column(COp("substr", (expr, *(literal_or_column(v) for v in values))))
        if name in ("getItem", "getField") and len(values) == 1:
            return Column(COp("item", (expr, literal_or_column(values[0]))))
        if name == "over":
            spec = values[0] if values else WindowSpec()
            if isinstance(spec, WindowSpec):
                return Column(CWindow(expr, spec))
            return Column(COpaque("a window specification not known"))
        if isinstance(expr, CCase) and name == "when" and len(values) == 2:
            whens = (*expr.whens, (literal_or_column(values[0]), literal_or_column(values[1])))
            return Column(CCase(whens, expr.default))
        if isinstance(expr, CCase) and name == "otherwise" and len(values) == 1:
            return Column(CCase(expr.whens, literal_or_column(values[0])))
        return Column(COpaque(f"Column.{name}"))

    # --- window specifications ---------------------------------------------------------------

    def window_method(self, spec: WindowSpec, bound: Bound, args, kwargs, span: Range) -> Value:
        name = bound.name
        call = (bound.dot, span[1])
        calls = (*spec.calls, (name, call))
        if name in ("partitionBy", "orderBy"):
            items = _flatten(args)
            keys = tuple(SpecKey(name_or_column(a.value), a.span, a.text, a.indirect) for a in items)
            if name == "partitionBy":
                return replace(spec, partition=keys, partition_call=call, calls=calls)
            return replace(spec, order=keys, order_call=call, calls=calls)
        if name in ("rowsBetween", "rangeBetween") and len(args) == 2:
            bounds = [_bound(a.value) for a in args]
            if None in bounds:
                return Unknown("a window frame known at run time")
            kind = "ROWS" if name == "rowsBetween" else "RANGE"
            return replace(spec, frame=(kind, bounds[0], bounds[1]), calls=calls)
        return Unknown(f"WindowSpec.{name}")

    # --- bookkeeping ------------------------------------------------------------------------

    def new_op(self, kind: str, inputs: tuple[Op, ...] = (), args=(), kwargs=(), call=None,
               name_at=None, extent=None, detail=None) -> Op:
        op = Op(kind, inputs, tuple(args), tuple(kwargs), call, name_at, extent, detail)
        for child in inputs:
            self.consume(child)
        for _, arg in kwargs:
            if isinstance(arg.value, DataFrame):
                self.consume(arg.value.op)
        self.ops.append(op)
        return op

    def consume(self, op: Op) -> None:
        self.consumed.add(id(op))


# --- helpers ------------------------------------------------------------------------------------


def _flatten(args: Sequence[Arg]) -> list[Arg]:
    """`f("a", "b")` and `f(["a", "b"])` alike."""
    if len(args) == 1 and isinstance(args[0].value, PyList):
        return list(args[0].value.items)
    return list(args)


def _bound(value: Value) -> object | None:
    if isinstance(value, Marker):
        return value.bound
    if isinstance(value, PyValue) and isinstance(value.value, int) and not isinstance(value.value, bool):
        if value.value <= -(1 << 62):
            return UNBOUNDED_PRECEDING
        if value.value >= 1 << 62:
            return UNBOUNDED_FOLLOWING
        return CURRENT_ROW if value.value == 0 else value.value
    return None


def _rows_written(action: str, mode: str | None, args: tuple[Arg, ...], kwargs: dict[str, Arg]) -> str:
    """What a writer's action leaves in its table (`Write.rows`): `saveAsTable` creates the
    table, or replaces it in `overwrite` mode, or appends to it; `insertInto` appends, and
    with `overwrite` replaces only the partitions its rows fall in (so leaves rows it does not
    show); `writeTo(...)` creates, replaces or appends as its action says."""
    if action == "saveAsTable":
        written = kwargs.get("mode") or (args[2] if len(args) > 2 else None)
        mode = (_string(written) or "").lower() if written is not None else mode
        if mode in (None, "error", "errorifexists", "overwrite"):
            return "replace"
        return "append" if mode == "append" else "unknown"
    if action == "insertInto":
        overwrite = kwargs.get("overwrite") or (args[1] if len(args) > 1 else None)
        if overwrite is None and mode in (None, "append"):
            return "append"
        return "unknown"
    if action in ("create", "replace", "createOrReplace"):
        return "replace"
    return "append" if action == "append" else "unknown"


def _called_once(module: cst.Module) -> cst.FunctionDef | None:
    """The module's `main()`: the one function of the module's own (undecorated) whose
    name appears once outside its definition, in a call that is a statement of the module's
    own code - outside any loop, function, class or comprehension (`main()`, or under `if`,
    `try`, `with`: run at most once). None when there is no such function, or several."""
    defined = {node.name.value: node for node in module.body
               if isinstance(node, cst.FunctionDef) and not node.decorators}
    if not defined:
        return None  # a script without functions: nothing to walk the module for
    uses = _NameUses(set(defined))
    module.visit(uses)
    once = [defined[name] for name in defined if uses.count[name] == 1 and uses.statement_calls[name] == 1]
    return once[0] if len(once) == 1 else None


class _NameUses(cst.CSTVisitor):
    """How often each of `names` is used (its `def` aside), and how often as the callee of a
    call that is a statement run at most once."""

    REPEATING = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp,
                 cst.DictComp, cst.GeneratorExp)

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.count = dict.fromkeys(names, 0)
        self.statement_calls = dict.fromkeys(names, 0)
        self.depth = 0  # how many loops, functions, classes, comprehensions are open

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef) and self.depth == 0 and node.name.value in self.names:
            self.depth += 1  # until on_leave, which is called all the same
            node.params.visit(self)  # its own name is no use of it; its defaults and body are
            node.body.visit(self)
            return False
        if isinstance(node, self.REPEATING):
            self.depth += 1
        elif isinstance(node, cst.Name) and node.value in self.names:
            self.count[node.value] += 1
        elif (isinstance(node, cst.Expr) and self.depth == 0 and isinstance(node.value, cst.Call)
              and isinstance(node.value.func, cst.Name) and node.value.func.value in self.names):
            self.statement_calls[node.value.func.value] += 1
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, self.REPEATING):
            self.depth -= 1


def _string(arg: Arg) -> str | None:
    value = arg.value
    return value.value if isinstance(value, PyValue) and isinstance(value.value, str) else None


def _is_star(value: Value) -> bool:
    return (isinstance(value, PyValue) and value.value == "*") or (
        isinstance(value, Column) and isinstance(value.expr, CStar) and value.expr.qualifier is None
    )


def _looks_like_session(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return bool(last) and (last in SESSION_NAMES or "spark" in last and "context" not in last
                           or last.endswith("session"))


def _canonical(path: str) -> str:
    for alias, canonical in _CANONICAL.items():
        if path == alias or path.startswith(alias + "."):
            return canonical + path[len(alias):]
    if path in ("pyspark.sql.Window",):
        return WINDOW_CLASS
    return path


def _dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def _body(body: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(body, cst.IndentedBlock):
        return body.body
    return [cst.SimpleStatementLine(body=body.body)] if isinstance(body, cst.SimpleStatementSuite) else []


def _ends_with_else(node: cst.If) -> bool:
    orelse = node.orelse
    while isinstance(orelse, cst.If):
        orelse = orelse.orelse
    return isinstance(orelse, cst.Else)


def _has_fstring(node: cst.ConcatenatedString) -> bool:
    parts = [node.left, node.right]
    return any(isinstance(p, cst.FormattedString) or (isinstance(p, cst.ConcatenatedString) and _has_fstring(p))
               for p in parts)


def _children(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            yield child
        elif isinstance(child, (cst.Arg, cst.Element, cst.CompFor, cst.CompIf, cst.Index,
                                cst.SubscriptElement, cst.IfExp)):
            yield from _children(child)


_OPERATORS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/",
              cst.Modulo: "%", cst.Power: "**", cst.BitAnd: "&", cst.BitOr: "|",
              cst.FloorDivide: "//", cst.BitXor: "^"}
_COMPARISONS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
                cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


