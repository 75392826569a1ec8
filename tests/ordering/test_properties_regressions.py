"""Regression examples for engine defects found by the conformance cases and the tests.

Each test names the input properties, the requirement and the verdict, and says why (with
the rows that would break a wrong verdict).
"""

from __future__ import annotations

from sortlint.ordering import UNORDERED, Evidence, Expr, Properties, SortKey, SortOptions, SortProperty

ASC = SortOptions(descending=False, nulls_first=True)
ASC_NULLS_LAST = SortOptions(descending=False, nulls_first=False)
DESC = SortOptions(descending=True, nulls_first=True)


def col(name: str) -> Expr:
    return Expr.column(name)


def key(text: str, options: SortOptions = ASC) -> SortKey:
    return SortKey(Expr.parse(text), options)


def test_class_members_are_replaced_inside_expressions_without_evidence():
    # Normalisation used to notice a substitution only by the evidence it collected.
    props = Properties().with_equality(col("a"), col("x")).with_equality(col("b"), col("y"))
    assert props.normalize_expr(Expr.parse("x + y"))[0] == Expr.parse("a + b")
    assert props.normalize_expr(Expr.parse("(x + y) * 1"))[0] == Expr.parse("(a + b) * 1")


def test_an_equivalent_key_names_the_equality_that_made_it_redundant():
    clone = Evidence("query", "a AS a_clone")
    props = Properties().with_equality(col("a"), col("a_clone"), [clone])
    verdicts = props.normalize([key("a_clone"), key("a", DESC)])
    assert verdicts[1].redundant == "equivalent"
    assert verdicts[1].evidence == {clone}


def test_sql_unique_on_nullable_columns_determines_nothing():
    # UNIQUE (c, d) allows (NULL, 1, a=2) and (NULL, 1, a=1): sorted by [c, d], not by [c, d, a].
    props = Properties().with_ordering([key("c"), key("d")]).with_unique_key(
        [col("c"), col("d")], nulls_distinct=True
    )
    requirement = [key("c"), key("d"), key("a")]
    assert not props.satisfies(requirement)
    assert props.with_not_null([col("c"), col("d")]).satisfies(requirement)


def test_a_grouping_key_determines_the_rest_even_when_nullable():
    # GROUP BY c, d gives one row per (c, d), NULLs included.
    props = Properties().with_ordering([key("c"), key("d")]).with_unique_key([col("c"), col("d")])
    assert props.satisfies([key("c"), key("d"), key("a")])


def test_a_monotonic_function_before_its_argument_adds_nothing():
    # Rows sorted by [to_date(t), t] are sorted by [t]: a later t never has an earlier date.
    props = Properties(types={col("t"): "timestamp"}).with_ordering([key("to_date(t)"), key("t")])
    assert props.satisfies([key("t")])
    assert props.satisfies([key("to_date(t)")])


def test_a_column_equal_to_a_monotonic_function_before_its_argument_adds_nothing():
    # DataFusion's test_eliminate_redundant_monotonic_sorts: d = CAST(t AS DATE), [d, t].
    props = (
        Properties(types={col("t"): "timestamp", col("d"): "date"})
        .with_equality(col("d"), Expr.parse("CAST(t AS DATE)"))
        .with_ordering([key("d"), key("t")])
    )
    assert props.satisfies([key("t")])
    assert props.satisfies([key("d"), key("t")])
    assert props.satisfies([key("t"), key("d")])  # d is a function of t


def test_a_function_before_its_argument_in_another_direction_is_kept():
    # [to_date(t) DESC, t ASC]: 2024-01-02 00:00 comes before 2024-01-01 23:00.
    props = Properties(types={col("t"): "timestamp"}).with_ordering(
        [key("to_date(t)", DESC), key("t")]
    )
    assert not props.satisfies([key("t")])


def test_a_function_separated_from_its_argument_is_kept():
    # [to_date(t), b, t] with b varying: t restarts inside each date for every b.
    props = Properties(types={col("t"): "timestamp"}).with_ordering(
        [key("to_date(t)"), key("b"), key("t")]
    )
    assert not props.satisfies([key("t")])


