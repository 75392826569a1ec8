"""`make fuzz`: long differential runs against Spark and DataFusion, with reproducers.

    cd tests && PYTHONPATH=..:. python -m fuzz.run [spark|datafusion|spark-multifile|spark-airflow|spark-pyspark-modules|all]
                                                   (default: all)
    cd tests && PYTHONPATH=..:. python -m fuzz.run replay fuzz-failures/<dir>

Settings come from the environment: FUZZ_SEED (default 1), FUZZ_COUNT (queries per engine,
default 500), FUZZ_OUT (reproducer directory, default ./fuzz-failures), FUZZ_SHRINK (how many
failures of one signature to shrink, default 1; 0 writes them as found), FUZZ_SHRINK_SECONDS
(once shrinking has taken this long, failures are written as found; default 900), FUZZ_BATCH
(cases per catalog, default 40) and FUZZ_PARTITIONS (DataFusion's target_partitions, each a run
of its own and told to sortlint as `datafusion: {target_partitions: N}`; default 1,4). A signature is the failure class, the rules whose fixes were
applied, what their findings rest on, and the query's shape.

Each batch is one generated catalog and FUZZ_BATCH cases over it, checked by one sortlint run
per mode; Spark batches are 80% SQL files and 20% PySpark jobs. The summary prints the counts:
queries, findings per rule, fixes applied (safe / unsafe), fixes dropped, failures per class,
and the agreement of sortlint's SL001 with DataFusion's own sort decisions.

`spark-multifile` (`fuzz/multifile.py`; part of `all`) makes each case two files: a CTAS of a
generated upstream query and a reader of the table it writes, the table undeclared in
sortlint.yml, so sortlint takes its facts from the CTAS; FUZZ_COUNT is the number of pairs
(under `all`, FUZZ_COUNT / 5: a pair costs Spark far more than one query).
Its summary also counts the findings whose basis is `upstream`. Its failures are written as
found (not shrunk), with the CTAS as `upstream.sql` beside the reader.

`spark-airflow` and `spark-pyspark-modules` (`fuzz/built.py`; part of `all`, with FUZZ_COUNT / 5
cases there) make each case a repository of Python code that builds at run time what Spark
runs: a DAG file assembling a query's SQL from pieces of two modules, a job passing its
DataFrame through functions of another module. Failures are written as found, with the
repository's files in `repository/`.
"""

from __future__ import annotations

import functools
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fuzz import built, reproducers
from fuzz.catalogs import Catalog, CatalogGenerator
from fuzz.datafusion_engine import ELIDES, NO_ROWS
from fuzz.cli import BatchOutcome, run_batch
from fuzz.failures import Failure
from fuzz.queries import Case, PipelineGenerator, QueryGenerator
from fuzz.shrink import Shrinker


