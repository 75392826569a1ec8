"""dbt projects: what dbt's builtins render to, the orderings a project declares in its own
YAML, models as tables other models read, and the example project (examples/dbt) with its
fixes proved on a real Spark: every fixed model, rendered, keeps its columns and its rows.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import Config, DbtOptions, load_config
from sortlint.errors import ConfigError, UserError
from sortlint.sources.dbt import context as dbt_context
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.rendering import jinja_units, render_model
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import prepare
from sortlint.workspace.check import check


import spark_support
from spark_support import spark  # noqa: F401  (the session fixture)
from file_trees import write

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

PROJECT = """\
name: shop
model-paths: ["sql/models"]
vars:
  currency: USD
  days: 7
  shop:
    currency: EUR
  other_package:
    currency: GBP
"""

SCHEMA = """\
version: 2
sources:
  - name: raw
    schema: landing
    tables:
      - name: orders
        identifier: orders_v2
        description: anything dbt accepts
        meta:
          owner: sales
          sortlint:
            columns: {order_id: bigint not null, day: date not null, amount: int}
            orderings: [[day, order_id]]
            unique: [[order_id]]
      - name: refunds
        config:
          meta:
            sortlint:
              orderings: [[refund_id]]
      - name: customers
models:
  - name: stg_orders
    columns:
      - name: order_id
        tests: [unique, not_null]
    config:
      meta:
        sortlint:
          orderings: [[day]]
  - name: undeclared
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "dbt_project.yml": PROJECT,
            "sql/models/schema.yml": SCHEMA,
            "sql/models/staging/stg_orders.sql": "select * from {{ source('raw', 'orders') }}\n",
            "macros/m.sql": "{% macro m() %}1{% endmacro %}\n",
        },
    )


def render(root: Path, sql: str, name: str = "probe", options: DbtOptions = DbtOptions()) -> str:
    path = root / "sql" / "models" / f"{name}.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sql)
    return render_model(path, sql, dbt.Projects().of(path), Config(dbt=options)).text


# ---------------------------------------------------------------------------------------------
# The project and its builtins


def test_project_file_gives_name_paths_and_vars(shop):
    project = dbt.Projects().of(shop / "sql" / "models" / "staging" / "stg_orders.sql")
    assert (project.name, project.model_paths, project.macro_paths) == (
        "shop", ((shop / "sql" / "models").resolve(),), ((shop / "macros").resolve(),)
    )
    # Vars scoped to this project win over global ones. Which other keys name packages is
    # not known without the packages installed, so they stay (unused) vars.
    assert project.vars == {"currency": "EUR", "days": 7, "other_package": {"currency": "GBP"}}
    assert project.model(shop / "sql" / "models" / "staging" / "stg_orders.sql") == "stg_orders"
    assert project.model(shop / "macros" / "m.sql") is None
    assert project.is_macro_file(shop / "macros" / "m.sql")
    assert dbt.Projects().of(shop.parent / "elsewhere.sql") is None


def test_a_check_reads_each_project_once_and_the_next_check_reads_it_afresh(shop):
    model = shop / "sql" / "models" / "staging" / "stg_orders.sql"
    first = Reading(Config())
    project = dbt.projects_of(first).of(model)
    macros = dbt_context.library(project)
    (shop / "dbt_project.yml").write_text(PROJECT.replace("currency: EUR", "currency: USD"))
    (shop / "macros" / "m.sql").write_text("{% macro n() %}1{% endmacro %}\n")
    # within one check, the project is what it was when first read, macros included
    assert dbt.projects_of(first).of(shop / "sql" / "models" / "other.sql") is project
    assert project.vars["currency"] == "EUR"
    assert dbt_context.library(project) is macros and list(macros.packages["shop"]) == ["m"]
    # the next check, in the same process (a language server), sees the edits
    again = dbt.projects_of(Reading(Config())).of(model)
    assert again is not project and again.vars["currency"] == "USD"
    assert list(dbt_context.library(again).packages["shop"]) == ["n"]


