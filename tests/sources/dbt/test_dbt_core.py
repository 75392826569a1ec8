"""dbt projects rendered by dbt itself (`sortlint.sources.dbt.compiled`), offline, against a
local Spark session profile sortlint writes; and the built-in renderer checked against it.

The corpora are real projects nobody here wrote: dbt's jaffle_shop, and dbt Labs' project
evaluator (dbt_utils, dispatch, `target.type`, dbt's `graph`), with the dbt_utils package
placed where `dbt deps` puts it. Each test that renders with dbt is marked `dbt_core`; dbt
runs once per project and run (one process for the whole project), cached by content.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import sqlglot

from sortlint.cli import main
from sortlint.config import Config, DbtOptions, load_config
from sortlint.errors import ConfigError, UserError
from sortlint.sources.dbt import compiled as dbt_compiled
from sortlint.sources.dbt import context as dbt_context
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.rendering import render_model
from sortlint.workspace.check import check as check_files

CORPORA = Path(__file__).resolve().parents[4] / "shared" / "corpora" / "dbt"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DBT = DbtOptions(renderer="dbt")
BUILTIN = DbtOptions(renderer="builtin")

requires_dbt = pytest.mark.skipif(
    dbt_compiled.dbt_version() is None, reason="dbt-core is not installed (the dbt extra)"
)
pytestmark = pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora/dbt is missing")

JAFFLE_MODELS = {"customers", "orders", "stg_customers", "stg_orders", "stg_payments"}
# The evaluator's models that ask the database while they render (dbt_utils.union_relations
# reads the columns of the relations it unions).
EVALUATOR_QUERIED = {"int_all_graph_resources", "stg_columns"}


def copy_project(source: Path, destination: Path, packages: tuple[str, ...] = ()) -> Path:
    """A corpus project copied (the corpora are read-only), its packages placed where
    `dbt deps` installs them."""
    shutil.copytree(source, destination)
    for package in packages:
        shutil.copytree(CORPORA / "packages" / package, destination / "dbt_packages" / package)
    return destination


@pytest.fixture(scope="module")
def jaffle(tmp_path_factory) -> Path:
    return copy_project(CORPORA / "jaffle_shop", tmp_path_factory.mktemp("corpus") / "jaffle_shop")


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory) -> Path:
    return copy_project(
        CORPORA / "dbt_project_evaluator",
        tmp_path_factory.mktemp("corpus") / "dbt_project_evaluator",
        packages=("dbt_utils",),
    )


def compiled(root: Path) -> dbt_compiled.CompiledProject:
    result = dbt_compiled.compiled_project(dbt.read_project(root.resolve()), DBT)
    assert result is not None
    return result


def same_literal(rendered: str, raw: str) -> bool:
    """A literal renders as written, less the whitespace a `{%- -%}` tag beside it strips."""
    return rendered in (raw, raw.strip(), raw.lstrip(), raw.rstrip())


def tokens(sql: str) -> list[str]:
    """The SQL's tokens: two renderings that differ only in layout and comments are equal."""
    return [token.text.lower() for token in sqlglot.Dialect.get_or_raise("spark").tokenize(sql)]


def by_name(result: dbt_compiled.CompiledProject) -> dict[str, dbt_compiled.CompiledModel]:
    return {model.name: model for model in result.models.values()}


# ---------------------------------------------------------------------------------------------
# Rendered by dbt


@requires_dbt
@pytest.mark.dbt_core
def test_jaffle_shop_every_model_is_rendered_by_dbt(jaffle):
    result = compiled(jaffle)
    models = by_name(result)
    assert result.failure is None
    assert set(models) == JAFFLE_MODELS
    assert {name: (m.error, m.queried) for name, m in models.items()} == {
        name: (None, False) for name in JAFFLE_MODELS
    }
    # A local session profile named after the project: `ref` renders <project>.<model>,
    # as the built-in renderer renders it.
    assert result.relations() == {name: f"jaffle_shop.{name}" for name in JAFFLE_MODELS}
    assert models["orders"].depends_on == ("stg_orders", "stg_payments")
    assert "select * from jaffle_shop.stg_orders" in models["orders"].text
    # Nothing is written into the project.
    assert sorted(p.name for p in jaffle.iterdir()) == ["LICENSE", "dbt_project.yml", "models", "seeds"]


@requires_dbt
@pytest.mark.dbt_core
def test_dbt_project_evaluator_every_model_is_rendered_by_dbt(evaluator):
    result = compiled(evaluator)
    models = by_name(result)
    project = dbt.read_project(evaluator.resolve())
    assert result.failure is None
    assert set(models) == set(project.models()) and len(models) == 48
    assert [name for name, m in models.items() if m.error is not None] == []
    assert {name for name, m in models.items() if m.queried} == EVALUATOR_QUERIED
    # dispatch to dbt's spark macros, dbt_utils installed as a package, target.type
    assert "cast(null as string) as unique_id" in models["stg_nodes"].text
    assert "md5(cast(concat(coalesce(cast(resource_id as string)" in models["stg_node_relationships"].text


