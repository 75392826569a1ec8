"""The multi-file mode of the Spark fuzzer: the facts a reader takes from the file that writes
its table (`FUZZ_ENGINES=spark-multifile`, or `python -m fuzz.run spark-multifile`).

Each case is two files of one repository:

* `a_NNNN.sql` — `CREATE TABLE up_NNNN AS <upstream query over the catalog>`, from the query
  generator biased toward what a written table keeps: GROUP BY and DISTINCT (unique keys),
  WHERE constants and equalities (constant and equal columns); an ORDER BY sometimes (a table
  keeps no order: sortlint must not use it);
* `q_NNNN.sql` — a reader of `up_NNNN` generated over its real output columns and types (the
  generator's catalog is extended with them, after Spark analysed the upstream), biased toward
  GROUP BY, ORDER BY and windows over them, sometimes joined with a catalog table.

`up_NNNN` is NOT declared in the sortlint.yml sortlint is given: it learns its facts only from
`a_NNNN.sql`. One sortlint run per mode checks the whole batch (all pairs in one repository).

On Spark, per case whose files a fix changed: the original CTAS writes `up_NNNN` in several
files (`spark.sql.files.maxRecordsPerFile`, so a reader never sees the rows in the upstream's
order by luck), then

1. each fixed CTAS (`--fix`, then `--fix --unsafe-fixes`) writes `up_NNNN_fixed`, which must
   have the schema and rows of `up_NNNN` (classes `upstream-safe-*` / `upstream-unsafe-*`);
2. the original reader and each fixed reader run over the original `up_NNNN` and are compared
   as `SparkHarness` compares them (schema, rows, the final ORDER BY's order). Unsafe fixes that
   rest on upstream facts are judged like the others: the upstream code is as written.

Checking the readers against the original CTAS and the CTAS's own fixes separately is sound: a
fixed CTAS that writes the same schema and rows leaves each reader's result as it is.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from fuzz import reproducers, spark_engine
from fuzz.catalogs import Catalog, CatalogGenerator, Column, Table
from fuzz.cli import BatchOutcome, FileOutcome, run_batch
from fuzz.failures import Failure
from fuzz.queries import Case, QueryGenerator, _comparable
from fuzz.results import Result, differences

# At most this many rows per file the CTAS writes: the small upstream tables span several files.
ROWS_PER_FILE = "2"

# The usual value pool of each Spark type: what a reader draws literals from for an upstream
# column whose generator kind does not fit the type Spark gives it.
_KIND_OF_TYPE = {"int": "small", "bigint": "small", "double": "double", "string": "text", "date": "date",
                 "timestamp": "timestamp", "boolean": "boolean"}

# The kinds whose values are of each usual kind's type.
_KINDS_OF_TYPE = {"small": ("small", "wide", "id"), "text": ("text", "numtext")}
_KINDS_OF_TYPE.update({k: (k,) for k in ("double", "decimal", "date", "timestamp", "boolean")})


class ShapedGenerator(QueryGenerator):
    """A generator whose queries take the shapes of its `SHAPES`, drawn by weight."""

    SHAPES: tuple[tuple[str, int], ...] = ()

    def built(self):
        makers, weights = zip(*((getattr(self, shape), w) for shape, w in self.SHAPES))
        for _ in range(20):
            built = self.r.choices(makers, weights)[0]()
            if built is not None:
                return built
        return self.projection()


class UpstreamGenerator(ShapedGenerator):
    """Upstream queries: mostly GROUP BY / DISTINCT, and WHERE clauses that make constants and
    equal columns (one or two conjuncts: the tables are small)."""

    SHAPES = ("aggregate", 5), ("distinct", 3), ("projection", 2), ("window", 1), ("nested", 1)

    def where(self, refs):
        r = self.r
        preds = []
        for _ in range(r.choices([0, 1, 2], [25, 60, 15])[0]):
            ref = r.choice(refs)
            roll = r.random()
            partners = [o for o in refs if o != ref and _comparable(o, ref)]
            if roll < 0.45:
                preds.append(f"{ref.sql()} = {self.literal(ref.type, self.value_of(ref))}")
            elif roll < 0.7 and partners:
                preds.append(f"{ref.sql()} = {r.choice(partners).sql()}")
            else:
                preds.append(self.predicate(refs))
        preds = [p for p in preds if p]
        return f" WHERE {' AND '.join(preds)}" if preds else ""

    def upstream(self, name: str, table: str) -> tuple[Case, dict[str, tuple[str, str]]]:
        """The CTAS, and each output column's (type, value kind) as the generator made it."""
        r = self.r
        body, items, order, features, _ = self.built()
        # An ORDER BY, never a LIMIT: the table must hold the same rows each time it is written.
        if order is not False and r.random() < 0.25:
            body += self.final_order(items, allow_ordinals="union" not in features)[0]
        case = Case(name, "sql", f"CREATE TABLE {table} AS {body}", features={"upstream", *features})
        return case, {i.name: (i.type, i.kind) for i in items}


