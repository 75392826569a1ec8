"""DataFusion's sqllogictest EXPLAIN plans, replayed through sortlint end to end.

The cases live in ../shared/conformance/datafusion/slt/*.slt.yaml (see the README there for
the schema and its caveats). Each case is one test: its tables become a `target:
datafusion` catalog, its query is built with sortlint's own SQL builder, analysed with the
transfer functions, and the facts DataFusion's physical plan shows are compared.

What is compared
----------------
* ``top_sort_required``: sortlint needs a sort iff the input of the depth-0 ORDER BY's
  `Sort` node (the topmost global Sort under any Limit / Project / Write) does not satisfy
  its keys. DataFusion needs one iff a SortExec / PartialSortExec is reached from the root
  through pass-through operators only.
* ``sink_sort_required`` (EXPLAIN INSERT): DataFusion's DataSinkExec requires its input in
  the *target table's* declared order (``required_input_ordering`` of the sink), and the
  INSERT's own ORDER BY is kept as a sort under the sink. sortlint needs a sort under the
  sink iff that ORDER BY is not satisfied by its input, or the target declares an ordering
  the written rows do not satisfy.
* aggregates: each sortlint `Aggregate` (plan order, top first) against the first-stage
  AggregateExec of the same aggregate (``Single``, ``SinglePartitioned`` or ``Partial``: the
  stage that reads the aggregate's input; ``Final`` / ``FinalPartitioned`` stages read the
  partial stage's output and are left out). Stages are matched in plan order, so the n-th
  sortlint aggregate meets the n-th first-stage AggregateExec. Modes are compared as the
  set of grouping keys that stream: `Sorted` means all of them, `PartiallySorted([i..])`
  those indices, `hash` none. DataFusion adds functionally dependent select columns to a
  GROUP BY over a primary key (``GROUP BY c`` becomes ``gby=[c, b]``); those extra keys are
  left out of the comparison (they are determined by the others, so they never change what
  streams), and the keys are matched by name when DataFusion has more of them.
  Where DataFusion put a full SortExec right under the aggregate
  (``input_sorted_by_sortexec``), DataFusion itself sorted the input to serve an
  order-sensitive aggregate function (``ARRAY_AGG(d ORDER BY d)``), which sortlint's plan
  does not model: the mode is not comparable and is skipped. A PartialSortExec there keeps
  its ``common_prefix_length`` leading keys, which the raw input already had, so the mode
  is compared as usual.

A case agrees when every compared fact matches. Cases flagged ``scan_sort_pushdown`` or
``declared_ordering_not_reported_by_scan`` are excluded (skipped, with the flag as the
reason): their scans ignore or rewrite the declared ordering for reasons no declaration
shows. Every other disagreement is a strict expected failure, with its reason in
``DISAGREEMENTS`` below.

Dialect
-------
DataFusion's SQL is sqlparser-rs's generic dialect, closest to PostgreSQL. See
``DIALECT`` for the measured choice.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from sortlint.config import Column, Config, DeclaredOrdering, Location, OrderingItem, Source
from sortlint.ordering import Expr, SortKey, SortOptions
from sortlint.ordering.transfer import Analysis, analyse, output_names
from sortlint.plan import nodes as n
from sortlint.plan.statement import build_statement
from sortlint.plan.tables import Tables
from sortlint.sources.units import Unit

CASES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "datafusion" / "slt"
if not CASES_DIR.is_dir():
    pytest.skip(f"DataFusion slt cases not found at {CASES_DIR}", allow_module_level=True)

LABEL = "datafusion slt conformance"


def _summary(counts: Counter, total: int) -> str:
    disagree = counts["xfailed"] + counts["failed"]
    return f"{counts['passed']} agree, {disagree} disagree, {counts['skipped']} excluded of {total}"


SUMMARY = pytest.mark.conformance(LABEL, line=_summary)

# Measured over the corpus (see the module docstring): the dialect that parses and builds the
# most cases.
DIALECT = "postgres"

EXCLUDING_FLAGS = ("scan_sort_pushdown", "declared_ordering_not_reported_by_scan")

# DataFusion SQL types as the Spark type names sortlint's engine uses. DataFusion's FLOAT and
# REAL are Float32 (Spark `float`); unsigned integers have no Spark type and stay unknown.
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


def config_of(case: dict) -> Config:
    return Config(target="datafusion", dialect=DIALECT, sources=tuple(source_of(t) for t in case["tables"]))


def source_of(table: dict) -> Source:
    path, _, line = (table.get("ddl_source") or "").rpartition(":")
    location = Location(Path(path), int(line)) if line.isdigit() else Location()
    primary_key = tuple(c.lower() for c in table.get("primary_key") or ())
    columns = tuple(
        Column(
            column["name"].lower(),
            spark_type(column.get("type")),
            nullable=column.get("nullable", True) is not False and column["name"].lower() not in primary_key,
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
    return Source(
        name=table["name"].lower(),
        columns=columns,
        orderings=orderings,
        unique=(primary_key,) if primary_key else (),
        engine_known=True,
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
    compared: list[tuple[str, object, object]] = field(default_factory=list)  # (fact, datafusion, sortlint)
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
    keys = [SortKey(item.expr, item.options) for item in sort.keys]
    return not analysis.of(sort.children[0]).satisfies(keys)


def sink_sort_needed(analysis: Analysis, write: n.Write, config: Config) -> bool:
    below = top_sort(write.children[0])
    if below is not None and sort_needed(analysis, below):
        return True
    target = config.source(write.target)
    if target is None or not target.orderings:
        return False
    props = analysis.of(write.children[0])
    names = output_names(write.children[0])
    written = {name.lower() for name in names}
    for ordering in target.orderings:
        # Rows land in the target's columns by position; a declared column the query does not
        # name cannot be checked, so the sort is needed.
        if any(item.column not in written for item in ordering.items):
            return True
        keys = [
            SortKey(Expr.column(item.column), SortOptions(item.descending, item.nulls_first))
            for item in ordering.items
        ]
        if not props.satisfies(keys):
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
        if sort.get("feeds") == "AggregateExec" and sort.get("expr") == stage.get("input_sort_expr"):
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
    permutation = analysis.permutation(node)
    ours = set(permutation.indices)
    keys = list(node.keys)
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
            outcome.compared.append(
                ("sink_sort_required", expect["sink_sort_required"], sink_sort_needed(analysis, root, config))
            )
    else:
        body = root
    if expect.get("top_sort_required") is not None:
        sort = top_sort(body)
        if sort is None:
            outcome.compared.append(("top_sort_required", expect["top_sort_required"], f"no ORDER BY in {describe(root)}"))
        else:
            outcome.compared.append(("top_sort_required", expect["top_sort_required"], sort_needed(analysis, sort)))
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


def describe(node: n.Node, depth: int = 0) -> str:
    """A one-line plan, for messages."""
    extra = ""
    if isinstance(node, n.Opaque):
        extra = f"[{node.reason}]"
    inner = ", ".join(describe(c, depth + 1) for c in node.children)
    return f"{node.label}{extra}({inner})" if inner else f"{node.label}{extra}"


# --- expected disagreements --------------------------------------------------------------
#
# Every case below disagrees with DataFusion's plan. The direction matters: in all of them but
# `sort_pushdown_026` sortlint keeps a sort (or a hash aggregate) that DataFusion avoids, which
# is safe; where sortlint drops a sort DataFusion keeps, the reason proves DataFusion's sort is
# not needed. Reasons name the module at fault when it is not the transfer functions.

DATE_BIN = (
    "DataFusion treats date_bin(stride, ts[, origin]) with a constant stride and origin as "
    "ordered like ts (it is a floor onto a grid, non-decreasing in ts). sortlint's "
    "monotonicity table (ordering/monotonicity.py, exp.DateBin) does not list date_bin, so {what}. "
    "Reported to the monotonicity owner."
)
LOG_UNSOUND = (
    "DataFusion's claim is unsound: LogFunc::output_ordering calls log(base, x) increasing in x "
    "and decreasing in base whatever their signs, but log_b(x) = ln x / ln b. With the declared "
    "orderings {orderings}, the rows {rows} are correctly ordered and give {values}, which is "
    "not {wanted}. sortlint (which has no rule for log) keeps the sort, as it must."
)
JOIN_SUFFIX = (
    "DataFusion's claim is unsound: at the extracted commit its join equivalence appends the "
    "other side's ordering to the kept side's ({how}), which holds only when a row of the kept "
    "side meets at most one row of the other side (no unique key is declared here). Two "
    "{side} rows equal on the join key and on the kept ordering each meet the same two rows "
    "of the other side, and the output repeats their order: 1, 2, 1, 2. The same "
    "counterexample is the reason for joins_rs_01/02 in the unit conformance; upstream "
    "DataFusion has since fixed it. sortlint keeps only the {side} side's order and the sort."
)

DISAGREEMENTS: dict[str, str] = {
    # --- DataFusion's own claim is unsound; sortlint keeps the sort ---
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
        how="SortMergeJoin, inner: the right side's [rn1] after the left side's [a, b, c]",
        side="left",
    ),
    "joins_006": JOIN_SUFFIX.format(
        how="HashJoin, right join: the left side's [a, b, c] after the right side's [a, b, c]",
        side="right",
    ),
    # --- DataFusion's optimizer setting or statistics decide; sortlint keeps the sort ---
    "joins_001": (
        "The case sets datafusion.optimizer.prefer_hash_join = false, so DataFusion plans a "
        "SortMergeJoinExec, which streams the left input and keeps its order (l_table.rn1). "
        "sortlint models DataFusion's default hash join, which keeps only the right (probe) "
        "side's order, and its Config has no such setting: it keeps the sort on l_table.rn1."
    ),
    "preserve_file_partitioning_003": (
        "DataFusion's JoinSelection swapped the join inputs using parquet statistics: the "
        "filtered dimension table is smaller, so it became the build side and "
        "fact_table_ordered the probe side, whose order (f_dkey) the hash join keeps. sortlint "
        "cannot see statistics; from `fact f JOIN dimension d` it keeps the right (dimension) "
        "side's order, so f.f_dkey is unordered: the aggregate hashes and the ORDER BY sorts."
    ),
    "preserve_file_partitioning_004": (
        "Same plan shape as preserve_file_partitioning_003 (statistics made fact_table_ordered "
        "the probe side of the hash join; sortlint keeps the SQL right side's order), with "
        "preserve_file_partitions = 1 making the aggregate SinglePartitioned."
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
    # --- sortlint's builder (sortlint/plan/, reported) ---
    "joins_005": (
        "Builder bug (sortlint/plan/relations.py, reported): RIGHT ANTI JOIN is built as a "
        "left anti join (join_kind drops the side of SEMI/ANTI), so the output is taken to be "
        "the left input's rows (SELECT * even expands to l_table's columns) and the right "
        "side's order (r_table.rn1), which DataFusion's HashJoinExec(RightAnti) keeps, is lost."
    ),
    "join_disable_repartition_joins_002": (
        "Builder bug (sortlint/plan/relations.py, reported): RIGHT SEMI JOIN is built as a "
        "left semi join (join_kind drops the side of SEMI/ANTI) and t2 is not in the output "
        "scope, so the right side's order [a, b], which DataFusion's HashJoinExec(RightSemi) "
        "keeps, is lost."
    ),
    "window_019": (
        "sortlint's builder does not model a named WINDOW clause (WINDOW sliding_window AS "
        "(...)): the window becomes an Opaque node that forgets the input's order [c]. "
        "Reported as a missing builder feature."
    ),
    # --- the ordering engine (properties.py / monotonicity.py, reported) ---
    "order_002": DATE_BIN.format(what="the projected db15 is not known to be ordered"),
    "group_by_026": DATE_BIN.format(
        what="the grouping key date_bin('15 minutes', ts) is unordered: the aggregate hashes "
        "and the ORDER BY sorts"
    ),
    "group_by_028": DATE_BIN.format(what="[name DESC, time_chunks DESC] is not known to hold"),
    "repartition_subset_satisfaction_001": DATE_BIN.format(
        what="only f_dkey of the grouping keys streams (DataFusion: both), and the ORDER BY "
        "f_dkey, time_bin sorts"
    ),
    "repartition_subset_satisfaction_002": DATE_BIN.format(
        what="only f_dkey of the grouping keys streams (DataFusion: both), and the ORDER BY "
        "f_dkey, time_bin sorts"
    ),
    "repartition_subset_satisfaction_005": DATE_BIN.format(
        what="the inner aggregate streams f_dkey only, not time_bin (DataFusion: PartiallySorted([0, 1]))"
    ),
    "repartition_subset_satisfaction_006": DATE_BIN.format(
        what="the inner aggregate streams f_dkey only, not time_bin (DataFusion: PartiallySorted([0, 1]))"
    ),
    "order_004": (
        "sortlint's monotonicity table (ordering/monotonicity.py) does not list atan, which is "
        "strictly increasing; DataFusion orders atan(c11) like c11. Reported."
    ),
    "order_005": (
        "sortlint's monotonicity table (ordering/monotonicity.py) leaves ceil of a FLOAT "
        "unordered: its rule follows Spark, where ceil of a NaN double is 0. DataFusion's ceil "
        "keeps NaN as NaN, which sorts above every number, so ceil(c11) is ordered like c11. "
        "The table is not target-aware. Reported."
    ),
    "order_012": (
        "DataFusion orders abs(c) like c because c is INT UNSIGNED (its interval analysis "
        "knows c >= 0). sortlint has no unsigned types (Spark has none; the type stays unknown) "
        "and no range analysis, and its monotonicity table does not list abs. Reported."
    ),
    "monotonic_projection_test_001": (
        "Properties.project (ordering/properties.py) cuts an ordering right after a key it "
        "replaces by a monotonic function: [a, b] with only CAST(a AS BIGINT) AS a_big and b "
        "projected becomes [a_big], although a widening cast is injective, so b still orders "
        "the rows inside each a_big group (DataFusion: CastExpr preserves lexicographic order). "
        "Reported with a repro."
    ),
    "monotonic_projection_test_003": (
        "Properties.project (ordering/properties.py): a_big = CAST(a AS BIGINT) is known ordered "
        "but not injective, so fixing a_big does not fix a and [a_big, b] is not derived from "
        "[a, b] (DataFusion: a widening cast preserves lexicographic order). Reported."
    ),
    "select_009": (
        "Properties.project (ordering/properties.py) drops the equivalence "
        "CAST(ROUND(b) AS INT) = a from the WHERE clause because one member is not a projected "
        "column, although it is an expression over projected columns (b); the ORDER BY "
        "CAST(ROUND(b) AS INT) is then not known to equal the ordered a. Reported with a repro."
    ),
    "window_022": (
        "The window transfer function adds what DataFusion adds for MIN(c5) OVER (PARTITION BY "
        "c1) - [c1, min_c5] in all four directions, the value being constant within each "
        "partition - but Properties (ordering/properties.py, _Group.property) only consults the "
        "first ordering that leads with an expression once c1 is fixed ([c1, min_c5 ASC NULLS "
        "LAST]), so [c1, min_c5 DESC NULLS LAST] is not found. Reported with a repro."
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
        f"{fact}: DataFusion {theirs!r}, sortlint {ours!r}" for fact, theirs, ours in outcome.disagreements
    )


def test_disagreements_name_real_cases() -> None:
    ids = {case["id"] for _, case in CASES}
    assert set(DISAGREEMENTS) <= ids