@requires_dbt
@pytest.mark.dbt_core
@pytest.mark.parametrize("corpus", ["jaffle", "evaluator"])
def test_every_literal_of_the_rendering_maps_to_the_same_raw_text(corpus, request):
    result = compiled(request.getfixturevalue(corpus))
    for model in result.models.values():
        assert model.slices[0][3] == 0 and model.slices[-1][4] == len(model.text)
        for (_, _, _, _, stop), (_, _, _, start, _) in zip(model.slices, model.slices[1:]):
            assert stop == start, model.name
        for kind, raw_start, raw_stop, start, stop in model.slices:
            if kind == "literal":
                assert same_literal(model.text[start:stop], model.raw[raw_start:raw_stop]), model.name


@requires_dbt
@pytest.mark.dbt_core
def test_evaluator_findings_rendered_by_dbt(evaluator, capsys, monkeypatch):
    monkeypatch.chdir(evaluator.parent)
    assert main(["check", "--jobs", "1", "--dbt-renderer", "dbt", "dbt_project_evaluator"]) == 0
    # The two CTEs ordered for listagg feed aggregates behind Spark's hash exchange: no SL101.
    # One of them (fct_model_naming_conventions.sql:26) also feeds a join: its ORDER BY does
    # nothing there, but it is what the listagg's collect_list reads, so it is no SL002.
    assert capsys.readouterr().out == "All checks passed (128 files).\n"


@requires_dbt
@pytest.mark.dbt_core
@pytest.mark.parametrize("incremental", [False, True], ids=["first build", "--incremental"])
def test_the_example_project_has_the_same_findings_rendered_by_dbt(incremental):
    config = load_config(EXAMPLES / "sortlint.yml")

    def found(renderer: str) -> list[tuple]:
        options = DbtOptions(renderer=renderer, incremental=incremental)
        result = check_files([EXAMPLES / "dbt"], replace(config, dbt=options))
        assert not result.all_errors
        return [(f.path.name, f.line, f.column, f.code) for f in result.findings]

    by_dbt = found("dbt")
    assert by_dbt == [
        ("customer_orders.sql", 4, 1, "SL301"), ("customer_orders.sql", 6, 20, "SL103"),
        ("customer_sequence.sql", 5, 58, "SL201"), ("daily_refunds.sql", 7, 22, "SL103"),
        ("daily_revenue.sql", 8, 22, "SL103"),
        ("daily_revenue.sql", 10, 10, "SL003"), ("order_items.sql", 7, 5, "SL002"),
        ("order_revenue.sql", 6, 1, "SL101"),
    ]
    assert by_dbt == found("builtin")


# ---------------------------------------------------------------------------------------------
# A project of our own: custom schemas and aliases, +meta, introspection, failures, fixes

SHOP = {
    "dbt_project.yml": """\
name: shop
profile: shop
config-version: 2
version: "1.0"
model-paths: ["models"]
models:
  shop:
    marts:
      +schema: marts
      +meta:
        sortlint:
          unique: [[order_date]]
""",
    "models/sources.yml": "version: 2\nsources:\n  - name: raw\n    tables:\n      - name: orders\n",
    "models/staging/stg_orders.sql":
        "select order_id, customer_id, order_date, amount from {{ source('raw', 'orders') }}\n",
    "models/marts/orders_by_day.sql": """\
{{ config(alias='daily_orders', materialized='table') }}
select order_date, count(*) as orders
from (select * from {{ ref('stg_orders') }} order by order_id) o
group by order_date
""",
    "models/marts/latest_days.sql":
        "select order_date, orders from {{ ref('orders_by_day') }} order by order_date, orders\n",
    "models/staging/customer_totals.sql": """\
{% set columns = adapter.get_columns_in_relation(ref('stg_orders')) %}
select customer_id, count(*) as orders
from (select * from {{ ref('stg_orders') }} order by amount) o
group by customer_id
""",
    "models/staging/disabled_model.sql":
        "{{ config(enabled=false) }} select 1 as x from (select 1 as x order by x) t\n",
    "models/staging/only_builtin.sql":
        '{% set found = run_query("select * from no_such_table") %}\n'
        "select 1 as one from (select 1 as one order by one) t\n",
    "models/staging/eph.sql":
        "{{ config(materialized='ephemeral') }}\nselect customer_id from {{ ref('stg_orders') }}\n",
    "models/marts/from_eph.sql": "select customer_id from {{ ref('eph') }}\n",
    "models/staging/broken.sql":
        '{% if execute %}{{ exceptions.raise_compiler_error("boom") }}{% endif %}\nselect 1 as one\n',
}