@dataclass
class Report:
    engine: str
    queries: Counter = field(default_factory=Counter)
    findings: Counter = field(default_factory=Counter)  # (code, applicability)
    bases: Counter = field(default_factory=Counter)  # (code, basis): what findings rest on
    upstream: Counter = field(default_factory=Counter)  # (code, applicability) of basis `upstream`
    fixes: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    engine_stats: Counter = field(default_factory=Counter)
    agreement: Counter = field(default_factory=Counter)
    rejected_catalogs: int = 0
    seconds: float = 0.0
    sortlint_seconds: float = 0.0
    written: list[Path] = field(default_factory=list)

    def add_outcome(self, outcome: BatchOutcome, cases: list[Case]) -> None:
        self.sortlint_seconds += outcome.seconds
        for case in cases:
            self.queries[case.language] += 1
            file = outcome.files[case.filename]
            for f in file.findings:
                applicability = f["fix"]["applicability"] if f["fix"] else "no fix"
                self.findings[(f["code"], applicability)] += 1
                self.bases[(f["code"], f.get("basis") or "none")] += 1
                if f.get("basis") == "upstream":
                    self.upstream[(f["code"], applicability)] += 1
            if file.safe_text is not None:
                self.fixes["files changed by --fix"] += 1
            if file.unsafe_text is not None and file.unsafe_text != file.safe_text:
                self.fixes["files changed further by --unsafe-fixes"] += 1
            for code, reason in set(file.dropped_safe + file.dropped_unsafe):
                self.dropped[(code, reason.split(":")[0][:80])] += 1

    def catalog_rejected(self, outcome: BatchOutcome, batch: int) -> bool:
        """Whether sortlint refused the batch's catalog (e.g. a declaration a later version
        calls wrong): then the batch is generated again from the next catalog. Refusing most
        of them is a failure of the run."""
        rejected = [e for e in outcome.errors if "sortlint.yml" in e]
        if rejected:
            self.rejected_catalogs += 1
            if self.rejected_catalogs > 10 + batch // 2:
                raise RuntimeError(f"sortlint rejects most generated catalogs: {rejected[0]}")
        return bool(rejected)

    def summary(self) -> str:
        lines = [f"== {self.engine}: {sum(self.queries.values())} queries "
                 f"({', '.join(f'{n} {k}' for k, n in sorted(self.queries.items()))}) in {self.seconds:.0f} s "
                 f"(sortlint {self.sortlint_seconds:.0f} s)"]
        if self.rejected_catalogs:
            lines.append(f"catalogs sortlint rejected (regenerated): {self.rejected_catalogs}")
        lines.append("findings per rule (fix applicability):")
        codes = sorted({c for c, _ in self.findings})
        for code in codes:
            parts = ", ".join(f"{n} {a}" for (c, a), n in sorted(self.findings.items()) if c == code)
            lines.append(f"  {code}: {parts}")
        lines.append("findings per rule (basis):")
        for code in codes:
            parts = ", ".join(f"{n} {b}" for (c, b), n in sorted(self.bases.items()) if c == code)
            lines.append(f"  {code}: {parts}")
        if self.upstream:
            lines.append("findings resting on another file's code (basis upstream), by fix applicability: "
                         + ", ".join(f"{c} {n} {a}" for (c, a), n in sorted(self.upstream.items())))
        for key, n in sorted(self.fixes.items()):
            lines.append(f"{key}: {n}")
        if self.dropped:
            lines.append(f"fixes dropped by sortlint's proof: {sum(self.dropped.values())}")
            for (code, reason), n in self.dropped.most_common(8):
                lines.append(f"  {n:5d} {code}: {reason}")
        for key, n in sorted(self.engine_stats.items()):
            lines.append(f"{key}: {n}")
        by_class = Counter(f.cls for f in self.failures)
        lines.append(f"differences: {len(self.failures)}" + ("" if self.failures else " (none)"))
        for cls, n in sorted(by_class.items()):
            signatures = Counter(" ".join(f.codes) + (f" on {', '.join(f.evidence)}" if f.evidence else "")
                                 for f in self.failures if f.cls == cls)
            lines.append(f"  {cls}: {n}")
            for signature, count in signatures.most_common():
                lines.append(f"    {count:5d} {signature}")
        if self.agreement:
            lines.append("agreement with DataFusion's sort decision for the final ORDER BY "
                         "(a merge of sorted partitions is one the ORDER BY asks for):")
            compared = {k: n for k, n in self.agreement.items() if k[1] != NO_ROWS}
            total = sum(compared.values())
            agree = sum(n for (s, d), n in compared.items() if (s == "sortlint drops") == (d == ELIDES))
            for (s, d), n in sorted(self.agreement.items()):
                lines.append(f"  {s:15s} / {d:24s}: {n}")
            lines.append(f"  agreement: {agree}/{total} ({100 * agree / total:.1f}%)"
                         + (" (plans without rows left out)" if total < sum(self.agreement.values()) else ""))
        if self.written:
            lines.append(f"reproducers written: {len(self.written)} (e.g. {self.written[0]})")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Batches


def generate_batch(seed: int, batch: int, target: str, size: int) -> tuple[Catalog, list[Case]]:
    r = random.Random(f"{seed}:{target}:{batch}")
    catalog = CatalogGenerator(r, target).generate()
    queries = QueryGenerator(r, catalog)
    pipelines = PipelineGenerator(r, catalog)
    cases = []
    for n in range(size):
        if target == "spark" and r.random() < 0.2:
            cases.append(pipelines.case(f"p{batch:03d}_{n:03d}"))
        else:
            cases.append(queries.case(f"q{batch:03d}_{n:03d}"))
    return catalog, cases


