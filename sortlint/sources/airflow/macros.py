"""Airflow's Jinja in SQL: each `{{ ... }}` rendered as a placeholder no fix may edit.

`{{ params.x }}` / `{{ params['x'] }}` whose value the DAG fixes renders as that value, as
Airflow renders it by default (a run triggered with other params is not what is analysed);
any other expression is a placeholder (`sortlint.sources.sql.placeholders`). `{# ... #}`
renders as nothing. SQL with Jinja statements (`{% if %}`, `{% for %}`) is not analysed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sortlint.config import Config
from sortlint.sources.frontend import JINJA_MARK
from sortlint.sources.opaque import opaque_unit
from sortlint.sources.python.constants import UNKNOWN
from sortlint.sources.python.strings import MappedText
from sortlint.sources.sql.files import mapped_statements
from sortlint.sources.sql.placeholders import SqlScanner, placeholder, tag_end
from sortlint.units import Unit



def rendered_units(path: Path, raw: str, mapped: MappedText, params: dict, config: Config,
                   span: tuple[int, int] | None = None) -> list[Unit]:
    """One unit per statement of a decoded SQL text, its macros rendered as placeholders;
    one opaque unit (at `span` of `raw`, else the whole file) when they cannot be."""
    rendered = render_macros(mapped, params, config.dialect)
    if isinstance(rendered, str):
        start, end = span if span is not None else (0, len(raw))
        return [opaque_unit(path, raw, start, end, rendered)]
    return mapped_statements(path, raw, rendered, config.dialect)


def render_macros(mapped: MappedText, params: dict, dialect: str) -> MappedText | str:
    """The text with each `{{ ... }}` replaced by its placeholder and each `{# ... #}` by
    nothing, or why it cannot be rendered (a `{% ... %}` statement, an unclosed tag)."""
    tags = list(jinja_tags(mapped.text))
    if tags and isinstance(tags[-1], str):
        return tags[-1]
    replacements = []
    scanner = SqlScanner(mapped.text)
    for kind, start, end in tags:
        if kind == "{%":
            source = mapped.text[start:end]
            return f"Jinja statement {source} : templates with control flow are not analysed"
        if kind == "{#":
            replacements.append((start, end, "", f"the Jinja comment {_short(mapped.text[start:end])}"))
            continue
        source = mapped.text[start:end]
        state = scanner.state_at(start)
        before = mapped.text[start - 1] if start > 0 else ""
        after = mapped.text[end] if end < len(mapped.text) else ""
        inner = source[2:-2].strip("-+ \t\r\n")
        value = _param_value(inner, params)
        text = str(value) if value is not UNKNOWN else placeholder(source, inner, state, before, after, dialect)
        replacements.append((start, end, text, f"the Jinja expression {_short(source)}"))
    return mapped.substitute(replacements) if replacements else mapped


def jinja_tags(text: str) -> Iterator[tuple[str, int, int] | str]:
    """(kind, start, end) of each `{{ }}`, `{% %}` and `{# #}`; a string (the reason) when
    a tag is not closed."""
    position = 0
    while True:
        match = JINJA_MARK.search(text, position)
        if match is None:
            return
        kind, start = match.group(), match.start()
        close = {"{{": "}}", "{%": "%}", "{#": "#}"}[kind]
        end = tag_end(text, start + 2, close, kind != "{#")
        if end < 0:
            yield f"unclosed Jinja tag {_short(text[start:start + 30])}: not analysed"
            return
        yield kind, start, end
        position = end


_PARAM = re.compile(r"params\s*(?:\.\s*(?P<attr>[A-Za-z_]\w*)|\[\s*(?P<q>['\"])(?P<key>[^'\"]*)(?P=q)\s*\])\Z")


def _param_value(inner: str, params: dict) -> Any:
    match = _PARAM.match(inner)
    if match is None:
        return UNKNOWN
    name = match.group("attr") or match.group("key")
    value = params.get(name, UNKNOWN)
    if value is UNKNOWN or not (value is None or isinstance(value, (str, int, float, bool))):
        return UNKNOWN
    return value


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."