SHOP_FINDINGS = [
    "shop/models/marts/latest_days.sql:1:80: SL003 [*unsafe] sort key orders is determined by "
    "the earlier keys: declared unique key (order_date) of shop_marts.daily_orders "
    "(shop/dbt_project.yml:11) [declared]",
    "shop/models/marts/orders_by_day.sql:3:45: SL002 [*] ORDER BY has no effect: its rows feed "
    "an aggregate whose functions do not depend on row order. Spark removes this sort itself; "
    "the clause only misleads readers [query] (no runtime effect)",
]
DBT_QUERIED = (
    "shop/models/staging/customer_totals.sql:3:45: SL002 [*unsafe] ORDER BY has no effect: its "
    "rows feed an aggregate whose functions do not depend on row order. Spark removes this sort "
    "itself; the clause only misleads readers [rendered by dbt "
    "against an empty catalog: the model asks the database while it renders] [query] (no runtime effect)"
)
BUILTIN_QUERIED = (
    "shop/models/staging/only_builtin.sql:2:39: SL001 [*unsafe] ORDER BY [one ASC NULLS FIRST] "
    "is already satisfied by its input: the query itself [rendered against an empty catalog: "
    "the model asks the database (run_query)] [query] (no runtime effect)"
)

@pytest.fixture
def shop(tmp_path: Path) -> Path:
    for name, text in SHOP.items():
        path = tmp_path / "shop" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "shop"


def check(root: Path, *options: str) -> tuple[int, list[str], list[str]]:
    """`sortlint check` of the project, as a user runs it from the directory above."""
    result = subprocess.run(
        [sys.executable, "-m", "sortlint", "check", "--jobs", "1", *options, root.name],
        capture_output=True, text=True, timeout=900, cwd=root.parent,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
    )
    lines = result.stdout.splitlines()
    return (result.returncode, [l for l in lines if ": SL" in l],
            [l for l in lines + result.stderr.splitlines() if l.startswith("error:")])


@requires_dbt
@pytest.mark.dbt_core
def test_a_project_rendered_by_dbt_with_custom_schemas_introspection_and_failures(shop):
    code, findings, errors = check(shop, "--dbt-renderer", "dbt")
    assert code == 2, errors
    # customer_totals asked dbt's adapter for columns: its finding says what it rests on,
    # and its fix is no longer safe.
    assert findings == [SHOP_FINDINGS[0], SHOP_FINDINGS[1], DBT_QUERIED]
    # A model dbt cannot render is its file's error, with dbt's reason, not the built-in
    # renderer's rendering (only_builtin's query reads a table the empty catalog does not
    # have); a disabled one is not checked at all.
    assert [error[:error.index(" in model")] for error in errors] == [
        "error: shop/models/staging/broken.sql: cannot render with dbt (renderer: dbt): Compilation Error",
        "error: shop/models/staging/only_builtin.sql: cannot render with dbt (renderer: dbt): Runtime Error",
    ]
    assert errors[0].endswith(" in model broken (models/staging/broken.sql) boom")
    assert "[TABLE_OR_VIEW_NOT_FOUND] The table or view `no_such_table` cannot be found" in errors[1]
    result = by_name(compiled(shop))
    assert result["latest_days"].text.startswith("select order_date, orders from shop_marts.daily_orders")
    # an ephemeral model is read as the CTE dbt injects (its rendering is the model's own)
    assert result["from_eph"].text == "select customer_id from __dbt__cte__eph\n"
    assert result["eph"].relation == "__dbt__cte__eph"
    assert set(result) == {"stg_orders", "orders_by_day", "latest_days", "customer_totals",
                           "only_builtin", "broken", "eph", "from_eph"}


@requires_dbt
@pytest.mark.dbt_core
def test_a_fix_in_a_model_rendered_by_dbt_edits_the_raw_text(shop):
    check(shop, "--fix", "--dbt-renderer", "dbt")
    assert (shop / "models/marts/orders_by_day.sql").read_text() == """\
{{ config(alias='daily_orders', materialized='table') }}
select order_date, count(*) as orders
from (select * from {{ ref('stg_orders') }}) o
group by order_date
"""
    # the unsafe fix (a rendering without the tables) is not applied without asking
    assert (shop / "models/staging/customer_totals.sql").read_text() == SHOP["models/staging/customer_totals.sql"]