class ReaderGenerator(ShapedGenerator):
    """Readers of one upstream table: its columns (constants, group keys, equal columns) in
    GROUP BY, ORDER BY and windows. The catalog it sees is the upstream table and one table of
    the catalog (joins, unions and nested queries take either)."""

    SHAPES = ("aggregate", 4), ("window", 4), ("projection", 2), ("nested", 2), ("distinct", 1)

    def __init__(self, rng: random.Random, catalog: Catalog, upstream: Table):
        other = rng.choice(catalog.tables)
        super().__init__(rng, Catalog(catalog.target, [upstream, other]))
        self.upstream = upstream

    def fresh(self, stem: str) -> str:
        # Names the upstream's own generator cannot have made (it writes e12, k_5, w3): a reader
        # column named like an upstream column would make its final ORDER BY ambiguous.
        self._fresh += 1
        return f"{stem}r{self._fresh}"

    def aggregates(self, refs):
        # `count(*) AS c` is the generator's fixed name, and an upstream aggregate's too.
        taken = {c.name for c in self.upstream.columns}
        out = []
        for item in super().aggregates(refs):
            if item.name in taken:
                name = self.fresh(item.name)
                item = replace(item, text=f"{item.expr} AS {name}", name=name)
            out.append(item)
        return out

    def where(self, refs):
        # Seldom a WHERE of its own: the reader's constants would hide the upstream's, and its
        # small tables would often be left without a row.
        if self.r.random() < 0.65:
            return ""
        predicate = self.predicate(refs)
        return f" WHERE {predicate}" if predicate else ""

    def scope(self, depth: int = 0):
        r = self.r
        roll = r.random()
        if roll < 0.7 or depth > 0:
            return self.table_scope(self.upstream, r.choice([None, "a"]))
        if roll < 0.9:
            return self.join_scope()  # the catalog has two tables: one is the upstream
        return self.subquery_scope()

    def case(self, name: str) -> Case:
        return self.ordered_case(name, self.built(), ("reader",))


def upstream_table(spark, rng: random.Random, name: str, case: Case, made: dict[str, tuple[str, str]]
                   ) -> Table | None:
    """The table the upstream CTAS writes, with Spark's own output types; None when Spark
    cannot analyse the query (the case is generated again)."""
    query = case.text.split(" AS ", 1)[1]
    try:
        fields = spark.sql(query).schema.fields
    except Exception:  # noqa: BLE001 - a query Spark refuses is not a case
        return None
    if spark.sql(query).limit(1).count() == 0 and rng.random() < 0.85:
        return None  # mostly tables with rows: every fact holds of an empty table
    names = [f.name for f in fields]
    if len(set(n.lower() for n in names)) != len(names):
        return None  # a CTAS cannot write two columns of one name
    columns = []
    for f in fields:
        type_ = f.dataType.simpleString()
        # The generator's kind where it fits Spark's type (strings that look like numbers,
        # integers near overflow keep theirs; it calls every aggregate "small", min(d) of a date
        # too), else the type's usual pool.
        usual = "decimal" if type_.startswith("decimal") else _KIND_OF_TYPE.get(type_)
        kind = made.get(f.name, ("", ""))[1]
        if kind not in _KINDS_OF_TYPE.get(usual, ()):
            kind = usual
        if kind is None:
            return None
        columns.append(Column(f.name, type_, f.nullable, kind))
    return Table(name, columns)