def test_an_ordering_suffix_that_another_ordering_starts_is_cut():
    # [a, b] with [b]: b is ordered everywhere, so [a] with [b] says the same.
    props = Properties().with_ordering([key("a"), key("b")]).with_ordering([key("b")])
    assert {fact.keys for fact in props.orderings} == {(key("a"),), (key("b"),)}
    assert props.satisfies([key("a"), key("b")])


def test_a_global_ordering_is_not_cut_by_one_that_holds_only_per_partition():
    props = (
        Properties()
        .with_ordering([key("a"), key("b")])
        .with_ordering([key("b"), key("c")], partitioned_by=[col("p")])
    )
    assert props.satisfies([key("a"), key("b")])
    assert not props.satisfies([key("b")])
    assert props.satisfaction([key("b"), key("c")], within=[col("p")]).complete


def test_an_ordering_per_partition_with_unknown_partitioning_serves_nothing():
    # Files each sorted by a, but which rows share a file is unknown: [a] holds in no
    # group of rows, not even "all rows" (two files give 1, 2, 1, 2).
    props = Properties().with_ordering([key("a")], partitioned_by=[])
    assert not props.satisfies([key("a")])
    assert not props.satisfaction([key("a")], within=[col("b")]).complete


def test_arithmetic_on_int_and_bigint_is_a_bigint():
    # a int + b bigint is a bigint: CAST(... AS INT) narrows (TRY_CAST of 2^31 is NULL).
    props = (
        Properties(types={col("a"): "int", col("b"): "bigint"})
        .with_ordering([key("a")])
        .with_constant(col("b"), Expr.parse("2147483648"))
    )
    assert props.sort_property(Expr.parse("CAST(a + b AS INT)")) == UNORDERED
    assert props.sort_property(Expr.parse("CAST(a + b AS BIGINT)")) == SortProperty(ASC)
    assert props.sort_property(Expr.parse("CAST(a + 3000000000 AS INT)")) == UNORDERED


def test_arithmetic_with_a_decimal_is_not_an_integer():
    # a * 1.5 is a decimal: CAST(... AS INT) truncates and may overflow to NULL.
    props = Properties(types={col("a"): "int"}).with_ordering([key("a")])
    assert props.sort_property(Expr.parse("CAST(a * 1.5 AS INT)")) == UNORDERED
    assert props.sort_property(Expr.parse("CAST(a * 1.5 AS DOUBLE)")) == SortProperty(ASC)


def test_a_cast_that_can_fail_is_nullable():
    # TRY_CAST('x' AS INT) is NULL although 'x' is not: null placement matters.
    sorted_nulls_last = (
        Properties(types={col("s"): "string"})
        .with_not_null([col("s")])
        .sorted_by([key("CAST(s AS INT)", ASC_NULLS_LAST)])
    )
    assert not sorted_nulls_last.satisfies([key("CAST(s AS INT)", ASC)])
    assert sorted_nulls_last.nullable(Expr.parse("to_date(s, 'yyyy-MM-dd')"))


def test_a_widening_cast_of_a_non_null_value_is_not_null():
    props = (
        Properties(types={col("a"): "int"})
        .with_not_null([col("a")])
        .sorted_by([key("CAST(a AS BIGINT)", ASC_NULLS_LAST)])
    )
    assert props.satisfies([key("CAST(a AS BIGINT)", ASC)])


def test_projection_keeps_a_class_member_over_projected_columns():
    # WHERE a = CAST(b AS INT), then SELECT a, b: the equality still holds on the output.
    props = (
        Properties(types={col("a"): "int", col("b"): "double"})
        .with_equality(Expr.parse("CAST(b AS INT)"), col("a"))
        .with_ordering([key("a")])
    )
    projected = props.project([(col("a"), col("a")), (col("b"), col("b"))])
    cast, _ = projected.normalize_expr(Expr.parse("CAST(b AS INT)"))
    assert cast == projected.normalize_expr(col("a"))[0]
    assert projected.satisfies([key("CAST(b AS INT)")])