class Engine:
    """One engine's harness behind one interface: load a catalog, check a case."""

    name: str

    @property
    def label(self) -> str:
        """The engine and its settings, as the summary names them."""
        return self.name

    @property
    def slug(self) -> str:
        """The engine and its settings in a reproducer's directory name (runs with other
        settings write next to it)."""
        return self.name

    def configure(self, catalog: Catalog) -> Catalog:
        """The catalog with the settings sortlint must be told the engine runs with."""
        return catalog

    def prepare(self, catalog: Catalog, workdir: Path, previous=None):
        """A harness over `catalog`'s freshly written tables, keeping `previous`'s counts."""
        raise NotImplementedError

    def check_one(self, catalog: Catalog, case: Case, workdir: Path) -> Failure | None:
        """One case from scratch: sortlint over a one-file repository, then the engine."""
        modes = ("safe", "unsafe") if self.name == "spark" else ("safe",)
        outcome = run_batch(workdir / "one", catalog.yaml(), {case.filename: case.text}, modes)
        harness = self.prepare(catalog, workdir)
        failures = harness.check_case(catalog, case, outcome.files[case.filename])
        return failures[0] if failures else None


class SparkEngine(Engine):
    name = "spark"

    def __init__(self, spark):
        self.spark = spark

    def prepare(self, catalog, workdir, previous=None):
        from fuzz import spark_engine

        spark_engine.load(self.spark, catalog)
        harness = spark_engine.SparkHarness(self.spark)
        if previous is not None:
            harness.stats = previous.stats
        return harness


class DataFusionEngine(Engine):
    name = "datafusion"

    def __init__(self, target_partitions: int = 4):
        self.target_partitions = target_partitions

    @property
    def label(self) -> str:
        return f"datafusion (target_partitions {self.target_partitions})"

    @property
    def slug(self) -> str:
        return f"datafusion-p{self.target_partitions}"

    def configure(self, catalog: Catalog) -> Catalog:
        return replace(catalog, target_partitions=self.target_partitions)

    def prepare(self, catalog, workdir, previous=None):
        from fuzz import datafusion_engine

        ctx = datafusion_engine.session(catalog, workdir / "tables", self.target_partitions)
        harness = datafusion_engine.DataFusionHarness(ctx, {"target_partitions": self.target_partitions})
        if previous is not None:
            harness.stats, harness.agreement = previous.stats, previous.agreement
            harness.disagreements = previous.disagreements
        return harness


def fuzz(engine: Engine, seed: int, count: int, workdir: Path, out: Path | None,
         batch_size: int = 40, shrink: int = 1, shrink_budget: int = 60,
         shrink_seconds: float = 900, log=print) -> Report:
    report = Report(engine.label)
    started = time.perf_counter()
    target = engine.name
    modes = ("safe", "unsafe") if target == "spark" else ("safe",)
    shrunk: Counter = Counter()
    shrink_spent = 0.0
    examples: Counter = Counter()  # disagreements with DataFusion written, per label
    batch = 0
    done = 0
    while done < count:
        size = min(batch_size, count - done)
        catalog, cases = generate_batch(seed, batch, target, size)
        catalog = engine.configure(catalog)
        batch += 1
        outcome = run_batch(workdir / "batch", catalog.yaml(), {c.filename: c.text for c in cases}, modes)
        if report.catalog_rejected(outcome, batch):
            continue
        done += size
        report.add_outcome(outcome, cases)
        harness = engine.prepare(catalog, workdir)
        for case in cases:
            for failure in harness.check_case(catalog, case, outcome.files[case.filename]):
                report.failures.append(failure)
                if out is None:
                    continue
                n = len(report.failures)
                if shrunk[failure.signature] < shrink and shrink_spent < shrink_seconds:
                    shrunk[failure.signature] += 1
                    began = time.perf_counter()
                    failure = Shrinker(lambda c, q: engine.check_one(c, q, workdir), shrink_budget).shrink(failure)
                    harness = engine.prepare(catalog, workdir, harness)  # shrinking replaced the tables
                    shrink_spent += time.perf_counter() - began
                directory = out / f"{engine.slug}-{failure.kind}-{seed}-{n}"
                report.written.append(reproducers.write(failure, directory))
        report.engine_stats.update(harness.stats)
        if hasattr(harness, "agreement"):
            report.agreement.update(harness.agreement)
            for label, *disagreement in harness.disagreements:
                examples[label] += 1
                if out is not None and examples[label] <= 3:
                    name = label.replace(", ", "-").replace(" ", "-").lower()
                    directory = out / f"{engine.slug}-agreement-{name}-{seed}-{examples[label]}"
                    report.written.append(reproducers.write_disagreement(label, *disagreement, directory))
        log(f"[{engine.label}] {done}/{count} queries, {len(report.failures)} differences, "
            f"{time.perf_counter() - started:.0f} s")
    report.seconds = time.perf_counter() - started
    return report


# ---------------------------------------------------------------------------------------------
# Entry points


