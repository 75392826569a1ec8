"""DataFusion's sqllogictest EXPLAIN plans, replayed through sortlint end to end.

The cases live in ../shared/conformance/datafusion/slt/*.slt.yaml (the README there gives the
schema and its caveats). Each case is one test: its tables become a `target: datafusion`
catalog (`Config` built directly: column types mapped to Spark type names, `nullable: false`
and primary-key columns not null, a primary key a unique key, the declared orderings exactly
as the YAML resolves them, `engine_known=True`), its query is built by sortlint's own SQL
builder, analysed by the transfer functions, and compared with the facts DataFusion's
expected physical plan shows. `skipped_cases` are not loaded.

What is compared
----------------
* Building: a parse error, or an `Opaque` node anywhere in the plan (a construct the builder
  does not model), is a disagreement - also in a case with nothing else to compare.
* ``top_sort_required``: sortlint needs a sort iff the input of the depth-0 ORDER BY's `Sort`
  node (the topmost global Sort, found through any Limit / Project / Write above it) does not
  satisfy its keys inside each partition (`per_partition=True`: what a SortExec is for; a
  merge of ordered partitions is not one, and SL001 asks for the order across them) - or,
  where the case ran with ``target_partitions: 1``, does not satisfy them at all (SL001's own
  question: with one partition there is no merge). DataFusion needs one iff a SortExec /
  PartialSortExec (TopK included) is reached from the root through pass-through operators
  only; a SortPreservingMergeExec over sorted partitions is no sort.
* Each case is analysed with the ``target_partitions`` it ran with (``config``: 1, 2, 3, 4 or
  8; the sqllogictest runner's default is 4) as ``datafusion: {target_partitions: N}``, and
  with the ``datafusion.optimizer.prefer_hash_join`` / ``repartition_joins`` /
  ``prefer_existing_sort`` its file sets (``config.settings``) as the same ``datafusion:``
  settings; each table with its ``STORED AS`` format (``format: csv``: no statistics) and
  ``unbounded`` as the DDL says, and a Parquet table the cases join with the rows its .slt
  file writes into it (``WRITTEN_ROWS``: ``statistics: {rows: N}``, from which JoinSelection's
  choice of the side to build is modelled).
* ``sink_sort_required`` (EXPLAIN INSERT): DataFusion keeps the INSERT's own ORDER BY as a sort
  under the DataSinkExec, and the sink itself requires the target table's declared ordering
  (`required_input_ordering` of the sink). sortlint needs a sort under the sink iff that ORDER
  BY is not satisfied by its input, or the target declares an ordering the written rows (by
  position) do not satisfy. (The builder's `Write` keeps no INSERT column list; positions are
  assumed to be the target's column order.)
* aggregates: each sortlint `Aggregate`, in plan order (top first), against the first-stage
  AggregateExec of the same aggregate, in plan order: ``Single``, ``SinglePartitioned`` or
  ``Partial`` - the stage that reads the aggregate's input. ``Final`` / ``FinalPartitioned``
  stages read a ``Partial`` stage's output (through a hash repartition) and are left out. A
  different number of aggregates is itself a disagreement. Modes are compared as the set of
  grouping keys that stream: ``Sorted`` is all of them, ``PartiallySorted([i..])`` those
  indices, ``hash`` none (sortlint's `Permutation.mode` `Sorted` / `PartiallySorted` /
  `Hash`). DataFusion adds functionally dependent select columns to a GROUP BY over a primary
  key (``GROUP BY c`` becomes ``gby=[c, b]``); then keys are matched by name and the added
  ones are left out (they are determined by the others, so they never change what streams).
  Where DataFusion put a SortExec right under the aggregate (``input_sorted_by_sortexec``),
  DataFusion sorted the input itself to serve an ORDER BY inside an aggregate function
  (``ARRAY_AGG(d ORDER BY d)``), which sortlint's plan does not model: that mode is not
  compared. A PartialSortExec there keeps its ``common_prefix_length`` leading keys, which the
  raw input already had; the mode is compared when it streams no more keys than that prefix.

A case agrees when the build succeeds and every compared fact matches; a case with no fact to
compare (no depth-0 ORDER BY, no aggregate) agrees once it builds. Cases flagged
``scan_sort_pushdown`` or ``declared_ordering_not_reported_by_scan`` are excluded (skipped,
the flag being the reason): their scans drop or rewrite the declared ordering for reasons no
declaration shows (file statistics, NULLs in the files, sort pushdown into the scan). Every
other disagreement is a strict expected failure whose reason is written in
``DISAGREEMENTS``.

Dialect
-------
DataFusion parses with sqlparser-rs's generic dialect. Measured over all 204 cases: postgres,
duckdb, sqlglot's default, mysql, spark, trino and bigquery parse every query, sqlite fails on
two; the plans built differ only in how sqlglot renders window ORDER BY keys inside
expression keys, and every compared outcome is identical across them. ``postgres`` is chosen
because its null ordering (NULLs large: ASC NULLS LAST, DESC NULLS FIRST) is DataFusion's
default ``nulls_max``, so even that rendering agrees with DataFusion; duckdb's (NULLS LAST both
ways) does not.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from sortlint.config import (
    Column, Config, DataFusionSettings, DeclaredOrdering, Location, OrderingItem, Source,
)
from sortlint.config.model import STORAGE_FORMATS, Storage
from sortlint.engines import Analysis, analyse
from sortlint.ordering import Expr, SortKey, SortOptions
from sortlint.plan import nodes as n
from sortlint.plan.nodes import output_names
from sortlint.plan.statement import build_statement
from sortlint.plan.tables import Tables
from sortlint.units import Unit

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CASES_DIR = SHARED / "conformance" / "datafusion" / "slt"
if not CASES_DIR.is_dir():
    pytest.skip(f"DataFusion slt cases not found at {CASES_DIR}", allow_module_level=True)

LABEL = "datafusion slt conformance"


def _summary(counts: Counter, total: int) -> str:
    disagree = counts["xfailed"] + counts["failed"]
    agree, compared = final_order_by_agreement()
    return (
        f"{counts['passed']} agree, {disagree} disagree, {counts['skipped']} excluded of {total}"
        f"; with a final ORDER BY: {agree} agree of {compared} compared ({agree / compared:.1%})"
    )


SUMMARY = pytest.mark.conformance(LABEL, line=_summary)

DIALECT = "postgres"  # measured: see "Dialect" in the module docstring

EXCLUDING_FLAGS = ("scan_sort_pushdown", "declared_ordering_not_reported_by_scan")

# DataFusion SQL types as the Spark type names sortlint's engine uses. DataFusion's FLOAT and
# REAL are Float32, so Spark's `float` (not `double`: a cast FLOAT -> DOUBLE widens, the other
# way narrows). Unsigned integers have no Spark type and stay unknown, as does anything else.
TYPES = {
    "integer": "int", "int": "int", "int4": "int", "bigint": "bigint", "int8": "bigint",
    "smallint": "smallint", "int2": "smallint", "tinyint": "tinyint",
    "double": "double", "double precision": "double", "float8": "double",
    "float": "float", "real": "float", "float4": "float",
    "varchar": "string", "string": "string", "text": "string", "char": "string",
    "date": "date", "timestamp": "timestamp", "boolean": "boolean", "bool": "boolean",
}


# --- reading cases ----------------------------------------------------------------------


def _load() -> list[tuple[Path, dict]]:
    cases = []
    for path in sorted(CASES_DIR.glob("*.slt.yaml")):
        document = yaml.safe_load(path.read_text())
        cases.extend((path, case) for case in document.get("cases") or [])
    return cases


CASES = _load()


def spark_type(text: str | None) -> str | None:
    if not text:
        return None
    lowered = " ".join(text.lower().split())
    decimal = re.fullmatch(r"(?:decimal|numeric)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)", lowered)
    if decimal:
        return f"decimal({decimal.group(1)},{decimal.group(2)})"
    return TYPES.get(lowered)


# The `SET datafusion.optimizer.*` of the case's file that sortlint's configuration models;
# a setting the file does not set is DataFusion's default, which is sortlint's too.
OPTIMIZER_SETTINGS = ("prefer_hash_join", "repartition_joins", "prefer_existing_sort")


# The rows each Parquet table's files hold, as the .slt file that writes them states: the sum
# of what its `COPY (VALUES ...) TO '<location>/...' STORED AS PARQUET` statements write (the
# count each prints, or the VALUES it lists), by the file and the table's LOCATION - taken
# from the DDL of every case over that table alike. DataFusion reads these counts from the
# files' footers; they become the catalog's `statistics: {rows: N}`. Listed: the Parquet
# tables the compared cases join (a row count matters to a join only); the others declare none.
WRITTEN_ROWS = {
    # fact/f_dkey=A, B, C: 7 rows each; dimension/data.parquet: 4 rows (lines 44-102)
    ("preserve_file_partitioning.slt", "test_files/scratch/preserve_file_partitioning/fact/"): 21,
    ("preserve_file_partitioning.slt", "test_files/scratch/preserve_file_partitioning/dimension/"): 4,
    # fact/f_dkey=A, B, C: 7 rows each; dimension/d_dkey=A, B, C, D: 1 row each (lines 38-123)
    ("repartition_subset_satisfaction.slt", "test_files/scratch/repartition_subset_satisfaction/fact/"): 21,
    ("repartition_subset_satisfaction.slt", "test_files/scratch/repartition_subset_satisfaction/dimension/"): 4,
}


def config_of(case: dict) -> Config:
    """The case's catalog, the target_partitions its query ran with (1, 2, 3, 4 or 8; the
    runner's default is 4) and the optimizer settings in force."""
    slt = Path(case["source_file"]).name
    sources = tuple(source_of(table, WRITTEN_ROWS.get((slt, table.get("location")))) for table in case["tables"])
    given = case["config"].get("settings") or {}
    flags = {
        key: given[f"datafusion.optimizer.{key}"] == "true"
        for key in OPTIMIZER_SETTINGS if f"datafusion.optimizer.{key}" in given
    }
    settings = DataFusionSettings(target_partitions=case["config"]["target_partitions"], **flags)
    return Config(target="datafusion", dialect=DIALECT, sources=sources, datafusion=settings)


