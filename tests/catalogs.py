"""Catalogs shared by several test modules."""

# The catalog of the fix shapes (tests/rewriters/test_fixes.py), which the Spark proofs
# run again against real Spark.
FIX_SHAPES_CATALOG = """\
target: spark
spark: {replace_hash_with_sort_agg: true}
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
    unique: [[event_id]]
  customers:
    columns: {customer_id: bigint not null, region: string not null, name: string}
    orderings: [[customer_id, region]]
    engine_known: true
  orders:
    columns: {order_id: bigint not null, day: date, amount: "decimal(12,2)", qty: bigint, price: double, code: string}
"""
