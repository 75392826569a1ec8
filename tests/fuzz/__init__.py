"""Differential fuzzers: sortlint's fixes and SL001 claims checked against real engines.

Everything here drives sortlint through its command line only (`python -m sortlint check`),
never through its internals, so the fuzzers keep working while the package is reorganised.

* `catalogs` — seeded catalogs (sortlint.yml) and table data that really satisfies them;
* `queries` — seeded Spark SQL / DataFusion SQL queries and PySpark pipelines over them;
* `cli` — runs sortlint over a batch of cases (check, --fix, --fix --unsafe-fixes);
* `spark_engine`, `datafusion_engine` — the two differential harnesses;
* `shrink`, `reproducers` — minimal reproducers of each failure;
* `run` — the `make fuzz` entry point (`python -m fuzz.run`, with tests/ on the path).
"""