def generate_batch(spark, seed: int, batch: int, size: int, first: int) -> tuple[Catalog, list[tuple[Case, Case]]]:
    """A catalog (loaded into Spark) and `size` pairs (upstream CTAS, reader), numbered from
    `first`: the upstream is analysed by Spark before its reader is generated."""
    r = random.Random(f"{seed}:spark-multifile:{batch}")
    catalog = CatalogGenerator(r, "spark").generate()
    spark_engine.load(spark, catalog)
    upstreams = UpstreamGenerator(r, catalog)
    pairs = []
    n = first
    while len(pairs) < size:
        table = f"up_{n:04d}"
        upstream, made = upstreams.upstream(f"a_{n:04d}", table)
        written = upstream_table(spark, r, table, upstream, made)
        if written is None:
            continue
        reader = ReaderGenerator(r, catalog, written).case(f"q_{n:04d}")
        pairs.append((upstream, reader))
        n += 1
    return catalog, pairs


# ---------------------------------------------------------------------------------------------
# Checking on Spark


class MultiFileHarness:
    """Writes each upstream table with its original CTAS and checks the CTAS's fixes and the
    reader's fixes (see the module doc)."""

    def __init__(self, spark):
        self.spark = spark
        self.readers = spark_engine.SparkHarness(spark)
        self.stats = self.readers.stats  # one count for both

    def ctas(self, table: str, text: str) -> Result:
        """Write `table` with the CTAS `text` (in several files) and read it back."""
        self.spark.sql(f"DROP TABLE IF EXISTS `{table}`")
        spark_engine._remove_stale_location(self.spark, table)
        previous = self.spark.conf.get("spark.sql.files.maxRecordsPerFile")
        self.spark.conf.set("spark.sql.files.maxRecordsPerFile", ROWS_PER_FILE)
        try:
            self.spark.sql(text.strip().rstrip(";"))
        except Exception as error:  # noqa: BLE001 - a failed write is a result here
            return Result([], [], f"analysis: {spark_engine._message(error)}")
        finally:
            self.spark.conf.set("spark.sql.files.maxRecordsPerFile", previous)
        df = self.spark.table(table)
        schema = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
        return Result(schema, [tuple(r) for r in df.collect()])

    def files(self, table: str) -> int:
        return len(self.spark.table(table).inputFiles())

    def check_pair(self, catalog: Catalog, upstream: Case, reader: Case, outcome: BatchOutcome
                   ) -> list[Failure]:
        mine, theirs = outcome.files[upstream.filename], outcome.files[reader.filename]
        changed = [t for t in (mine.safe_text, mine.unsafe_text, theirs.safe_text, theirs.unsafe_text)
                   if t is not None]
        if not changed:
            return []
        table = upstream.text.split()[2]
        original = self.ctas(table, upstream.text)
        if original.error:
            self.stats["upstream CTAS failed (case skipped)"] += 1
            return []
        self.stats[f"upstream tables written in {'several files' if self.files(table) > 1 else 'one file'}"] += 1
        rows = len(original.rows)
        self.stats[f"upstream tables of {'no row' if rows == 0 else 'one row' if rows == 1 else 'several rows'}"] += 1
        failures = self.check_upstream(catalog, upstream, mine, table, original)
        for failure in self.readers.check_case(catalog, reader, theirs):
            failure.upstream = upstream
            failures.append(failure)
        return failures

    def check_upstream(self, catalog, upstream: Case, outcome: FileOutcome, table: str, original: Result
                       ) -> list[Failure]:
        failures = []
        for mode, text in (("safe", outcome.safe_text), ("unsafe", outcome.unsafe_text)):
            if text is None or (mode == "unsafe" and (text == outcome.safe_text or failures)):
                continue
            self.stats[f"upstream {mode} fixed files checked"] += 1
            header = f"CREATE TABLE {table} AS "
            allowed = ("safe",) if mode == "safe" else ("safe", "unsafe")
            findings = [f for f in outcome.findings if f["fix"] and f["fix"]["applicability"] in allowed]
            dropped = outcome.dropped_safe if mode == "safe" else outcome.dropped_unsafe

            def failure(kind, detail, fixed):
                return Failure("spark", f"upstream-{mode}-{kind}", catalog, upstream, text, findings,
                               original, fixed, detail,
                               {**spark_engine.SESSION_SETTINGS, "spark.sql.files.maxRecordsPerFile": ROWS_PER_FILE},
                               dropped)

            if not text.startswith(header):
                failures.append(failure("unanalysable", "the fix changed the CTAS's header", Result([], [])))
                continue
            fixed = self.ctas(f"{table}_fixed", f"CREATE TABLE {table}_fixed AS " + text[len(header):])
            self.spark.sql(f"DROP TABLE IF EXISTS `{table}_fixed`")
            if fixed.error:
                failures.append(failure("unanalysable", fixed.error, fixed))
                continue
            # A table has no order: schema and rows only.
            found = differences(original, fixed, None, None)
            if found:
                failures.append(failure(found[0][0], found[0][1], fixed))
        return failures