def test_ref_source_this_and_target(shop):
    assert render(shop, "{{ ref('stg_orders') }} {{ ref('pkg', 'm') }} {{ ref('m', v=2) }}") == (
        "shop.stg_orders pkg.m shop.m"
    )
    # A source's schema and identifier come from the YAML, as dbt renders them.
    assert render(shop, "{{ source('raw', 'orders') }} {{ source('raw', 'refunds') }}") == (
        "landing.orders_v2 landing.refunds"
    )
    assert render(shop, "{{ source('other', 't') }}") == "other.t"
    assert render(shop, "{{ this }} {{ this.identifier }} {{ this.schema }}", name="mine") == (
        "shop.mine mine shop"
    )
    assert render(shop, "{{ target.name }} {{ target.type }} {{ target.schema }}") == "dev spark shop"
    assert render(shop, "{{ config(materialized='table') }}{{ config.get('materialized') }}") == "table"


def test_var_from_the_command_line_then_the_project_then_the_default(shop):
    assert render(shop, "{{ var('currency') }} {{ var('days') }} {{ var('x', 'dflt') }}") == "EUR 7 dflt"
    options = DbtOptions(vars=(dbt.parse_var("currency=CHF"), dbt.parse_var("x=3")))
    assert render(shop, "{{ var('currency') }} {{ var('x', 'dflt') + 1 }}", options=options) == "CHF 4"
    assert dbt.parse_var("n=3") == ("n", 3)
    assert dbt.parse_var("s= a b ") == ("s", "a b")
    with pytest.raises(UserError, match="expected NAME=VALUE"):
        dbt.parse_var("novalue")


def test_is_incremental_is_false_unless_asked(shop):
    sql = "{% if is_incremental() %}inc{% else %}full{% endif %}"
    assert render(shop, sql) == "full"
    assert render(shop, sql, options=DbtOptions(incremental=True)) == "inc"


def test_project_macros_are_loaded(shop):
    assert render(shop, "select {{ m() }}") == "select 1"


def test_two_models_of_one_name_are_refused(shop):
    write(shop, {"sql/models/marts/stg_orders.sql": "select 1\n"})
    with pytest.raises(ConfigError, match="two models are named 'stg_orders'"):
        dbt.read_project(shop.resolve()).models()


# ---------------------------------------------------------------------------------------------
# Declarations in the project's YAML


def test_meta_blocks_become_sources_named_as_the_sql_names_them(shop):
    sources = dbt.declarations(dbt.Projects().of(shop / "dbt_project.yml"), "spark")
    assert [(s.name, [str(o) for o in s.orderings], s.location.line) for s in sources] == [
        ("landing.orders_v2", ["[day ASC NULLS FIRST, order_id ASC NULLS FIRST]"], 11),
        ("landing.refunds", ["[refund_id ASC NULLS FIRST]"], 18),
        ("shop.stg_orders", ["[day ASC NULLS FIRST]"], 28),
    ]
    assert sources[0].location.path == shop / "sql" / "models" / "schema.yml"


def test_a_broken_meta_block_is_an_error_with_file_and_line(shop):
    write(shop, {"sql/models/more.yml": (
        "version: 2\n"
        "models:\n"
        "  - name: broken\n"
        "    meta:\n"
        "      sortlint:\n"
        "        columns: {a: int}\n"
        "        orderings: [[b]]\n"
    )})
    with pytest.raises(ConfigError) as raised:
        dbt.declarations(dbt.Projects().of(shop / "dbt_project.yml"), "spark")
    assert (raised.value.path, raised.value.line) == (shop / "sql" / "models" / "more.yml", 7)
    assert "names column 'b', which is not among the columns of source 'shop.broken'" in raised.value.message