def test_the_builtin_renderer_gives_the_same_names_and_findings(shop):
    code, findings, errors = check(shop, "--dbt-renderer", "builtin")
    assert findings == [
        *SHOP_FINDINGS,
        DBT_QUERIED.replace("rendered by dbt against an empty catalog: the model asks the "
                            "database while it renders", "rendered against an empty catalog: "
                            "the model asks the database (get_columns_in_relation)"),
        BUILTIN_QUERIED,
    ]
    assert errors == ["error: shop/models/staging/broken.sql:1: cannot render template: the "
                      "model raised a compiler error: boom"]
    project = dbt.read_project(shop.resolve())
    assert str(project.ref("orders_by_day")) == "shop_marts.daily_orders"
    assert project.disabled == frozenset({"disabled_model"})
    assert code == 2


# ---------------------------------------------------------------------------------------------
# The cache and the user's own manifest


@requires_dbt
@pytest.mark.dbt_core
def test_dbt_runs_once_per_content(jaffle, monkeypatch):
    first = compiled(jaffle)

    def no_second_run(*_):
        raise AssertionError("dbt ran again for content it already rendered")

    monkeypatch.setattr(dbt_compiled, "_run_worker", no_second_run)
    assert compiled(jaffle) == first
    changed = jaffle / "models" / "orders.sql"
    original = changed.read_text()
    try:
        changed.write_text(original + "\n-- edited\n")
        with pytest.raises(AssertionError, match="dbt ran again"):
            compiled(jaffle)
    finally:
        changed.write_text(original)


@requires_dbt
@pytest.mark.dbt_core
def test_the_projects_own_manifest_is_never_read(tmp_path, monkeypatch):
    """A fresh-looking target/manifest.json may be stale (a changed environment variable,
    profile or package), and says nothing of where its pieces came from: the default renders
    with the built-in renderer, and dbt by name compiles the project itself."""
    root = copy_project(CORPORA / "jaffle_shop", tmp_path / "jaffle_shop")
    node = {"resource_type": "model", "package_name": "jaffle_shop", "name": "orders",
            "unique_id": "model.jaffle_shop.orders", "original_file_path": "models/orders.sql",
            "compiled": True, "compiled_code": "select 'from the manifest' as x",
            "depends_on": {"nodes": []}, "config": {}}
    (root / "target").mkdir()
    (root / "target" / "manifest.json").write_text(json.dumps(
        {"metadata": {"project_name": "jaffle_shop", "dbt_version": "1.8.0"},
         "nodes": {node["unique_id"]: node}}))
    monkeypatch.setattr(dbt_compiled, "_run_worker", lambda *_: {"failure": "dbt ran"})
    project = dbt.read_project(root.resolve())
    orders = root / "models" / "orders.sql"
    assert dbt_compiled.compiled_project(project, DbtOptions()) is None
    rendered = render_model(orders, orders.read_text(), project, Config())
    assert rendered.renderer == "builtin" and "from the manifest" not in rendered.text
    assert dbt_compiled.compiled_project(project, DBT) == dbt_compiled.CompiledProject(
        failure="dbt ran", dbt_version="")


# ---------------------------------------------------------------------------------------------
# The built-in renderer carries the same projects


@requires_dbt
@pytest.mark.dbt_core
@pytest.mark.parametrize("globals_from", ["installed dbt-core", "sortlint's own set"])
@pytest.mark.parametrize("corpus", ["jaffle", "evaluator"])
def test_the_builtin_renderer_renders_every_model_as_dbt_does(corpus, globals_from, request, monkeypatch):
    root = request.getfixturevalue(corpus)
    if globals_from != "installed dbt-core":
        own = Path(dbt_context.__file__).with_name("global_project")
        monkeypatch.setattr(dbt_context, "global_macro_directories", lambda: ([own], globals_from))
    by_dbt = by_name(compiled(root))
    project = dbt.read_project(root.resolve())
    differ = []
    for name, path in project.models().items():
        builtin = render_model(path, path.read_text(), project, Config(dbt=BUILTIN))
        assert builtin.renderer == "builtin"
        assert (builtin.caveat is not None) == by_dbt[name].queried, name
        # int_all_graph_resources iterates a set: both renderers keep its items' order
        if tokens(builtin.text) != tokens(by_dbt[name].text):
            differ.append(name)
    assert differ == []


def render_builtin(root: Path, text: str):
    """The built-in renderer's rendering of `text` as the project's model `m`."""
    model = root / "models" / "m.sql"
    model.write_text(text)
    return render_model(model, text, dbt.read_project(root.resolve()), Config(dbt=BUILTIN))


def test_dbt_filters_and_cross_database_macros_render_without_dbt(tmp_path):
    root = tmp_path / "p"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: p\nvars:\n  flag: 'true'\n")
    text = ("select {{ dbt.concat(['a', 'b']) }} as ab, cast(x as {{ dbt.type_string() }}) as s,\n"
            "  {{ var('flag') | as_bool }} as f, {{ 3 | as_number }} as n\nfrom t\n")
    rendered = render_builtin(root, text)
    assert rendered.text == ("select concat(a, b) as ab, cast(x as string) as s,\n"
                             "  true as f, 3 as n\nfrom t\n")


