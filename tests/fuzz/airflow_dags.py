"""Airflow DAG files that build their SQL at run time (`FUZZ_ENGINES=spark-airflow`).

Each case is a generated Spark SQL query (`QueryGenerator`) cut into pieces at spaces outside
quotes, and a DAG file (with a module of the repository beside it) that builds the query again
from them as DAG repositories do: a function returning it through `.format(...)`, an
f-string, `%`, `+`, `+=`, `"".join([...])` or `textwrap.dedent(...)`; pieces that are string
constants of the DAG file or imported from the other module; names bound in both branches of
an `if`; values passed as arguments, as a callable's `op_kwargs`, or only at run time (from
Airflow's context: unknown to sortlint, a placeholder); sometimes an unknown piece of DDL in
front of it (a library's call, cut off as a statement of its own). It runs the SQL through
`HiveCliHook().run_cli`, `HiveServer2Hook().get_records`, `spark.sql` in a `PythonOperator`
callable, or `SparkSqlOperator` / `SQLExecuteQueryOperator(sql=...)`.

`statement` runs a DAG file's code (the original or the fixed one, with its repository's
module) with stand-ins for Airflow and Spark that record the SQL handed to them, calling each
callable as Airflow would, with the context values the file's `FUZZ_CONTEXT` names: the SQL the
DAG would run. The harness compares what the original and the fixed statement return on Spark.
"""

from __future__ import annotations

import builtins
import random
import re
import types

from fuzz.catalogs import Catalog
from fuzz.queries import Case, QueryGenerator

# What the stand-in for a library's DDL helper returns: a statement the harness cuts off.
PRELUDE = "SELECT 1 AS prelude"
_STRING = re.compile(r"'(?:[^'\\]|''|\\.)*'")


def _cuts(sql: str) -> list[int]:
    """The positions of spaces outside SQL strings and quoted names: where a piece may end."""
    cuts, quote = [], None
    for i, ch in enumerate(sql):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'`\"":
            quote = ch
        elif ch == " ":
            cuts.append(i)
    return cuts


def _literal(text: str) -> str:
    return repr(text)


class DagGenerator:
    """One DAG file and one module per case (see the module doc)."""

    def __init__(self, rng: random.Random, catalog: Catalog):
        self.r = rng
        self.catalog = catalog
        self.queries = QueryGenerator(rng, catalog)

    def case(self, name: str) -> tuple[Case, dict[str, str]]:
        """The DAG case (`case.order`/`limit` those of its query) and the repository's other
        module, by file name; `case.unordered_text` holds the query the DAG must build."""
        query = self.queries.case(name)
        builder = _Builder(self.r, name, query.text)
        dag = builder.dag()
        case = Case(name, "airflow", dag, order=query.order, limit=query.limit,
                    unordered_text=query.text, features={"airflow", builder.runner, *builder.forms,
                                                         *query.features})
        return case, {f"{builder.module}.py": builder.module_text()}