def test_a_table_declared_twice_names_both_places(shop):
    (shop / "sortlint.yml").write_text("sources:\n  landing.orders_v2:\n    orderings: [[day]]\n")
    with pytest.raises(ConfigError) as raised:
        check([shop], load_config(shop / "sortlint.yml"))
    assert str(raised.value) == (
        f"{shop / 'sql/models/schema.yml'}:11: conflicting declarations of table "
        f"'landing.orders_v2' at {shop / 'sortlint.yml'}:2 and {shop / 'sql/models/schema.yml'}:11"
    )


def test_meta_and_config_meta_on_one_model_conflict(shop):
    write(shop, {"sql/models/more.yml": (
        "version: 2\n"
        "models:\n"
        "  - name: twice\n"
        "    meta: {sortlint: {orderings: [[a]]}}\n"
        "    config: {meta: {sortlint: {orderings: [[b]]}}}\n"
    )})
    with pytest.raises(ConfigError, match=r"conflicting declarations of table 'shop.twice' at .*more.yml:4 and .*more.yml:5"):
        check([shop], Config(root=shop))


def test_a_checked_file_outside_any_project_reads_no_dbt_yaml(tmp_path_factory, shop):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "q.sql").write_text("select 1\n")
    result = check([elsewhere / "q.sql"], Config(root=elsewhere))
    assert result.config.sources == ()


# ---------------------------------------------------------------------------------------------
# Models as tables


MODELS = {
    "dbt_project.yml": "name: shop\n",
    "sortlint.yml": (
        "sources:\n"
        "  raw.events:\n"
        "    columns: {id: bigint not null, host: string not null, time: timestamp not null}\n"
        "    unique: [[id]]\n"
    ),
    # Read before its upstream: path order is not dependency order.
    "models/a_mart.sql": "select host, time from {{ ref('z_stage') }} order by host, time\n",
    "models/b_star.sql": "select * from {{ ref('z_stage') }}\n",
    "models/z_stage.sql": "select id, host, time from {{ source('raw', 'events') }} order by host, time\n",
}


def test_under_datafusion_a_model_sees_what_the_query_it_reads_guarantees(tmp_path):
    root = write(tmp_path, MODELS)
    result = check([root], replace(load_config(root / "sortlint.yml"), target="datafusion"), plans=True)
    # z_stage's ORDER BY does not order a_mart's rows: DataFusion removes a sort in a query
    # it reads when nothing above needs it - and a_mart's ORDER BY is what needs it.
    assert [(f.path.name, f.line, f.code) for f in result.findings] == []
    b_star = next(s for f in result.files if f.path.name == "b_star.sql" for s in f.statements)
    assert b_star.outputs == ("id", "host", "time")
    write(root, {"models/c_host.sql": (
        "select host, time from {{ ref('z_stage') }} where host = 'a' order by host\n"
    )})
    result = check([root], replace(load_config(root / "sortlint.yml"), target="datafusion"))
    assert [(f.path.name, f.line, f.code) for f in result.findings] == [("c_host.sql", 1, "SL001")]


def test_under_spark_a_model_is_a_table_known_by_its_columns_and_declarations(tmp_path):
    root = write(tmp_path, MODELS)
    result = check([root], load_config(root / "sortlint.yml"), plans=True)
    assert [(f.path.name, f.line, f.code) for f in result.findings] == []
    b_star = next(s for f in result.files if f.path.name == "b_star.sql" for s in f.statements)
    assert b_star.outputs == ("id", "host", "time")
    write(root, {"models/schema.yml": (
        "models:\n  - name: z_stage\n    meta: {sortlint: {constants: {host: h}}}\n"
    )})
    result = check([root], load_config(root / "sortlint.yml"))
    assert [(f.path.name, f.line, f.code, f.basis) for f in result.findings] == [
        ("a_mart.sql", 1, "SL003", "declared")
    ]
    assert "declared constant host = 'h' of shop.z_stage" in result.findings[0].message


def test_a_model_outside_the_checked_paths_is_still_known(tmp_path):
    root = write(tmp_path, MODELS)
    write(root, {"models/schema.yml": (
        "models:\n  - name: z_stage\n    meta: {sortlint: {constants: {host: h}}}\n"
    )})
    result = check([root / "models" / "a_mart.sql"], load_config(root / "sortlint.yml"))
    assert [(f.path.name, f.code) for f in result.findings] == [("a_mart.sql", "SL003")]