def test_package_macros_dispatch_in_the_project_search_order(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(CORPORA / "packages" / "dbt_utils", root / "dbt_packages" / "dbt_utils")
    (root / "models").mkdir(parents=True)
    (root / "macros").mkdir()
    (root / "dbt_project.yml").write_text(
        "name: p\ndispatch:\n  - macro_namespace: dbt_utils\n    search_order: [p, dbt_utils]\n")
    (root / "macros" / "ours.sql").write_text(
        "{% macro spark__safe_add(field_list) %}our_add({{ field_list | join(', ') }}){% endmacro %}\n")
    text = ("select {{ dbt_utils.safe_add(['a', 'b']) }} as s, {{ dbt_utils.star(ref('other')) }},\n"
            "  {{ dbt_utils.generate_surrogate_key(['a']) }} as k\nfrom {{ ref('other') }}\n")
    (root / "models" / "other.sql").write_text("select 1 as a\n")
    rendered = render_builtin(root, text)
    assert " ".join(rendered.text.split()) == (
        # dbt_utils.star against an empty catalog, as dbt compile renders it
        "select our_add(a, b) as s, * /* No columns were returned. Maybe the relation doesn't "
        "exist yet or all columns were excluded. This star is only output during dbt compile, "
        "and exists to keep SQLFluff happy. */ , md5(cast(concat(coalesce(cast(a as string), "
        "'_dbt_utils_surrogate_key_null_')) as string)) as k from p.other"
    )
    assert rendered.caveat == ("rendered against an empty catalog: the model asks the database "
                               "(get_columns_in_relation)")


def test_project_meta_applies_to_models_under_its_path_and_the_models_yaml_wins(tmp_path):
    root = tmp_path / "p"
    (root / "models" / "marts").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: p\nmodels:\n  p:\n    +meta:\n      sortlint: {unique: [[id]]}\n"
        "    marts:\n      +schema: reporting\n      +meta:\n        sortlint: {unique: [[day]]}\n")
    for name in ("a", "b"):
        (root / "models" / "marts" / f"{name}.sql").write_text("select 1 as id, 2 as day\n")
    (root / "models" / "top.sql").write_text("{{ config(alias='summit') }}select 1 as id\n")
    (root / "models" / "marts" / "props.yml").write_text(
        "models:\n  - name: b\n    meta:\n      sortlint: {unique: [[id, day]]}\n")
    declared = dbt.declarations(dbt.read_project(root.resolve()), "spark")
    assert sorted((s.name, s.unique, s.location.path.name, s.location.line) for s in declared) == [
        ("p.summit", (("id",),), "dbt_project.yml", 5),
        ("p_reporting.a", (("day",),), "dbt_project.yml", 9),
        ("p_reporting.b", (("id", "day"),), "props.yml", 4),
    ]


# ---------------------------------------------------------------------------------------------
# Maps of renderings sortlint did not make itself


def rendered_by_hand(text: str, slices) -> "Rendered":
    from sortlint.sources.dbt.rendering import Rendered, Slice

    return Rendered(text, tuple(Slice(*s) for s in slices))


def test_an_edit_of_literal_text_lands_in_the_rendering_without_rendering_again():
    raw = "select a, b from {{ ref('t') }} order by a, b\n"
    text = "select a, b from p.t order by a, b\n"
    rendered = rendered_by_hand(text, [
        ("literal", 0, 17, 0, 17), ("templated", 17, 31, 17, 20), ("literal", 31, 46, 20, 35)])
    edited = rendered.with_raw_edits(raw, raw.replace("order by a, b", "order by b"))
    assert edited.text == "select a, b from p.t order by b\n"
    assert [tuple(vars(s).values()) for s in edited.slices] == [
        ("literal", 0, 17, 0, 17), ("templated", 17, 31, 17, 20), ("literal", 31, 43, 20, 32)]
    # an edit of the expression, or one writing template syntax, has no such rendering
    assert rendered.with_raw_edits(raw, raw.replace("ref('t')", "ref('u')")) is None
    assert rendered.with_raw_edits(raw, raw.replace("order by a, b", "order by {{ x }}")) is None