class _Builder:
    """The Python that builds one query."""

    RUNNERS = ("run_cli", "get_records", "spark.sql", "SparkSqlOperator", "SQLExecuteQueryOperator")

    def __init__(self, rng: random.Random, name: str, sql: str):
        self.r = rng
        self.name = name
        self.sql = sql
        self.module = f"lib_{name}"
        self.runner = rng.choice(self.RUNNERS)
        self.in_callable = self.runner in ("run_cli", "get_records", "spark.sql")
        self.constants: list[str] = []  # the DAG file's module-level lines
        self.exported: list[str] = []  # the other module's lines
        self.imports: set[str] = set()
        self.body: list[str] = []  # build_sql's lines before its return
        self.params: list[tuple[str, str]] = []  # build_sql's parameters, with what the call passes
        self.op_kwargs: dict[str, str] = {}
        self.context: dict[str, str] = {}  # values Airflow's context gives at run time
        self.forms: set[str] = set()
        self._n = 0

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"{stem}{self._n}"

    # -- values ---------------------------------------------------------------------------

    def value(self, text: str, unknown_ok: bool = True) -> str:
        """An expression of build_sql worth `text`, from one of the places a value comes from."""
        r = self.r
        ways = ["literal", "local", "constant", "imported", "argument"]
        if self.in_callable:
            ways += ["op_kwargs"] + (["context"] if unknown_ok else [])
        way = r.choice(ways)
        self.forms.add(f"value-{way}")
        if way == "literal":
            return _literal(text)
        if way == "local":
            name = self.fresh("part_")
            self.body.append(f"    {name} = {_literal(text)}")
            return name
        if way == "constant":
            name = self.fresh("PART_")
            self.constants.append(f"{name} = {_literal(text)}")
            return name
        if way == "imported":
            name = self.fresh("SHARED_")
            self.exported.append(f"{name} = {_literal(text)}")
            if r.random() < 0.5:
                self.imports.add(f"from {self.module} import {name}")
                return name
            self.imports.add(f"import {self.module} as shared")
            return f"shared.{name}"
        name = self.fresh("arg_")
        if way == "argument":
            self.params.append((name, _literal(text)))
        elif way == "op_kwargs":
            self.op_kwargs[name] = text
            self.params.append((name, name))
        else:
            self.context[name] = text
            self.params.append((name, f'context["{name}"]'))
        return name

    # -- pieces ---------------------------------------------------------------------------

    def piece(self, text: str) -> str:
        """An expression worth `text` (a piece of the query)."""
        r = self.r
        strings = [m for m in _STRING.finditer(text) if "\\" not in m.group()]
        tables = [m for m in re.finditer(r"\bfz\.t\d+\b", text)]
        spans = [(m.start() + 1, m.end() - 1, True) for m in strings] + [(m.start(), m.end(), False)
                                                                          for m in tables]
        forms = ["plain", "join", "dedent", "branch"]
        if spans:
            forms += ["format", "fstring", "percent"] * 2
        form = r.choice(forms)
        self.forms.add(form)
        if form == "plain":
            return self.value(text)
        if form == "join":
            inner = [c for c in _cuts(text) if c > 0]
            if not inner:
                return self.value(text)
            cut = r.choice(inner)
            return f'"".join([{self.value(text[:cut])}, {self.value(text[cut:])}])'
        if form == "dedent":
            if '"' in text or "\\" in text:
                return self.value(text)
            self.imports.add("import textwrap")
            # A line per word of the text, indented: dedent takes the indentation away, the
            # line breaks stand where the spaces were (the first where the piece's own is).
            block = "".join(f"        {text[a:b]}\n" for a, b in _words(text))
            return f'textwrap.dedent("""\n{block}    """)'
        if form == "branch":
            name = self.fresh("chosen_")
            condition = self.value("on", unknown_ok=True)
            self.body += [f"    if {condition} == \"on\":", f"        {name} = {_literal(text)}",
                          "    else:", f"        {name} = {_literal(text + ' ')}"]
            return name
        start, end, quoted = r.choice(spans)
        field = self.fresh("f")
        value = self.value(text[start:end], unknown_ok=quoted or r.random() < 0.3)
        head, tail = text[:start], text[end:]
        if form == "percent":
            template = head.replace("%", "%%") + "%s" + tail.replace("%", "%%")
            return f"{_literal(template)} % ({value},)"
        template = _braces(head) + "{" + field + "}" + _braces(tail)
        if form == "format":
            return f"{_literal(template)}.format({field}={value})"
        self.body.append(f"    {field} = {value}")
        return "f" + _literal(template)

    # -- the file -------------------------------------------------------------------------

    def build_function(self) -> list[str]:
        r = self.r
        cuts = _cuts(self.sql)
        chosen = sorted(r.sample(cuts, min(len(cuts), r.randint(0, 3))))
        bounds = [0, *chosen, len(self.sql)]
        pieces = [self.piece(self.sql[a:b]) for a, b in zip(bounds, bounds[1:])]
        style = r.choice(["return", "augmented", "join"])
        self.forms.add(f"compose-{style}")
        if style == "return":
            tail = [f"    return {' + '.join(pieces)}"]
        elif style == "augmented":
            tail = [f"    sql = {pieces[0]}", *(f"    sql += {p}" for p in pieces[1:]), "    return sql"]
        else:
            tail = [f'    return "".join([{", ".join(pieces)}])']
        params = ", ".join(p for p, _ in self.params)
        return [f"def build_sql({params}):", *self.body, *tail]

    def dag(self) -> str:
        r = self.r
        function = self.build_function()
        call = f"build_sql({', '.join(arg for _, arg in self.params)})"
        lines = ["from airflow import DAG", "from airflow.operators.python import PythonOperator"]
        task: list[str]
        if self.in_callable:
            prelude = r.random() < 0.3
            if prelude:
                self.imports.add("from warehouse_tools import ddl")
                self.forms.add("prelude")
                call = f'ddl.alter_partition(ds) + ";\\n" + {call}'
            callable_ = ["def run_task(ds, " + "".join(f"{k}, " for k in self.op_kwargs) + "**context):",
                         f"    sql = {call}"]
            if self.runner == "run_cli":
                lines.append("from airflow.providers.apache.hive.hooks.hive import HiveCliHook")
                callable_.append("    HiveCliHook().run_cli(sql)")
            elif self.runner == "get_records":
                lines.append("from airflow.providers.apache.hive.hooks.hive import HiveServer2Hook")
                callable_.append("    return HiveServer2Hook().get_records(sql)")
            else:
                lines.append("from pyspark.sql import SparkSession")
                callable_ += ["    spark = SparkSession.builder.getOrCreate()", "    spark.sql(sql).collect()"]
            kwargs = "{" + ", ".join(f'"{k}": {_literal(v)}' for k, v in self.op_kwargs.items()) + "}"
            task = [*callable_, "", "", 'with DAG("' + self.name + '", schedule=None) as dag:',
                    f'    PythonOperator(task_id="run", python_callable=run_task, op_kwargs={kwargs})']
        else:
            if self.runner == "SparkSqlOperator":
                lines.append("from airflow.providers.apache.spark.operators.spark_sql import SparkSqlOperator")
            else:
                lines.append("from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator")
            task = ['with DAG("' + self.name + '", schedule=None) as dag:',
                    f'    {self.runner}(task_id="run", sql={call})']
        lines += sorted(self.imports)
        context = "{" + ", ".join(f'"{k}": {_literal(v)}' for k, v in self.context.items()) + "}"
        # FUZZ_CONTEXT: what Airflow's context holds when the task runs (the harness passes it).
        lines += ["", f"FUZZ_CONTEXT = {context}", *self.constants, "", "", *function, "", "", *task]
        return "\n".join(lines) + "\n"

    def module_text(self) -> str:
        return '"""Strings the DAG file imports."""\n\n' + "\n".join(self.exported) + "\n"


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _words(text: str) -> list[tuple[int, int]]:
    """`text` cut at each of its spaces outside quotes, each part without the space."""
    bounds = [-1, *_cuts(text), len(text)]
    return [(a + 1, b) for a, b in zip(bounds, bounds[1:]) if text[a + 1:b].strip()]


