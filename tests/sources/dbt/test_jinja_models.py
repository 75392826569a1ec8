"""Templated SQL (Jinja, dbt models): rendering, the map back to raw text, findings at raw
lines, and fixes that never touch the template.

The awkward places are the point: an ORDER BY inside `{% if is_incremental() %}`, a clause
split across a Jinja expression, a sort that a macro wrote, a loop body rendered twice, a
constant that came from `var()`, CRLF files. Each test states the exact findings (path,
line, code) and the exact text `sortlint check --fix --unsafe-fixes` leaves.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import Config, DbtOptions, load_config
from sortlint.diagnostics import UneditableRegion
from sortlint.errors import InternalError, UserError
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.rendering import Rendered, Slice, TemplateMap, jinja_units, normalize_newlines
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import units_of
from sortlint.workspace.check import check

CATALOG = """\
target: datafusion
sources:
  shop.orders:
    columns:
      order_id: bigint not null
      customer_id: bigint not null
      day: date not null
      created_at: timestamp not null
      currency: string not null
      amount: int
    constants: {day: '2024-01-01', created_at: '2024-01-01 00:00:00'}
    unique: [[order_id]]
    engine_known: true
"""

# The same table, stored sorted instead of holding one day.
ORDERED = CATALOG.replace(
    "constants: {day: '2024-01-01', created_at: '2024-01-01 00:00:00'}", "orderings: [[day, created_at]]"
)

MACROS = """\
{% macro sorted_by(columns) -%}
order by {{ columns }}
{%- endmacro %}
"""


def make_project(root: Path, models: dict[str, str], *, catalog: str = CATALOG) -> Path:
    """A dbt project `shop` at `root` with these models (name -> SQL), its macros, and
    sortlint.yml beside it."""
    (root / "sortlint.yml").write_text(catalog)
    (root / "dbt_project.yml").write_text("name: shop\nvars:\n  currency: EUR\n")
    (root / "macros").mkdir(parents=True, exist_ok=True)
    (root / "macros" / "sorting.sql").write_text(MACROS)
    for name, sql in models.items():
        path = root / "models" / f"{name}.sql"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sql.encode())
    return root


def findings(root: Path, options: DbtOptions = DbtOptions()) -> list[tuple[str, int, str]]:
    result = check([root], replace(load_config(root / "sortlint.yml"), dbt=options))
    assert not result.all_errors, result.all_errors
    return [(f.path.relative_to(root).as_posix(), f.line, f.code) for f in result.findings]


def fixes(root: Path, name: str, options: DbtOptions = DbtOptions()) -> list:
    """The fixes (applicability, message) of the findings in one model."""
    result = check([root / "models" / f"{name}.sql"], replace(load_config(root / "sortlint.yml"), dbt=options))
    return [(f.code, f.fix.applicability, f.fix.message) if f.fix else (f.code, None) for f in result.findings]


def fixed(root: Path, name: str, options: DbtOptions = DbtOptions()) -> str:
    """The model's text after `sortlint check --fix --unsafe-fixes` on the project, with
    `options` given as the command line gives them."""
    flags = ["--incremental"] if options.incremental else []
    for name_, value in options.vars:
        flags += ["--var", f"{name_}={value}"]
    code = main(["check", "--fix", "--unsafe-fixes", *flags, "--config", str(root / "sortlint.yml"), str(root)])
    assert code in (0, 1)
    return (root / "models" / f"{name}.sql").read_bytes().decode()


# ---------------------------------------------------------------------------------------------
# The map from rendered to raw text


def rendering(raw: str, **options) -> tuple[str, TemplateMap]:
    [unit] = jinja_units(Path("/nowhere/q.sql"), raw, Reading(Config(**options)))
    return unit.text, unit.offsets


def test_literal_offsets_map_exactly_and_expression_output_maps_to_its_start():
    raw = "select a,\n  {{ 'b' ~ 'c' }} as x\nfrom t"
    text, offsets = rendering(raw)
    assert text == "select a,\n  bc as x\nfrom t"
    assert offsets.to_raw(text.index("as x")) == raw.index("as x")
    assert offsets.to_raw(text.index("from")) == raw.index("from")
    assert offsets.to_raw(text.index("bc")) == raw.index("{{")
    assert offsets.to_raw(text.index("bc") + 1) == raw.index("{{")  # inside the output
    assert offsets.to_raw(len(text)) == len(raw)


def test_a_range_starting_after_a_tag_starts_after_it_in_the_raw_text():
    raw = "select a\nfrom t\n{% if true %}\norder by a\n{% endif %}\n"
    text, offsets = rendering(raw)
    assert text == "select a\nfrom t\n\norder by a"
    start = text.index("\norder")
    assert offsets.to_raw(start) == raw.index("\norder")
    assert offsets.uneditable(start, len(text)) is None
    # Reaching back over the tag would delete it.
    assert offsets.uneditable(text.index("t\n") + 1, len(text)) == (
        "the edit would touch the template tag {% if true %} at line 3"
    )


def test_uneditable_names_what_an_edit_would_touch():
    raw = "select a, {{ 'b' }} {# note #} as x\nfrom t\norder by a"
    text, offsets = rendering(raw)
    assert text == "select a, b  as x\nfrom t\norder by a"
    b = text.index("b ")
    assert offsets.uneditable(b, b + 1) == "the edit would touch the template expression {{ 'b' }} at line 1"
    assert offsets.uneditable(b - 2, b) is None  # up to the expression, not into it
    assert offsets.uneditable(b, b) is None  # an insertion before it lands before it
    assert offsets.uneditable(b + 1, b + 1) is None  # and after it, after it
    assert offsets.uneditable(b + 1, b + 3) == (
        "the edit would touch the template comment {# note #} at line 1"
    )
    assert offsets.uneditable(text.index("order"), len(text)) is None


def test_a_loop_body_rendered_twice_is_not_editable():
    raw = "select\n{% for c in ['a', 'b'] %}  {{ c }} + 1 as {{ c }}1,\n{% endfor %}  z\nfrom t"
    text, offsets = rendering(raw)
    assert text == "select\n  a + 1 as a1,\n  b + 1 as b1,\n  z\nfrom t"
    plus = text.index("+ 1")
    assert offsets.to_raw(plus) == raw.index("+ 1")
    assert offsets.uneditable(plus, plus + 3) == "the edit would touch text inside a {% for %} loop at line 2"
    assert offsets.uneditable(text.index("z"), len(text)) is None


def test_crlf_files_map_through_the_normalised_rendering():
    raw = "select a,\r\n  {{ 'b' }} as x\r\nfrom t\r\norder by a"
    assert normalize_newlines(raw) == (raw.replace("\r\n", "\n"), (9, 26, 33))
    text, offsets = rendering(raw)
    assert text == "select a,\n  b as x\nfrom t\norder by a"
    assert offsets.to_raw(text.index("\nfrom")) == raw.index("\r\nfrom")
    assert offsets.to_raw(text.index("\nfrom") + 1) == raw.index("from")
    assert offsets.to_raw(text.index("order")) == raw.index("order")
    assert offsets.encode("x\ny") == "x\r\ny"


def test_inserted_text_may_not_copy_what_an_expression_rendered():
    raw = "select a from t where c = '{{ 'EUR' }}'"
    _, offsets = rendering(raw)
    with pytest.raises(UneditableRegion, match=r"would copy 'EUR', the output of the template \{\{ 'EUR' \}\} at line 1"):
        offsets.encode("'EUR' AS c")
    assert offsets.encode("any_value(c) AS c") == "any_value(c) AS c"
    assert offsets.encode("EURO") == "EURO"  # whole words only


def test_slices_are_contiguous_in_the_rendered_text():
    rendered = Rendered("ab", (Slice("literal", 0, 1, 0, 1), Slice("templated", 1, 8, 1, 2)))
    offsets = TemplateMap(rendered, 0, "a{{ b }}")
    assert [offsets.to_raw(i) for i in range(3)] == [0, 1, 8]


# ---------------------------------------------------------------------------------------------
# Which files are templated


def test_plain_sql_is_left_to_the_sql_front_end(tmp_path):
    path = tmp_path / "q.sql"
    assert jinja_units(path, "select 1", Reading(Config())) is None
    assert [u.text for u in units_of(path, "select 1; select 2", Reading(Config()))] == ["select 1", "select 2"]


def test_a_model_without_jinja_is_still_a_model(tmp_path):
    root = make_project(tmp_path, {"plain": "select order_id from shop.orders"})
    [unit] = jinja_units(root / "models" / "plain.sql", "select order_id from shop.orders", Reading(Config()))
    assert unit.kind == dbt.MODEL_KIND


def test_macro_files_define_macros_not_queries(tmp_path):
    root = make_project(tmp_path, {})
    assert jinja_units(root / "macros" / "sorting.sql", MACROS, Reading(Config())) == []


def test_templated_sql_outside_a_dbt_project(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (tmp_path / "q.sql").write_text(
        "{% set table = 'shop.orders' %}\n"
        "select day, created_at from {{ table }}\n"
        "order by day, created_at;\n"
        "select * from {{ ref('m') }}\n"
    )
    [first, second] = jinja_units(tmp_path / "q.sql", (tmp_path / "q.sql").read_text(), Reading(Config()))
    assert second.text == "select * from m"
    assert findings(tmp_path) == [("q.sql", 3, "SL001")]


def test_checking_plain_sql_never_imports_sqlfluff(tmp_path):
    (tmp_path / "q.sql").write_text("select a from t order by a, a\n")
    script = (
        "import sys\n"
        "import sortlint\n"
        "from sortlint.cli import main\n"
        f"main(['check', {str(tmp_path / 'q.sql')!r}])\n"
        "assert 'sqlfluff' not in sys.modules, 'sqlfluff was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------------------------
# Findings and fixes in awkward places

INCREMENTAL = """\
{{ config(materialized='incremental') }}
select order_id, day, created_at
from {{ source('shop', 'orders') }}
{% if is_incremental() %}
where created_at > (select max(created_at) from {{ this }})
order by day, created_at
{% endif %}
"""


def test_an_order_by_inside_is_incremental_is_not_rendered_by_default(tmp_path):
    root = make_project(tmp_path, {"events": INCREMENTAL})
    assert findings(root) == []
    assert fixed(root, "events") == INCREMENTAL


def test_an_order_by_inside_is_incremental_is_fixed_inside_the_block(tmp_path):
    root = make_project(tmp_path, {"events": INCREMENTAL})
    incremental = DbtOptions(incremental=True)
    assert findings(root, incremental) == [("models/events.sql", 6, "SL001")]
    assert fixed(root, "events", incremental) == (
        "{{ config(materialized='incremental') }}\n"
        "select order_id, day, created_at\n"
        "from {{ source('shop', 'orders') }}\n"
        "{% if is_incremental() %}\n"
        "where created_at > (select max(created_at) from {{ this }})\n"
        "{% endif %}\n"
    )


SPLIT = """\
select order_id, day, created_at
from {{ source('shop', 'orders') }}
order by {{ var('day_column', 'day') }},
         created_at
