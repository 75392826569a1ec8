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


def compare_aggregate(
    outcome: Outcome, index: int, node: n.Aggregate, stage: dict, analysis: Analysis
) -> None:
    fact = f"aggregate #{index} ({', '.join(k.text for k in node.keys) or 'no keys'})"
    if stage.get("input_sorted_by_sortexec") and "PartialSortExec" not in (stage.get("input_sort_operator") or "PartialSortExec"):
        outcome.skipped.append(f"{fact}: DataFusion sorted its input with a SortExec")
        return
    permutation = analysis.permutation(node)
    ours = set(permutation.indices)
    gby = [gby_name(item) for item in stage["gby"]]
    keys = list(node.keys)
    theirs_full = df_streaming(stage["ordering_mode"], len(gby))
    if len(gby) == len(keys):
        mapping = {i: i for i in range(len(keys))}
    else:
        # DataFusion added dependent keys: match by name.
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
            compare_aggregate(outcome, index, node, stage, analysis)
    return outcome


def describe(node: n.Node, depth: int = 0) -> str:
    """A one-line plan, for messages."""
    extra = ""
    if isinstance(node, n.Opaque):
        extra = f"[{node.reason}]"
    inner = ", ".join(describe(c, depth + 1) for c in node.children)
    return f"{node.label}{extra}({inner})" if inner else f"{node.label}{extra}"


# --- expected disagreements --------------------------------------------------------------

DISAGREEMENTS: dict[str, str] = {}


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
    assert outcome.compared, f"nothing compared ({'; '.join(outcome.skipped) or 'no facts'})"
    assert not outcome.disagreements, "\n".join(
        f"{fact}: DataFusion {theirs!r}, sortlint {ours!r}" for fact, theirs, ours in outcome.disagreements
    )


def test_disagreements_name_real_cases() -> None:
    ids = {case["id"] for _, case in CASES}
    assert set(DISAGREEMENTS) <= ids