def test_a_project_naming_its_schemas_itself_names_its_models_so(tmp_path):
    root = tmp_path / "p"
    (root / "models").mkdir(parents=True)
    (root / "macros").mkdir()
    (root / "dbt_project.yml").write_text("name: p\nmodels:\n  p:\n    +schema: sales\n")
    (root / "macros" / "naming.sql").write_text(
        "{% macro generate_schema_name(custom_schema_name, node) -%}\n"
        "{{ custom_schema_name | trim if custom_schema_name else target.schema }}\n"
        "{%- endmacro %}\n")
    (root / "models" / "a.sql").write_text("select 1 as id\n")
    (root / "models" / "b.sql").write_text("select id from {{ ref('a') }}\n")
    project = dbt.read_project(root.resolve())
    assert str(project.ref("a")) == "sales.a"
    b = root / "models" / "b.sql"
    assert render_model(b, b.read_text(), project, Config(dbt=BUILTIN)).text == "select id from sales.a\n"


def test_a_declaration_in_the_models_own_config_wins(tmp_path):
    root = tmp_path / "p"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: p\nmodels:\n  p:\n    +meta:\n      sortlint: {unique: [[id]]}\n")
    (root / "models" / "a.sql").write_text(
        "{{ config(materialized='table',\n  meta={'sortlint': {'unique': [['id', 'day']]}}) }}\n"
        "select 1 as id, 2 as day\n")
    (root / "models" / "bad.sql").write_text(
        "{{ config(meta={'sortlint': {'unique': 'id'}}) }}\nselect 1 as id\n")
    project = dbt.read_project(root.resolve())
    with pytest.raises(ConfigError) as raised:
        dbt.declarations(project, "spark")
    assert (raised.value.path.name, raised.value.line) == ("bad.sql", 1)
    (root / "models" / "bad.sql").unlink()
    declared = dbt.declarations(dbt.read_project(root.resolve()), "spark")
    assert [(s.name, s.unique, s.location.path.name, s.location.line) for s in declared] == [
        ("p.a", (("id", "day"),), "a.sql", 2)]


@requires_dbt
@pytest.mark.dbt_core
def test_without_its_packages_dbt_cannot_render_and_each_model_is_an_error_with_dbts_reason(tmp_path):
    root = copy_project(CORPORA / "dbt_project_evaluator", tmp_path / "dbt_project_evaluator")
    result = compiled(root)
    assert result.failure is not None and "dbt deps" in result.failure
    project = dbt.read_project(root.resolve())
    # a model that needs no package either: the run asked for dbt's rendering
    stg_nodes = project.models()["stg_nodes"]
    with pytest.raises(UserError) as raised:
        render_model(stg_nodes, stg_nodes.read_text(), project, Config(dbt=DBT))
    assert raised.value.message == (
        f"cannot render with dbt (renderer: dbt): dbt cannot render the project: {result.failure}")


@requires_dbt
@pytest.mark.dbt_core
def test_a_check_with_dbt_on_a_project_dbt_cannot_render_is_one_error(tmp_path, capsys):
    root = copy_project(CORPORA / "dbt_project_evaluator", tmp_path / "dbt_project_evaluator")
    failure = compiled(root).failure
    models = [str(root / "models" / "staging" / "graph" / f"{name}.sql") for name in ("stg_nodes", "stg_sources")]
    assert main(["check", "--no-cache", "--dbt-renderer", "dbt", *models]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"error: {root.resolve() / 'dbt_project.yml'}: dbt cannot render the "
                              f"project (renderer: dbt): {failure}\n")
    # the default, the built-in renderer, renders them whatever dbt says
    assert main(["check", "--no-cache", "--jobs", "2", *models]) == 0
    assert capsys.readouterr() == ("All checks passed (2 files).\n", "")


def test_an_edit_of_whitespace_a_tag_stripped_has_no_such_rendering():
    raw = "select a {%- if x %} , b{% endif %}\n"
    text = "select a , b\n"
    rendered = rendered_by_hand(text, [
        ("literal", 0, 8, 0, 8), ("literal", 8, 9, 8, 8), ("block_start", 9, 20, 8, 8),
        ("literal", 20, 24, 8, 12), ("block_end", 24, 35, 12, 12), ("literal", 35, 36, 12, 13)])
    assert rendered.with_raw_edits(raw, raw.replace("a {%-", "a  {%-")) is None
    assert rendered.with_raw_edits(raw, raw.replace(" , b", " , c")).text == "select a , c\n"
    # next to a tag that strips whitespace on that side, an edit might be stripped too
    for tag, allowed in (("{{ x -}}", False), ("{{ x }}", True)):
        raw = f"select {tag}, b\n"
        stop = 7 + len(tag)
        rendered = rendered_by_hand("select 1, b\n", [
            ("literal", 0, 7, 0, 7), ("templated", 7, stop, 7, 8), ("literal", stop, stop + 4, 8, 12)])
        edited = rendered.with_raw_edits(raw, raw.replace("}, b", "} , b"))
        assert (edited is not None) == allowed
        if allowed:
            assert edited.text == "select 1 , b\n"


