"""How the rules' fixes are written in SQL text: drop a clause, drop items of a comma list,
reorder items, replace an item. Layout and comments around what changes are kept; a
clause alone on its lines takes its lines with it, leaving no blank line behind; a dropped
list item takes one comma and leaves the list as a person would have written it (no comma
alone on a line, no blank line, no trailing blanks - `remove_items`).

`FIXES` is the SQL front ends' `FixShapes` (see `sortlint.sources.registry`): a sort is its
clause, keys are items of their list, and a dropped group key's column is rewritten in the
select list under its old name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sortlint.diagnostics import Edit
from sortlint.ordering import Expr, SortOptions
from sortlint.plan import nodes as n
from sortlint.plan.aggregates import is_aggregate
from sortlint.plan.names import UnknownName, alias_needed, spark_output_name
from sortlint.plan.nodes import Span
from sortlint.plan.token_types import T
from sortlint.sources.frontend import FixContext, KeptColumn, Rewrite, WrittenKey
from sortlint.units import Unit

_NOT_BLANK = re.compile(r"[^ \t]")
_NOT_BLANK_OR_CR = re.compile(r"[^ \t\r]")

SORT_CLAUSES = {"global": "ORDER BY", "partition": "SORT BY"}


class SqlFixes:
    group_by = "GROUP BY"

    def remove_sort(self, context: FixContext, sort: n.Sort) -> list[Edit] | None:
        return remove_clause(context.unit, sort.span) if sort.span is not None else None

    def drop_sort_key(self, context: FixContext, sort: n.Sort, index: int) -> list[Edit] | None:
        return remove_items(context.unit, [item.span for item in sort.keys], {index})

    def reorder_group_keys(self, context: FixContext, aggregate: n.Aggregate, order: list[int]) -> Rewrite | None:
        if aggregate.implicit_keys:
            return None  # GROUP BY ALL: the order is the select list's
        spans = [key.span for key in aggregate.keys]
        return Rewrite(lambda: reorder_items(context.unit, spans, order))

    def drop_group_key(
        self, context: FixContext, aggregate: n.Aggregate, index: int, kept: KeptColumn
    ) -> list[Edit] | None:
        """Drop the key; rewrite the select items that showed it, under their old names. None
        when the statement reads the key anywhere else (HAVING, a window, QUALIFY, ORDER BY
        over the input, another select item), where it would no longer resolve, or when the
        keys are GROUP BY ALL's."""
        if aggregate.implicit_keys:
            return None
        unit, key = context.unit, aggregate.keys[index]
        project = _select_list(aggregate, key.expr, context)
        if project is None or _sorted_by_name(project, key.expr, context):
            return None
        edits = remove_items(unit, [k.span for k in aggregate.keys], {index})
        for column in project.columns:
            if column.span is None:
                return None
            if column.expr == key.expr:
                if not kept.duplicate:
                    name = _spark_name(column, unit)
                    text = _kept_text(aggregate, index, kept, project, unit)
                    if name is None or text is None:
                        return None
                    edits += replace(unit, column.span, f"{text} AS {alias_needed(name)}")
            elif _reads_outside_aggregates(column.expr, key.expr):
                return None  # the key is used in a way the rewrite cannot keep
        return edits

    def drop_window_key(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, index: int
    ) -> list[Edit] | None:
        """Drop the key from its list (or the whole PARTITION BY / ORDER BY when it is the
        only one), and alias an unaliased window column to the name Spark gave it before."""
        unit = context.unit
        items, span, position = function.key_list(index)
        if any(item.span is None for item in items):
            return None  # written in a WINDOW clause, which other windows may name too
        if len(items) == 1:
            if span is None:
                return None
            edits = remove_clause(unit, span)
        else:
            edits = remove_items(unit, [item.span for item in items], {position})
        names = _keep_window_column_names(window, function, context)
        return edits + names if names is not None else None

    def break_window_ties(
        self, context: FixContext, window: n.Window, function: n.WindowFunction, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        """Append `keys` to the window's ORDER BY (None when it has none: adding one would
        change the frame of an aggregate), and alias an unaliased window column to the name
        Spark gave it before."""
        if not function.order_by or any(item.span is None for item in function.order_by):
            return None  # none, or written in a WINDOW clause that other windows may name
        end = function.order_by[-1].span.end
        names = _keep_window_column_names(window, function, context)
        if names is None:
            return None
        separator = _list_separator(context.unit.text, [item.span for item in function.order_by])
        appended = "".join(separator + sort_keys_text([key]) for key in keys)
        return [context.unit.edit(end, end, appended), *names]

    def sort_text(self, scope: str, keys: list[WrittenKey]) -> str:
        return f"{SORT_CLAUSES[scope]} {sort_keys_text(keys)}"

    def establish_order(
        self, context: FixContext, write: n.Write, scope: str, keys: list[WrittenKey]
    ) -> list[Edit] | None:
        """The clause that establishes the layout, written where Spark takes it: it replaces
        the query's final sort, or is added at the end.

        A final ORDER BY stays one (it sorts each partition too). A SORT BY becomes an ORDER
        BY when the whole order is needed - with the DISTRIBUTE BY before it, which Spark
        does not take together with an ORDER BY; a CLUSTER BY likewise, or its distribution
        is kept as a DISTRIBUTE BY under the new SORT BY. Under a LIMIT the sort decides
        which rows are written, so nothing below the LIMIT changes: the query becomes a
        subquery sorted above it."""
        unit = context.unit
        top = write.children[0]
        limited = False
        while isinstance(top, (n.Project, n.Limit)):
            limited = limited or isinstance(top, n.Limit)
            top = top.children[0]
        if limited:
            return _sorted_above(unit, write, scope, keys)
        if isinstance(top, n.Sort):
            if top.span is None or top.clause not in ("ORDER BY", "SORT BY", "CLUSTER BY"):
                return None
            return _replaced_organization(unit, top, scope, keys)
        if isinstance(top, n.Repartition) and top.clause == "DISTRIBUTE BY" and scope == "global":
            return replace(unit, top.span, self.sort_text(scope, keys)) if top.span is not None else None
        end = _statement_end(unit)
        if end is None:
            return None
        separator = "\n" if "\n" in unit.text[:end].strip() else " "
        return [unit.edit(end, end, f"{separator}{self.sort_text(scope, keys)}")]


FIXES = SqlFixes()


def sort_keys_text(keys: list[WrittenKey]) -> str:
    """`a, b DESC, c NULLS LAST`: directions and null placements Spark's defaults leave out."""
    texts = []
    for key in keys:
        text = alias_needed(key.column)
        if key.options.descending:
            text += " DESC"
        if key.options != SortOptions.spark(key.options.descending):
            text += " NULLS FIRST" if key.options.nulls_first else " NULLS LAST"
        texts.append(text)
    return ", ".join(texts)


def _replaced_organization(unit: Unit, sort: n.Sort, scope: str, keys: list[WrittenKey]) -> list[Edit] | None:
    """The query's final sort clause (with a DISTRIBUTE BY that Spark would not take with
    the new clause) rewritten to establish the keys' order."""
    assert sort.span is not None
    order = f"ORDER BY {sort_keys_text(keys)}"
    if sort.clause == "ORDER BY":
        return replace(unit, sort.span, order)
    if scope == "partition":
        text = f"SORT BY {sort_keys_text(keys)}"
        if sort.clause == "CLUSTER BY":  # its distribution stays: only the sort changes
            text = f"DISTRIBUTE BY {', '.join(item.text for item in sort.keys)} {text}"
        return replace(unit, sort.span, text)
    below = sort.children[0] if sort.children else None
    if sort.clause == "SORT BY" and isinstance(below, n.Repartition) and below.clause == "DISTRIBUTE BY":
        if below.span is None:
            return None
        return replace(unit, Span(below.span.start, sort.span.end), order)
    return replace(unit, sort.span, order)


def _sorted_above(unit: Unit, write: n.Write, scope: str, keys: list[WrittenKey]) -> list[Edit] | None:
    """`SELECT * FROM (<query>) ORDER BY <keys>`: the query, limit and all, writes the same
    rows, under the same names and types, now in the layout's order. None when a key's name
    is not one output's alone (the outer sort could not name it) or the query is not found."""
    names = [name.lower() for name in n.output_names(write.children[0])]
    if any(names.count(key.column.lower()) != 1 for key in keys):
        return None
    bounds = _query_bounds(unit, write)
    if bounds is None:
        return None
    start, end = bounds
    return [
        unit.edit(start, start, "SELECT * FROM ("),
        unit.edit(end, end, f") {SORT_CLAUSES[scope]} {sort_keys_text(keys)}"),
    ]


def _query_bounds(unit: Unit, write: n.Write) -> tuple[int, int] | None:
    """Where the written query starts and ends: after the statement's head (`INSERT INTO t`,
    `CREATE TABLE t AS`) when it has one - a dbt model's statement is its query alone."""
    try:
        tokens = [t for t in sqlglot.tokenize(unit.text, read="spark") if t.token_type != T.SEMICOLON]
    except SqlglotError:
        return None
    if not tokens or write.span is None:
        return None
    head = [t for t in tokens if t.end < write.span.end]
    if any(t.token_type in (T.INSERT, T.CREATE) for t in head):
        rest = [t for t in tokens if t.start >= write.span.end]
        return (rest[0].start, tokens[-1].end + 1) if rest else None
    return tokens[0].start, tokens[-1].end + 1


def _statement_end(unit: Unit) -> int | None:
    """The end of the statement's last token (a `;` and comments after it aside)."""
    try:
        tokens = sqlglot.tokenize(unit.text, read="spark")
    except SqlglotError:
        return None
    tokens = [t for t in tokens if t.token_type != T.SEMICOLON]
    return tokens[-1].end + 1 if tokens else None


def _kept_text(
    aggregate: n.Aggregate, index: int, kept: KeptColumn, project: n.Project, unit: Unit
) -> str | None:
    """The text of what the dropped key's column shows instead (see `KeptColumn`)."""
    if kept.constant is not None:
        return kept.constant
    if kept.equal_to is not None:
        return _key_text(aggregate.keys[kept.equal_to], project, unit)
    if kept.any_value:
        text = _key_text(aggregate.keys[index], project, unit)
        return f"any_value({text})" if text is not None else None
    return None


def _key_text(key: n.GroupKey, project: n.Project, unit: Unit) -> str | None:
    """A group key as an expression: as written, or - for an ordinal (`GROUP BY 2`) or a
    select alias (`GROUP BY e1`) - the select item it names, without its alias."""
    column = _named_item(key, project)
    if column is None:
        return key.text
    if column.node is None or column.span is None:
        return None
    if isinstance(column.node, exp.Alias):
        value = column.node.this
        return value.sql(dialect="spark") if value is not None else None
    return unit.text[column.span.start : column.span.end]


def _named_item(key: n.GroupKey, project: n.Project) -> n.OutputColumn | None:
    """The select item a key names by position or by alias, if it names one."""
    if key.ordinal is not None:
        return project.columns[key.ordinal - 1] if key.ordinal <= len(project.columns) else None
    for column in project.columns:
        if column.aliased and column.expr == key.expr and column.name.lower() == key.text.strip("`").lower():
            return column
    return None


def _spark_name(column: n.OutputColumn, unit: Unit) -> str | None:
    """The name Spark gives a select item (its text as written feeds the name unless it has
    an alias); None when it is not one sortlint can compute."""
    if column.span is None or column.node is None:
        return None
    written = unit.text[column.span.start : column.span.end]
    try:
        return spark_output_name(column.node, source=None if column.aliased else written)
    except (UnknownName, ValueError):
        return None


def _select_list(node: n.Aggregate, key: Expr, context: FixContext) -> n.Project | None:
    """The projection above the aggregate (through HAVING, windows, QUALIFY and a sort over
    the input), if none of those reads `key`."""
    parent = context.parent(node)
    while isinstance(parent, (n.Filter, n.Window, n.Sort)):
        if any(_reads_outside_aggregates(e, key) for e in _expressions(parent)):
            return None
        parent = context.parent(parent)
    return parent if isinstance(parent, n.Project) else None


def _sorted_by_name(project: n.Project, key: Expr, context: FixContext) -> bool:
    """Whether an ORDER BY over the select list's outputs is written with a column the key
    reads (`ORDER BY u.k` for the output `u.k AS uk`): without the key it would name no
    output, nor resolve. A bare output name (`ORDER BY uk`) still names its output."""
    read = {(c.column_name, c.node.table) for c in key.columns if isinstance(c.node, exp.Column)}
    outputs = {column.name.lower() for column in project.columns}
    parent = context.parent(project)
    while isinstance(parent, (n.Distinct, n.Repartition, n.Sort, n.Limit)):
        for item in parent.keys if isinstance(parent, n.Sort) else ():
            if item.ordinal is not None:
                continue
            for column in sqlglot.parse_one(f"SELECT 1 ORDER BY {item.text}", read="spark").find_all(exp.Column):
                name, table = column.name.lower(), column.table.lower()
                if not table and name in outputs:
                    continue
                if any(name == read_name and table in ("", read_table) for read_name, read_table in read):
                    return True
        parent = context.parent(parent)
    return False


def _expressions(node: n.Node) -> list[Expr]:
    if isinstance(node, n.Filter):
        return list(node.conjuncts)
    if isinstance(node, n.Window):
        return [function.expr for function in node.functions]
    if isinstance(node, n.Sort):
        return [item.expr for item in node.keys]
    return []


def _reads_outside_aggregates(expr: Expr, key: Expr) -> bool:
    """Whether `expr` reads the key's columns other than inside an aggregate call (a window
    function's own call reads the grouped rows: it does not count as one)."""
    columns = {c for c in key.columns}
    for column in expr.node.find_all(exp.Column):
        if Expr.of(column) in columns and not _inside_aggregate(column):
            return True
    return expr == key


def _inside_aggregate(node: exp.Expression) -> bool:
    parent = node.parent
    while parent is not None:
        if is_aggregate(parent) and not (isinstance(parent.parent, exp.Window) and parent.arg_key == "this"):
            return True
        parent = parent.parent
    return False


def _keep_window_column_names(
    window: n.Window, function: n.WindowFunction, context: FixContext
) -> list[Edit] | None:
    """Aliases for the unaliased select items showing the window function, whose name is
    its text: the name Spark gave them before the function's text changes."""
    edits = []
    for column in _columns_showing(window, function, context):
        if column is None or column.span is None:
            return None
        if not column.aliased:
            name = _spark_name(column, context.unit)
            if name is None:
                return None
            edits.append(context.unit.edit(column.span.end, column.span.end, f" AS {alias_needed(name)}"))
    return edits


def _columns_showing(window: n.Window, function: n.WindowFunction, context: FixContext):
    """The select items whose expression contains the window function (None when the
    window's output is read somewhere the fix cannot follow)."""
    parent = context.parent(window)
    while isinstance(parent, n.Filter):
        parent = context.parent(parent)
    if not isinstance(parent, n.Project):
        return [None]
    return [
        column
        for column in parent.columns
        if column.expr == function.expr or any(
            sub is not None and sub == function.expr.node for sub in column.expr.node.find_all(exp.Window)
        )
    ]


def remove_clause(unit: Unit, span: Span) -> list[Edit]:
    text = unit.text
    line_start = text.rfind("\n", 0, span.start) + 1
    after = _skip_blanks(text, span.end)
    alone_before = text[line_start : span.start].strip() == ""
    alone_after = after >= len(text) or text[after] in "\r\n"
    if alone_before and alone_after and line_start > 0:
        # The clause owns its lines: remove them, from the line break before it.
        return [unit.edit(_line_break_before(text, line_start), after, "")]
    if span.start > 0 and text[span.start - 1] == "(":
        # First inside parentheses (`OVER (PARTITION BY a ORDER BY b)`): take the space after.
        return [unit.edit(span.start, _skip_blanks_and_breaks(text, span.end, len(text)), "")]
    start = span.start
    while start > 0 and text[start - 1] in " \t\r\n":
        start -= 1
    return [unit.edit(start, span.end, "")]


def remove_items(unit: Unit, items: Sequence[Span], drop: set[int]) -> list[Edit]:
    """Drop items of a comma-separated list, each with one comma, leaving the list as a
    person would have written it (see `_tidy`); comments stay.

    An item before the first kept one takes the comma after it, and the next item takes its
    place and indentation; one after the last kept item takes the comma before it; one
    between kept items takes the comma on its side of the list's layout: after it where
    commas end lines (`a,` / `b,`), before it where they start them (`a` / `, b`).
    """
    if len(drop) >= len(items):
        raise ValueError("cannot drop every item of a list")
    text = unit.text
    kept = sorted(set(range(len(items))) - drop)
    cuts: list[tuple[int, int]] = []
    for index in sorted(drop):
        item = items[index]
        before = max((k for k in kept if k < index), default=None)
        after = min((k for k in kept if k > index), default=None)
        if before is None or (after is not None and _commas_end_lines(text, items, before)):
            comma = _comma_between(text, item.end, items[index + 1].start)
            if before is None and text[item.end : comma].strip() == "":
                cuts.append((item.start, _skip_blanks_and_breaks(text, comma + 1, items[index + 1].start)))
                continue
        else:
            comma = _comma_between(text, items[index - 1].end, item.start)
        between = text[item.end : comma] if comma > item.start else text[comma + 1 : item.start]
        if between.strip(" \t") == "":
            cuts.append((min(item.start, comma), max(item.end, comma + 1)))  # with the blanks between
        else:
            cuts += [(item.start, item.end), (comma, comma + 1)]
    return [unit.edit(start, end, "") for start, end in _tidy(text + _rest_of_line(unit), cuts)]


def _rest_of_line(unit: Unit) -> str:
    """The file's text after the unit's on the unit's last line when it is a comment, which
    the layout of that line includes - but nothing when the statement's `;` comes first (it
    joins the line before, as the statement's end) or the line ends, or when the unit's text
    is not cut verbatim from the file."""
    if unit.offsets is not None:
        return ""
    raw, start = unit.raw, unit.raw_offset(len(unit.text))
    # Looked at from the unit's end only: on a file of one long line, the rest of the line
    # is the rest of the file, which a copy for every fix made quadratic.
    first = _past_blanks(raw, start)
    if first >= len(raw) or raw[first] in ";\n":
        return ""
    end = raw.find("\n", start)
    rest = raw[start : end if end >= 0 else len(raw)]
    return rest if rest.strip(" \t\r") else ""


def _past_blanks(text: str, position: int) -> int:
    """Where the spaces and tabs from `position` end."""
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _list_separator(text: str, items: Sequence[Span]) -> str:
    """What goes before one more item at the end of a list, as the list is laid out: the
    text between its last two items when they are one per line (a comment there is not
    repeated), a comma and a new line at the indentation of a single item that starts its
    line, else a comma and a space."""
    last = items[-1]
    line_start = text.rfind("\n", 0, last.start) + 1
    if text[line_start : last.start].strip():
        return ", "
    if len(items) == 1:
        return ",\n" + text[line_start : last.start]
    gap = text[items[-2].end : last.start]
    if gap.replace(",", "", 1).strip() == "":
        return gap
    return ",\n" + text[line_start : last.start]


def _commas_end_lines(text: str, items: Sequence[Span], index: int) -> bool:
    """Whether the comma after item `index` is on the item's line (`a,`), not the next's."""
    return "\n" not in text[items[index].end : _comma_between(text, items[index].end, items[index + 1].start)]


def _comma_between(text: str, start: int, end: int) -> int:
    """The comma separating two items, past comments between them (`--`, `/* */`, and
    Python's `#` in a DataFrame call)."""
    position = start
    while 0 <= position < end:
        if text.startswith(("--", "#"), position):
            position = text.find("\n", position, end)
        elif text.startswith("/*", position):
            position = text.find("*/", position, end)
            position = position + 2 if position >= 0 else -1
        elif text[position] == ",":
            return position
        else:
            position += 1
    raise ValueError("no comma between list items")


def _tidy(text: str, cuts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The cuts, widened so that what is left reads as written by hand: a line left blank
    goes, with its line break; blanks a cut leaves at the end of a line go; blanks after a
    cut at the start of a line's content go (what follows takes the indentation); of blanks
    on both sides of a cut inside a line, the left ones stay."""
    # Worked out per run of removed text and per kept stretch between runs, never per
    # character: the list of a 3 MB `IN (...)` is one line of that length.
    removed = _merged(cuts)
    widened = list(removed)
    for start, end, gaps in _cut_lines(text, removed):
        kept = [(start, gaps[0][0]), *((a[1], b[0]) for a, b in zip(gaps, gaps[1:])), (gaps[-1][1], end)]
        if not any(_NOT_BLANK_OR_CR.search(text, a, b) for a, b in kept):
            widened += _without_cr(text, kept)
            if start > 0:  # the line break before it, a CRLF whole
                widened.append((start - 2 if start > 1 and text[start - 2] == "\r" else start - 1, start))
            elif end < len(text):  # the first line of the text: the line break after it
                widened += [(p, p + 1) for a, b in kept for p in range(a, b) if text[p] == "\r"]
                widened.append((end, end + 1))
            continue
        widened += _widened_gaps(text, kept)
    return _merged(widened)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted [start, end) spans as the runs they cover, touching ones joined."""
    runs: list[tuple[int, int]] = []
    for start, end in sorted(span for span in spans if span[0] < span[1]):
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]))
        else:
            runs.append((start, end))
    return runs


