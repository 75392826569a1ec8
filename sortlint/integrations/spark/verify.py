"""`sortlint verify`: every statement a fix would change, run before and after on Spark.

`check --fix` proves a fix against sortlint's model of the engine and the catalog; `verify`
asks the engine and the data. For each statement the fixes change (all rounds of them, as
`--fix` would write it), the original and the fixed statement run on Spark over the real
tables — or over a sample of them — and their results are compared:

* the schemas: output names and types, in order;
* the rows as multisets: one job tags each side's rows, groups by every column and keeps the
  rows whose counts differ (NULLs, NaN and -0.0 compare as GROUP BY compares them);
* the order, when the original ends with ORDER BY: the fixed statement's rows, in the order
  Spark returns them (partition after partition), must be in the original's ORDER BY order.
  Rows tied on those keys may come in any order, as they may in the original.

A statement that writes (`INSERT`, `CREATE TABLE ... AS`, a view's definition) is compared on
the query that feeds the write; nothing is written. Tables the catalog reads from files
(`location:`) and, with `--sample FRACTION`, every table the statements read are given to
the statements as temporary views (the same seeded sample on both sides). Statements
sortlint cannot run — a DataFrame pipeline, SQL with template placeholders, a table Spark
does not know — are reported as not verified, with the reason.

Each statement Spark can plan also gets the measured effect of its fixes — the operators the
fixed statement's executed plan (AQE off) has fewer and more than the original's
(`plan_effect`) — next to the effect its findings predict, summed over its fixes (none when a
finding predicts none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sortlint.config.model import Config
from sortlint.diagnostics.effects import Effect
from sortlint.integrations.spark import stored_order
from sortlint.integrations.spark.plan_effect import measured_effect
from sortlint.integrations.spark.session import first_line, read_source
from sortlint.integrations.spark.stored_order import Key, OrderCheck
from sortlint.plan.dialect import sql_dialect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Verdict = Literal["same", "different", "not_verified"]
SQL_KINDS = ("sql", "dbt_model")  # units whose text is one SQL statement
SAMPLE_SEED = 20240301
SHOWN = 3  # differing rows shown


@dataclass(frozen=True)
class Change:
    """One statement the fixes change."""

    path: Path
    line: int
    kind: str
    original: str
    fixed: str
    fixes: tuple[str, ...]  # "SL001 (line 7)" for each fix applied to the statement
    predicted: Effect | None = None  # the fixes' findings' effects, summed; None if one has none


@dataclass
class Result:
    change: Change
    verdict: Verdict
    evidence: str
    notes: list[str] = field(default_factory=list)
    measured: Effect | None = None  # None when Spark could not plan both statements

    def as_json(self) -> dict:
        predicted = self.change.predicted
        return {
            "path": str(self.change.path),
            "line": self.change.line,
            "fixes": list(self.change.fixes),
            "verdict": self.verdict,
            "evidence": self.evidence,
            "effect": {
                "measured": self.measured.as_json() if self.measured is not None else None,
                "predicted": predicted.as_json() if predicted is not None else None,
                # What makes the measured plan worse (`Effect.worse`); None when not measured.
                "worse": list(self.measured.worse()) if self.measured is not None else None,
            },
        }

    def effect_words(self) -> str:
        """`; plan: saves a sort (predicted: saves a sort)`, `...; worse` where the measured plan
        is worse (`Effect.worse`), or nothing when not measured."""
        if self.measured is None:
            return ""
        predicted = self.change.predicted
        # Operator counts cannot show a sort by fewer keys (`Effect.lightens`): only that the
        # plan keeps its operators.
        measured = "same operators" if self.measured.none else self.measured.words()
        worse = "; worse" if self.measured.worse() else ""
        return f"; plan: {measured} (predicted: {predicted.words() if predicted else 'none'}){worse}"


def changes(outcomes) -> list[Change]:
    """The statements whose text the fixes of each file changed (`rewriters.apply.Outcome`s)."""
    from sortlint.rewriters.apply import signatures

    found = []
    for outcome in outcomes:
        if not outcome.changed:
            continue
        before, after = outcome.original.statements, outcome.final.statements
        statement_of = [index for index, _ in signatures(outcome.original, outcome.fixed)]
        for index, (old, new) in enumerate(zip(before, after)):
            if old.unit.text == new.unit.text:
                continue
            applied = [f for f, statement in zip(outcome.fixed, statement_of) if statement == index]
            fixes = tuple(f"{f.code} (line {f.line})" for f in applied)
            found.append(
                Change(
                    outcome.original.path,
                    old.unit.location(0)[0],
                    old.unit.kind,
                    old.unit.text,
                    new.unit.text,
                    fixes,
                    _summed([f.effect for f in applied]),
                )
            )
    return found


def _summed(effects: list[Effect | None]) -> Effect | None:
    """The effect of applying all of `effects` (one fix may add what another removes)."""
    if not effects or any(e is None for e in effects):
        return None
    removes = Counter(o for e in effects if e is not None for o in e.removes)
    adds = Counter(o for e in effects if e is not None for o in e.adds)
    summed = Effect.between(removes, adds)
    # Several keys dropped from one operator lighten it once; which of two alike operators
    # each fix lightens is not said: the kinds, once each.
    lightened = tuple(sorted({o for e in effects if e is not None for o in e.lightens}))
    return replace(summed, lightens=lightened) if summed.none else summed


def verify_changes(
    spark: SparkSession, found: Sequence[Change], config: Config, sample: float | None
) -> list[Result]:
    runner = _Runner(spark, config, sample)
    try:
        return [runner.verify(change) for change in found]
    finally:
        runner.drop_views()


class _Runner:
    def __init__(self, spark: SparkSession, config: Config, sample: float | None) -> None:
        self.spark = spark
        self.config = config
        self.sample = sample
        self.views: dict[str, str] = {}  # table name as written (lower-case) -> temporary view

    def verify(self, change: Change) -> Result:
        from pyspark.errors import AnalysisException

        if change.kind not in SQL_KINDS:
            reason = "a DataFrame pipeline: verify runs SQL statements only" if change.kind == "pyspark" else (
                f"a {change.kind} unit: verify runs SQL statements only"
            )
            return Result(change, "not_verified", reason)
        try:
            original, order_by = self.query(change.original)
            fixed, _ = self.query(change.fixed)
            before, after = self.spark.sql(original), self.spark.sql(fixed)
            result = self.compare(change, before, after, order_by)
            result.measured = measured_effect(self.spark, original, fixed)
            return result
        except _NotRunnable as reason:
            return Result(change, "not_verified", str(reason))
        except AnalysisException as error:
            return Result(change, "not_verified", f"Spark cannot run it: {first_line(error)}")

    # -- the query to run -----------------------------------------------------------------

    def query(self, text: str) -> tuple[str, list]:
        """Spark SQL for the statement's query (the query feeding a write), with the tables
        it reads replaced by temporary views where needed, and its final ORDER BY keys."""
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import SqlglotError

        try:
            statements = [s for s in sqlglot.parse(text, read=self.config.dialect) if s is not None]
        except SqlglotError as error:
            raise _NotRunnable(f"cannot parse it: {first_line(error)}") from None
        if len(statements) != 1:
            raise _NotRunnable("not one statement")
        statement = statements[0]
        if isinstance(statement, (exp.Insert, exp.Create)):
            statement = statement.expression
        if not isinstance(statement, exp.Query):
            raise _NotRunnable("it neither is nor feeds a query")
        ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
        for table in list(statement.find_all(exp.Table)):
            if not table.name or (table.name.lower() in ctes and not table.db):
                continue
            view = self.view_for(".".join(p.name for p in table.parts))
            if view is not None:
                alias = table.alias or table.name
                table.replace(exp.Table(this=exp.to_identifier(view), alias=exp.TableAlias(this=exp.to_identifier(alias))))
        spark_sql = statement.sql(dialect="spark")
        # The ORDER BY as Spark reads the generated text: its null placement is Spark's.
        regenerated = sqlglot.parse_one(spark_sql, read=sql_dialect("spark"))
        order = regenerated.args.get("order")
        return spark_sql, _order_keys_and_outputs(regenerated, list(order.expressions) if order else [])

    def view_for(self, name: str) -> str | None:
        """The temporary view standing for table `name`, or None when Spark reads it by name."""
        key = name.lower()
        if key in self.views:
            return self.views[key]
        source = self.config.source(name)
        if self.sample is None and (source is None or source.storage is None):
            return None
        frame = read_source(self.spark, source) if source is not None else self.spark.table(name)
        if self.sample is not None:
            frame = frame.sample(withReplacement=False, fraction=self.sample, seed=SAMPLE_SEED)
        view = f"sortlint_verify_{len(self.views)}"
        frame.createOrReplaceTempView(view)
        self.views[key] = view
        return view

    def drop_views(self) -> None:
        for view in self.views.values():
            self.spark.catalog.dropTempView(view)

    # -- comparing ------------------------------------------------------------------------

    def compare(self, change: Change, before: DataFrame, after: DataFrame, order_by: list) -> Result:
        schema_before = [(f.name, f.dataType.simpleString()) for f in before.schema.fields]
        schema_after = [(f.name, f.dataType.simpleString()) for f in after.schema.fields]
        if schema_before != schema_after:
            return Result(
                change,
                "different",
                f"output columns differ: {_columns(schema_before)} became {_columns(schema_after)}",
            )
        names = [f"c{i}" for i in range(len(schema_before))]
        before, after = before.toDF(*names), after.toDF(*names)
        differing = _multiset_difference(before, after)
        rows = f"{'sample ' if self.sample is not None else ''}rows"
        if differing:
            shown = "; ".join(
                f"{_row(row, schema_before)} {row['_before']}× before, {row['_after']}× after"
                for row in differing
            )
            return Result(change, "different", f"the {rows} differ: {shown}")
        if not order_by:
            return Result(change, "same", f"same columns and {rows} (the original has no final ORDER BY)")
        keys = _order_keys(order_by, len(schema_before))
        if isinstance(keys, str):
            return Result(change, "same", f"same columns and {rows}; order not compared: {keys}")
        problem = _out_of_order(before, keys, schema_before)
        if problem is not None:
            return Result(change, "not_verified", f"the original's own rows are not in ORDER BY order ({problem}); cannot judge order")
        problem = _out_of_order(after, keys, schema_before)
        if problem is not None:
            return Result(change, "different", f"same {rows}, but not in the original's ORDER BY order: {problem}")
        return Result(change, "same", f"same columns, {rows} and ORDER BY order")

def render_text(results: Sequence[Result], unsafe: bool) -> str:
    lines = []
    for result in results:
        change = result.change
        fixes = ", ".join(change.fixes) or "fixes"
        lines.append(f"{change.path}:{change.line}: {fixes}: {result.verdict.replace('_', ' ')}: {result.evidence}{result.effect_words()}")
    counts = {v: sum(r.verdict == v for r in results) for v in ("same", "different", "not_verified")}
    which = "safe and unsafe" if unsafe else "safe"
    noun = "statement" if len(results) == 1 else "statements"
    lines.append(
        f"Verified {len(results)} {noun} changed by {which} fixes: {counts['same']} same, "
        f"{counts['different']} different, {counts['not_verified']} not verified."
    )
    return "\n".join(lines) + "\n"


def _order_keys_and_outputs(query, order_by: list) -> list:
    """Each final ORDER BY key with the output column it is, when it is one: an ordinal, the
    very expression of a select item, or an unqualified name of an output column (Spark
    resolves ORDER BY names against the select list first). A qualified column that is no
    select item's expression may be an input column of the same name: not an output."""
    from sqlglot import exp

    items = query.expressions if isinstance(query, exp.Select) else []
    names = [item.alias_or_name.lower() for item in items]
    texts = [item.unalias().sql(dialect="spark") for item in items]
    keys = []
    for ordered in order_by:
        term = ordered.this
        position = None
        if isinstance(term, exp.Literal) and term.is_int:
            position = int(term.this) - 1
        elif term.sql(dialect="spark") in texts:
            position = texts.index(term.sql(dialect="spark"))
        elif isinstance(term, exp.Column) and not term.table and names.count(term.name.lower()) == 1:
            position = names.index(term.name.lower())
        keys.append((ordered, position))
    return keys


