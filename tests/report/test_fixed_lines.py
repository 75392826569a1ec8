"""The whole lines a fix changes, before and after, from its raw edits."""

from __future__ import annotations

from sortlint.diagnostics import Edit
from sortlint.report.fixed_lines import LineChange, changed_lines, lines_of


def edit(raw: str, old: str, new: str) -> Edit:
    """An edit replacing the first `old` in `raw` by `new` (positions as offsets only)."""
    start = raw.index(old)
    return Edit(0, 0, 0, 0, new, start, start + len(old))


RAW = "SELECT host\nFROM events\nWHERE host = 'a'\nORDER BY time;\n"


def test_removing_a_clause_across_a_line_end_joins_two_lines_into_one():
    assert changed_lines(RAW, [edit(RAW, "\nORDER BY time", "")]) == LineChange(
        3, 4, ("WHERE host = 'a'", "ORDER BY time;"), ("WHERE host = 'a';",)
    )


def test_removing_whole_lines_leaves_no_line():
    assert changed_lines(RAW, [edit(RAW, "ORDER BY time;\n", "")]) == LineChange(4, 4, ("ORDER BY time;",), ())


def test_an_insertion_changes_the_line_it_is_in():
    assert changed_lines(RAW, [edit(RAW, "", "-- new\n")]) == LineChange(1, 1, ("SELECT host",), ("-- new", "SELECT host"))


def test_several_edits_span_the_lines_from_the_first_to_the_last():
    edits = [edit(RAW, "host\n", "host, time\n"), edit(RAW, "time;", "host;")]
    assert changed_lines(RAW, edits) == LineChange(
        1, 4,
        ("SELECT host", "FROM events", "WHERE host = 'a'", "ORDER BY time;"),
        ("SELECT host, time", "FROM events", "WHERE host = 'a'", "ORDER BY host;"),
    )


def test_crlf_line_ends_are_not_part_of_the_lines():
    raw = RAW.replace("\n", "\r\n")
    assert changed_lines(raw, [edit(raw, "ORDER BY time", "ORDER BY host")]) == LineChange(
        4, 4, ("ORDER BY time;",), ("ORDER BY host;",)
    )


def test_a_last_line_without_a_line_end():
    raw = "SELECT 1\nORDER BY 1"
    assert changed_lines(raw, [edit(raw, "\nORDER BY 1", "")]) == LineChange(1, 2, ("SELECT 1", "ORDER BY 1"), ("SELECT 1",))


from hypothesis import given
from hypothesis import strategies as st

from sortlint.diagnostics import apply_edits

LINES = st.lists(st.sampled_from(["", "a", "bb", "ORDER BY x", "x\r"]), max_size=8)


@st.composite
def text_and_edits(draw):
    raw = "\n".join(draw(LINES)) + draw(st.sampled_from(["", "\n"]))
    cuts = sorted(draw(st.lists(st.integers(0, len(raw)), min_size=2, max_size=6)))
    pairs = list(zip(cuts[::2], cuts[1::2]))
    edits = [Edit(0, 0, 0, 0, draw(st.sampled_from(["", "z", "\n", "q\nr"])), a, b) for a, b in pairs]
    return raw, edits


@given(text_and_edits())
def test_the_changed_lines_replaced_by_their_new_text_give_the_fixed_file(case):
    """What a reviewer applying the suggestion gets: lines first..last of the file replaced
    by `after` are the fixed file's lines."""
    raw, edits = case
    change = changed_lines(raw, edits)
    lines = lines_of(raw)
    assert lines[change.first - 1 : change.last] == change.before
    assert lines[: change.first - 1] + change.after + lines[change.last :] == lines_of(apply_edits(raw, edits))