def test_models_a_jinja_setting_disables_are_left_out(tmp_path):
    """The Tuva project's way: `+enabled: "{{ var('enable_x', false) | as_bool }}"`."""
    root = tmp_path / "p"
    (root / "models" / "optional").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: p\nvars:\n  enable_other: true\nmodels:\n  p:\n    optional:\n"
        "      +enabled: \"{{ var('enable_optional', false) | as_bool }}\"\n"
        "    +materialized: \"{{ 'table' if var('enable_other') | as_bool else 'view' }}\"\n")
    (root / "models" / "optional" / "extra.sql").write_text("select 1 as x\n")
    (root / "models" / "kept.sql").write_text("select 1 as x\n")
    project = dbt.read_project(root.resolve())
    assert project.disabled == frozenset({"extra"})
    assert dbt.model_configs(project)["kept"]["materialized"] == "table"


def test_dispatch_finds_macros_where_dbt_does_and_a_return_leaves_only_its_own_macro(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(CORPORA / "packages" / "dbt_utils", root / "dbt_packages" / "dbt_utils")
    (root / "models").mkdir(parents=True)
    (root / "macros").mkdir()
    (root / "dbt_project.yml").write_text("name: p\n")  # no dispatch: config
    (root / "macros" / "ours.sql").write_text(
        # a package's namespace without a dispatch config: the project is searched first
        "{% macro spark__safe_add(field_list) %}our_add({{ field_list | join(', ') }}){% endmacro %}\n"
        # a namespace no package has (the Tuva project's 'macros'): the names a model sees
        "{% macro len_of(col) %}{{ return(adapter.dispatch('len_of', 'macros')(col)) }}{% endmacro %}\n"
        "{% macro default__len_of(col) %}length({{ col }}){% endmacro %}\n"
        # a macro of the same file called directly: its return() is its own value
        "{% macro outer() %}{% set flag = inner() %}{{ 'yes' if flag is sameas true else 'no' }}"
        "{% endmacro %}\n{% macro inner() %}{{ return(true) }}{% endmacro %}\n")
    text = ("select {{ len_of('a') }} as l, '{{ outer() }}' as o,"
            " {{ dbt_utils.safe_add(['a', 'b']) }} as s from t\n")
    rendered = render_builtin(root, text)
    assert rendered.text == "select length(a) as l, 'yes' as o, our_add(a, b) as s from t\n"


@requires_dbt
@pytest.mark.dbt_core
def test_a_var_given_as_a_date_reaches_dbt_as_a_date(tmp_path, capsys):
    """`--var d=2024-01-15` is a date, as dbt's own `--vars '{d: 2024-01-15}'` makes it."""
    root = tmp_path / "p"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: p\n")
    model = root / "models" / "dated.sql"
    model.write_text("select a from t where d = '{{ var(\"d\").year }}' order by a, a\n")
    assert main(["check", "--no-cache", "--dbt-renderer", "dbt", "--var", "d=2024-01-15", str(model)]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == (
        f"{model}:1:61: SL003 [*] sort key a repeats an earlier key [query]\nFound 1 finding in 1 file.\n", "")


@requires_dbt
@pytest.mark.dbt_core
def test_a_hook_that_asks_the_database_does_not_stop_dbt_rendering_the_models(tmp_path, capsys):
    """dbt parses `on-run-start` with the project; against the empty catalog this one fails
    ('None' has no attribute 'table'), and no model reads a hook: rendering skips them."""
    root = tmp_path / "p"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: p\non-run-start:\n  - \"select {{ run_query('select 1 as x').columns[0].values()[0] }}\"\n")
    model = root / "models" / "m.sql"
    model.write_text("select a from t order by a, a\n")
    assert main(["check", "--no-cache", "--dbt-renderer", "dbt", str(model)]) == 1
    assert capsys.readouterr() == (
        f"{model}:1:29: SL003 [*] sort key a repeats an earlier key [query]\nFound 1 finding in 1 file.\n", "")


@requires_dbt
@pytest.mark.dbt_core
def test_an_upstream_model_that_is_not_utf8_is_named_whoever_renders(tmp_path, capsys, monkeypatch):
    from test_dbt_project import latin1_upstream_example

    root = latin1_upstream_example(tmp_path / "repo")
    monkeypatch.chdir(root)
    failure = "models/staging/stg_refunds.sql is not UTF-8 text: invalid continuation byte at byte 23"
    assert main(["check", "--no-cache", "--dbt-renderer", "dbt", "dbt/models/marts/daily_refunds.sql"]) == 2
    assert capsys.readouterr() == ("", f"error: {root.resolve() / 'dbt' / 'dbt_project.yml'}: dbt cannot "
                                       f"render the project (renderer: dbt): {failure}\n")
    # by default the built-in renderer renders the project, and the file it cannot read
    # either is the run's error
    assert main(["check", "--no-cache", "dbt/models/marts/daily_refunds.sql"]) == 2
    assert capsys.readouterr() == ("Found 0 findings. 1 error.\n", (
        "error: dbt/models/staging/stg_refunds.sql:1: not UTF-8 text: invalid continuation byte at "
        "byte 23 (it defines shop_analytics.stg_refunds, which a checked file reads)\n"))


@requires_dbt
@pytest.mark.dbt_core
def test_a_model_that_never_ends_is_its_files_error_and_dbt_renders_the_others(tmp_path, capsys, monkeypatch):
    (tmp_path / "sortlint.yml").write_text("dbt:\n  render_timeout: 1\n")
    (tmp_path / "p" / "models").mkdir(parents=True)
    (tmp_path / "p" / "dbt_project.yml").write_text("name: p\n")
    (tmp_path / "p" / "models" / "loops.sql").write_text(
        "select a from t {% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n")
    (tmp_path / "p" / "models" / "plain.sql").write_text("select a from t order by a, a\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--dbt-renderer", "dbt", "p"]) == 2
    assert capsys.readouterr() == (
        "p/models/plain.sql:1:29: SL003 [*] sort key a repeats an earlier key [query]\n"
        "Found 1 finding in 1 file. 1 error.\n",
        "error: p/models/loops.sql: cannot render with dbt (renderer: dbt): Compilation Error in "
        "model loops (models/loops.sql) rendering took longer than 1 s; a template that never ends? "
        "(sortlint.yml's `dbt: {render_timeout: ...}` sets the limit)\n")