# ---------------------------------------------------------------------------------------------
# The run


def fuzz(spark, seed: int, count: int, workdir: Path, out: Path | None, batch_size: int = 40,
         log=print):
    """`count` pairs in batches of `batch_size`; a `run.Report` (findings by rule and basis,
    fixes, failures) with the upstream and reader files counted apart."""
    from fuzz.run import Report

    report = Report("spark-multifile")
    started = time.perf_counter()
    harness = MultiFileHarness(spark)
    batch = done = 0
    while done < count:
        size = min(batch_size, count - done)
        catalog, pairs = generate_batch(spark, seed, batch, size, done)
        batch += 1
        files = {c.filename: c.text for pair in pairs for c in pair}
        outcome = run_batch(workdir / "batch", catalog.yaml(), files, ("safe", "unsafe"))
        if report.catalog_rejected(outcome, batch):
            continue
        done += size
        report.add_outcome(outcome, [c for pair in pairs for c in pair])
        report.queries.subtract({"sql": 2 * size})
        report.queries.update({"upstream CTAS": size, "readers": size})
        report.queries += Counter()  # drop the zero count
        for upstream, reader in pairs:
            for failure in harness.check_pair(catalog, upstream, reader, outcome):
                report.failures.append(failure)
                if out is not None:
                    directory = out / f"spark-multifile-{failure.kind}-{seed}-{len(report.failures)}"
                    report.written.append(reproducers.write(failure, directory))
            # Each upstream table is read by one reader only.
            spark.sql(f"DROP TABLE IF EXISTS `{upstream.text.split()[2]}`")
        log(f"[spark-multifile] {done}/{count} pairs, {len(report.failures)} differences, "
            f"{time.perf_counter() - started:.0f} s")
    report.engine_stats.update(harness.stats)
    report.seconds = time.perf_counter() - started
    return report


def check_one(spark, catalog: Catalog, upstream: Case, reader: Case | None, workdir: Path) -> Failure | None:
    """One pair from scratch (for `replay`): sortlint over the two files, then Spark."""
    files = {upstream.filename: upstream.text, **({reader.filename: reader.text} if reader else {})}
    outcome = run_batch(workdir / "one", catalog.yaml(), files, ("safe", "unsafe"))
    spark_engine.load(spark, catalog)
    harness = MultiFileHarness(spark)
    if reader is None:  # an upstream failure: the CTAS alone
        reader = Case("q_none", "sql", "SELECT 1")
        outcome.files[reader.filename] = FileOutcome()
    failures = harness.check_pair(catalog, upstream, reader, outcome)
    return failures[0] if failures else None