def test_a_model_declared_with_an_ordering_is_a_write_that_must_keep_it(tmp_path):
    root = write(tmp_path, MODELS)
    write(root, {"dbt_project.yml": "name: shop\nmodels:\n  +materialized: table\n", "models/schema.yml": (
        "models:\n"
        "  - name: z_stage\n    meta: {sortlint: {orderings: [[host, time]]}}\n"
        "  - name: b_star\n    meta: {sortlint: {orderings: [[host, time]]}}\n"
    )})
    result = check([root], load_config(root / "sortlint.yml"))
    # z_stage ends with the ORDER BY its layout needs; b_star does not sort at all.
    assert [(f.path.name, f.line, f.code, f.basis) for f in result.findings] == [
        ("b_star.sql", 1, "SL301", "declared")
    ]
    assert result.findings[0].message == (
        "the write into shop.b_star does not keep its layout, the declared ordering [host ASC NULLS FIRST, "
        f"time ASC NULLS FIRST] of shop.b_star ({root / 'models' / 'schema.yml'}:5): the rows need a final ORDER BY host, `time`; "
        "the rows come in no known order"
    )
    main(["check", "--fix", "--unsafe-fixes", str(root)])
    assert (root / "models" / "b_star.sql").read_text() == (
        "select * from {{ ref('z_stage') }} ORDER BY host, `time`\n"
    )


VIEW_MODELS = {
    "dbt_project.yml": "name: shop\nmodels:\n  shop:\n    marts:\n      +materialized: table\n",
    "sortlint.yml": MODELS["sortlint.yml"],
    "models/z_stage.sql": "select id, host, time from {{ source('raw', 'events') }}\n",
    "models/marts/m_table.sql": "select * from {{ ref('z_stage') }}\n",
    "models/marts/m_view.sql": "select * from {{ ref('z_stage') }}\n",
    "models/marts/m_back.sql": "{{ config(materialized='table') }}\nselect * from {{ ref('z_stage') }}\n",
    "models/e_cte.sql": "{{ config(materialized='ephemeral') }}\nselect * from {{ ref('z_stage') }}\n",
    "models/schema.yml": (
        "models:\n"
        "  - name: z_stage\n    meta: {sortlint: {orderings: [[host]]}}\n"
        "  - name: m_table\n    meta: {sortlint: {orderings: [[host]]}}\n"
        "  - name: m_view\n    config: {materialized: view}\n    meta: {sortlint: {orderings: [[host]]}}\n"
        "  - name: m_back\n    config: {materialized: view}\n    meta: {sortlint: {orderings: [[host]]}}\n"
        "  - name: e_cte\n    meta: {sortlint: {orderings: [[host]]}}\n"
    ),
}


def test_a_view_or_ephemeral_model_stores_no_layout(tmp_path, capsys, monkeypatch):
    # dbt's precedence: its default `view` (z_stage), dbt_project.yml (m_table), a property
    # file's config over it (m_view), the model's config() over both (m_back, e_cte).
    root = write(tmp_path, VIEW_MODELS)
    monkeypatch.chdir(root)
    main(["check", "--fix", "--unsafe-fixes", "."])
    assert capsys.readouterr().err.splitlines() == [
        "warning: models/schema.yml:13: e_cte is an ephemeral model: it stores no files, so its declared "
        "ordering is never a layout (no SL301)",
        "warning: models/schema.yml:8: m_view is a view: it stores no files, so its declared ordering is "
        "never a layout (no SL301)",
        "warning: models/schema.yml:3: z_stage is a view: it stores no files, so its declared ordering is "
        "never a layout (no SL301)",
    ]
    # the tables got their ORDER BY; the views and the ephemeral model are as they were
    fixed = {path.name: path.read_text() for path in (root / "models").rglob("*.sql")}
    assert fixed == {
        "z_stage.sql": VIEW_MODELS["models/z_stage.sql"],
        "m_table.sql": "select * from {{ ref('z_stage') }} ORDER BY host\n",
        "m_view.sql": VIEW_MODELS["models/marts/m_view.sql"],
        "m_back.sql": "{{ config(materialized='table') }}\nselect * from {{ ref('z_stage') }} ORDER BY host\n",
        "e_cte.sql": VIEW_MODELS["models/e_cte.sql"],
    }
    result = check([root], load_config(root / "sortlint.yml"))
    assert result.findings == []