def test_projection_of_a_class_represented_by_an_expression_of_its_member_terminates():
    # Found by the pipeline property test: WHERE c * 2 = c puts c in a class represented
    # by c * 2; carrying that class through a projection recursed without end.
    props = (
        Properties(types={col("c"): "int", col("a"): "int"})
        .with_equality(Expr.parse("c * 2"), col("c"))
        .with_ordering([key("a")])
    )
    projected = props.project([(col("c"), col("p")), (col("a"), col("a"))])
    assert projected.satisfies([key("a")])
    doubled, _ = projected.normalize_expr(Expr.parse("p * 2"))
    assert doubled == projected.normalize_expr(col("p"))[0]


def test_an_expression_leading_two_orderings_in_two_directions_meets_either():
    # MIN(c5) OVER (PARTITION BY c1) is constant inside each c1: [c1, m] holds both ways.
    props = (
        Properties()
        .with_ordering([key("c1"), key("m", ASC_NULLS_LAST)])
        .with_ordering([key("c1"), key("m", SortOptions(descending=True, nulls_first=False))])
    )
    assert props.satisfies([key("c1"), key("m", ASC_NULLS_LAST)])
    assert props.satisfies([key("c1"), key("m", SortOptions(descending=True, nulls_first=False))])
    assert not props.satisfies([key("c1"), key("m", DESC)])


def test_an_ordering_goes_on_through_an_exact_image_of_its_key():
    # monotonic_projection_test_001/003 (DataFusion's slt): [a, b] over an INT a, projected to
    # CAST(a AS BIGINT) AS a_big. The cast keeps distinct values distinct, so rows with one
    # a_big have one a and come ordered by b: [a_big, b] holds, with a or without it.
    props = Properties(types={col("a"): "int", col("b"): "int"}).with_ordering([key("a"), key("b")])
    cast = Expr.parse("CAST(a AS BIGINT)")
    without_a = props.project([(cast, col("a_big")), (col("b"), col("b"))])
    assert without_a.satisfies([key("a_big"), key("b")])
    with_a = props.project([(col("a"), col("a")), (cast, col("a_big")), (col("b"), col("b"))])
    assert with_a.satisfies([key("a_big"), key("b")]) and with_a.satisfies([key("a"), key("b")])


def test_an_ordering_stops_after_a_cast_that_merges_values():
    # CAST(bigint AS DOUBLE) rounds: a = 2^53 and a = 2^53 + 1 give one value, and rows
    # (a=2^53+1, b=0) after (a=2^53, b=5) are ordered by [a, b], not by [CAST(a AS DOUBLE), b].
    props = Properties(types={col("a"): "bigint", col("b"): "int"}).with_ordering([key("a"), key("b")])
    rounded = props.project([(Expr.parse("CAST(a AS DOUBLE)"), col("d")), (col("b"), col("b"))])
    assert rounded.satisfies([key("d")])
    assert not rounded.satisfies([key("d"), key("b")])


def test_a_column_nothing_is_known_of_passed_on_twice_makes_equal_outputs():
    # SELECT b, a AS x, a AS y: x = y on every row, though nothing else is known of a.
    props = Properties().project([(col("b"), col("b")), (col("a"), col("x")), (col("a"), col("y"))])
    assert props.normalize_expr(col("y"))[0] == col("x")
    assert props.classes[0].members == (col("x"), col("y"))


def test_an_ordering_over_a_function_of_a_column_follows_the_column_renamed():
    # ORDER BY date_trunc('HOUR', t), then SELECT id, t AS u: no fact names t itself, yet the
    # rows are sorted by date_trunc('HOUR', u).
    props = Properties().with_ordering([key("date_trunc('HOUR', t)")])
    projected = props.project([(col("id"), col("id")), (col("t"), col("u"))])
    assert [str(k.expr) for f in projected.orderings for k in f.keys] == ["DATE_TRUNC('HOUR', u)"]
    assert projected.mentioned_columns() == [col("u")]
