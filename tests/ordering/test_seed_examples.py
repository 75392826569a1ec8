"""The worked examples of the two seed blog posts (../shared/seeds/), step by step.

Each example gives a table's properties (constants, equivalence classes, succinct
orderings) and a sort requirement, then walks the algorithm: prune constants, replace
class members by their representative, drop repeats, match leading orderings. The posts
write directions only; the keys here use Spark's default null placement throughout.
"""

from __future__ import annotations

import pytest

from sortlint.ordering import Evidence, Expr, Properties, SortKey, SortOptions, basis_of

ASC, DESC = SortOptions.spark(), SortOptions.spark(descending=True)


def col(name: str) -> Expr:
    return Expr.column(name)


def key(name: str, options: SortOptions = ASC) -> SortKey:
    return SortKey(col(name), options)


def requirement(text: str) -> list[SortKey]:
    """`"hostname DESC, amount"` as sort keys."""
    keys = []
    for item in text.split(","):
        name, *direction = item.split()
        keys.append(key(name, DESC if direction == ["DESC"] else ASC))
    return keys


# --- "Using Ordering for Better Plans in Apache DataFusion" ------------------------

# WHERE hostname = 'app.example.com' AND currency = 'USD' came from the query; the
# clones from its projection; the orderings were declared on the source.
HOSTNAME = Evidence("query", "WHERE hostname = 'app.example.com'")
CURRENCY = Evidence("query", "WHERE currency = 'USD'")
PRICE_CLONE = Evidence("query", "price AS price_cloned")
TIME_CLONE = Evidence("query", "time AS time_cloned")
AMOUNT_PRICE = Evidence("declared", "declared ordering [amount, price]")
TIME_BIN = Evidence("declared", "declared ordering [time_bin]")
TIME = Evidence("declared", "declared ordering [time]")


@pytest.fixture
def telemetry() -> Properties:
    return (
        Properties()
        .with_constant(col("hostname"), Expr.parse("'app.example.com'"), [HOSTNAME])
        .with_constant(col("currency"), Expr.parse("'USD'"), [CURRENCY])
        .with_equality(col("price"), col("price_cloned"), [PRICE_CLONE])
        .with_equality(col("time"), col("time_cloned"), [TIME_CLONE])
        .with_ordering(requirement("amount, price"), [AMOUNT_PRICE])
        .with_ordering(requirement("time_bin"), [TIME_BIN])
        .with_ordering(requirement("time"), [TIME])
    )


BLOG_REQUIREMENT = requirement(
    "hostname DESC, amount, time_bin, price_cloned, time, currency, price DESC"
)


def test_table_properties_are_stored_succinctly(telemetry):
    assert set(telemetry.constants) == {col("hostname"), col("currency")}
    assert {cls.members for cls in telemetry.classes} == {
        (col("price"), col("price_cloned")),
        (col("time"), col("time_cloned")),
    }
    assert {fact.keys for fact in telemetry.orderings} == {
        tuple(requirement("amount, price")),
        tuple(requirement("time_bin")),
        tuple(requirement("time")),
    }


def test_step_1_constants_are_pruned(telemetry):
    verdicts = telemetry.normalize(BLOG_REQUIREMENT)
    constant = [v.key.expr for v in verdicts if v.redundant == "constant"]
    assert constant == [col("hostname"), col("currency")]


def test_step_2_members_are_replaced_by_their_representative(telemetry):
    verdicts = telemetry.normalize(BLOG_REQUIREMENT)
    assert verdicts[3].key == key("price_cloned")
    assert verdicts[3].normalized == key("price")
    assert verdicts[3].redundant is None
    assert verdicts[3].evidence == {PRICE_CLONE}


def test_step_3_repeats_are_dropped_whatever_their_direction(telemetry):
    verdicts = telemetry.normalize(BLOG_REQUIREMENT)
    last = verdicts[6]
    assert last.key == key("price", DESC)
    assert last.redundant == "equivalent"  # `price` repeats `price_cloned`, written earlier
    assert PRICE_CLONE in last.evidence
    kept = [v.normalized for v in verdicts if v.redundant is None]
    assert kept == requirement("amount, time_bin, price, time")


def test_step_4_leading_orderings_match(telemetry):
    satisfaction = telemetry.satisfaction(BLOG_REQUIREMENT)
    assert satisfaction.complete
    assert satisfaction.satisfied == len(BLOG_REQUIREMENT)
    assert telemetry.satisfies(BLOG_REQUIREMENT)


def test_evidence_names_every_fact_used_and_only_those(telemetry):
    satisfaction = telemetry.satisfaction(BLOG_REQUIREMENT)
    assert satisfaction.evidence == {HOSTNAME, CURRENCY, PRICE_CLONE, AMOUNT_PRICE, TIME_BIN, TIME}
    assert TIME_CLONE not in satisfaction.evidence
    assert basis_of(satisfaction.evidence) == "declared"


