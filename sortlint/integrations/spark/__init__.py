"""The Spark commands: `catalog import`, `contracts` and `verify`, and the contracts report
`check` reads. Every module that needs PySpark imports it inside its functions (`session`
is the one place that starts Spark), so `check` never loads it.
"""
