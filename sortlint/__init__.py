"""sortlint: an ordering-aware linter and rewriter for Spark data pipelines.

Importing this package is cheap: sqlglot is loaded by the modules that parse, and
PySpark, libcst and sqlfluff only by the front ends and proofs that need them.
"""

__version__ = "0.1.0"