# ---------------------------------------------------------------------------------------------
# Running a DAG file's code


class _Recorder:
    """What Airflow's and Spark's classes are while a DAG file runs: each SQL handed over is
    recorded; each callable of a PythonOperator is kept, to be called afterwards."""

    def __init__(self):
        self.sql: list[str] = []
        self.callables: list[tuple] = []

    def module(self) -> types.SimpleNamespace:
        recorder = self

        class Runner:
            def __init__(self, *args, **kwargs):
                if "sql" in kwargs:
                    recorder.sql.append(kwargs["sql"])
                if "python_callable" in kwargs:
                    recorder.callables.append((kwargs["python_callable"], kwargs.get("op_kwargs") or {}))

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def run_cli(self, sql, *args, **kwargs):
                recorder.sql.append(sql)

            def get_records(self, sql, *args, **kwargs):
                recorder.sql.append(sql)
                return []

            def sql(self, sql, *args, **kwargs):
                recorder.sql.append(sql)
                return self

            def collect(self):
                return []

        runners = dict.fromkeys(("DAG", "PythonOperator", "HiveCliHook", "HiveServer2Hook", "SparkSqlOperator",
                                 "SQLExecuteQueryOperator"), Runner)
        return types.SimpleNamespace(
            **runners, SparkSession=types.SimpleNamespace(builder=types.SimpleNamespace(getOrCreate=Runner)),
            ddl=types.SimpleNamespace(alter_partition=lambda ds: PRELUDE))


def statement(dag_text: str, modules: dict[str, str]) -> str:
    """The SQL the DAG file `dag_text` runs, its repository's other modules being `modules`
    (file name -> text). Raises what the code raises; ValueError unless it runs exactly one."""
    recorder = _Recorder()
    stand_in = recorder.module()
    loaded: dict[str, types.ModuleType] = {}

    def load(name: str, globals_=None, locals_=None, fromlist=(), level=0):
        if name.startswith(("airflow", "pyspark", "warehouse_tools")):
            return stand_in
        if f"{name}.py" in modules:
            if name not in loaded:
                module = types.ModuleType(name)
                module.__dict__["__builtins__"] = scope_builtins
                exec(compile(modules[f"{name}.py"], f"{name}.py", "exec"), module.__dict__)
                loaded[name] = module
            return loaded[name]
        return builtins.__import__(name, globals_, locals_, fromlist, level)

    scope_builtins = dict(builtins.__dict__, __import__=load)
    scope: dict = {"__builtins__": scope_builtins, "__name__": "dag"}
    exec(compile(dag_text, "dag.py", "exec"), scope)
    for function, kwargs in recorder.callables:
        function(ds="2024-01-01", **kwargs, **scope["FUZZ_CONTEXT"])
    if len(recorder.sql) != 1:
        raise ValueError(f"the DAG ran {len(recorder.sql)} statements")
    sql = recorder.sql[0]
    if sql.startswith(PRELUDE):
        sql = sql[len(PRELUDE) + len(";\n"):]
    return sql