def test_a_model_whose_materialization_is_not_known_is_checked(tmp_path):
    # dbt_project.yml's Jinja that cannot be rendered here: the model may store files
    root = write(tmp_path, {**VIEW_MODELS, "dbt_project.yml": (
        "name: shop\nmodels:\n  +materialized: \"{{ env_var('SORTLINT_UNSET_MATERIALIZATION') }}\"\n"
    )})
    result = check([root / "models" / "z_stage.sql"], load_config(root / "sortlint.yml"))
    assert [(f.path.name, f.code) for f in result.findings] == [("z_stage.sql", "SL301")]


# ---------------------------------------------------------------------------------------------
# The example project


EXAMPLE_FINDINGS = [
    ("dbt/models/marts/customer_orders.sql", 4, "SL301", "unsafe"),
    ("dbt/models/marts/customer_orders.sql", 6, "SL103", "unsafe"),
    ("dbt/models/marts/customer_sequence.sql", 5, "SL201", "safe"),
    ("dbt/models/marts/daily_refunds.sql", 7, "SL103", "unavailable"),
    ("dbt/models/marts/daily_revenue.sql", 8, "SL103", "unavailable"),
    ("dbt/models/marts/daily_revenue.sql", 10, "SL003", "safe"),
    ("dbt/models/marts/order_items.sql", 7, "SL002", "safe"),
    ("dbt/models/marts/order_revenue.sql", 6, "SL101", "safe"),
]

# What `sortlint check --fix --unsafe-fixes` changes in each model: (before, after).
EXAMPLE_FIXES = {
    "marts/customer_orders.sql": [
        ("select order_id, customer_id, sum", "select order_id, any_value(customer_id) AS customer_id, sum"),
        ("group by order_id, customer_id\n", "group by order_id\nORDER BY order_id\n"),
    ],
    "marts/customer_sequence.sql": [
        ("order by customer_id, created_at)", "order by created_at)"),
    ],
    "marts/daily_revenue.sql": [
        ("order by currency, {{ var('day_column', 'order_date') }}", "order by {{ var('day_column', 'order_date') }}"),
    ],
    "marts/order_items.sql": [
        ("    from {{ ref('stg_orders') }}\n    order by created_at\n", "    from {{ ref('stg_orders') }}\n"),
    ],
    "marts/order_revenue.sql": [("group by line_no, order_id", "group by order_id, line_no")],
}


def test_example_findings():
    config = load_config(EXAMPLES / "sortlint.yml")
    result = check([EXAMPLES / "dbt"], config)
    assert not result.all_errors
    assert [
        (f.path.relative_to(EXAMPLES).as_posix(), f.line, f.code, f.fix.applicability if f.fix else None)
        for f in result.findings
    ] == EXAMPLE_FINDINGS


@pytest.fixture(scope="module")
def fixed_example(tmp_path_factory):
    """examples/ copied and fixed in place; (root, original texts, fixed texts) of the models."""
    root = tmp_path_factory.mktemp("examples") / "repo"
    shutil.copytree(EXAMPLES, root)
    models = sorted((root / "dbt" / "models").rglob("*.sql"))
    before = {path: path.read_text() for path in models}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["check", "--fix", "--unsafe-fixes", "dbt"]) == 1
    after = {path: path.read_text() for path in models}
    return root, before, after