def source_of(table: dict, rows: int | None = None) -> Source:
    path, _, line = (table.get("ddl_source") or "").rpartition(":")
    location = Location(Path(path), int(line)) if line.isdigit() else Location()
    primary_key = tuple(c.lower() for c in table.get("primary_key") or ())
    columns = tuple(
        Column(
            column["name"].lower(),
            spark_type(column.get("type")),
            # `nullable: false` is NOT NULL; a primary key implies it.
            nullable=column.get("nullable") is not False and column["name"].lower() not in primary_key,
        )
        for column in table.get("columns") or ()
    )
    orderings = tuple(
        DeclaredOrdering(
            tuple(
                OrderingItem(
                    item["column"].lower(),
                    descending=item["direction"] == "DESC",
                    nulls_first=item["nulls"] == "FIRST",
                    nulls_defaulted=bool(item.get("nulls_defaulted")),
                )
                for item in ordering
            ),
            location,
        )
        for ordering in table.get("orderings") or ()
    )
    # Only the format matters to the model (CSV files have no statistics); the path is the DDL's.
    stored = (table.get("stored_as") or "").lower()
    storage = Storage(table.get("location") or "", stored) if stored in STORAGE_FORMATS else None  # type: ignore[arg-type]
    return Source(
        name=table["name"].lower(),
        columns=columns,
        orderings=orderings,
        unique=(primary_key,) if primary_key else (),
        engine_known=True,
        storage=storage,
        unbounded=bool(table.get("unbounded")),
        rows=rows,
        location=location,
    )


