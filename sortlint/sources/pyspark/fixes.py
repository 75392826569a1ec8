"""Fix shapes for DataFrame pipelines: the rules' edits, written as the DataFrame API needs.

* a sort goes as a whole call: `.orderBy(...)` is removed from its chain, with its line when
  it stands alone on one (its trailing comment and `\\` continuation included, the
  continuation of the line before when it was the chain's last), else exactly the call;
* sort keys, window keys and group keys are arguments: dropped with their commas (a window
  spec's only `.partitionBy(...)` goes whole, or keeps `()` when it is the spec's first call, so
  that what remains is a WindowSpec, not `Window` itself);
* `groupBy` keys are reordered where they are written, and because a DataFrame
  aggregation outputs its keys first and in `groupBy` order, a trailing `.select(...)` of
  the original column order is appended to the aggregation (`.agg(...)`, `.count()`). When a
  name is not one sortlint is sure Spark gives (see `sortlint.sources.pyspark.columns`), the fix is unsafe:
  the `.select` must name the columns exactly;
* a dropped group key stays in the output as its constant, `F.expr("'a'").alias(name)`, or
  else as `F.any_value(key).alias(name)` (the same value in every row of a group), with the
  same trailing `.select` when the column order moved.

Each shape returns None when the rewrite cannot be made exactly: keys unpacked from a list
written elsewhere (`*KEYS`), directions in a separate `ascending=[...]` list, names that are
not all known or not unique. `FIXES` is the PySpark front end's `FixShapes` (see
`sortlint.sources.registry`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sortlint.diagnostics import Applicability, Edit
from sortlint.ordering import SortOptions
from sortlint.plan import nodes as n
from sortlint.sources.frontend import FixContext, KeptColumn, Rewrite, WrittenKey
from sortlint.sources.sql.fixes import remove_items, reorder_items


def remove_call(unit, span: n.Span) -> list[Edit]:
    """Remove a method call (`.orderBy(...)`, from its dot) from a chain, keeping the layout."""
    raw, base = unit.raw, unit.start
    start, end = base + span.start, base + span.end
    line_start = raw.rfind("\n", 0, start) + 1
    line_end = raw.find("\n", end)
    line_end = len(raw) if line_end < 0 else line_end
    content_end = line_end - 1 if line_end > 0 and raw[line_end - 1] == "\r" else line_end
    before = raw[line_start:start]
    rest = raw[end:content_end].strip()
    alone = before.strip() == "" and (rest == "" or rest == "\\" or rest.startswith("#"))
    previous_end = line_start - 1  # the previous line's "\n"
    previous_start = raw.rfind("\n", 0, max(previous_end, 0)) + 1
    previous = raw[previous_start:previous_end].rstrip("\r").rstrip() if line_start > 0 else ""

    def at(offset: int) -> int:
        return offset - base

    if alone and line_start > 0:
        if rest != "\\" and previous.endswith("\\"):
            # The chain's last line: the line before loses its continuation.
            cut = previous_start + len(previous[:-1].rstrip())
            return [unit.edit(at(cut), at(content_end), "")]
        if line_end < len(raw):
            return [unit.edit(at(line_start), at(line_end + 1), "")]
        return [unit.edit(at(previous_end - (1 if raw[previous_end - 1 : previous_end] == "\r" else 0)),
                     at(line_end), "")]
    if before.strip() == "" and rest.startswith(")") and line_start > 0:
        if "#" not in previous and not previous.endswith("\\") and previous:
            # `.orderBy(x))` closing the chain: the parenthesis joins the line before.
            return [unit.edit(at(previous_start + len(previous)), at(end), "")]
    return [unit.edit(span.start, span.end, "")]


class DataFrameFixes:
    group_by = "groupBy"

    def remove_sort(self, context: FixContext, sort: n.Sort) -> list[Edit] | None:
        return remove_call(context.unit, sort.span) if sort.span is not None else None

    def drop_sort_key(self, context: FixContext, sort: n.Sort, index: int) -> list[Edit] | None:
        info = getattr(sort, "dataframe", None)
        if info is None or not info.editable:
            return None
        return remove_items(context.unit, [item.span for item in sort.keys], {index})

    def reorder_group_keys(self, context: FixContext, aggregate: n.Aggregate, order: list[int]) -> Rewrite | None:
        """The keys in `order`, and the output's columns in their old order."""
        info = getattr(aggregate, "dataframe", None)
        if info is None or not info.keys_editable:
            return None
        names = _unique_names(info)
        if names is None:
            return None
        spans = [key.span for key in aggregate.keys]
        unit = context.unit

        def edits() -> list[Edit]:
            return reorder_items(unit, spans, order) + [_select_after(unit, info, names)]

        trust = Applicability.SAFE if info.certain else Applicability.UNSAFE
        return Rewrite(edits, ", then .select the columns in their old order", trust)

    def drop_group_key(
        self, context: FixContext, aggregate: n.Aggregate, index: int, kept: KeptColumn
    ) -> list[Edit] | None:
        """Drop the key; keep its column with its constant, `F.expr("'a'").alias(name)`, or
        else `F.any_value(key).alias(name)` where the rule allows it (any value of a group is
        the one the key had)."""
        info = getattr(aggregate, "dataframe", None)
        if info is None or not info.keys_editable or not info.certain or info.functions is None:
            return None
        if not (kept.duplicate or kept.constant is not None or kept.any_value):
            return None
        names = _unique_names(info)
        if names is None:
            return None
        unit = context.unit
        key = aggregate.keys[index]
        name = info.key_names[index]
        edits = remove_items(unit, [k.span for k in aggregate.keys], {index})
        functions = info.functions
        if kept.constant is not None:
            # The value as Spark SQL text, typed as the key was: no aggregate to compute.
            shown = f"{functions}.expr({_literal(kept.constant)}).alias({_literal(name)})"
        else:
            shown = f"{functions}.any_value({key.text}).alias({_literal(name)})"
        if info.method == "agg":
            if not info.args or key.text.count(".alias(") or _is_dict(unit, info.args[0]):
                return None
            if not kept.duplicate:
                edits.append(unit.edit(info.args[0].start, info.args[0].start, f"{shown}, "))
        elif info.method == "count":
            count = f"{functions}.count({functions}.lit(1)).alias(\"count\")"
            parts = [count] if kept.duplicate else [shown, count]
            edits.append(unit.edit(info.call.start, info.call.end, f".agg({', '.join(parts)})"))
        else:
            return None
        if kept.duplicate or index != len(aggregate.keys) - 1:  # the columns moved
            edits.append(_select_after(unit, info, names))
        return edits

    def drop_window_key(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, index: int
    ) -> list[Edit] | None:
        """Drop the key from the window spec's `partitionBy(...)` / `orderBy(...)`; a column
        that shows the window unaliased gets `.alias(<old name>)`."""
        uses = getattr(window, "dataframe", None)
        if uses is None:
            return None
        info = uses[window.functions.index(function)]
        if not info.editable:
            return None
        unit = context.unit
        items, call, position = function.key_list(index)
        if len(items) == 1:
            if call is None:
                return None
            if call == info.first_call:
                edits = [unit.edit(items[0].span.start, items[0].span.end, "")]
            else:
                edits = remove_call(unit, call)
        else:
            edits = remove_items(unit, [item.span for item in items], {position})
        for span, name, named in info.columns:
            if named:
                continue
            if span is None or name is None:
                return None
            edits.append(unit.edit(span.end, span.end, f".alias({_literal(name)})"))
        return edits

    def break_window_ties(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        return None  # not written for DataFrame window specs yet: no fix

    def sort_text(self, scope: str, keys: list[WrittenKey]) -> str:
        method = SORT_METHODS[scope]
        arguments = ", ".join(_sort_argument(key) for key in keys)
        return f".{method}({arguments})"

    def establish_order(
        self, context: FixContext, write: n.Write, scope: str, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        """The sort call right before `.write` takes the keys, or one is added there. Only
        ascending keys with nulls first are written: a descending one needs `functions`,
        which the fix does not know the import of."""
        if write.span is None or any(key.options != SortOptions.spark() for key in keys):
            return None
        unit, call = context.unit, self.sort_text(scope, keys)
        last = write.children[0]
        if isinstance(last, n.Sort) and last.span is not None:
            if last.clause == "orderBy" or last.clause == "sort":
                call = self.sort_text("global", keys)
            return [unit.edit(last.span.start, last.span.end, call)]
        return [unit.edit(write.span.start, write.span.start, call)]


FIXES = DataFrameFixes()
SORT_METHODS = {"global": "orderBy", "partition": "sortWithinPartitions"}


def _sort_argument(key: WrittenKey) -> str:
    """A sort key as a DataFrame sort call takes it: the column's name, with its direction
    (`F.desc(...)`-style names for the message only)."""
    name = _literal(_attribute(key.column))
    if key.options == SortOptions.spark():
        return name
    direction = "desc" if key.options.descending else "asc"
    nulls = "_nulls_first" if key.options.nulls_first else "_nulls_last"
    if key.options == SortOptions.spark(key.options.descending):
        nulls = ""
    return f"F.{direction}{nulls}({name})"


def _unique_names(info) -> list[str] | None:
    """The aggregation's output names, when every one is known and no two are alike."""
    names = info.names
    if any(name is None for name in names) or len({name.lower() for name in names}) != len(names):
        return None
    return list(names)


def _select_after(unit, info, names: Sequence[str]) -> Edit:
    columns = ", ".join(_literal(_attribute(name)) for name in names)
    return unit.edit(info.call.end, info.call.end, f".select({columns})")


def _attribute(name: str) -> str:
    """A column name as `select("...")` reads it: backquoted unless a plain identifier."""
    if name.replace("_", "a").isalnum() and not name[:1].isdigit():
        return name
    return "`" + name.replace("`", "``") + "`"


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _is_dict(unit, span: n.Span) -> bool:
    return unit.text[span.start : span.end].lstrip().startswith("{")