def test_a_requirement_met_by_query_facts_alone_has_query_basis(telemetry):
    satisfaction = telemetry.satisfaction(requirement("currency DESC, hostname"))
    assert satisfaction.complete
    assert satisfaction.evidence == {CURRENCY, HOSTNAME}
    assert basis_of(satisfaction.evidence) == "query"


def test_one_direction_flipped_is_not_satisfied(telemetry):
    flipped = requirement("hostname DESC, amount, time_bin, price_cloned DESC, time")
    assert not telemetry.satisfies(flipped)
    assert telemetry.satisfied_prefix(flipped) == 3


def test_a_key_in_no_ordering_is_not_satisfied(telemetry):
    missing = requirement("amount, price, log_line")
    assert not telemetry.satisfies(missing)
    assert telemetry.satisfied_prefix(missing) == 2


def test_a_key_that_is_not_yet_leading_is_not_satisfied(telemetry):
    # price leads only inside each group of amount: skipping amount breaks the match.
    assert not telemetry.satisfies(requirement("hostname, price_cloned"))
    assert telemetry.satisfied_prefix(requirement("hostname, price_cloned")) == 1


def test_changed_null_placement_on_a_nullable_column_is_not_satisfied(telemetry):
    nulls_last = [SortKey(col("amount"), SortOptions(descending=False, nulls_first=False))]
    assert not telemetry.satisfies(nulls_last)


def test_changed_null_placement_on_a_not_null_column_is_satisfied(telemetry):
    nulls_last = [SortKey(col("amount"), SortOptions(descending=False, nulls_first=False))]
    assert telemetry.with_not_null([col("amount")]).satisfies(nulls_last)


# --- "Query Optimization - When Ordering Requirement is Satisfied?" ----------------

C_CONSTANTS = Evidence("query", "WHERE c1 = 0 AND c2 = 1")
A2_CLONE = Evidence("query", "a2 AS a2_clone")
B2_CLONE = Evidence("query", "b2 AS b2_clone")
A_ORDER = Evidence("declared", "declared ordering [a1, a2]")
B_ORDER = Evidence("query", "ORDER BY b1, b2 in a subquery")


@pytest.fixture
def showcase() -> Properties:
    return (
        Properties()
        .with_constant(col("c1"), Expr.parse("0"), [C_CONSTANTS])
        .with_constant(col("c2"), Expr.parse("1"), [C_CONSTANTS])
        .with_equality(col("a2"), col("a2_clone"), [A2_CLONE])
        .with_equality(col("b2"), col("b2_clone"), [B2_CLONE])
        .with_ordering(requirement("a1, a2"), [A_ORDER])
        .with_ordering(requirement("b1, b2"), [B_ORDER])
    )


SHOWCASE_REQUIREMENT = requirement("c1 DESC, a1, b1, a2_clone, b2, c2, a2 DESC")


def test_showcase_normalizes_to_four_keys(showcase):
    verdicts = showcase.normalize(SHOWCASE_REQUIREMENT)
    assert [v.redundant for v in verdicts] == [
        "constant", None, None, None, None, "constant", "equivalent",
    ]
    kept = [v.normalized for v in verdicts if v.redundant is None]
    assert kept == requirement("a1, b1, a2, b2")


def test_showcase_requirement_is_satisfied(showcase):
    satisfaction = showcase.satisfaction(SHOWCASE_REQUIREMENT)
    assert satisfaction.complete
    assert satisfaction.evidence == {C_CONSTANTS, A2_CLONE, A_ORDER, B_ORDER}
    assert basis_of(satisfaction.evidence) == "declared"


def test_showcase_rests_on_query_facts_when_no_declared_ordering_is_used(showcase):
    satisfaction = showcase.satisfaction(requirement("c2, b1, c1 DESC, b2_clone"))
    assert satisfaction.complete
    assert satisfaction.evidence == {C_CONSTANTS, B_ORDER, B2_CLONE}
    assert basis_of(satisfaction.evidence) == "query"


def test_showcase_flipped_direction_is_not_satisfied(showcase):
    flipped = requirement("c1 DESC, a1, b1 DESC, a2_clone, b2")
    assert not showcase.satisfies(flipped)
    assert showcase.satisfied_prefix(flipped) == 2


def test_showcase_missing_leading_key_is_not_satisfied(showcase):
    # Without a1, a2 is ordered only inside each group of a1.
    missing = requirement("c1 DESC, b1, a2_clone, b2")
    assert not showcase.satisfies(missing)
    assert showcase.satisfied_prefix(missing) == 2


def test_showcase_null_placement_matters_only_for_nullable_keys(showcase):
    a1_nulls_last = [SortKey(col("a1"), SortOptions(descending=False, nulls_first=False))]
    assert not showcase.satisfies(a1_nulls_last)
    assert showcase.with_not_null([col("a1")]).satisfies(a1_nulls_last)
