"""SL301 write-breaks-layout: writes into tables whose catalog entry declares an ordering."""

LAYOUTS = """
    target: {target}
    sources:
      staging: {{columns: {{id: int not null, k: int, p: string not null}}}}
      daily:
        columns: {{id: int not null, k: int, p: string not null}}
        orderings: [[id]]
        scope: partition
        partitioned_by: [p]
      plain:
        columns: {{id: int not null, k: int, p: string not null}}
        orderings: [[id, k desc]]
      buckets:
        columns: {{id: int not null, k: int, p: string not null}}
        orderings: [[k]]
        bucketing: {{by: [k], buckets: 4, sorted_by: [k]}}
"""


def test_a_partitioned_layout_sorted_without_its_partition_column(lint):
    assert lint("INSERT INTO daily SELECT id, k, p FROM staging DISTRIBUTE BY p SORT BY id", catalog=LAYOUTS) == [(
        "SL301",
        1,
        "the write into daily does not keep its layout, the declared ordering [id ASC NULLS FIRST] of "
        "daily (sortlint.yml:7) in each partition of (p): each writing task's rows must be sorted by the partition columns first: "
        "SORT BY p, id (Spark sorts a partitioned write by p unless the query already does, and drops a "
        "sort that does not start with them); the rows come sorted by [id ASC NULLS FIRST] in each "
        "partition only",
    )]


def test_what_keeps_a_partitioned_layout(codes):
    for clause in ("SORT BY p, id", "DISTRIBUTE BY p SORT BY p, id", "ORDER BY p, id", "CLUSTER BY p, id"):
        assert codes(f"INSERT INTO daily SELECT id, k, p FROM staging {clause}", catalog=LAYOUTS) == [], clause
    # A partition column fixed by WHERE does not spare Spark's own sort by it.
    assert codes("INSERT INTO daily SELECT id, k, p FROM staging WHERE p = 'a' SORT BY id", catalog=LAYOUTS) == [
        ("SL301", 1)
    ]
    assert codes("INSERT INTO daily SELECT id, k, p FROM staging ORDER BY id", catalog=LAYOUTS) == [("SL301", 1)]


def test_a_global_layout_needs_a_final_order_by(lint):
    assert lint("CREATE TABLE plain AS SELECT id, k, p FROM staging SORT BY id, k DESC", catalog=LAYOUTS) == [(
        "SL301",
        1,
        "the write into plain does not keep its layout, the declared ordering [id ASC NULLS FIRST, k DESC "
        "NULLS LAST] of plain (sortlint.yml:12): the rows need a final ORDER BY id, k DESC; the rows come sorted by "
        "[id ASC NULLS FIRST, k DESC NULLS LAST] in each partition only",
    )]
    assert lint("INSERT INTO plain SELECT id, k, p FROM staging ORDER BY id, k DESC", catalog=LAYOUTS) == []
    # A key the query fixes is in order anywhere.
    assert lint("INSERT INTO plain SELECT id, k, p FROM staging WHERE k = 3 ORDER BY id", catalog=LAYOUTS) == []


def test_an_insert_maps_the_columns_by_position(codes):
    # The table's (id, k, p) are filled by the query's (k, id, p): its id is the table's k.
    assert codes("INSERT INTO plain SELECT k, id, p FROM staging ORDER BY id, k DESC", catalog=LAYOUTS) == [
        ("SL301", 1)
    ]
    assert codes("INSERT INTO plain SELECT k, id, p FROM staging ORDER BY k, id DESC", catalog=LAYOUTS) == []


def test_columns_the_query_does_not_name_decide_nothing(codes):
    assert codes("CREATE TABLE plain AS SELECT k AS a, p FROM staging", catalog=LAYOUTS) == []


def test_a_bucketed_table_is_sorted_by_spark_itself(codes):
    assert codes("INSERT INTO buckets SELECT id, k, p FROM staging", catalog=LAYOUTS) == []


def test_writes_are_not_modelled_under_datafusion(codes):
    assert codes("INSERT INTO plain SELECT id, k, p FROM staging", target="datafusion", catalog=LAYOUTS) == []


def test_a_view_stores_no_layout(codes):
    assert codes("CREATE VIEW plain AS SELECT id, k, p FROM staging", catalog=LAYOUTS) == []
