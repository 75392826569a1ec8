"""The Spark fuzzer's modes whose cases are Python code of several modules that builds at run
time what runs on Spark (issue 33):

* `spark-airflow` (`fuzz/airflow_dags.py`): a DAG file and a module beside it building the
  SQL of a generated query, run by the hooks and operators sortlint follows;
* `spark-pyspark-modules` (`fuzz/dataframe_modules.py`): a job and a module whose functions
  take, sort, aggregate and return its DataFrame.

One sortlint run per mode (`--fix`, `--fix --unsafe-fixes`) checks each batch's repository (all
cases' files). For a case whose files a fix changed, the original files and the fixed ones
(each file the fixed one where sortlint changed it) are made runnable - the SQL the DAG runs,
recorded by running its code with stand-ins for Airflow; the job with its module - and
`SparkHarness` compares them as it compares single files: schema, rows, the final order.
A fixed repository whose code no longer runs, or builds no statement, is `*-unanalysable`.
Failures are written as found (not shrunk), with the repository's files in `repository/`.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path

from fuzz import reproducers, spark_engine
from fuzz.airflow_dags import DagGenerator, statement
from fuzz.catalogs import Catalog, CatalogGenerator
from fuzz.cli import BatchOutcome, FileOutcome, run_batch
from fuzz.dataframe_modules import ModuleJobGenerator, job
from fuzz.failures import Failure
from fuzz.queries import Case
from fuzz.results import Result

MODES = ("spark-airflow", "spark-pyspark-modules")


def generate_batch(mode: str, seed: int, batch: int, size: int) -> tuple[Catalog, list[tuple[Case, dict[str, str]]]]:
    r = random.Random(f"{seed}:{mode}:{batch}")
    catalog = CatalogGenerator(r, "spark").generate()
    generator = DagGenerator(r, catalog) if mode == "spark-airflow" else ModuleJobGenerator(r, catalog)
    return catalog, [generator.case(f"{'d' if mode == 'spark-airflow' else 'j'}{batch:03d}_{n:03d}")
                     for n in range(size)]


def runnable(case: Case, text: str, modules: dict[str, str]) -> Case:
    """The single-file case `SparkHarness` runs for the case's files `text` and `modules`:
    the SQL statement the DAG runs, or the job with its module. Raises what the code raises."""
    if case.language == "airflow":
        return replace(case, language="sql", text=statement(text, modules))
    return replace(case, text=job(text, modules))


class BuiltHarness:
    def __init__(self, spark):
        self.harness = spark_engine.SparkHarness(spark)
        self.stats = self.harness.stats

    def check_case(self, catalog: Catalog, case: Case, modules: dict[str, str], outcome: BatchOutcome
                   ) -> list[Failure]:
        files = [case.filename, *modules]
        findings = [f for name in files for f in outcome.files[name].findings]
        original = runnable(case, case.text, modules)
        if case.language == "airflow" and original.text.split() != (case.unordered_text or "").split():
            raise AssertionError(f"{case.name}: the DAG builds another query than the generated one: harness bug")
        fixed = FileOutcome(findings=findings)
        for mode in ("safe", "unsafe"):
            texts = {name: getattr(outcome.files[name], f"{mode}_text") for name in files}
            if all(t is None for t in texts.values()):
                continue
            mine = {name: texts[name] if texts[name] is not None else original_text
                    for name, original_text in ((case.filename, case.text), *modules.items())}
            try:
                made = runnable(case, mine[case.filename], {m: mine[m] for m in modules})
            except Exception as error:  # noqa: BLE001 - fixed code that no longer runs
                self.stats[f"{mode} fixed files checked"] += 1
                shown = "\n\n".join(f"# {name}\n{text}" for name, text in mine.items())
                return [Failure("spark", f"{mode}-unanalysable", catalog, case, shown, findings,
                                Result([], []), Result([], [], f"the fixed code: {type(error).__name__}: {error}"),
                                f"the fixed code no longer runs: {type(error).__name__}: {error}")]
            setattr(fixed, f"{mode}_text", made.text)
            setattr(fixed, f"dropped_{mode}",
                    [d for name in files for d in getattr(outcome.files[name], f"dropped_{mode}")])
        return self.harness.check_case(catalog, original, fixed)


def fuzz(spark, mode: str, seed: int, count: int, workdir: Path, out: Path | None, batch_size: int = 40,
         log=print):
    """`count` cases of `mode` in batches of `batch_size`; a `run.Report`."""
    from fuzz.run import Report

    report = Report(mode)
    started = time.perf_counter()
    harness = BuiltHarness(spark)
    batch = done = 0
    while done < count:
        size = min(batch_size, count - done)
        catalog, cases = generate_batch(mode, seed, batch, size)
        batch += 1
        files = {name: text for case, modules in cases for name, text in ((case.filename, case.text), *modules.items())}
        outcome = run_batch(workdir / "batch", catalog.yaml(), files, ("safe", "unsafe"))
        if report.catalog_rejected(outcome, batch):
            continue
        if outcome.errors:
            raise RuntimeError(f"sortlint could not read a generated file: {outcome.errors[0]}")
        done += size
        spark_engine.load(spark, catalog)
        # The modules' own findings count too (the pipelines of their functions).
        report.add_outcome(outcome, [case for case, _ in cases]
                           + [Case(name[:-3], "module", "") for _, modules in cases for name in modules])
        for case, modules in cases:
            for failure in harness.check_case(catalog, case, modules, outcome):
                report.failures.append(failure)
                if out is not None:
                    directory = out / f"{mode}-{failure.kind}-{seed}-{len(report.failures)}"
                    report.written.append(reproducers.write(failure, directory))
                    (directory / "repository").mkdir()
                    for name, text in ((case.filename, case.text), *modules.items()):
                        (directory / "repository" / name).write_text(text)
        log(f"[{mode}] {done}/{count} cases, {len(report.failures)} differences, "
            f"{time.perf_counter() - started:.0f} s")
    report.engine_stats.update(harness.stats)
    report.seconds = time.perf_counter() - started
    return report