@requires_dbt
@pytest.mark.dbt_core
def test_unsaved_text_of_a_model_is_rendered_as_it_is_whoever_renders(tmp_path):
    """dbt rendered the file as saved; standard input (and an editor's buffer) stands in
    for it with a Jinja comment more: rendered by the built-in renderer, said in a note,
    never an error asking to run sortlint again."""
    shutil.copytree(EXAMPLES, tmp_path / "repo", ignore=shutil.ignore_patterns(".sortlint_cache"))
    model = "dbt/models/marts/daily_revenue.sql"
    unsaved = "{# note #}\n" + (tmp_path / "repo" / model).read_text()
    result = subprocess.run(
        [sys.executable, "-m", "sortlint", "check", "--no-cache", "--dbt-renderer", "dbt",
         "--stdin-filename", model, "-"],
        input=unsaved, capture_output=True, text=True, timeout=900, cwd=tmp_path / "repo",
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
    )
    assert (result.returncode, result.stdout, result.stderr) == (1, (
        f"{model}:9:22: SL103 group key currency is constant: WHERE stg_orders.currency = 'EUR' (line 5) [query]\n"
        f"{model}:11:10: SL003 [*] sort key currency is constant: WHERE stg_orders.currency = 'EUR' (line 5) [query]\n"
        "Found 2 findings in 1 file.\n"), (
        f"note: {model}: rendered by sortlint's built-in renderer: dbt rendered the saved file, and the "
        "text standing in for it changes more than its literal text\n"))


# ---------------------------------------------------------------------------------------------
# Who renders: the built-in renderer unless the run asks for dbt


def test_the_builtin_renderer_is_the_default_and_dbt_is_asked_for_by_flag_env_or_config(tmp_path, monkeypatch):
    """Precedence: the command line, then $SORTLINT_DBT_RENDERER, then `dbt: renderer:`."""
    (tmp_path / "sortlint.yml").write_text("dbt:\n  renderer: dbt\n")
    configured = load_config(tmp_path / "sortlint.yml").dbt
    assert configured.configured_renderer == "dbt"
    assert dbt_compiled.renderer(DbtOptions()) == "builtin"
    assert dbt_compiled.renderer(configured) == "dbt"
    assert dbt_compiled.renderer(replace(configured, renderer="builtin")) == "builtin"
    monkeypatch.setenv("SORTLINT_DBT_RENDERER", "builtin")
    assert dbt_compiled.renderer(configured) == "builtin"
    assert dbt_compiled.renderer(replace(configured, renderer="dbt")) == "dbt"
    monkeypatch.setenv("SORTLINT_DBT_RENDERER", "dbt")
    assert dbt_compiled.renderer(DbtOptions()) == "dbt"
    assert dbt_compiled.renderer(BUILTIN) == "builtin"


def test_a_bad_configured_renderer_is_a_one_line_error(tmp_path):
    (tmp_path / "sortlint.yml").write_text("dbt:\n  renderer: dbt-core\n")
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path / "sortlint.yml")
    assert str(raised.value) == f"{tmp_path / 'sortlint.yml'}:2: bad dbt.renderer 'dbt-core'; expected builtin or dbt"