def _order_keys(order_by: list, width: int) -> list[Key] | str:
    """The ORDER BY keys over output columns (c0, c1, ...), or why they are not."""
    keys = []
    for ordered, position in order_by:
        if position is None or not 0 <= position < width:
            return f"ORDER BY key {ordered.this.sql(dialect='spark')} is not an output column"
        descending = bool(ordered.args.get("desc"))
        keys.append(Key(f"c{position}", descending, bool(ordered.args.get("nulls_first"))))
    return keys


class _NotRunnable(Exception):
    """Why a statement cannot be run on Spark as it is."""


def _multiset_difference(before: DataFrame, after: DataFrame) -> list:
    """Up to SHOWN rows whose number of copies differs between the two sides."""
    from pyspark.sql import functions as F

    tagged = before.withColumn("_side", F.lit(1)).unionByName(after.withColumn("_side", F.lit(-1)))
    counted = tagged.groupBy(*before.columns).agg(
        F.sum(F.when(F.col("_side") == 1, 1).otherwise(0)).alias("_before"),
        F.sum(F.when(F.col("_side") == -1, 1).otherwise(0)).alias("_after"),
    )
    differing = counted.where(F.col("_before") != F.col("_after"))
    return differing.orderBy(*before.columns).limit(SHOWN).collect()


