"""The name Spark gives an output column.

The fix contract compares output names before and after a rewrite, so they must be Spark's:
the alias when there is one, the column's own name for a column reference (without its
qualifier), and otherwise the text Spark's analyzer prints for the expression. That last
case is approximated here - function names in lower case, string literals unquoted,
operators parenthesised, qualifiers dropped, a cast named after what it casts - and kept in
this one function so that it can be made exact in one place.
"""

from __future__ import annotations

from sqlglot import exp


def output_name(node: exp.Expression) -> str:
    """The output column name of a select item as written."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    if isinstance(node, exp.Dot):
        return node.name
    return _spark_text(node)


def _spark_text(node: exp.Expression) -> str:
    holder = exp.Tuple(expressions=[node.copy().transform(_spark_like)])
    for binary in list(holder.find_all(exp.Binary)):
        if not isinstance(binary.parent, exp.Paren):
            wrapper = exp.Paren()
            binary.replace(wrapper)
            wrapper.set("this", binary)
    return holder.expressions[0].sql(dialect="spark", normalize_functions="lower")


def _spark_like(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Column) and node.table:
        return exp.column(node.this.copy())
    if isinstance(node, exp.Literal) and node.is_string:
        return exp.var(node.this)
    if isinstance(node, exp.Cast):
        return node.this
    if isinstance(node, exp.Count) and isinstance(node.this, exp.Star):
        return exp.Count(this=exp.Literal.number(1))
    return node