"""


def test_a_clause_split_across_an_expression_is_reported_and_left_alone(tmp_path):
    root = make_project(tmp_path, {"split": SPLIT})
    assert findings(root) == [("models/split.sql", 3, "SL001")]
    assert fixes(root, "split") == [
        (
            "SL001",
            "unavailable",
            "remove the ORDER BY: the edit would touch the template expression "
            "{{ var('day_column', 'day') }} at line 3",
        )
    ]
    assert fixed(root, "split") == SPLIT


NEXT_TO = """\
select order_id, currency, created_at
from {{ source('shop', 'orders') }}
where currency = 'EUR'
order by currency, {{ var('sort_key', 'order_id') }}
"""


def test_a_key_next_to_an_expression_is_dropped_without_touching_it(tmp_path):
    root = make_project(tmp_path, {"next_to": NEXT_TO})
    assert findings(root) == [("models/next_to.sql", 4, "SL003")]
    assert fixed(root, "next_to") == NEXT_TO.replace(
        "order by currency, {{", "order by {{"
    )


def test_an_expression_key_is_never_dropped(tmp_path):
    model = (
        "select day, created_at\n"
        "from {{ source('shop', 'orders') }}\n"
        "where day = '2024-01-01'\n"
        "order by {{ var('k', 'day') }}, created_at\n"
    )
    root = make_project(tmp_path, {"pinned": model})
    assert findings(root) == [("models/pinned.sql", 4, "SL001")]
    [(code, applicability, message)] = fixes(root, "pinned")
    assert applicability == "unavailable"
    assert message.endswith("the edit would touch the template expression {{ var('k', 'day') }} at line 4")


def test_a_sort_a_macro_wrote_points_at_the_macro_call(tmp_path):
    model = (
        "select day, created_at\n"
        "from {{ source('shop', 'orders') }}\n"
        "  {{ sorted_by('day, created_at') }}\n"
    )
    root = make_project(tmp_path, {"by_macro": model})
    result = check([root], load_config(root / "sortlint.yml"))
    [finding] = result.findings
    assert (finding.code, finding.line, finding.column) == ("SL001", 3, 3)
    assert finding.fix.applicability == "unavailable"
    assert fixed(root, "by_macro") == model


def test_a_constant_from_var_is_not_written_into_the_model(tmp_path):
    model = (
        "select day, currency, count(*) as n\n"
        "from {{ source('shop', 'orders') }}\n"
        "where currency = '{{ var(\"currency\") }}'\n"
        "group by day, currency\n"
    )
    root = make_project(tmp_path, {"per_day": model}, catalog=ORDERED)
    assert findings(root) == [("models/per_day.sql", 4, "SL103")]
    assert fixes(root, "per_day") == [
        (
            "SL103",
            "unavailable",
            "drop the group key currency: the new text would copy 'EUR', the output of the "
            "template {{ var(\"currency\") }} at line 3",
        )
    ]
    assert fixed(root, "per_day") == model


def test_a_key_repeated_in_a_loop_body_is_reported_once_and_not_fixed(tmp_path):
    model = (
        "select\n"
        "{% for n in [1, 2] %}"
        "  row_number() over (partition by day order by day, created_at) as rn{{ n }},\n"
        "{% endfor %}"
        "  order_id\n"
        "from {{ source('shop', 'orders') }}\n"
    )
    root = make_project(tmp_path, {"looped": model}, catalog=ORDERED)
    assert findings(root) == [("models/looped.sql", 2, "SL201")]
    [(_, applicability, message)] = fixes(root, "looped")
    assert (applicability, message.split(": ", 1)[1]) == (
        "unavailable",
        "the edit would touch text inside a {% for %} loop at line 2",
    )
    assert fixed(root, "looped") == model


def test_crlf_model_is_fixed_with_its_line_breaks(tmp_path):
    model = (
        "select order_id, day, created_at\r\n"
        "from {{ source('shop', 'orders') }}\r\n"
        "where currency = 'EUR'\r\n"
        "order by day, currency, created_at\r\n"
    )
    root = make_project(tmp_path, {"crlf": model})
    assert findings(root) == [("models/crlf.sql", 4, "SL001")]
    assert fixed(root, "crlf") == (
        "select order_id, day, created_at\r\n"
        "from {{ source('shop', 'orders') }}\r\n"
        "where currency = 'EUR'\r\n"
    )


def test_noqa_on_the_raw_line_silences_a_templated_finding(tmp_path):
    model = (
        "select day, created_at\n"
        "from {{ source('shop', 'orders') }}\n"
        "order by day, created_at  -- noqa: SL001\n"
    )
    root = make_project(tmp_path, {"quiet": model})
    assert findings(root) == []


# ---------------------------------------------------------------------------------------------
# Models that do not render


BROKEN = {
    "undefined_var": ("select a\nfrom t\nwhere b = {{ var('nope') }}\n", 3,
                      "cannot render template: required var 'nope' not found: set it under vars: "
                      "in dbt_project.yml, give var() a default, or pass --var"),
    "unknown_macro": ("select a,\n  {{ cents('a') }}\nfrom t\n", 2,
                      "cannot render template: Undefined jinja template variable: 'cents'"),
    "undefined_name": ("select a\nfrom t\n\nwhere {{ flag }}\n", 4,
                       "cannot render template: Undefined jinja template variable: 'flag'"),
    "bad_syntax": ("select a\nfrom t\n{% if x %}\nwhere a = 1\n", 3,
                   "cannot render template: Jinja syntax error: Unexpected end of template. "
                   "Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. "
                   "The innermost block that needs to be closed is 'if'."),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_model_that_does_not_render_is_reported_at_its_line(tmp_path, name):
    sql, line, message = BROKEN[name]
    root = make_project(tmp_path, {name: sql})
    with pytest.raises(UserError) as raised:
        jinja_units(root / "models" / f"{name}.sql", sql, Reading(Config()))
    assert (raised.value.path, raised.value.line, raised.value.message) == (
        root / "models" / f"{name}.sql", line, message
    )


def test_the_rest_of_the_project_is_still_checked(tmp_path, capsys):
    root = make_project(
        tmp_path,
        {
            "a_broken": BROKEN["undefined_var"][0],
            "b_fine": "select day, created_at from {{ source('shop', 'orders') }} order by day, created_at\n",
            "c_reads_broken": "select * from {{ ref('a_broken') }}\n",
        },
    )
    assert main(["check", "--config", str(root / "sortlint.yml"), str(root)]) == 2
    out, err = capsys.readouterr()
    assert f"{root / 'models' / 'b_fine.sql'}:1:60: SL001" in out
    assert f"error: {root / 'models' / 'a_broken.sql'}:3: cannot render template: required var 'nope'" in err


@pytest.mark.parametrize("template, message", [
    # the tracer renders a template again; one whose output changes from render to render
    # cannot be mapped back to its text
    ("select '{{ config(n=(config.get('n') or '') ~ 'xxxx') }}{{ config.get('n') }}' as x\n",
     "cannot render template: its rendering cannot be traced back to its text (Length of "
     "templated file mismatch with final slice: 23 != 19.)"),
    # the template's own code raised: the template's error, not sortlint's
    ("select {{ 1 / 0 }} as x\n", "cannot render template: ZeroDivisionError: division by zero"),
])
def test_a_template_that_cannot_be_rendered_or_traced_is_the_files_error(tmp_path, template, message):
    path = tmp_path / "q.sql"
    with pytest.raises(UserError) as raised:
        jinja_units(path, template, Reading(Config()))
    assert (raised.value.path, raised.value.message) == (path, message)
    assert not isinstance(raised.value, InternalError)


@pytest.mark.parametrize("template", [
    "select {{ col }} from t {% if flag %}order by {{ col }}{% endif %}\n",
    "{%- set cols = ['a', 'b'] -%}\nselect\n{% for c in cols %}  {{ c }}{{ ',' if not loop.last }}\n{% endfor %}from t\n",
    "{% macro m(x) -%} upper({{ x }}) {%- endmacro %}select {{ m('a') }} as a, {{ nope }} as b\n",  # undefined
    "select {{ nope.attr }} from t\n",  # undefined, then used: sqlfluff's own error
    "select {% if %} from t\n",  # a syntax error
    "select {{ 'a' | nofilter }} from t\n",  # an unknown filter: found while compiling
    "select {{ 1 / 0 }} as x\n",
    "select a from t -- {# a comment #}\n",
    "select a from t\n",  # no template at all
    # rendered once, from the traced copy: whitespace control, loops, raw text, captured text
    "select a{# c #} from t{%- if flag -%}  where x  {%- endif %}\n",
    "select {%- for c in ['a', 'b', 'c'] -%}\n  {{ c }}{%- if c == 'b' %}{% break %}{% endif -%},\n{%- endfor %}\nfrom t",
    "select {% for i in [] %}{{ i }}{% else %}1{% endfor %} as a {%- if not flag %} from t {% elif flag %} from u {% endif %}\n",
    "{%- set x = 1 -%}\n{%- do [].append(1) -%}\nselect {{ x }}\n   {#- comment -#}\n   from t   \n",
    "select 1 {{ '' }}{{ ' ' }}{{ '\n' }}from t{{ \"\" }}",
    "{% raw %}{{ not jinja }}{% endraw %}select 1\n",
    "select {{ col ~ '_12' }} _12 {% raw %}0_12{% endraw %} from t\n",  # digits after a marker
    "{% macro m(x) %}  lit {{ x }} lit2\n{% endmacro %}select {{ m(1) }}, {{ m('y') -}}\n  from t\n",
    "{% set q %}select 1 as {{ col }}{% endset %}select * from ({{ q }}) s\n",
    "{% macro w() %}[{{ caller() }}]{% endmacro %}{% call w() %}body {{ 1 }}{% endcall %} from t\n",
    "{%- if flag -%}{%- endif -%}",
    "{# only a comment #}",
    "select {{ '\\0x' }} as a from t\n",  # a NUL no marker wrote
    # the traced copy would pass its markers through a filter: the file is compiled too
    "{% filter upper %}select a from t{% endfilter %}\n",
    "{% macro m() %}{% set x %}a{% endset %}lit {{ x }}{% endmacro %}select '{{ m() | upper }}' as c\n",
    "select {% for x in [[1, [2]], [3]] recursive %}({{ x[0] }}{{ loop(x[1]) if x[1:] else '' }}){% endfor %}\n",
    "{% block b %}select {{ col }} from t{% endblock %}\n",
])
def test_the_templater_renders_and_traces_as_sqlfluffs_own_process(template):
    """sortlint's templater compiles a file's traced copy only, or else the file once, where
    sqlfluff compiles three templates; what it returns, or raises, is what sqlfluff's own
    `process` returns or raises."""
    from sqlfluff.core.templaters import JinjaTemplater

    from sortlint.sources.dbt.rendering import _fluff_config, _templater

    def processed(process):
        templater = _templater()(override_context={"col": "a", "flag": True})
        try:
            templated, violations = process(templater, in_str=template, fname="q.sql", config=_fluff_config())
        except Exception as error:  # noqa: BLE001  compared with what the other raised
            return type(error).__name__, str(error), getattr(error, "line_no", None)
        return (templated.templated_str, templated.sliced_file, templated.raw_sliced,
                [(v.desc(), v.line_no, v.line_pos) for v in violations])

    ours = processed(_templater().process)
    assert ours == processed(JinjaTemplater.process)
    assert ours[0] not in ("AttributeError", "TypeError", "NameError")  # not a bug of the test


@pytest.mark.parametrize("template, compiled", [
    ("select {{ col }} from t {% if flag %}order by {{ col }}{% endif %}\n", ["copy"]),
    ("select {{ nope }} from t\n", ["copy", "file"]),  # where the undefined name is
    # the file compiled as sqlfluff does, and its copy again to render it
    ("{% filter upper %}select a from t{% endfilter %}\n", ["copy", "file", "copy"]),
])
def test_the_templater_compiles_only_the_traced_copy_where_it_renders_as_the_file(
    monkeypatch, template, compiled
):
    """The file's rendering is the traced copy's with its markers replaced, so only the copy
    is parsed and compiled; the file too where the copy's rendering could pass markers
    through a filter, or to find where an undefined name is (the rendering is sqlfluff's:
    `test_the_templater_renders_and_traces_as_sqlfluffs_own_process`)."""
    from jinja2 import Environment

    from sortlint.sources.dbt.rendering import _fluff_config, _templater

    parsed = []
    parse = Environment._parse

    def counted(self, source, name, filename):
        parsed.append("file" if source == template else "copy" if "\0" in source else source)
        return parse(self, source, name, filename)

    monkeypatch.setattr(Environment, "_parse", counted)
    _templater()(override_context={"col": "a", "flag": True}).process(
        in_str=template, fname="q.sql", config=_fluff_config())
    assert parsed == compiled


@pytest.mark.parametrize("template", [
    "select {{ 'a' ~ 'b' }} as ab, {{ 1 + 2 * 3 }} as n, {{ 'x' if true else 'y' }} as c from t\n",
    "select {{ 'Col' | lower }}, {{ ['a', 'b'] | join(', ') }}, {{ 'v' | as_text }}, {{ (1, 2) | length }} from t\n",
    "{% for c in ['a', 'b'] %}{{ c ~ '_' ~ 'x' | upper }}{{ ',' if not loop.last }}{% endfor %}\n",
    "select {{ 'a' | int }} as i, {{ '%s-%s' | format(1, 2) }} as f, {{ 2 ** 10 }} as p from t\n",
    "select {{ 1 / 0 }} as x\n",  # folding fails: the rendering raises, either way
    "select {{ 'a' | nofilter }} from t\n",
])
def test_the_templater_renders_without_jinjas_optimizer_as_with_it(template):
    """The templater's environment leaves Jinja's constant folding out (a fifth of its code
    generation): the folded values are those the rendering computes."""
    from sortlint.sources.dbt.rendering import _fluff_config, _templater

    class Optimizing(_templater()):
        def _get_jinja_env(self, config=None):
            environment = super()._get_jinja_env(config)
            environment.optimized = True
            return environment

    def processed(templater_class):
        templater = templater_class(override_context={})
        assert templater._get_jinja_env(_fluff_config()).optimized is (templater_class is Optimizing)
        try:
            templated, violations = templater.process(in_str=template, fname="q.sql", config=_fluff_config())
        except Exception as error:  # noqa: BLE001  compared with what the other raised
            return type(error).__name__, str(error), getattr(error, "line_no", None)
        return (templated.templated_str, templated.sliced_file, templated.raw_sliced,
                [(v.desc(), v.line_no, v.line_pos) for v in violations])

    assert processed(_templater()) == processed(Optimizing)
