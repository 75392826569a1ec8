"""Python expressions whose value the file fixes: constants, as far as sortlint can see them.

One evaluator serves every front end that reads Python (Airflow DAG files, PySpark jobs):
literals of every kind (strings through `sortlint.sources.python.strings`, numbers, `True`,
`False`, `None`, lists, tuples, dicts), names the front end knows a value of, `-x`, `+` of
strings or lists, arithmetic on numbers, and the path arithmetic DAG files use to find their
template folders (`Path(__file__).parent / "sql"`, `os.path.join(os.path.dirname(__file__),
"sql")`). Anything else is `UNKNOWN`: a value known only at run time, of which nothing is
concluded.

Nodes are libcst's, recognised by their class names: this module never imports libcst.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path, PurePath
from typing import Any

from sortlint.sources.python.strings import Field, FormatField, SourceSpans, decode, is_bytes, is_string


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()  # a value not known before run time

MAX_DEPTH = 20  # names bound to names bound to ...: deeper is unknown (and stops a cycle)
_NAMED = {"True": True, "False": False, "None": None}
_PATH_FUNCTIONS = {
    "os.path.join": os.path.join,
    "os.path.dirname": os.path.dirname,
    "os.path.abspath": os.path.normpath,
    "os.path.realpath": os.path.normpath,
    "os.path.normpath": os.path.normpath,
}
_LONGEST_REPETITION = 10_000  # `"-" * n` is folded only when the result stays small


def literal(node: Any) -> Any:
    """The value of a number literal or of `True`, `False`, `None`; UNKNOWN for any other node."""
    kind = type(node).__name__
    if kind in ("Integer", "Float"):
        return ast.literal_eval(node.value)
    if kind == "Name" and node.value in _NAMED:
        return _NAMED[node.value]
    return UNKNOWN


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def negated(value: Any) -> Any:
    """`-value` of a number; UNKNOWN otherwise."""
    return -value if is_number(value) else UNKNOWN


def fold(operator: str, left: Any, right: Any) -> Any:
    """`left <operator> right` of two constants (`+ - * /`); UNKNOWN when the operation is not
    one a constant can take here."""
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    numbers = is_number(left) and is_number(right)
    if operator == "+":
        if numbers or (type(left) is type(right) and isinstance(left, (str, list, tuple))):
            return left + right
    elif operator == "-" and numbers:
        return left - right
    elif operator == "*":
        if numbers:
            return left * right
        if isinstance(left, str) and isinstance(right, int) and not isinstance(right, bool):
            if len(left) * right <= _LONGEST_REPETITION:
                return left * right
    elif operator == "/" and isinstance(left, PurePath) and isinstance(right, (str, PurePath)):
        return left / right
    return UNKNOWN


def formatted(value: Any, conversion: str | None, has_format_spec: bool) -> Any:
    """The text an f-string field of this value renders, when it is a plain constant."""
    if value is UNKNOWN or has_format_spec or isinstance(value, (list, tuple, dict)):
        return UNKNOWN
    convert = {"r": repr, "a": ascii}.get(conversion or "", str)
    return convert(value)


def format_text(field: FormatField, style: str, value: Any) -> Any:
    """What Python writes for a known argument in a field of `str.format` (style "format")
    or `%` (style "%"); UNKNOWN when the value is not a plain constant or does not format."""
    if value is UNKNOWN or isinstance(value, (list, tuple, dict, PurePath)):
        return UNKNOWN
    try:
        if style == "%":
            return ("%" + (field.format_spec or "s")) % (value,) if field.conversion is None else (
                repr(value) if field.conversion == "r" else ascii(value))
        convert = {"r": repr, "a": ascii, "s": str}.get(field.conversion or "s", str)
        converted = convert(value) if field.conversion else value
        return format(converted, field.format_spec)
    except (TypeError, ValueError):
        return UNKNOWN


class Evaluator:
    """Evaluates expressions of one Python file. A front end says what its names hold by
    overriding `name_value`; `file` is the path `__file__` names (None: unknown)."""

    def __init__(self, raw: str, spans: SourceSpans, file: Path | None = None) -> None:
        self.raw = raw
        self.spans = spans
        self.file = file

    def name_value(self, name: str, depth: int) -> Any:
        """The value a name holds where it is read; UNKNOWN unless the front end knows."""
        return UNKNOWN

    def evaluate(self, node: Any, depth: int = 0) -> Any:
        """The value of an expression when it is fixed in the file, else UNKNOWN."""
        if node is None or depth > MAX_DEPTH:
            return UNKNOWN
        kind = type(node).__name__
        if is_string(node):
            return UNKNOWN if is_bytes(node) else self._string(node, depth)
        value = literal(node)
        if value is not UNKNOWN:
            return value
        if kind == "Name":
            if node.value == "__file__":
                return UNKNOWN if self.file is None else str(self.file.resolve())
            return self.name_value(node.value, depth)
        if kind == "UnaryOperation" and type(node.operator).__name__ == "Minus":
            return negated(self.evaluate(node.expression, depth + 1))
        if kind in ("List", "Tuple"):
            values = [self.evaluate(e.value, depth + 1) for e in node.elements]
            return UNKNOWN if any(v is UNKNOWN for v in values) else values
        if kind == "Dict":
            return self._dict_value(node, depth)
        if kind == "BinaryOperation":
            operator = {"Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/"}.get(
                type(node.operator).__name__, "?"
            )
            return fold(operator, self.evaluate(node.left, depth + 1), self.evaluate(node.right, depth + 1))
        if kind == "Attribute":
            value = self.evaluate(node.value, depth + 1)
            if isinstance(value, PurePath) and node.attr.value == "parent":
                return value.parent
            return UNKNOWN
        if kind == "Call":
            return self._call(node, depth)
        if kind == "Subscript" and len(node.slice) == 1 and type(node.slice[0].slice).__name__ == "Index":
            container = self.evaluate(node.value, depth + 1)
            key = self.evaluate(node.slice[0].slice.value, depth + 1)
            if isinstance(container, dict) and isinstance(key, (str, int)):
                return container.get(key, UNKNOWN)
            if isinstance(container, list) and isinstance(key, int) and -len(container) <= key < len(container):
                return container[key]
        return UNKNOWN

    def field_value(self, info: Field, depth: int = 0) -> Any:
        """The text of an f-string field whose expression is a constant, else UNKNOWN."""
        if info.has_format_spec:
            return UNKNOWN
        return formatted(self.evaluate(info.expression, depth + 1), info.conversion, False)

    def _string(self, node: Any, depth: int) -> Any:
        fields: list[Any] = []

        def field_text(info: Field) -> str | None:
            value = self.field_value(info, depth)
            fields.append(value)
            return None if value is UNKNOWN else str(value)

        text = decode(node, self.raw, self.spans, field_text).text
        return UNKNOWN if any(v is UNKNOWN for v in fields) else text

    def _dict_value(self, node: Any, depth: int) -> Any:
        result = {}
        for element in node.elements:
            if type(element).__name__ != "DictElement":
                return UNKNOWN
            key = self.evaluate(element.key, depth + 1)
            if key is UNKNOWN or not isinstance(key, (str, int)):
                return UNKNOWN
            result[key] = self.evaluate(element.value, depth + 1)  # values may be UNKNOWN
        return result

    def _call(self, node: Any, depth: int) -> Any:
        name = dotted_name(node.func)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if name is None:
            # Path(...).resolve() / .absolute()
            func = node.func
            if type(func).__name__ == "Attribute" and func.attr.value in ("resolve", "absolute"):
                value = self.evaluate(func.value, depth + 1)
                return value if isinstance(value, PurePath) else UNKNOWN
            return UNKNOWN
        last = name.rsplit(".", 1)[-1]
        if name == "Variable.get" or name.endswith(".Variable.get"):
            # Airflow's Variable.get("x", default_var=...): analysed with its default
            default = keywords.get("default_var", keywords.get("default", positional[1] if len(positional) > 1 else None))
            return UNKNOWN if default is None else self.evaluate(default, depth + 1)
        if last.endswith("Param"):  # Airflow's Param(default, ...) / Param(default=...)
            default = keywords.get("default", positional[0] if positional else None)
            return UNKNOWN if default is None else self.evaluate(default, depth + 1)
        if name == "dict" and not positional:
            return {k: self.evaluate(v, depth + 1) for k, v in keywords.items()}
        args = [self.evaluate(a, depth + 1) for a in positional]
        if any(a is UNKNOWN for a in args) or (keywords and name != "dict"):
            return UNKNOWN
        if name in ("Path", "pathlib.Path", "PurePath", "pathlib.PurePath") and all(
            isinstance(a, (str, PurePath)) for a in args
        ):
            return Path(*args) if args else Path(".")
        if name == "str" and len(args) == 1 and isinstance(args[0], (str, PurePath, int, float)):
            return str(args[0])
        if name in _PATH_FUNCTIONS and args and all(isinstance(a, (str, PurePath)) for a in args):
            return str(_PATH_FUNCTIONS[name](*[str(a) for a in args]))
        return UNKNOWN


def dotted_name(node: Any) -> str | None:
    """`a.b.c` of a name or attribute chain; None for anything else."""
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None