def tables_of(case: dict) -> Tables:
    return Tables({
        t["name"]: tuple(c["name"] for c in t["columns"]) if t.get("columns") else None
        for t in case["tables"]
    })


# --- what sortlint says -----------------------------------------------------------------


@dataclass
class Outcome:
    # (fact, what DataFusion's plan shows, what sortlint says)
    compared: list[tuple[str, object, object]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # facts not comparable, and why
    error: str | None = None

    @property
    def disagreements(self) -> list[tuple[str, object, object]]:
        return [c for c in self.compared if c[1] != c[2]]


def build(case: dict, path: Path, dialect: str = DIALECT):
    text = case["query"]
    unit = Unit(path=path, text=text, start=0, raw=text)
    return build_statement(unit, tables_of(case), dialect, "datafusion")


def top_sort(root: n.Node) -> n.Sort | None:
    """The depth-0 ORDER BY: the topmost global Sort, under any Limit / Project / Write."""
    node = root
    while True:
        if isinstance(node, n.Sort) and node.scope == "global":
            return node
        if isinstance(node, (n.Limit, n.Project, n.Write)) and node.children:
            node = node.children[0]
            continue
        return None


def sort_needed(analysis: Analysis, sort: n.Sort) -> bool:
    """With several partitions, whether a SortExec is needed: the order inside each one (a
    merge of sorted partitions is no sort). With one, whether the rows are in order at all -
    SL001's question, which DataFusion's plan then answers exactly."""
    keys = [SortKey(item.expr, item.options) for item in sort.keys]
    several = not analysis.config.datafusion.one_partition
    return not analysis.of(sort.children[0]).satisfies(keys, per_partition=several)


def sink_sort_needed(analysis: Analysis, write: n.Write, config: Config) -> bool:
    below = top_sort(write.children[0])
    if below is not None and sort_needed(analysis, below):
        return True
    target = config.source(write.target)
    if target is None or not target.orderings:
        return False
    # The written rows land in the target's columns by position.
    outputs = output_names(write.children[0])
    columns = [column.name for column in target.columns]
    if not outputs or len(outputs) != len(columns):
        return True
    props = analysis.of(write.children[0])
    for ordering in target.orderings:
        if any(item.column not in columns for item in ordering.items):
            return True
        keys = [
            SortKey(
                Expr.column(outputs[columns.index(item.column)]),
                SortOptions(item.descending, item.nulls_first),
            )
            for item in ordering.items
        ]
        if not props.satisfies(keys, per_partition=True):
            return True
    return False


def aggregate_nodes(root: n.Node) -> list[n.Aggregate]:
    return [node for node in n.walk(root) if isinstance(node, n.Aggregate)]


def gby_name(item: str) -> str:
    """`b@1 as b` -> `b`; the name DataFusion gives the grouping expression."""
    _, sep, name = item.rpartition(" as ")
    return (name if sep else item).strip().strip('"').lower()


def df_streaming(mode: str, count: int) -> set[int]:
    if mode == "Sorted":
        return set(range(count))
    found = re.fullmatch(r"PartiallySorted\(\[([\d, ]*)\]\)", mode)
    if found:
        return {int(i) for i in found.group(1).replace(" ", "").split(",") if i}
    return set()


def key_name(key: n.GroupKey) -> str | None:
    return key.expr.column_name.lower() if key.expr.is_column else None


def feeding_sort(case: dict, stage: dict) -> dict | None:
    """The SortExec / PartialSortExec DataFusion put right under an aggregate stage."""
    for sort in case["expect"].get("sorts") or []:
        feeds_aggregate = sort.get("feeds") == "AggregateExec"
        if feeds_aggregate and sort.get("expr") == stage.get("input_sort_expr"):
            return sort
    return None


def compare_aggregate(
    outcome: Outcome, case: dict, index: int, node: n.Aggregate, stage: dict, analysis: Analysis
) -> None:
    fact = f"aggregate #{index} ({', '.join(k.text for k in node.keys) or 'no keys'})"
    gby = [gby_name(item) for item in stage["gby"]]
    theirs_full = df_streaming(stage["ordering_mode"], len(gby))
    if stage.get("input_sorted_by_sortexec"):
        # DataFusion sorted the aggregate's input itself (for an ORDER BY inside an aggregate
        # function). A PartialSortExec keeps its common prefix, which the input already had:
        # the mode is comparable while it streams no more keys than that prefix.
        sort = feeding_sort(case, stage) or {}
        prefix = int(sort.get("common_prefix_length") or 0)
        if sort.get("operator") != "PartialSortExec" or len(theirs_full) > prefix:
            outcome.skipped.append(f"{fact}: DataFusion sorted its input to stream")
            return
    strategy = analysis.strategy(node)
    keys = list(node.keys)
    ours = set(range(len(keys))) if strategy.streams else set(strategy.partially_ordered)
    if len(gby) == len(keys):
        mapping = {i: i for i in range(len(keys))}
    else:
        # DataFusion added functionally dependent keys: match by name.
        mapping = {}
        for i, key in enumerate(keys):
            name = key_name(key) or (key.text or "").lower()
            if name in gby:
                mapping[i] = gby.index(name)
        if len(mapping) != len(keys):
            outcome.compared.append((f"{fact} keys", gby, [k.text for k in keys]))
            return
    theirs = {i for i, j in mapping.items() if j in theirs_full}
    outcome.compared.append((f"{fact} streams keys", sorted(theirs), sorted(ours)))


FIRST_STAGES = ("Single", "SinglePartitioned", "Partial")


def evaluate(case: dict, path: Path, dialect: str = DIALECT) -> Outcome:
    outcome = Outcome()
    expect = case["expect"]
    config = config_of(case)
    statement = build(case, path, dialect)
    if statement.error is not None:
        outcome.error = f"parse error: {statement.error}"
        return outcome
    root = statement.root
    opaque = [node.reason for node in n.walk(root) if isinstance(node, n.Opaque)]
    if opaque:
        outcome.error = f"sortlint cannot model: {'; '.join(opaque)}"
        return outcome
    analysis = analyse(root, config)
    if case.get("statement_kind") == "insert":
        if not isinstance(root, n.Write):
            outcome.error = f"INSERT built as {root.label}"
            return outcome
        body = root.children[0]
        if expect.get("sink_sort_required") is not None:
            needed = sink_sort_needed(analysis, root, config)
            outcome.compared.append(("sink_sort_required", expect["sink_sort_required"], needed))
    else:
        body = root
    if expect.get("top_sort_required") is not None:
        sort = top_sort(body)
        ours = sort_needed(analysis, sort) if sort is not None else f"no ORDER BY in {describe(root)}"
        outcome.compared.append(("top_sort_required", expect["top_sort_required"], ours))
    stages = [a for a in expect.get("aggregates") or [] if a["mode"] in FIRST_STAGES]
    nodes = aggregate_nodes(root)
    if len(stages) != len(nodes):
        outcome.compared.append((
            "aggregate count", [a["gby"] for a in stages], [[k.text for k in a.keys] for a in nodes]
        ))
    else:
        for index, (node, stage) in enumerate(zip(nodes, stages), 1):
            compare_aggregate(outcome, case, index, node, stage, analysis)
    return outcome


def describe(node: n.Node) -> str:
    """A one-line plan, for messages."""
    extra = ""
    if isinstance(node, n.Opaque):
        extra = f"[{node.reason}]"
    inner = ", ".join(describe(c) for c in node.children)
    return f"{node.label}{extra}({inner})" if inner else f"{node.label}{extra}"


# --- expected disagreements --------------------------------------------------------------
#
# Every case below disagrees with DataFusion's plan. The direction matters: in all of them but
# `sort_pushdown_026` sortlint keeps a sort (or a hash aggregate) that DataFusion avoids, which
# is safe; where sortlint drops a sort DataFusion keeps, the reason proves DataFusion's sort is
# not needed. Reasons name the module at fault when it is not the transfer functions.

LOG_UNSOUND = (
    "DataFusion's claim is unsound: LogFunc::output_ordering calls log(base, x) increasing in x "
    "and decreasing in base whatever their signs, but log_b(x) = ln x / ln b. With the declared "
    "orderings {orderings}, the rows {rows} are correctly ordered and give {values}, which is "
    "not {wanted}. sortlint (which has no rule for log) keeps the sort, as it must."
)
JOIN_SUFFIX = (
    "DataFusion's claim is unsound: at the extracted commit its join equivalence appends the "
    "other side's ordering to the kept side's ({how}), which holds only when a row of the kept "
    "side meets at most one row of the other side; no unique key is declared here. Two kept-"
    "side rows equal on the join key and on {kept} each meet the same two rows of the other "
    "side, so the output repeats the other side's values 1, 2, 1, 2 within one group of "
    "{kept}: {last} is not ordered there. (Same counterexample as joins_rs_01/02 in the unit "
    "conformance; upstream DataFusion has since fixed it.) sortlint keeps the sort, as it "
    "must - here also because SELECT * over both sides yields two outputs of each name, "
    "which carry no facts."
)
SORT_MERGE_ONE_FILE = (
    "The file sets prefer_hash_join = false and prefer_existing_sort = true with 2 partitions, "
    "so DataFusion plans a SortMergeJoinExec, which keeps the order of its {kept} side - and "
    "sortlint models that (engines/datafusion.py, _sort_merge_join). But that side is "
    "ROW_NUMBER() OVER () over annotated_data, and its order [a, b, c] (which the merge join "
    "needs: it joins on a) survives the window only because the table is one CSV file read as "
    "one partition: over two file groups DataFusion coalesces the partitions for the window, "
    "loses [a, b, c] and sorts the side by a, and rn1 is no longer in order (measured on the "
    "datafusion package with a table of two files). The catalog does not say how many files a "
    "table has, so sortlint keeps the sort: the safe direction."
)

DISAGREEMENTS: dict[str, str] = {
    # --- which side of a join DataFusion streams rests on what the catalog does not say ---
    "joins_001": SORT_MERGE_ONE_FILE.format(kept="left (an inner join)"),
    "joins_002": SORT_MERGE_ONE_FILE.format(kept="right (a RIGHT JOIN)"),
    "sort_pushdown_039": (
        "DataFusion needs no SortExec here: with one partition it reads the files in order and "
        "pushes the LIMIT into the scan (limit=3, output_ordering=[id]). But the ORDER BY is what "
        "keeps the files in order: without it DataFusion still pushes the LIMIT into the scan, "
        "which then reads only the files it needs, picked by their statistics - the datafusion "
        "package, over a file of 1 row and one of 6, reads `SELECT m FROM t LIMIT 5` from the "
        "second alone (tests/regressions/fuzz_cases/datafusion-limit-picks-files-by-statistics, "
        "found by the fuzzer). So removing the ORDER BY would change the rows; sortlint does not "
        "count a LIMIT-reached scan's order (engines/datafusion.py, _limit_reaches): the safe direction."
    ),
    # --- DataFusion's own claim is unsound; sortlint keeps the sort ---
    "order_001": (
        "DataFusion's claim (at the extracted commit) is unsound: b+a+c over INT columns is "
        "computed as an INT, which wraps around on overflow (the datafusion package computes "
        "2147483647 + 2147483647 = -2). Rows (a=0, b=0, c=0), (1, 1, 1), (2147483647, "
        "2147483647, 2) satisfy all three declared orderings and give result 0, 3, 0. The "
        "installed datafusion 55 keeps this sort (checked on a CSV table), as sortlint does."
    ),
    "order_022": (
        "DataFusion's claim is unsound: -(a + b) over BIGINTs wraps where a + b is "
        "-9223372036854775808. Rows (a=-9223372036854775807, b=-1), (0, 0), (1, 1) are ordered "
        "by a + b and give -(a + b) = -9223372036854775808, 0, -2, not descending; the datafusion "
        "package plans no sort and returns them so (tests/engines/test_datafusion_model.py). "
        "sortlint keeps the sort."
    ),
    "order_006": LOG_UNSOUND.format(
        orderings="[c11 ASC] and [c12 DESC] (both not null)",
        rows="(c11=0.5, c12=4), (c11=0.5, c12=2)",
        values="log(4, 0.5) = -0.5 then log(2, 0.5) = -1",
        wanted="ascending (ORDER BY log(c12, c11))",
    ),
    "order_007": LOG_UNSOUND.format(
        orderings="[c11 ASC] and [c12 DESC] (both not null)",
        rows="(c11=2, c12=0.5), (c11=4, c12=0.5)",
        values="log(2, 0.5) = -1 then log(4, 0.5) = -0.5",
        wanted="descending (ORDER BY log(c11, c12) DESC NULLS LAST)",
    ),
    "order_013": (
        "DataFusion's claim is unsound: it orders inc_col > desc_col like inc_col because "
        "inc_col is ASC NULLS LAST and desc_col DESC (NULLS FIRST), ignoring null placement, and "
        "both columns are nullable. Rows (inc_col=1, desc_col=NULL), (inc_col=2, desc_col=0) "
        "satisfy both declared orderings and give CAST(inc_col > desc_col AS INT) = NULL then "
        "1, which is not ASC NULLS LAST. sortlint (no rule for comparisons) keeps the sort."
    ),
    "joins_003": JOIN_SUFFIX.format(
        how="SortMergeJoin, inner join: the right side's [rn1] after the left side's [a, b, c]",
        kept="l_table (a, b, c)",
        last="r_table.rn1",
    ),
    "joins_006": JOIN_SUFFIX.format(
        how="HashJoin, right join: the left side's [a, b, c] after the right side's [a, b, c]",
        kept="r_table (a, b, c)",
        last="l_table.a",
    ),
    # --- DataFusion misses an order sortlint proves; the sort is not needed ---
    "sort_pushdown_026": (
        "sortlint is right and DataFusion keeps an unneeded sort, as the case's own comment "
        "says ('in theory DataFusion could figure out that data sorted by x will also be "
        "sorted by x+1'): DataFusion's BinaryExpr ordering rules cover + and - only, not "
        "multiplication. The aggregate streams (ordering_mode=Sorted), so its output is "
        "ordered by x ASC NULLS LAST; x is INT and DataFusion evaluates 2 * CAST(x AS BIGINT), "
        "which cannot overflow and is strictly increasing in x, with NULL exactly where x is "
        "NULL - so it is ordered ASC NULLS LAST too, and the SortExec is redundant."
    ),
    # --- what sortlint cannot know ---
    "order_012": (
        "DataFusion orders abs(c) like c because c is INT UNSIGNED (its interval analysis "
        "knows c >= 0). sortlint has no unsigned types (Spark has none; the type stays unknown) "
        "and no range analysis, and its monotonicity table does not list abs. Reported."
    ),
}


# --- the cases ---------------------------------------------------------------------------


def params() -> list:
    out = []
    for path, case in CASES:
        marks = [SUMMARY]
        flags = [f for f in case["expect"].get("flags") or [] if f in EXCLUDING_FLAGS]
        if flags:
            marks.append(pytest.mark.skip(reason=f"excluded: {', '.join(flags)}"))
        elif case["id"] in DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=DISAGREEMENTS[case["id"]]))
        out.append(pytest.param(path, case, id=case["id"], marks=marks))
    return out


