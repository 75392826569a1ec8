"""A seeded, deterministic generator of a large, realistic dbt project on Spark, for timing
sortlint (and dbt, sqlfluff, sqlglot) at the scale of a real warehouse.

    .venv/bin/python benchmarks/dbt_project.py OUT_DIR [--models 1200] [--seed 0]

The project is what a data team's repository looks like after a few years:

* `dbt_project.yml` with vars (global ones and vars scoped to the project), `+materialized`
  per folder, custom schemas for two mart folders, a legacy folder turned off with
  `+enabled: false`, and a `+meta: {sortlint: ...}` default;
* models in `models/staging/<source system>/` (~40%, each reading one `source()` table
  declared in that folder's sources YAML, renamed, cast, some deduplicated),
  `models/intermediate/<domain>/` (~35%) and `models/marts/<domain>/` (~25%), which `ref()`
  earlier models: every model at depth d reads one at depth d - 1, so ref chains run from a
  staging model (depth 1) to marts at depth 8;
* CTE-style SQL: joins on foreign keys, GROUP BY aggregates, window functions, CASE WHEN,
  ORDER BY in reports, `{{ config(...) }}` headers, incremental models with an
  `{% if is_incremental() %}` filter, `{{ var(...) }}`, the project's macros
  (`cents_to_dollars`, `status_bucket`, `date_spine_days`, `lookback_filter`) and dbt_utils'
  (`generate_surrogate_key`, `pivot`, `safe_divide`; in a few models `star` and `date_spine`,
  which ask the database while they render: dbt then starts Spark, as on a real project);
* a property file per folder (descriptions, columns, tests: unique, not_null,
  accepted_values, relationships; `meta: {sortlint: ...}` declarations of columns, unique
  keys and constants) — about 40,000 lines of YAML at 1,200 models;
* seeds, and `packages.yml` with dbt_utils copied into `dbt_packages/` from the corpora
  (`../shared/corpora/dbt/packages/dbt_utils`, what `dbt deps` would install), so the project
  renders offline;
* ~2% of the models disabled (the legacy folder, and `config(enabled=false)` in others);
  no enabled model reads a disabled one.

`--profile real` (`profile="real"`) makes each model cost what a real project's does: the
issue-31 project (1,196 models, many macros, long CTE chains, large YAML) took about 4x the
plain profile's time per model. On top of the plain project, every model gets a chain of
extra CTEs (10-30 in all) whose columns call macros of two local packages the generator
writes into `packages/` (and, as `dbt deps` installs them, `dbt_packages/`): `bench_date`, a
dbt_date-like set reached through `adapter.dispatch` (a `default__` and a `spark__`
implementation each), and `bench_utils`, dbt_utils-like helpers that call `bench_date`'s and
dbt_utils' macros in turn; the new columns are documented in the property files. The plain
project is the same bytes with or without this option's code (`profile="plain"`).

`plan(models, seed)` builds the model graph and every file's text in memory (the tests use
it to check the graph's depth without writing files); `generate(root, models, seed)` writes
it. The same arguments always give byte-identical files.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

NAME = "sortlint_bench"
# The corpora live in `shared/` next to the repository (from a worktree: next to its parent).
DBT_UTILS = next(
    (base / "shared" / "corpora" / "dbt" / "packages" / "dbt_utils" for base in Path(__file__).resolve().parents
     if (base / "shared" / "corpora" / "dbt" / "packages" / "dbt_utils").is_dir()),
    None,
)

# entity: (the entities its foreign keys point at, the values of its status column)
ENTITIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "customer": (("account", "region"), ("active", "churned", "prospect")),
    "account": (("region",), ("open", "closed", "suspended")),
    "order": (("customer", "store", "campaign"), ("placed", "shipped", "completed", "returned", "cancelled")),
    "order_item": (("order", "product"), ("ok", "refunded")),
    "payment": (("order", "customer"), ("success", "failed", "pending")),
    "refund": (("payment", "order"), ("requested", "approved", "rejected")),
    "product": (("supplier", "category"), ("active", "discontinued")),
    "category": ((), ("visible", "hidden")),
    "supplier": (("region",), ("approved", "blocked")),
    "store": (("region",), ("open", "closed")),
    "region": ((), ("active", "inactive")),
    "shipment": (("order", "carrier"), ("in_transit", "delivered", "lost")),
    "carrier": ((), ("active", "inactive")),
    "invoice": (("customer", "subscription"), ("draft", "sent", "paid", "void")),
    "subscription": (("customer", "plan"), ("trialing", "active", "cancelled")),
    "plan": ((), ("monthly", "annual")),
    "campaign": (("channel",), ("draft", "running", "finished")),
    "channel": ((), ("paid", "organic", "referral")),
    "session": (("customer", "campaign"), ("bounced", "engaged", "converted")),
    "event": (("session", "customer"), ("page_view", "click", "purchase")),
    "ticket": (("customer", "agent"), ("new", "open", "solved", "closed")),
    "agent": (("team",), ("active", "away")),
    "team": ((), ("active", "disbanded")),
    "employee": (("team", "region"), ("hired", "active", "terminated")),
    "inventory": (("product", "store"), ("in_stock", "low", "out_of_stock")),
}
DOMAINS = {
    "finance": ("payment", "refund", "invoice", "subscription", "plan"),
    "sales": ("order", "order_item", "customer", "account", "store"),
    "product": ("product", "category", "supplier", "inventory"),
    "operations": ("shipment", "carrier", "region", "employee"),
    "marketing": ("campaign", "channel", "session", "event"),
    "support": ("ticket", "agent", "team"),
}
DOMAIN_OF = {entity: domain for domain, entities in DOMAINS.items() for entity in entities}
SYSTEMS = (
    "shopify", "stripe", "salesforce", "hubspot", "zendesk", "netsuite", "segment", "braintree",
    "magento", "intercom", "marketo", "workday", "jira", "google_ads", "facebook_ads", "shipbob",
    "recharge", "chargebee", "freshdesk", "sap", "snowplow", "klaviyo", "quickbooks", "bamboohr",
)
# Table name suffixes: the plain table, and copies of it a source system keeps (deduplicated
# to the latest row per id in staging).
SUFFIXES = ("", "_history", "_snapshots", "_archive", "_v2", "_changes", "_daily", "_raw")
FLAGS = ("is_test", "is_deleted", "is_internal", "is_priority")
CHANNELS = ("channel", "platform", "source_medium", "country_code")
# Depth weights of intermediate models (depths 2..6) and marts (depths 3..8).
INTERMEDIATE_DEPTHS = {2: 30, 3: 25, 4: 20, 5: 15, 6: 10}
MART_DEPTHS = {3: 20, 4: 20, 5: 20, 6: 15, 7: 15, 8: 10}
MART_SCHEMAS = {"finance": "finance", "marketing": "marketing"}
SEEDS = {
    "country_codes": "country_code,country_name,region_id\n"
    + "".join(f"{code},{name},{i % 7 + 1}\n" for i, (code, name) in enumerate(
        [("US", "United States"), ("DE", "Germany"), ("FR", "France"), ("GB", "United Kingdom"),
         ("NL", "Netherlands"), ("ES", "Spain"), ("IT", "Italy"), ("BR", "Brazil"),
         ("JP", "Japan"), ("IN", "India"), ("CA", "Canada"), ("AU", "Australia")])),
    "currency_rates": "currency,rate_to_usd\nUSD,1.0\nEUR,1.08\nGBP,1.27\nJPY,0.0067\nBRL,0.2\n",
    "status_labels": "status,label,is_terminal\n"
    + "".join(f"{status},{status.replace('_', ' ').title()},{str(status in ('completed', 'closed', 'cancelled', 'void')).lower()}\n"
              for status in sorted({s for _, statuses in ENTITIES.values() for s in statuses})),
}
MACROS = {
    "cents_to_dollars.sql": """\
{#- Amounts arrive in cents from every billing system; marts report them in dollars. -#}
{% macro cents_to_dollars(column, scale=2) -%}
    round(cast({{ column }} as decimal(18, 4)) / 100, {{ scale }})
{%- endmacro %}
""",
    "status_bucket.sql": """\
{#- The status groups finance and support report on: open work, done, and lost. -#}
{% macro status_bucket(column) -%}
    case
        when {{ column }} in ('completed', 'paid', 'delivered', 'solved', 'closed', 'success') then 'done'
        when {{ column }} in ('cancelled', 'void', 'lost', 'failed', 'churned', 'rejected') then 'lost'
        else 'open'
    end
{%- endmacro %}
""",
    "date_spine_days.sql": """\
{#- One row per day from start_date to end_date (inclusive), as a Spark generator. -#}
{% macro date_spine_days(start_date, end_date) -%}
    select explode(sequence(to_date('{{ start_date }}'), to_date('{{ end_date }}'), interval 1 day)) as date_day
{%- endmacro %}
""",
    "lookback_filter.sql": """\
{#- The incremental models' filter: rows newer than what the table holds, minus a lookback. -#}
{% macro lookback_filter(column) -%}
    {{ column }} > (select date_sub(max({{ column }}), {{ var('lookback_days') }}) from {{ this }})
{%- endmacro %}
""",
}

# The real profile's local packages: package -> macro file -> text. bench_date's macros
# dispatch (`adapter.dispatch(name, package)`), as dbt_date's and dbt_utils' do, to a
# `spark__` implementation where Spark needs its own and to `default__` elsewhere;
# bench_utils' measures call bench_date's and dbt_utils' macros across packages.
PACKAGES = {
    "bench_date": {
        "day_of_week.sql": """\
{#- ISO day of the week, 1 = Monday. -#}
{% macro day_of_week(date, isoweek=true) -%}
    {{ return(adapter.dispatch('day_of_week', 'bench_date')(date, isoweek)) }}
{%- endmacro %}

{% macro default__day_of_week(date, isoweek) -%}
    {%- if isoweek -%}
    ((dayofweek({{ date }}) + 5) % 7 + 1)
    {%- else -%}
    dayofweek({{ date }})
    {%- endif -%}
{%- endmacro %}

{% macro spark__day_of_week(date, isoweek) -%}
    {%- set dow = "date_format(" ~ date ~ ", 'u')" -%}
    {%- if isoweek -%}
    cast({{ dow }} as int)
    {%- else -%}
    (cast({{ dow }} as int) % 7 + 1)
    {%- endif -%}
{%- endmacro %}
""",
        "fiscal_periods.sql": """\
{#- The fiscal year and quarter of a date, the year starting in `var('fiscal_start_month')`. -#}
{% macro fiscal_quarter(date, start_month=none) -%}
    {{ return(adapter.dispatch('fiscal_quarter', 'bench_date')(date, start_month)) }}
{%- endmacro %}

{% macro default__fiscal_quarter(date, start_month) -%}
    {%- set start = start_month or var('fiscal_start_month', 2) -%}
    (floor(pmod(month({{ date }}) - {{ start }}, 12) / 3) + 1)
{%- endmacro %}

{% macro fiscal_year(date, start_month=none) -%}
    {{ return(adapter.dispatch('fiscal_year', 'bench_date')(date, start_month)) }}
{%- endmacro %}

{% macro default__fiscal_year(date, start_month) -%}
    {%- set start = start_month or var('fiscal_start_month', 2) -%}
    (year({{ date }}) + case when month({{ date }}) >= {{ start }} then 1 else 0 end)
{%- endmacro %}
""",
        "periods.sql": """\
{#- Truncations and offsets the reports use. -#}
{% macro period_start(date, period='month') -%}
    {{ return(adapter.dispatch('period_start', 'bench_date')(date, period)) }}
{%- endmacro %}

{% macro default__period_start(date, period) -%}
    date_trunc('{{ period }}', {{ date }})
{%- endmacro %}

{% macro spark__period_start(date, period) -%}
    {%- if period in ('day', 'week', 'month', 'quarter', 'year') -%}
    cast(date_trunc('{{ period }}', {{ date }}) as date)
    {%- else -%}
    {{ exceptions.raise_compiler_error("unknown period " ~ period) }}
    {%- endif -%}
{%- endmacro %}

{% macro days_between(start, end) -%}
    {{ return(adapter.dispatch('days_between', 'bench_date')(start, end)) }}
{%- endmacro %}

{% macro default__days_between(start, end) -%}
    datediff({{ end }}, {{ start }})
{%- endmacro %}
""",
    },
    "bench_utils": {
        "strings.sql": """\
{#- Text cleaning every staging layer repeats. -#}
{% macro clean_string(column, case='lower') -%}
    {{ return(adapter.dispatch('clean_string', 'bench_utils')(column, case)) }}
{%- endmacro %}

{% macro default__clean_string(column, case) -%}
    {%- set trimmed = "nullif(trim(cast(" ~ column ~ " as string)), '')" -%}
    {%- if case == 'lower' -%} lower({{ trimmed }})
    {%- elif case == 'upper' -%} upper({{ trimmed }})
    {%- else -%} {{ trimmed }}
    {%- endif -%}
{%- endmacro %}
""",
        "measures.sql": """\
{#- Measures built on dbt_utils and bench_date: ratios, buckets, period labels. -#}
{% macro ratio(numerator, denominator, scale=4) -%}
    round({{ dbt_utils.safe_divide(numerator, denominator) }}, {{ scale }})
{%- endmacro %}

{% macro bucket(column, edges) -%}
    case
    {%- for edge in edges %}
        when {{ column }} < {{ edge }} then {{ loop.index }}
    {%- endfor %}
        else {{ edges | length + 1 }}
    end
{%- endmacro %}

{% macro period_label(date) -%}
    concat('FY', {{ bench_date.fiscal_year(date) }}, '-Q', {{ bench_date.fiscal_quarter(date) }})
{%- endmacro %}

{% macro is_weekend(date) -%}
    ({{ bench_date.day_of_week(date) }} >= 6)
{%- endmacro %}
""",
    },
}


@dataclass
class Model:
    """One model: where it lives, what it reads, its output columns and its SQL."""

    name: str
    layer: str  # staging | intermediate | marts
    folder: str  # under models/
    depth: int  # 1 for staging; else 1 + the deepest model it refs
    entity: str
    columns: dict[str, str]  # output column -> Spark type
    key: str | None  # a column unique in the output, or None
    fks: list[str]  # columns naming another entity's key
    ts: str  # a timestamp column
    amount: str  # a decimal column
    status: tuple[str, tuple[str, ...]] | None  # (column, its values)
    refs: list[str] = field(default_factory=list)
    joined: dict[str, str] = field(default_factory=dict)  # fk column -> model it joins on
    enabled: bool = True
    sql: str = ""
    description: str = ""
    meta: dict | None = None


@dataclass
class Source:
    """A raw table of a source system and its columns."""

    system: str
    table: str
    entity: str
    columns: dict[str, str]
    declared: bool  # carries a `meta: {sortlint: ...}` declaration
    documented: bool  # its columns are listed in the sources YAML


def plural(entity: str) -> str:
    return entity[:-1] + "ies" if entity.endswith("y") else entity + "s"


def allocate(total: int, weights: dict[int, int]) -> list[int]:
    """`total` depths in proportion to `weights`, each depth at least once when there is room,
    in increasing order (so every model is planned after the models it may read)."""
    counts = {d: (1 if total >= len(weights) else 0) for d in weights}
    rest = total - sum(counts.values())
    whole = sum(weights.values())
    shares = {d: rest * w / whole for d, w in weights.items()}
    for d in weights:
        counts[d] += int(shares[d])
    left = total - sum(counts.values())
    for d in sorted(weights, key=lambda d: shares[d] - int(shares[d]), reverse=True)[:left]:
        counts[d] += 1
    return [d for d in sorted(weights) for _ in range(counts[d])]


class Planner:
    """Builds the project's sources and models, each model from models planned before it."""

    def __init__(self, models: int, seed: int) -> None:
        self.random = random.Random(seed)
        self.total = models
        self.sources: list[Source] = []
        self.models: dict[str, Model] = {}
        self.by_depth: dict[int, list[Model]] = {}
        self.by_key: dict[str, list[Model]] = {}

    # -- the graph ------------------------------------------------------------------------

    def plan(self) -> None:
        staging = round(self.total * 0.40)
        intermediate = round(self.total * 0.35)
        marts = self.total - staging - intermediate
        for _ in range(staging):
            self.add(self.staging())
        for depth in allocate(intermediate, INTERMEDIATE_DEPTHS):
            self.add(self.derived("intermediate", depth))
        for depth in allocate(marts, MART_DEPTHS):
            self.add(self.derived("marts", depth))
        self.disable()

    def add(self, model: Model) -> None:
        self.models[model.name] = model
        self.by_depth.setdefault(model.depth, []).append(model)
        if model.key:
            self.by_key.setdefault(model.key, []).append(model)

    def unique_name(self, base: str) -> str:
        name, n = base, 2
        while name in self.models:
            name, n = f"{base}_{n}", n + 1
        return name

    def disable(self) -> None:
        """About 2% of the models off: half of them moved to `marts/legacy/` (off in
        `dbt_project.yml`), half with `config(enabled=false)`; only models no one reads."""
        read = {ref for model in self.models.values() for ref in model.refs}
        leaves = [m for m in self.models.values() if m.layer != "staging" and m.name not in read]
        count = max(2, round(self.total * 0.02))
        chosen = self.random.sample(leaves, min(count, len(leaves)))
        for i, model in enumerate(sorted(chosen, key=lambda m: m.name)):
            model.enabled = False
            if i % 2 == 0:
                model.layer, model.folder = "marts", "marts/legacy"
            else:
                model.sql = model.sql.replace("{{ config(", "{{ config(enabled=false, ", 1)
                if "{{ config(" not in model.sql:
                    model.sql = "{{ config(enabled=false) }}\n\n" + model.sql

    # -- staging ------------------------------------------------------------------------

    def staging(self) -> Model:
        rnd = self.random
        while True:
            system = rnd.choice(SYSTEMS)
            entity = rnd.choice(sorted(ENTITIES))
            table = plural(entity) + rnd.choice(SUFFIXES)
            name = f"stg_{system}__{table}"
            if name not in self.models:
                break
        fks, statuses = ENTITIES[entity]
        kept_fks = [f for f in fks if rnd.random() < 0.85]
        flag = rnd.choice(FLAGS)
        label = rnd.choice(CHANNELS)
        raw = {"id": "bigint not null"}
        raw.update({f"{fk}_id": "bigint" for fk in kept_fks})
        raw.update({"status": "string", "amount_cents": "bigint", "tax_cents": "bigint",
                    label: "string", flag: "boolean", "created_at": "timestamp not null",
                    "updated_at": "timestamp", "_loaded_at": "timestamp"})
        declared = rnd.random() < 0.3
        source = Source(system, table, entity, raw, declared, declared or rnd.random() < 0.4)
        self.sources.append(source)

        key = f"{entity}_id"
        columns = {key: "bigint"}
        lines = [f"id as {key}"]
        for fk in kept_fks:
            columns[f"{fk}_id"] = "bigint"
            lines.append(f"{fk}_id")
        columns.update({"status": "string", "amount": "decimal(18,2)", "tax_amount": "decimal(18,2)",
                        label: "string", flag: "boolean", "created_at": "timestamp",
                        "updated_at": "timestamp", "created_date": "date"})
        lines += [
            "lower(trim(status)) as status",
            "{{ cents_to_dollars('amount_cents') }} as amount",
            "{{ cents_to_dollars('tax_cents') }} as tax_amount",
            f"nullif(trim({label}), '') as {label}",
            f"coalesce({flag}, false) as {flag}",
            "cast(created_at as timestamp) as created_at",
            "cast(updated_at as timestamp) as updated_at",
            "cast(created_at as date) as created_date",
        ]
        if rnd.random() < 0.4:
            columns["currency"] = "string"
            lines.append("'{{ var(\"currency\") }}' as currency")
        header = ""
        if rnd.random() < 0.3:
            header = f"{{{{ config(materialized='view', tags=['{system}']) }}}}\n\n"
        relation = f"{{{{ source('{system}', '{table}') }}}}"
        body = ",\n        ".join(lines)
        if table.endswith(plural(entity)):
            sql = (f"{header}with source as (\n\n    select * from {relation}\n\n),\n\n"
                   f"renamed as (\n\n    select\n        {body}\n    from source\n"
                   f"    where id is not null\n\n)\n\nselect * from renamed\n")
        else:
            sql = (f"{header}with source as (\n\n    select * from {relation}\n\n),\n\n"
                   "latest as (\n\n    select\n        *,\n"
                   "        row_number() over (partition by id order by updated_at desc, _loaded_at desc) as row_num\n"
                   "    from source\n\n),\n\n"
                   f"renamed as (\n\n    select\n        {body}\n    from latest\n"
                   "    where row_num = 1\n\n)\n\nselect * from renamed\n")
        model = Model(name, "staging", f"staging/{system}", 1, entity, columns, key,
                      [f"{fk}_id" for fk in kept_fks], "created_at", "amount",
                      ("status", statuses), sql=sql,
                      description=f"{plural(entity).replace('_', ' ').capitalize()} from {system}'s "
                      f"`{table}` table, one row per {entity.replace('_', ' ')} (latest version), renamed and typed.")
        if rnd.random() < 0.5:
            model.meta = {"unique": [[key]]}
            if "currency" in columns:
                model.meta["constants"] = {"currency": "USD"}
        return model

    # -- intermediate and marts -----------------------------------------------------------

    def derived(self, layer: str, depth: int) -> Model:
        """A model at `depth` reading one model at depth - 1 (its primary) and maybe others."""
        rnd = self.random
        candidates = [m for m in self.by_depth[depth - 1] if layer == "marts" or m.layer != "marts"]
        while not candidates:  # a small project may have no model one level up: go deeper
            depth -= 1
            candidates = [m for m in self.by_depth[depth - 1] if layer == "marts" or m.layer != "marts"]
        if layer == "intermediate":
            kind = rnd.choices(["enrich", "aggregate", "window", "incremental", "pivot", "spine", "star"],
                               [30, 25, 18, 12, 8, 4, 3])[0]
        else:
            kind = rnd.choices(["fact", "dim", "report", "aggregate", "incremental", "pivot", "star"],
                               [30, 22, 18, 15, 8, 5, 2])[0]
        needs = {  # what a kind needs of its primary: foreign keys, or a day column
            "aggregate": lambda m: m.fks or "created_date" in m.columns,
            "report": lambda m: m.fks or "created_date" in m.columns,
            "pivot": lambda m: m.fks and m.status,
            "spine": lambda m: m.ts == "created_at" and "created_date" in m.columns,
            "window": lambda m: m.fks and f"{m.entity}_seq" not in m.columns,
        }.get(kind, lambda m: True)
        suitable = [m for m in candidates if needs(m)]
        primary = rnd.choice(suitable or candidates)
        if not suitable:
            kind = "enrich" if layer == "intermediate" else "dim"
        if kind == "spine":
            return self.spine(layer, depth, primary)
        if kind in ("aggregate", "report", "pivot"):
            return self.aggregate(layer, depth, primary, kind)
        if kind == "window":
            return self.window(layer, depth, primary)
        return self.enrich(layer, depth, primary, kind)

    def folder(self, layer: str, entity: str) -> str:
        domain = DOMAIN_OF[entity]
        if layer == "marts" and self.random.random() < 0.15:
            domain = "core"
        return f"{layer}/{domain}"

    def prefix(self, layer: str, kind: str) -> str:
        if layer == "intermediate":
            return "int"
        return {"fact": "fct", "dim": "dim", "report": "rpt", "aggregate": "agg"}.get(kind, "fct")

    def base(self, primary: Model, keep: int = 12) -> list[str]:
        """The primary's columns a derived model carries on: its key, keys, time, amount,
        status, then others up to `keep` in all."""
        first = [c for c in [primary.key, *primary.fks, primary.ts, primary.amount,
                             primary.status[0] if primary.status else None] if c]
        first = list(dict.fromkeys(first))
        rest = [c for c in primary.columns if c not in first]
        return first + rest[: max(0, keep - len(first))]

    def enrich(self, layer: str, depth: int, primary: Model, kind: str) -> Model:
        """Joins the primary to the models its foreign keys name, adds derived columns;
        incremental ones filter on `{{ this }}`; facts get a surrogate key."""
        rnd = self.random
        entity = primary.entity
        if layer == "intermediate":
            verb = {"enrich": "enriched", "incremental": "incremental", "star": "all_columns"}[kind]
            name = self.unique_name(f"int_{entity}__{verb}")
        else:
            name = self.unique_name(f"{self.prefix(layer, kind)}_{plural(entity)}")
        carried = self.base(primary)
        columns = {c: primary.columns[c] for c in carried}
        select = [f"p.{c}" for c in carried]
        joins, refs, joined = [], [primary.name], {}
        keys = [f for f in primary.fks if rnd.random() < 0.7]
        if primary.key and rnd.random() < 0.5:
            keys.append(primary.key)  # a 1:1 join: another model at the primary's grain
        for fk in [f for f in keys if f in self.by_key][:2]:
            partners = [m for m in self.by_key[fk] if m.depth < depth and m.name != primary.name
                        and (layer == "marts" or m.layer != "marts") and m.enabled]
            if not partners:
                continue
            other = rnd.choice(partners)
            alias = f"j{len(joins) + 1}"
            joins.append(f"    left join {other.name} as {alias}\n        on p.{fk} = {alias}.{fk}")
            refs.append(other.name)
            joined[fk] = other.name
            extras = [c for c in other.columns if c not in (other.key, *other.fks)][:3]
            for column in extras:
                out = f"{other.entity}_{column}" if not column.startswith(other.entity) else column
                if out in columns:
                    continue
                columns[out] = other.columns[column]
                select.append(f"{alias}.{column} as {out}")
        # derived columns, unless a model this one descends from derived them already
        threshold = rnd.choice([100, 250, 500, 1000])
        if primary.status and "status_group" not in columns:
            columns["status_group"] = "string"
            select.append(f"{{{{ status_bucket('p.{primary.status[0]}') }}}} as status_group")
        if f"is_large_{entity}" not in columns:
            columns[f"is_large_{entity}"] = "boolean"
            select.append(f"case when p.{primary.amount} >= {threshold} "
                          f"then true else false end as is_large_{entity}")
        if kind == "fact" and primary.key and f"{entity}_sk" not in columns:
            columns[f"{entity}_sk"] = "string"
            select.insert(0, f"{{{{ dbt_utils.generate_surrogate_key(['p.{primary.key}', 'p.{primary.ts}']) }}}} as {entity}_sk")
        # Some models sort what they read, as if the order carried through the join: a common
        # mistake, and what sortlint is for.
        sort = f"\n    order by {primary.ts}" if rnd.random() < 0.08 else ""
        ctes = [f"{primary.name} as (\n\n    select * from {{{{ ref('{primary.name}') }}}}{sort}\n\n)"]
        for other in refs[1:]:
            ctes.append(f"{other} as (\n\n    select * from {{{{ ref('{other}') }}}}\n\n)")
        if kind == "star":
            ctes[0] = (f"{primary.name} as (\n\n    select {{{{ dbt_utils.star(ref('{primary.name}')) }}}}"
                       f"\n    from {{{{ ref('{primary.name}') }}}}\n\n)")
        body = ",\n        ".join(select)
        where = ""
        header = ""
        if kind == "incremental" and primary.key:
            header = (f"{{{{\n    config(\n        materialized='incremental',\n"
                      f"        unique_key='{primary.key}',\n        incremental_strategy='merge',\n"
                      f"        file_format='delta'\n    )\n}}}}\n\n")
            where = (f"\n    where p.{primary.ts} >= '{{{{ var(\"start_date\") }}}}'\n"
                     f"    {{% if is_incremental() %}}\n      and {{{{ lookback_filter('p.{primary.ts}') }}}}\n"
                     f"    {{% endif %}}")
        elif layer == "marts" and rnd.random() < 0.3:
            header = f"{{{{ config(materialized='table', tags=['{DOMAIN_OF[entity]}']) }}}}\n\n"
        joined_sql = ("\n" + "\n".join(joins)) if joins else ""
        final = (f"final as (\n\n    select\n        {body}\n    from {primary.name} as p"
                 f"{joined_sql}{where}\n\n)")
        sql = f"{header}with {CTES.join(ctes + [final])}\n\nselect * from final\n"
        model = Model(name, layer, self.folder(layer, entity), depth, entity, columns,
                      primary.key, [f for f in primary.fks if f in columns], primary.ts,
                      primary.amount, primary.status, refs=refs, joined=joined, sql=sql,
                      description=f"{plural(entity).replace('_', ' ').capitalize()} from "
                      f"`{primary.name}` with the attributes of the models their keys name.")
        if primary.key and rnd.random() < 0.4:
            model.meta = {"unique": [[primary.key]]}
        return model

    def aggregate(self, layer: str, depth: int, primary: Model, kind: str) -> Model:
        """Groups the primary by one of its foreign keys (or by day): counts, sums, first and
        last times, a rank over the groups; reports order their output; pivots spread the
        status values into columns with dbt_utils.pivot."""
        rnd = self.random
        entity = primary.entity
        by_day = not primary.fks or (kind == "report" and rnd.random() < 0.4)
        group = "created_date" if by_day and "created_date" in primary.columns else None
        if group is None and primary.fks:
            group = rnd.choice(primary.fks)
        group_entity = group[:-3] if group.endswith("_id") else entity
        verb = (f"{plural(entity)}_by_{group_entity}" if group.endswith("_id")
                else f"daily_{plural(entity)}")
        if kind == "pivot":
            verb = f"{entity}_statuses_by_{group_entity}"
        name = self.unique_name(f"{self.prefix(layer, kind)}_{verb}" if layer == "marts"
                                else f"int_{entity}__{verb}")
        count = f"{entity}_count"
        total = f"total_{primary.amount}" if not primary.amount.startswith("total_") else f"sum_{primary.amount}"
        first, last = f"first_{entity}_at", f"last_{entity}_at"
        columns = {group: primary.columns[group], count: "bigint", total: "decimal(28,2)",
                   f"avg_{primary.amount}": "decimal(22,6)", first: "timestamp", last: "timestamp"}
        select = [group, f"count(*) as {count}", f"sum({primary.amount}) as {total}",
                  f"avg({primary.amount}) as avg_{primary.amount}",
                  f"min({primary.ts}) as {first}", f"max({primary.ts}) as {last}"]
        if primary.key and primary.key != group:
            columns[f"distinct_{plural(entity)}"] = "bigint"
            select.append(f"count(distinct {primary.key}) as distinct_{plural(entity)}")
        if kind == "pivot" and primary.status:
            column, values = primary.status
            select.append(f"{{{{ dbt_utils.pivot('{column}', {list(values)!r}, prefix='{column}_') }}}}")
            columns.update({f"{column}_{v}": "bigint" for v in values})
        elif primary.status:
            column = primary.status[0]
            done = f"done_{plural(entity)}"
            columns[done] = "bigint"
            select.append(f"sum(case when {{{{ status_bucket('{column}') }}}} = 'done' then 1 else 0 end) as {done}")
        # a sort of the groups that nothing downstream keeps (the mistake sortlint reports)
        pointless = f"\n    order by {group}" if rnd.random() < 0.1 else ""
        grouped_cte = (f"grouped as (\n\n    select\n        {ITEMS.join(select)}\n"
                       f"    from {primary.name}\n"
                       f"    where {primary.ts} >= '{{{{ var(\"start_date\") }}}}'\n"
                       f"    group by {group}{pointless}\n\n)")
        ratio = f"{entity}_share"
        columns[ratio] = "double"
        columns[f"{entity}_rank"] = "int"
        final = (f"final as (\n\n    select\n        *,\n"
                 f"        {{{{ dbt_utils.safe_divide('{count}', 'sum({count}) over ()') }}}} as {ratio},\n"
                 f"        rank() over (order by {total} desc) as {entity}_rank\n"
                 f"    from grouped\n\n)")
        order = f"\norder by {total} desc, {group}" if kind == "report" else ""
        header = ""
        if layer == "marts" and rnd.random() < 0.4:
            header = "{{ config(materialized='table') }}\n\n"
        sql = (f"{header}with {primary.name} as (\n\n    select * from {{{{ ref('{primary.name}') }}}}\n\n),\n\n"
               f"{grouped_cte},\n\n{final}\n\nselect * from final{order}\n")
        model = Model(name, layer, self.folder(layer, entity), depth, group_entity, columns,
                      group, [], last, total, None, refs=[primary.name], sql=sql,
                      description=f"{plural(entity).replace('_', ' ').capitalize()} of `{primary.name}` "
                      f"per {group.replace('_', ' ')}: counts, amounts, first and last times.")
        if rnd.random() < 0.5:
            model.meta = {"unique": [[group]]}
        return model

    def window(self, layer: str, depth: int, primary: Model) -> Model:
        """The primary's rows with their sequence, running total and previous time within
        the group of one foreign key."""
        entity = primary.entity
        part = self.random.choice(primary.fks) if primary.fks else None
        over = f"partition by {part} order by {primary.ts}" if part else f"order by {primary.ts}"
        name = self.unique_name(f"int_{entity}__sequenced")
        carried = self.base(primary)
        columns = {c: primary.columns[c] for c in carried}
        columns.update({f"{entity}_seq": "int", f"running_{primary.amount}": "decimal(28,2)",
                        f"previous_{primary.ts}": "timestamp", f"is_first_{entity}": "boolean"})
        select = carried + [
            f"row_number() over ({over}) as {entity}_seq",
            f"sum({primary.amount}) over ({over} rows between unbounded preceding and current row)"
            f" as running_{primary.amount}",
            f"lag({primary.ts}) over ({over}) as previous_{primary.ts}",
        ]
        sql = (f"with {primary.name} as (\n\n    select * from {{{{ ref('{primary.name}') }}}}\n\n),\n\n"
               f"sequenced as (\n\n    select\n        {ITEMS.join(select)}\n"
               f"    from {primary.name}\n\n),\n\n"
               f"final as (\n\n    select\n        *,\n"
               f"        {entity}_seq = 1 as is_first_{entity}\n    from sequenced\n\n)\n\n"
               f"select * from final\n")
        return Model(name, layer, self.folder(layer, entity), depth, entity, columns, primary.key,
                     [f for f in primary.fks if f in columns], primary.ts, primary.amount,
                     primary.status, refs=[primary.name], sql=sql,
                     description=f"`{primary.name}` with each row's sequence number, running "
                     f"total and previous time{' per ' + part.replace('_', ' ') if part else ''}.")

    def spine(self, layer: str, depth: int, primary: Model) -> Model:
        """Every day of the reporting period, with the primary's daily count and amount
        (zero on days without rows): the project's date spine macro and a left join."""
        entity = primary.entity
        name = self.unique_name(f"int_{entity}__daily_spine")
        columns = {"date_day": "date", f"{entity}_count": "bigint", f"daily_{primary.amount}": "decimal(28,2)"}
        if self.random.random() < 0.5:
            days = "{{ date_spine_days(var('start_date'), var('end_date')) }}"
        else:
            days = ("{{ dbt_utils.date_spine(datepart='day', start_date=\"to_date('\" ~ var('start_date') ~ \"')\", "
                    "end_date=\"to_date('\" ~ var('end_date') ~ \"')\") }}")
        sql = (f"with days as (\n\n    {days}\n\n),\n\n"
               f"daily as (\n\n    select\n        created_date,\n        count(*) as {entity}_count,\n"
               f"        sum({primary.amount}) as daily_{primary.amount}\n"
               f"    from {{{{ ref('{primary.name}') }}}}\n    group by created_date\n\n),\n\n"
               f"final as (\n\n    select\n        days.date_day,\n"
               f"        coalesce(daily.{entity}_count, 0) as {entity}_count,\n"
               f"        coalesce(daily.daily_{primary.amount}, 0) as daily_{primary.amount}\n"
               f"    from days\n    left join daily\n        on days.date_day = daily.created_date\n\n)\n\n"
               f"select * from final\n")
        return Model(name, layer, self.folder(layer, entity), depth, entity, columns, "date_day",
                     [], "date_day", f"daily_{primary.amount}", None, refs=[primary.name], sql=sql,
                     description=f"One row per day from `start_date` to `end_date` with "
                     f"`{primary.name}`'s count and amount that day.",
                     meta={"unique": [["date_day"]]})


def realistic(models: dict[str, Model], seed: int) -> None:
    """The real profile: each model's final select becomes the first of a chain of 10-26
    more CTEs, each adding a column or two through the local packages' macros (or filtering),
    so a model holds 10-30 CTEs. A random generator of its own keeps the plain plan as it
    is."""
    rnd = random.Random(seed * 7919 + 31)
    for model in models.values():
        head, before, tail = re.fullmatch(r"(.*)\n\nselect \* from (\w+)(.*)", model.sql, re.S).groups()
        ctes: list[str] = []
        ts, amount = model.ts, model.amount
        for step in range(rnd.randint(10, 26)):
            name = f"step_{step + 1}"
            kind = rnd.choice(("dow", "fiscal", "period", "label", "ratio", "bucket", "text",
                               "age", "weekend", "filter"))
            added: dict[str, tuple[str, str]] = {}  # column -> (Spark type, expression)
            where = ""
            if kind == "dow":
                added[f"{ts}_dow_{step}"] = ("int", f"{{{{ bench_date.day_of_week('{ts}') }}}}")
            elif kind == "fiscal":
                added[f"{ts}_fq_{step}"] = ("bigint", f"{{{{ bench_date.fiscal_quarter('{ts}') }}}}")
                added[f"{ts}_fy_{step}"] = ("int", f"{{{{ bench_date.fiscal_year('{ts}', 4) }}}}")
            elif kind == "period":
                period = rnd.choice(("week", "month", "quarter"))
                added[f"{ts}_{period}_{step}"] = ("date", f"{{{{ bench_date.period_start('{ts}', '{period}') }}}}")
            elif kind == "label":
                added[f"period_label_{step}"] = ("string", f"{{{{ bench_utils.period_label('{ts}') }}}}")
            elif kind == "ratio":
                added[f"{amount}_ratio_{step}"] = ("double", f"{{{{ bench_utils.ratio('{amount}', '{rnd.choice((10, 100, 1000))}') }}}}")
            elif kind == "bucket":
                edges = sorted(rnd.sample((1, 5, 10, 50, 100, 500, 1000, 5000), rnd.randint(3, 6)))
                added[f"{amount}_bucket_{step}"] = ("int", f"{{{{ bench_utils.bucket('{amount}', {edges}) }}}}")
            elif kind == "text":
                added[f"{ts}_text_{step}"] = ("string", f"{{{{ bench_utils.clean_string('{ts}', '{rnd.choice(('lower', 'upper', 'none'))}') }}}}")
            elif kind == "age":
                added[f"age_days_{step}"] = ("int", f"{{{{ bench_date.days_between('{ts}', 'current_date()') }}}}")
            elif kind == "weekend":
                added[f"is_weekend_{step}"] = ("boolean", f"{{{{ bench_utils.is_weekend('{ts}') }}}}")
            else:
                where = f"\n    where {ts} is not null or {amount} is not null"
            items = "".join(f",\n        {expression} as {column}" for column, (_, expression) in added.items())
            ctes.append(f"{name} as (\n\n    select\n        *{items}\n    from {before}{where}\n\n)")
            model.columns.update({column: spark_type for column, (spark_type, _) in added.items()})
            before = name
        model.sql = f"{head},\n\n{CTES.join(ctes)}\n\nselect * from {before}{tail}"


ITEMS = ",\n        "  # between the items of a select list
CTES = ",\n\n"  # between CTEs


# -- files ----------------------------------------------------------------------------------


def yaml_text(value, indent: int = 0) -> list[str]:
    """A small, stable YAML writer (block style, keys in insertion order): PyYAML's output
    would do, but this keeps the files as a person writes them (flow lists of keys)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v and not flow(v):
                lines.append(f"{pad}{k}:")
                lines += yaml_text(v, indent + 2)
            else:
                lines.append(f"{pad}{k}: {scalar(v)}")
    else:
        for item in value:
            if isinstance(item, dict):
                inner = yaml_text(item, indent + 2)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines += inner[1:]
            else:
                lines.append(f"{pad}- {scalar(item)}")
    return lines


def flow(value) -> bool:
    """Lists of scalars and lists of such lists are written inline ([a, b], [[k]])."""
    return isinstance(value, list) and all(
        not isinstance(v, (dict, list)) or (isinstance(v, list) and flow(v)) for v in value)


def scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {scalar(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if (not text or text[0] in "{[&*!|>'\"%@`#-?:,"
            or any(s in text for s in (": ", " #", "{{")) or re.fullmatch(r"[\d.:-]+", text)
            or text.lower() in ("true", "false", "null", "yes", "no", "on", "off")):
        return "'" + text.replace("'", "''") + "'"
    return text


COLUMN_TEXT = {
    "status": "The record's lifecycle status, lower-cased and trimmed.",
    "amount": "The amount in dollars (converted from cents).",
    "tax_amount": "The tax part of the amount, in dollars.",
    "created_at": "When the record was created in the source system (UTC).",
    "updated_at": "When the source system last changed the record (UTC).",
    "created_date": "The UTC day of `created_at`.",
    "currency": "The reporting currency (the `currency` var).",
    "status_group": "open, done or lost, from the status (the `status_bucket` macro).",
    "date_day": "A day of the reporting period.",
}


def describe(column: str) -> str:
    if column in COLUMN_TEXT:
        return COLUMN_TEXT[column]
    words = column.replace("_", " ")
    if column.endswith("_id"):
        return f"The {column[:-3].replace('_', ' ')}'s identifier."
    if column.startswith("is_"):
        return f"Whether the row is flagged {words[3:]}."
    return f"The {words}."


def model_properties(model: Model, models: dict[str, Model]) -> dict:
    """A model's entry in its folder's property file: every column of staging models and
    marts, an intermediate model's first few and those with tests."""
    columns = []
    for position, column in enumerate(model.columns):
        entry: dict = {"name": column, "description": describe(column)}
        tests: list = []
        if column == model.key:
            tests += ["unique", "not_null"]
        elif model.status and column == model.status[0]:
            tests.append({"accepted_values": {"arguments": {"values": list(model.status[1])}}})
        elif column in model.joined and models[model.joined[column]].enabled:
            tests.append({"relationships": {"arguments": {
                "to": f"ref('{model.joined[column]}')", "field": column}}})
        elif column in ("created_at", "date_day"):
            tests.append("not_null")
        if tests:
            entry["data_tests"] = tests
        if tests or model.layer != "intermediate" or position < 5:
            columns.append(entry)
    entry = {"name": model.name, "description": model.description}
    if model.meta:
        entry["config"] = {"meta": {"sortlint": model.meta}}
    entry["columns"] = columns
    return entry


def source_properties(system: str, tables: list[Source]) -> dict:
    entries = []
    for table in tables:
        entry: dict = {"name": table.table,
                       "description": f"{system}'s `{table.table}` table, loaded hourly by the ingestion job."}
        if table.declared:
            declared: dict = {"columns": dict(table.columns)}
            if table.table == plural(table.entity):  # the others keep several rows per id
                declared["unique"] = [["id"]]
            entry["meta"] = {"sortlint": declared}
        entry["loaded_at_field"] = "_loaded_at"
        if table.documented:
            entry["columns"] = [{"name": c, "description": describe(c)} for c in table.columns]
            entry["columns"][0]["data_tests"] = ["unique", "not_null"]
        entries.append(entry)
    return {"version": 2, "sources": [{"name": system, "description": f"Raw tables replicated from {system}.",
                                        "schema": f"raw_{system}", "tables": entries}]}


def project_yml(folders: set[str]) -> str:
    """`dbt_project.yml`; folder configs only for folders that hold models (dbt warns of
    configuration paths that apply to nothing)."""
    staging = {"+materialized": "view", "+tags": ["staging"]}
    intermediate = {"+materialized": "table", "+tags": ["intermediate"],
                    "+meta": {"owner": "analytics-engineering"}}
    marts = {"+materialized": "table", "+meta": {"owner": "analytics"},
             "legacy": {"+enabled": False}}
    for folder, schema in MART_SCHEMAS.items():
        marts[folder] = {"+schema": schema}
    marts = {k: v for k, v in marts.items() if k.startswith("+") or f"marts/{k}" in folders}
    document = {
        "name": NAME, "version": "1.0.0", "config-version": 2, "profile": NAME,
        "model-paths": ["models"], "macro-paths": ["macros"], "seed-paths": ["seeds"],
        "test-paths": ["tests"], "target-path": "target", "clean-targets": ["target", "dbt_packages"],
        "vars": {"start_date": "2020-01-01", "end_date": "2024-12-31", "currency": "USD",
                 NAME: {"lookback_days": 3}},
        "models": {NAME: {"staging": staging, "intermediate": intermediate, "marts": marts}},
        "seeds": {NAME: {"+schema": "seeds"}},
    }
    return "# Generated by benchmarks/dbt_project.py: a large dbt project for timing sortlint.\n" + \
        "\n".join(yaml_text(document)) + "\n"


PROFILES = ("plain", "real")


def plan(models: int = 1200, seed: int = 0, profile: str = "plain") -> tuple[list[Source], dict[str, Model]]:
    """The project's sources and models (in dependency order), not yet written."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: {', '.join(PROFILES)}")
    planner = Planner(models, seed)
    planner.plan()
    if profile == "real":
        realistic(planner.models, seed)
    return planner.sources, planner.models


def files(models: int = 1200, seed: int = 0, profile: str = "plain") -> dict[str, str]:
    """Every text file of the project: relative path -> content."""
    sources, planned = plan(models, seed, profile)
    out = {"dbt_project.yml": project_yml({m.folder for m in planned.values()}),
           "packages.yml": "packages:\n  - package: dbt-labs/dbt_utils\n    version: [\">=1.0.0\", \"<2.0.0\"]\n"}
    if profile == "real":
        out["packages.yml"] += "".join(f"  - local: packages/{package}\n" for package in PACKAGES)
        for package, macros in PACKAGES.items():
            for folder in ("packages", "dbt_packages"):  # dbt_packages/: what `dbt deps` installs
                out[f"{folder}/{package}/dbt_project.yml"] = (
                    f"name: {package}\nversion: '1.0.0'\nconfig-version: 2\nmacro-paths: [macros]\n")
                for name, text in macros.items():
                    out[f"{folder}/{package}/macros/{name}"] = text
    for name, text in MACROS.items():
        out[f"macros/{name}"] = text
    for name, text in SEEDS.items():
        out[f"seeds/{name}.csv"] = text
    by_folder: dict[str, list[Model]] = {}
    for model in planned.values():
        out[f"models/{model.folder}/{model.name}.sql"] = model.sql
        by_folder.setdefault(model.folder, []).append(model)
    for folder, members in sorted(by_folder.items()):
        leaf = folder.rsplit("/", 1)[-1]
        document = {"version": 2, "models": [model_properties(m, planned) for m in members]}
        out[f"models/{folder}/_{leaf}__models.yml"] = "\n".join(yaml_text(document)) + "\n"
    by_system: dict[str, list[Source]] = {}
    for source in sources:
        by_system.setdefault(source.system, []).append(source)
    for system, tables in sorted(by_system.items()):
        document = source_properties(system, tables)
        out[f"models/staging/{system}/_{system}__sources.yml"] = "\n".join(yaml_text(document)) + "\n"
    return dict(sorted(out.items()))


def generate(root: Path, models: int = 1200, seed: int = 0, profile: str = "plain") -> Path:
    """Writes the project into `root` (created; must not hold an older project) with
    dbt_utils in `dbt_packages/`, and returns `root`."""
    root = Path(root)
    for relative, text in files(models, seed, profile).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if DBT_UTILS is None:
        raise SystemExit("shared/corpora/dbt/packages/dbt_utils not found next to the repository")
    shutil.copytree(DBT_UTILS, root / "dbt_packages" / "dbt_utils", dirs_exist_ok=True)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write the project into")
    parser.add_argument("--models", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", choices=PROFILES, default="plain",
                        help="real: models as costly as a real project's (macro-heavy, 10-30 CTEs)")
    args = parser.parse_args()
    generate(args.out, args.models, args.seed, args.profile)
    written = files(args.models, args.seed, args.profile)
    sql = sum(1 for p in written if p.endswith(".sql") and p.startswith("models/"))
    yml = sum(t.count("\n") for p, t in written.items() if p.startswith("models/") and p.endswith(".yml"))
    print(f"{args.out}: {sql} models, {yml} lines of property YAML")


if __name__ == "__main__":
    main()
