"""DataFusion's own equivalence unit tests, replayed against sortlint's engine.

The cases live in ../shared/conformance/datafusion/equivalence_unit/*.yaml (transcribed
from DataFusion's Rust unit tests; the README there gives the schema and the null-ordering
conventions). Each case is one test. Where sortlint cannot or should not agree, the case is
a strict expected failure whose reason is written in `DEVIATIONS` below.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import yaml

from sortlint.ordering import Expr, Properties, SortKey, SortOptions

CASES_DIR = (
    Path(__file__).parents[2].parent / "shared" / "conformance" / "datafusion" / "equivalence_unit"
)
if not CASES_DIR.is_dir():
    pytest.skip(f"DataFusion unit cases not found at {CASES_DIR}", allow_module_level=True)

SUMMARY = pytest.mark.conformance("datafusion unit conformance")

# Arrow type names in the cases, as the Spark type names the engine's `types` use.
ARROW_TYPES = {
    "Boolean": "boolean", "Int8": "tinyint", "Int16": "smallint", "Int32": "int",
    "Int64": "bigint", "Float32": "float", "Float64": "double", "Utf8": "string",
    "LargeUtf8": "string", "Date32": "date", "Timestamp": "timestamp",
}


class ConstantsDiffer(AssertionError):
    """The orderings matched; only the constants differ."""


COUNTEREXAMPLE_CONCAT = (
    "DataFusion's claim is unsound: from c = concat(a, b) and [c, a, b] (equally "
    "[concat(a, b), a, b]) it derives the ordering [a, b], but concat does not order rows "
    "like [a, b] when the keys differ in length. "
    "Rows (a='ab', b='a', c='aba') then (a='a', b='bc', c='abc') are sorted by [c, a, b] "
    "and not by [a, b] ('ab' > 'a'). sortlint keeps [c, a, b] only."
)
COUNTEREXAMPLE_JOIN = (
    "DataFusion's claim (at the extracted commit) is unsound: appending the build side's "
    "ordering to the probe side's is only valid when equal probe keys identify one build "
    "row. Left rows (a=1), (a=1) joined with right rows (a2=1), (a2=2) stream as "
    "(1,1), (1,2), (1,1), (1,2): sorted by [a] but not by [a, a2]. Upstream DataFusion "
    "has since fixed this (joins.rs: 'Without the uniqueness proof, only the maintained "
    "side's ordering is guaranteed') and now expects only the left orderings."
)
UNION_CONSTANTS = (
    "sortlint deliberately keeps a union constant only when its value is known and equal on "
    "every child, because rows from different children mix in the output; these cases' "
    "constants carry no value (DataFusion's AcrossPartitions::Heterogeneous). The "
    "orderings are checked and agree."
)

DEVIATIONS: dict[str, tuple[str, type[BaseException]]] = {
    "dependency_rs_orderings_after_equality_01": (COUNTEREXAMPLE_CONCAT, AssertionError),
    "dependency_rs_orderings_after_equality_03": (COUNTEREXAMPLE_CONCAT, AssertionError),
    "joins_rs_01": (COUNTEREXAMPLE_JOIN, AssertionError),
    "joins_rs_02": (COUNTEREXAMPLE_JOIN, AssertionError),
    "union_rs_06": (UNION_CONSTANTS, ConstantsDiffer),
    "union_rs_15": (UNION_CONSTANTS, ConstantsDiffer),
}


# --- reading cases ----------------------------------------------------------------


def _load_sections() -> dict[str, list[dict]]:
    sections: dict[str, list[dict]] = {}
    for path in sorted(CASES_DIR.glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        for name, value in document.items():
            if name == "cases" or name.endswith("_cases"):
                sections.setdefault(name, []).extend(value)
    return sections


SECTIONS = _load_sections()


def cases(section: str) -> list:
    params = []
    for case in SECTIONS.get(section, []):
        marks = [SUMMARY]
        if case["id"] in DEVIATIONS:
            reason, raises = DEVIATIONS[case["id"]]
            marks.append(pytest.mark.xfail(strict=True, reason=reason, raises=raises))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def expr(text: str) -> Expr:
    """A case's expression; `CAST(c AS Date32)` names an Arrow type."""
    spark = re.sub(
        r"\bAS\s+(\w+)", lambda m: f"AS {ARROW_TYPES.get(m.group(1), m.group(1))}", str(text)
    )
    return Expr.parse(spark)