@pytest.mark.parametrize(("path", "case"), params())
def test_case(path: Path, case: dict) -> None:
    outcome = evaluate(case, path)
    assert outcome.error is None, outcome.error
    assert not outcome.disagreements, "\n".join(
        [f"{fact}: DataFusion {df!r}, sortlint {ours!r}" for fact, df, ours in outcome.disagreements]
        + [f"not compared: {why}" for why in outcome.skipped]
    )


def final_order_by_agreement() -> tuple[int, int]:
    """Issue 32's metric: of the compared (not excluded) cases with a depth-0 ORDER BY (those
    whose expectation has ``top_sort_required``), how many agree on every compared fact.
    Counted from ``DISAGREEMENTS``: the expected failures are strict, so when the suite passes
    a case disagrees exactly when it is listed there."""
    compared = [
        case["id"] for _, case in CASES
        if case["expect"].get("top_sort_required") is not None
        and not set(case["expect"].get("flags") or ()) & set(EXCLUDING_FLAGS)
    ]
    return sum(1 for case_id in compared if case_id not in DISAGREEMENTS), len(compared)


def test_final_order_by_agreement() -> None:
    # The figure docs/conformance.md quotes; update both when a disagreement is fixed.
    assert final_order_by_agreement() == (121, 133)


def test_disagreements_name_compared_cases() -> None:
    compared = {
        case["id"] for _, case in CASES
        if not set(case["expect"].get("flags") or ()) & set(EXCLUDING_FLAGS)
    }
    assert set(DISAGREEMENTS) <= compared
