"""PySpark jobs whose DataFrames pass through functions and modules
(`FUZZ_ENGINES=spark-pyspark-modules`).

Each case is a job file and a module of the repository it imports. The DataFrame starts in a
function of the module (`load(spark)`, or `load(spark, "fz.t1")` given the table's name) or in
the job; then goes, as a function's parameter, through a filter, sometimes a sort, and an
aggregate, a window or a projection, each a function of the job or of the module (called by
name, through the module, or by `df.transform(f)`), the sort sometimes written inside the
function that aggregates (a sort of a parameter: rows of unknown shape) and sometimes at the
call; and ends in `result = ...` with most often a final orderBy (`PipelineGenerator.result`).

`job` makes the runnable text of a job and its module (the original or the fixed ones): the
module's text is run first as a module of that name, then the job.
"""

from __future__ import annotations

from fuzz.queries import Case, PipelineGenerator

_IMPORTS = ["from pyspark.sql import functions as F", "from pyspark.sql import Window"]


class ModuleJobGenerator(PipelineGenerator):
    def case(self, name: str) -> tuple[Case, dict[str, str]]:  # type: ignore[override]
        r = self.r
        module = f"lib_{name}"
        self.job: list[str] = []
        self.module: list[str] = []
        self.local: list[str] = []  # the job's own functions
        self.module_name = module
        self.features = {"pyspark", "modules"}
        self.imports: set[str] = set()
        table = r.choice(self.catalog.tables)
        columns = [c.name for c in table.columns]

        where = r.random()
        if where < 0.4:
            self.module += ["def load(spark):", f'    return spark.table("{table.name}")', "", ""]
            self.job.append(f"df = {self.reference('load')}(spark)")
        elif where < 0.6:
            self.module += ["def load(spark, name):", "    return spark.table(name)", "", ""]
            self.job.append(f'df = {self.reference("load")}(spark, "{table.name}")')
            self.features.add("load-by-name")
        else:
            self.job.append(f'df = spark.table("{table.name}")')
        if r.random() < 0.6:
            column = r.choice(table.columns)
            self.function("narrow", ["df", "value"], [f'return df.filter(F.col("{column.name}") == value)'],
                          lambda f: f"df = {f}(df, {self.lit(column)})")
        presort = None
        if r.random() < 0.7:
            sort_keys = ", ".join(f'"{k}"' for k in r.sample(columns, r.randint(1, min(2, len(columns)))))
            presort = f".orderBy({sort_keys})"
            self.features.add("sort-before")
        inside = presort is not None and r.random() < 0.5
        if presort is not None and not inside:
            # The sort where the caller hands the DataFrame over.
            self.features.add("sort-at-call")
            self.job.append(f"df = df{presort}")
        sorted_ = presort if inside else ""
        shape = r.random()
        if shape < 0.45:
            keys = r.sample(columns, r.randint(1, min(2, len(columns))))
            measured = r.choice(columns)
            aggs = f'F.count("*").alias("c"), F.max("{measured}").alias("mx")'
            body = [f'return frame{sorted_}.groupBy({", ".join(repr(k) for k in keys)}).agg({aggs})']
            outputs = keys + ["c", "mx"]
            self.features.add("aggregate")
        elif shape < 0.8:
            part, by = r.choice(columns), r.choice(columns)
            fn = r.choice(["F.rank()", "F.dense_rank()", f'F.max("{by}")', 'F.count("*")'])
            body = [f'w = Window.partitionBy("{part}").orderBy(F.col("{by}"))',
                    f'return frame{sorted_}.withColumn("wv", {fn}.over(w))']
            outputs = columns + ["wv"]
            self.features.add("window")
        else:
            outputs = r.sample(columns, r.randint(1, min(4, len(columns))))
            body = [f'return frame{sorted_}.select({", ".join(repr(o) for o in outputs)})']
            self.features.add("projection")
        self.function("shape", ["frame"], body, lambda f: r.choice([f"df = {f}(df)", f"df = df.transform({f})"]))
        lines = list(_IMPORTS)
        lines += sorted(self.imports)
        lines += ["", *self.local, *self.job]
        order = self.result(lines, "df", outputs)
        text = "\n".join(lines) + "\n"
        module_text = "\n".join(['"""Functions the job imports."""', "", *_IMPORTS, "", "", *self.module]).rstrip() + "\n"
        return Case(name, "pyspark", text, order=order, features=self.features), {f"{module}.py": module_text}

    def reference(self, function: str) -> str:
        """How the job names a function of the module."""
        if self.r.random() < 0.5:
            self.imports.add(f"import {self.module_name} as lib")
            return f"lib.{function}"
        self.imports.add(f"from {self.module_name} import {function}")
        return function

    def function(self, name: str, params: list[str], body: list[str], call) -> None:
        """`def name(params): body` in the module or the job, and the job's line `call(f)`
        calling it by its name `f` there."""
        definition = [f"def {name}({', '.join(params)}):", *(f"    {line}" for line in body), "", ""]
        if self.r.random() < 0.6:
            self.module += definition
            self.features.add(f"{name}-in-module")
            self.job.append(call(self.reference(name)))
        else:
            self.local += definition
            self.features.add(f"{name}-in-job")
            self.job.append(call(name))


def job(job_text: str, modules: dict[str, str]) -> str:
    """One runnable text: each module of `modules` (file name -> text) made a module of its
    name, then the job."""
    prelude = ["import sys as _sys, types as _types"]
    for filename, text in modules.items():
        name = filename[: -len(".py")]
        prelude += [f"_m = _types.ModuleType({name!r})",
                    f"exec(compile({text!r}, {filename!r}, 'exec'), _m.__dict__)",
                    f"_sys.modules[{name!r}] = _m"]
    return "\n".join(prelude) + "\n" + job_text