def sort_key(item: dict, rename=lambda name: name) -> SortKey:
    options = SortOptions(descending=item["dir"] == "DESC", nulls_first=item["nulls"] == "FIRST")
    return SortKey(expr(rename(item["col"])), options)


def ordering(items: list[dict], rename=lambda name: name) -> tuple[SortKey, ...]:
    return tuple(sort_key(item, rename) for item in items)


def with_schema(props: Properties, schema: dict | None) -> Properties:
    for name, text in (schema or {}).items():
        arrow, _, nullability = str(text).partition(" ")
        props = props.with_types({Expr.column(name): ARROW_TYPES[arrow.split("(")[0]]})
        if nullability.endswith("NOT NULL"):
            props = props.with_not_null([Expr.column(name)])
    return props


def with_classes(props: Properties, groups: list[list[str]]) -> Properties:
    for group in groups or []:
        first, *others = (expr(member) for member in group)
        for other in others:
            props = props.with_equality(first, other)
    return props


def with_constants(props: Properties, constants: list[str]) -> Properties:
    for constant in constants or []:
        props = props.with_constant(expr(constant))
    return props


def with_orderings(props: Properties, orderings: list[list[dict]], rename=lambda n: n) -> Properties:
    for items in orderings or []:
        props = props.with_ordering(ordering(items, rename))
    return props


def with_constraints(props: Properties, constraints: list[dict]) -> Properties:
    """A primary key is a unique key of non-null columns; SQL's UNIQUE lets NULLs repeat."""
    for constraint in constraints or []:
        if "primary_key" in constraint:
            columns = [Expr.column(c) for c in constraint["primary_key"]]
            props = props.with_not_null(columns).with_unique_key(columns)
        else:
            columns = [Expr.column(c) for c in constraint["unique"]]
            props = props.with_unique_key(columns, nulls_distinct=True)
    return props


def build(case: dict, facts_first: bool = False) -> Properties:
    """Properties of a case; `facts_first` adds orderings before classes and constants
    (DataFusion's tests check both construction orders where it matters)."""
    props = with_schema(Properties(), case.get("schema"))
    if facts_first:
        props = with_orderings(props, case.get("orderings"))
        props = with_constants(props, case.get("constants"))
        props = with_classes(props, case.get("eq_groups"))
    else:
        props = with_classes(props, case.get("eq_groups"))
        props = with_constants(props, case.get("constants"))
        props = with_orderings(props, case.get("orderings"))
    return with_constraints(props, case.get("constraints"))


def orderings_of(props: Properties) -> set[tuple[SortKey, ...]]:
    return {fact.keys for fact in props.orderings}


def normalized(props: Properties, keys: tuple[SortKey, ...]) -> tuple[SortKey, ...]:
    """An expected ordering written with any class member, in representatives."""
    return tuple(SortKey(props.normalize_expr(k.expr)[0], k.options) for k in keys)


def classes_of(props: Properties) -> set[frozenset[Expr]]:
    return {frozenset(cls.members) for cls in props.classes}


def class_set(groups: list[list[str]]) -> set[frozenset[Expr]]:
    return {frozenset(expr(member) for member in group) for group in groups}


# --- the cases ----------------------------------------------------------------------


def test_every_section_is_checked():
    handled = {
        "cases", "succinct_orderings_cases", "longest_permutation_cases",
        "expr_sort_properties_cases", "orderings_after_equality_cases", "union_cases",
        "join_cases", "eq_group_merge_cases", "exprs_equal_cases", "eq_group_build_cases",
    }
    assert set(SECTIONS) <= handled
    assert set(DEVIATIONS) <= {case["id"] for section in SECTIONS.values() for case in section}


@pytest.mark.parametrize("case", cases("cases"))
def test_satisfaction(case):
    requirement = ordering(case["requirement"])
    for facts_first in (False, True):
        assert build(case, facts_first).satisfies(requirement) is case["satisfied"]


@pytest.mark.parametrize("case", cases("succinct_orderings_cases"))
def test_succinct_orderings(case):
    props = with_orderings(Properties(), case["orderings"])
    assert orderings_of(props) == {ordering(items) for items in case["expected_orderings"]}