def _spark_engine(workdir: Path) -> SparkEngine:
    from fuzz.spark_engine import start_session

    return SparkEngine(start_session(workdir / "spark"))


def replay(directories: list[Path]) -> int:
    """Run each reproducer again; 1 if any still fails. They share one work folder and one
    Spark session: Spark keeps the first session of a process (`getOrCreate`), whose
    warehouse is in the folder it was made with."""
    with tempfile.TemporaryDirectory(prefix="sortlint-replay-") as tmp:
        work = Path(tmp)
        spark = functools.cache(lambda: _spark_engine(work / "spark-session"))
        return max(_replay(directory, work / f"case-{i}", spark) for i, directory in enumerate(directories))


def _replay(directory: Path, work: Path, spark: Callable[[], SparkEngine]) -> int:
    import json

    work.mkdir()
    data = json.loads((directory / "case.json").read_text())
    catalog = reproducers.catalog_from_json(data["catalog"])
    case = reproducers.case_from_json(data["case"])
    if "upstream" in data or data["kind"].startswith("upstream-"):
        from fuzz import multifile

        if "upstream" in data:
            failure = multifile.check_one(spark().spark, catalog, reproducers.case_from_json(data["upstream"]),
                                          case, work)
        else:  # the CTAS's own fix failed: the CTAS alone
            failure = multifile.check_one(spark().spark, catalog, case, None, work)
        return _replayed(directory, failure)
    if "airflow" in case.features:
        # The DAG the statement was built into is not stored: sortlint's findings there (a
        # constant another task's statement proves, the branches of an `if`) may not come back.
        print(f"{directory}: a spark-airflow statement, replayed alone, not in its DAG: "
              "a pass or a failure here may not be the DAG's")
    engine: Engine = spark() if data["engine"] == "spark" else DataFusionEngine(data["settings"].get("target_partitions", 4))
    return _replayed(directory, engine.check_one(catalog, case, work))


def _replayed(directory: Path, failure: Failure | None) -> int:
    if failure is None:
        print(f"{directory}: passes now")
        return 0
    print(f"{directory}: {failure.cls}: {failure.detail}")
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["replay"]:
        return replay([Path(d) for d in argv[1:]])
    which = argv[0] if argv else "all"
    sys.stdout.reconfigure(line_buffering=True)  # progress lines reach a log file as they come
    seed = int(os.environ.get("FUZZ_SEED", "1"))
    count = int(os.environ.get("FUZZ_COUNT", "500"))
    out = Path(os.environ.get("FUZZ_OUT", "fuzz-failures")).resolve()
    shrink = int(os.environ.get("FUZZ_SHRINK", "1"))
    shrink_seconds = float(os.environ.get("FUZZ_SHRINK_SECONDS", "900"))
    batch = int(os.environ.get("FUZZ_BATCH", "40"))
    partitions = [int(n) for n in os.environ.get("FUZZ_PARTITIONS", "1,4").split(",")]
    reports = []
    with tempfile.TemporaryDirectory(prefix="sortlint-fuzz-") as tmp:
        work = Path(tmp)
        for target_partitions in partitions if which in ("datafusion", "all") else ():
            reports.append(fuzz(DataFusionEngine(target_partitions), seed, count, work, out, batch,
                                shrink, shrink_seconds=shrink_seconds))
            print(reports[-1].summary(), flush=True)
        # One Spark session for every Spark mode (Spark keeps a process's first session).
        spark = functools.cache(lambda: _spark_engine(work))
        if which in ("spark", "all"):
            reports.append(fuzz(spark(), seed, count, work, out, batch, shrink,
                                shrink_budget=40, shrink_seconds=shrink_seconds))
            print(reports[-1].summary(), flush=True)
        if which in ("spark-multifile", "all"):
            from fuzz import multifile

            # A pair costs Spark about fifteen single-file queries: `all` runs a fifth as many.
            pairs = count if which == "spark-multifile" else max(1, count // 5)
            reports.append(multifile.fuzz(spark().spark, seed, pairs, work, out, batch))
            print(reports[-1].summary(), flush=True)
        for mode in [m for m in built.MODES if which in (m, "all")]:
            # A case is two files and a Python run: `all` runs a fifth as many.
            cases = count if which == mode else max(1, count // 5)
            reports.append(built.fuzz(spark().spark, mode, seed, cases, work, out, batch))
            print(reports[-1].summary(), flush=True)
    print(f"\nFUZZ_SEED={seed} FUZZ_COUNT={count}: "
          + ", ".join(f"{r.engine} {len(r.failures)} differences" for r in reports))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