def test_example_fixes_exactly(fixed_example):
    root, before, after = fixed_example
    models = root / "dbt" / "models"
    expected = dict(before)
    for name, replacements in EXAMPLE_FIXES.items():
        for old, new in replacements:
            assert expected[models / name].count(old) == 1, (name, old)
            expected[models / name] = expected[models / name].replace(old, new)
    assert after == expected


def test_fixing_the_example_twice_changes_nothing(fixed_example):
    root, _, after = fixed_example
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        main(["check", "--fix", "--unsafe-fixes", "dbt"])
    assert {path: path.read_text() for path in after} == after


def latin1_upstream_example(root: Path) -> Path:
    """examples/ copied, stg_refunds (which daily_refunds reads) saved as latin-1."""
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".sortlint_cache"))
    upstream = root / "dbt" / "models" / "staging" / "stg_refunds.sql"
    upstream.write_bytes(upstream.read_text().replace("-- Refunded orders.", "-- Refunded orders (café).")
                         .encode("latin-1"))
    return root


def test_an_upstream_model_that_is_not_utf8_is_an_error_not_a_finding_gone(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(latin1_upstream_example(tmp_path / "repo"))
    args = ["check", "--no-cache", "--dbt-renderer", "builtin"]
    assert main([*args, "dbt/models/marts/daily_refunds.sql"]) == 2
    assert capsys.readouterr() == (
        "Found 0 findings. 1 error.\n",
        "error: dbt/models/staging/stg_refunds.sql:1: not UTF-8 text: invalid continuation byte at "
        "byte 23 (it defines shop_analytics.stg_refunds, which a checked file reads)\n",
    )
    # So is one that does not render: what it defines is missing all the same.
    upstream = Path("dbt/models/staging/stg_refunds.sql")
    latin1 = upstream.read_bytes()
    upstream.write_text(latin1.decode("latin-1").replace("'REFUNDED'", "{{ oops( }}"))
    assert main([*args, "dbt/models/marts/daily_refunds.sql"]) == 2
    assert capsys.readouterr().err == (
        "error: dbt/models/staging/stg_refunds.sql:4: cannot render template: Jinja syntax error: "
        "unexpected '}', expected ')' (it defines shop_analytics.stg_refunds, which a checked file reads)\n")
    upstream.write_bytes(latin1)
    # Checked with it, the upstream file's error is said once, as its own.
    assert main([*args, "dbt/models/marts/daily_refunds.sql", "dbt/models/staging/stg_refunds.sql"]) == 2
    assert capsys.readouterr().err == (
        "error: dbt/models/staging/stg_refunds.sql:1: not UTF-8 text: invalid continuation byte at byte 23\n")


# ---------------------------------------------------------------------------------------------
# Spark proves the fixed models


def rendered_models(root: Path, texts: dict[Path, str], config: Config) -> dict[str, str]:
    """Each model's rendered SQL by name, in dependency order."""
    project = dbt.Projects().of(next(iter(texts)))
    rendered = {path.stem: render_model(path, text, project, config) for path, text in texts.items()}
    order = dependency_order({name: r.reads for name, r in rendered.items()})
    return {name: jinja_units(path, texts[path], Reading(config))[-1].text
            for name in order for path in texts if path.stem == name}


def dependency_order(reads: Mapping[str, Sequence[str]]) -> list[str]:
    """Model names (the keys of `reads`), each after the models it reads (cycles: file order)."""
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(name: str) -> None:
        if state.get(name):
            return
        state[name] = "visiting"
        for read in reads.get(name, ()):
            if read in reads:
                visit(read)
        state[name] = "done"
        order.append(name)

    for name in reads:
        visit(name)
    return order


def create_views(spark, models: dict[str, str]) -> None:
    for name, sql in models.items():
        spark.sql(f"CREATE OR REPLACE VIEW shop_analytics.{name} AS {sql}")


@pytest.mark.spark
def test_spark_proves_every_fixed_model_keeps_its_columns_and_rows(spark, fixed_example):
    root, before, after = fixed_example
    config = load_config(root / "sortlint.yml")
    merged = prepare(list(before), Reading(config)).config
    raw_tables = [s for s in merged.sources if s.name.startswith("shop.")]
    assert [s.name for s in raw_tables] == ["shop.orders", "shop.order_lines"]
    spark.sql("CREATE DATABASE IF NOT EXISTS shop_analytics")
    spark_support.load_catalog_data(
        spark, Config(sources=tuple(raw_tables)), rows=600, strings=["PAID", "REFUNDED", "EUR", "USD"]
    )
    original = rendered_models(root, before, config)
    fixed = rendered_models(root, after, config)
    changed = [name for name in original if original[name] != fixed[name]]
    # daily_refunds' constant status is a string: SL103 keeps it grouped, with no fix (a
    # string's any_value makes Spark sort to aggregate)
    assert changed == ["customer_orders", "customer_sequence", "daily_revenue", "order_items", "order_revenue"]

    create_views(spark, original)
    schemas = {name: spark_support.schema_of(spark, sql) for name, sql in original.items()}
    rows = {name: Counter(map(tuple, spark.sql(sql).collect())) for name, sql in original.items()}
    empty = [name for name in changed if not rows[name]]
    assert not empty, f"vacuous: {empty} return no rows on the generated data"

    create_views(spark, fixed)
    for name, sql in fixed.items():
        assert spark_support.schema_of(spark, sql) == schemas[name], f"{name}: columns changed\n{sql}"
        assert Counter(map(tuple, spark.sql(sql).collect())) == rows[name], f"{name}: rows changed\n{sql}"


DISABLED_BY_VARS = {
    "dbt_project.yml": "name: p\nmodels:\n  p:\n    optional:\n"
                       "      +enabled: \"{{ var('enable_optional', false) | as_bool }}\"\n",
    "models/optional/extra.sql": "select a from t order by a, a\n",
    "models/by_var.sql": "{{ config(enabled=var('on_x', false)) }}\nselect a from t order by a, a\n",
    "models/off.sql": "{{ config(enabled=false) }}\nselect a from t order by a, a\n",
    "models/kept.sql": "select a from t order by a, a\n",
}


@pytest.mark.parametrize("given", [[], ["--var", "enable_optional=true", "--var", "on_x=true"]])
def test_the_builtin_renderer_skips_exactly_the_models_dbt_skips(tmp_path, capsys, given):
    """`enabled` from dbt_project.yml's Jinja reads `--var` as dbt's does, and a model's own
    `config(enabled=...)` computed while it renders leaves it out too."""
    root = write(tmp_path, DISABLED_BY_VARS)
    code = main(["check", "--no-cache", "--dbt-renderer", "builtin", *given, str(root)])
    out = capsys.readouterr().out
    checked = ["by_var.sql:2", "kept.sql:1", "optional/extra.sql:1"] if given else ["kept.sql:1"]
    assert (code, out) == (1, "".join(
        f"{root / 'models' / place}:29: SL003 [*] sort key a repeats an earlier key [query]\n"
        for place in checked) + f"Found {len(checked)} finding{'s' if len(checked) > 1 else ''} in "
        f"{len(checked)} file{'s' if len(checked) > 1 else ''}.\n")


def test_the_scan_for_config_calls_parses_only_a_text_that_names_config(monkeypatch):
    # a project's scan reads every model's `config(...)`; a text without the name has none
    import jinja2

    parsed: list[str] = []
    parse = jinja2.Environment.parse
    monkeypatch.setattr(jinja2.Environment, "parse",
                        lambda self, source, *args, **kwargs: parsed.append(source) or parse(self, source, *args, **kwargs))
    configured = "{{ config(materialized='table') }}\nselect 1 as a\n{{ config(alias='x') }}\n"
    plain = "select id from {{ ref('a') }} join {{ source('s', 't') }} using (id)\n"
    assert dbt._scan_config(configured) == {"materialized": ("table", 1), "alias": ("x", 3)}
    assert dbt._scan_config(plain) == {}
    assert parsed == [configured]
