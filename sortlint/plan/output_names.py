"""The name Spark gives an output column.

The fix contract compares output names before and after a rewrite, so they must be
Spark's: the alias when there is one, the column's own name for a column reference
(without its qualifier), and otherwise the text Spark's analyzer prints for the
expression, which `sortlint.rewriters.names` reproduces from the text as written.
"""

from __future__ import annotations

from sqlglot import exp

from sortlint.rewriters.names import UnknownName, spark_output_name


def output_name(node: exp.Expression, written: str | None = None) -> str:
    """The output column name of a select item; `written` is its text as written (no
    alias), which keeps what sqlglot's tree normalises away (function spellings)."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    if isinstance(node, exp.Dot):
        return node.name
    try:
        return spark_output_name(node, source=written)
    except (UnknownName, ValueError):
        return spark_output_name_fallback(node)


def spark_output_name_fallback(node: exp.Expression) -> str:
    """For expressions whose Spark name is not modelled: their SQL text, which at least
    names them the same way before and after a rewrite that does not touch them."""
    return node.sql(dialect="spark", comments=False)
