"""Catalogs shared by several test modules."""

# The catalog of the fix shapes (tests/rewriters/test_fixes.py), which the Spark proofs
# run again against real Spark. `events` is stored ordered by (host, time) - a layout Spark
# does not read in order; `customers` is bucketed and sorted, read with the setting that makes
# Spark report each bucket's order, and holds one region; `host_days` is written sorted by
# host inside each day's partition.
FIX_SHAPES_CATALOG = """\
target: spark
spark: {legacy_bucketed_scan_ordering: true}
sources:
  events:
    columns: {event_id: bigint not null, host: string not null, time: timestamp not null, level: string, latency_ms: int}
    orderings: [[host, time]]
    unique: [[event_id]]
  customers:
    columns: {customer_id: bigint not null, region: string not null, name: string}
    bucketing: {by: [customer_id], buckets: 4, sorted_by: [customer_id, region]}
    constants: {region: EU}
  host_days:
    columns: {host: string not null, day: date not null, events: bigint not null}
    orderings: [[host]]
    scope: partition
    partitioned_by: [day]
  orders:
    columns: {order_id: bigint not null, day: date, amount: "decimal(12,2)", qty: bigint, price: double, code: string}
"""

# The catalog of the rule specifications (tests/rules): a telemetry and sales warehouse.
RULES_CATALOG = """
target: {target}
sources:
  events:
    columns:
      event_id: bigint not null
      host: string not null
      time: timestamp not null
      level: string
      latency_ms: int
      price: double
      price_cloned: double
    orderings:
      - [host, time]
    unique: [[event_id]]
  orders:
    columns:
      order_id: bigint not null
      customer_id: bigint not null
      created_at: timestamp not null
      amount: double
    orderings:
      - [created_at]
  customers:
    columns:
      customer_id: bigint not null
      name: string
    orderings:
      - [customer_id]
    unique: [[customer_id]]
"""