def _out_of_order(frame: DataFrame, keys: list[Key], schema) -> str | None:
    """Whether the rows, partition after partition, are in `keys` order (None) or the first
    pair that is not. The partitions stream through `stored_order` like files do."""
    from pyspark.sql import functions as F

    from sortlint.integrations.spark.contracts import summarise

    columns = sorted({k.column for k in keys}, key=lambda c: int(c[1:]))
    scan = frame.select(
        F.spark_partition_id().cast("string").alias(stored_order.FILE),
        F.lit(0).cast("long").alias(stored_order.BLOCK_START),
        F.lit(0).cast("long").alias(stored_order.BLOCK_LENGTH),
        F.lit(0).cast("long").alias(stored_order.FILE_SIZE),
        *columns,
    )
    parts = summarise(scan, [OrderCheck("o", tuple(keys))], columns)
    parts = sorted((p for p in parts if p["rows"]), key=lambda p: int(p["file"]))
    names = {f"c{i}": name for i, (name, _) in enumerate(schema)}

    def shown(values) -> str:
        return ", ".join(f"{names[k.column]}={values[k.column]!r}" for k in keys)

    for part in parts:
        if part["o_disorders"]:
            return f"({shown(part['o_bad_before'])}) came before ({shown(part['o_bad_after'])})"
    for first, second in zip(parts, parts[1:]):
        last, head = first["o_last"], second["o_first"]
        row = lambda values: tuple(values[k.column] for k in keys)  # noqa: E731
        if stored_order.compare_rows(row(last), row(head), keys) > 0:
            return f"({shown(last)}) came before ({shown(head)})"
    return None


def _columns(schema: list[tuple[str, str]]) -> str:
    return "[" + ", ".join(f"{name} {type_}" for name, type_ in schema) + "]"


def _row(row, schema) -> str:
    return "(" + ", ".join(f"{name}={row[f'c{i}']!r}" for i, (name, _) in enumerate(schema)) + ")"