def _cut_lines(text: str, removed: list[tuple[int, int]]) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """The lines left with a cut in them, each as its start, its end (the kept line break
    ending it, or the end of the text) and its cuts; a cut line break joins two lines."""
    lines: list[tuple[int, int, list[tuple[int, int]]]] = []
    for cut in removed:
        if lines and text.find("\n", lines[-1][2][-1][1], cut[0]) < 0:
            lines[-1][2].append(cut)
        else:
            lines.append((text.rfind("\n", 0, cut[0]) + 1, 0, [cut]))
    ends = [text.find("\n", gaps[-1][1]) for _, _, gaps in lines]
    return [(start, len(text) if end < 0 else end, gaps) for (start, _, gaps), end in zip(lines, ends)]


def _without_cr(text: str, kept: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The kept stretches less their carriage returns (a CRLF's own stays whole)."""
    return [(a + match.start(), a + match.end()) for a, b in kept for match in re.finditer(r"[^\r]+", text[a:b])]


def _widened_gaps(text: str, kept: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """What goes beside each cut of a line that keeps more than blanks; `kept` are the kept
    stretches of the line, one more than its cuts, the cut `g` between `kept[g]` and
    `kept[g + 1]`."""
    count = len(kept)
    # first[i] / last[i]: the first / last character of kept[i] that is not a blank (-1: none)
    first = [-1 if (m := _NOT_BLANK.search(text, a, b)) is None else m.start() for a, b in kept]
    last = [_last_not_blank(text, a, b) for a, b in kept]
    # next_text[i]: the first non-blank at or after kept[i]; previous_text[i]: the last at or before it
    next_text = [-1] * (count + 1)
    for i in reversed(range(count)):
        next_text[i] = first[i] if first[i] >= 0 else next_text[i + 1]
    previous_text = [-1] * count
    for i in range(count):
        previous_text[i] = last[i] if last[i] >= 0 else (previous_text[i - 1] if i else -1)
    # whether kept[i:] holds only blanks and carriage returns
    blank_after = [True] * (count + 1)
    for i in reversed(range(count)):
        blank_after[i] = blank_after[i + 1] and _NOT_BLANK_OR_CR.search(text, *kept[i]) is None
    # the last kept character at or before kept[i] (-1: none)
    previous_char = [-1] * count
    for i, (a, b) in enumerate(kept):
        previous_char[i] = b - 1 if b > a else (previous_char[i - 1] if i else -1)
    line_end = kept[-1][1]
    widened: list[tuple[int, int]] = []
    cleared_from = count  # kept[cleared_from:] are widened whole (less carriage returns)
    for gap in range(count - 1):
        left_end, right_start = kept[gap][1], kept[gap + 1][0]
        leading_blanks = (right_start, line_end if next_text[gap + 1] < 0 else next_text[gap + 1])
        if previous_text[gap] < 0:  # at the start of the line's content: what follows takes the indentation
            widened.append(leading_blanks)
        elif blank_after[gap + 1]:  # at its end: no trailing blanks
            cleared_from = min(cleared_from, gap + 1)
            widened.append((previous_text[gap] + 1, left_end))
        elif previous_char[gap] >= 0 and text[previous_char[gap]] in " \t":  # blanks on both sides: the left ones stay
            widened.append(leading_blanks)
    return widened + _without_cr(text, kept[cleared_from:])


def _last_not_blank(text: str, start: int, end: int) -> int:
    """The last character of text[start:end] that is not a blank (-1: none)."""
    position = end - 1
    while position >= start and text[position] in " \t":
        position -= 1
    return position if position >= start else -1


def reorder_items(unit: Unit, items: Sequence[Span], order: Sequence[int]) -> list[Edit]:
    """Put the item texts in `order` (order[i] = which item goes to position i)."""
    texts = [unit.text[s.start : s.end] for s in items]
    return [
        unit.edit(span.start, span.end, texts[source])
        for position, (span, source) in enumerate(zip(items, order))
        if source != position
    ]


def replace(unit: Unit, span: Span, content: str) -> list[Edit]:
    return [unit.edit(span.start, span.end, content)]


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _skip_blanks_and_breaks(text: str, position: int, limit: int) -> int:
    while position < limit and text[position] in " \t\r\n":
        position += 1
    return position


def _line_break_before(text: str, line_start: int) -> int:
    """The offset of the line break ending the previous line (CRLF counts whole)."""
    position = line_start - 1
    if position > 0 and text[position - 1] == "\r":
        position -= 1
    return position