@pytest.mark.parametrize("case", cases("longest_permutation_cases"))
def test_longest_permutation(case):
    """Keys found in the same round of `find_longest_permutation` could come in any order,
    so the keys are compared as a set; the engine's own order must then be one the rows
    really satisfy."""
    props = build(case)
    found = props.ordered_permutation([expr(e) for e in case["exprs"]])
    if case["expected_ordering"] is not None:
        assert set(found.keys) == set(ordering(case["expected_ordering"]))
        assert len(found.keys) == len(case["expected_ordering"])
    if case["expected_indices"] is not None:
        assert sorted(found.indices) == sorted(case["expected_indices"])
    assert all(expr(case["exprs"][i]) == key.expr for i, key in zip(found.indices, found.keys))
    assert props.satisfies(found.keys)


@pytest.mark.parametrize("case", cases("expr_sort_properties_cases"))
def test_expr_sort_properties(case):
    props = build(case)
    assert str(props.sort_property(expr(case["expr"]))) == case["expected_sort_properties"]


@pytest.mark.parametrize("case", cases("orderings_after_equality_cases"))
def test_orderings_after_equality(case):
    left, right = (expr(e) for e in case["add_equal_condition"])
    props = build(case).with_equality(left, right)
    expected = {normalized(props, ordering(items)) for items in case["expected_orderings"]}
    assert orderings_of(props) == expected


def _union_rename(name: str) -> str:
    """Children name their columns a1, b2, ...: the same positions as the output's a, b."""
    return re.sub(r"^([a-h])\d+$", r"\1", name)


@pytest.mark.parametrize("case", cases("union_cases"))
def test_union(case):
    children = [
        with_orderings(
            with_constants(Properties(), [_union_rename(c) for c in child["constants"]]),
            child["orderings"],
            _union_rename,
        )
        for child in case["children"]
    ]
    expected = {ordering(items) for items in case["expected_orderings"]}
    expected_constants = {expr(c) for c in case["expected_constants"]}
    for permutation in itertools.permutations(children):
        union = Properties.union(permutation)
        assert orderings_of(union) == expected
        if set(union.constants) != expected_constants:
            raise ConstantsDiffer(f"{set(union.constants)} != {expected_constants}")


def _maintained_side(case: dict) -> Properties:
    """sortlint's rule for an inner join that keeps the probe side's order (DESIGN:
    Join): the output has the maintained side's orderings; the other side's order is
    lost. The engine has no join transfer function of its own yet."""
    maintained = "left" if case["maintains_input_order"][0] else "right"
    return with_orderings(Properties(), case[f"{maintained}_orderings"])


@pytest.mark.parametrize("case", cases("join_cases"))
def test_join(case):
    if "join_schema" in case:
        # The right side's orderings re-indexed into the join schema, with its classes.
        props = with_orderings(with_classes(Properties(), case["eq_groups"]), case["right_orderings"])
    else:
        props = _maintained_side(case)
    expected = {normalized(props, ordering(items)) for items in case["expected_orderings"]}
    assert orderings_of(props) == expected


@pytest.mark.parametrize("case", cases("eq_group_merge_cases"))
def test_eq_group_merge(case):
    props = with_classes(Properties(), case["input_classes"])
    assert classes_of(props) == class_set(case["expected_classes"])


@pytest.mark.parametrize("case", cases("exprs_equal_cases"))
def test_exprs_equal(case):
    props = with_classes(Properties(), case["eq_groups"])
    left, _ = props.normalize_expr(expr(case["left"]))
    right, _ = props.normalize_expr(expr(case["right"]))
    assert (left == right) is case["expected_equal"]


@pytest.mark.parametrize("case", cases("eq_group_build_cases"))
def test_eq_group_build(case):
    props = Properties()
    for step in case["steps"]:
        left, right = (expr(e) for e in step["add_equal"])
        props = props.with_equality(left, right)
        if "expected_classes" in step:
            assert classes_of(props) == class_set(step["expected_classes"])
        if "expected_class_count" in step:
            assert len(props.classes) == step["expected_class_count"]


# --- the counterexamples behind the deviations, checked --------------------------------


def test_concat_counterexample_is_sorted_by_c_a_b_and_not_by_a_b():
    rows = [("ab", "a"), ("a", "bc")]
    with_c = [(a + b, a, b) for a, b in rows]
    assert with_c == sorted(with_c)
    assert rows != sorted(rows)


def test_join_counterexample_is_sorted_by_a_and_not_by_a_a2():
    left, right = [1, 1], [1, 2]
    streamed = [(a, a2) for a in left for a2 in right]  # each probe row, then its matches
    assert [a for a, _ in streamed] == sorted(a for a, _ in streamed)
    assert streamed != sorted(streamed)
