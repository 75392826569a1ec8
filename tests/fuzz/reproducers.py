"""A failure written as a reproducer directory a person (or `python -m fuzz.run replay DIR`)
can rerun: `fuzz-failures/<engine>-<class>-<seed>-<n>/` holding

* `README.md` — the class, what differed, sortlint's findings and fixes, the engine settings;
* `sortlint.yml` — the catalog; `data.sql` — the tables as DDL and `INSERT ... VALUES` per file
  (in file order, each file's rows in order);
* `query.sql` / `job.py` and `fixed.sql` / `fixed.py` — the original and the fixed text;
* `expected.txt` / `actual.txt` — the original's and the fixed text's results (or error);
* `case.json` — all of it, machine-readable, for `replay`;
* in the multi-file mode, `upstream.sql` — the CTAS that writes the table the query reads
  (not declared in `sortlint.yml`: sortlint takes its facts from this file).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from dataclasses import asdict
from decimal import Decimal
from pathlib import Path

from fuzz.catalogs import Catalog, Column, OrderItem, Table
from fuzz.failures import Failure
from fuzz.queries import Case, QueryGenerator


def encode(value):
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def decode(value, type_: str):
    if value is None:
        return None
    if type_ == "date":
        return dt.date.fromisoformat(value)
    if type_ == "timestamp":
        return dt.datetime.fromisoformat(value)
    if type_.startswith("decimal"):
        return Decimal(value)
    return value


def catalog_json(catalog: Catalog) -> dict:
    return {
        "target": catalog.target,
        "target_partitions": catalog.target_partitions,
        "tables": [
            {
                "name": t.name,
                "columns": [asdict(c) for c in t.columns],
                "ordering": [asdict(o) for o in t.ordering],
                "scope": t.scope,
                "partitioned_by": t.partitioned_by,
                "unique": t.unique,
                "constants": {k: encode(v) for k, v in t.constants.items()},
                "bucketed": t.bucketed,
                "default_nulls": sorted(t.default_nulls),
                "files": [[[encode(v) for v in row] for row in f] for f in t.files],
            }
            for t in catalog.tables
        ],
    }


def catalog_from_json(data: dict) -> Catalog:
    tables = []
    for t in data["tables"]:
        columns = [Column(**c) for c in t["columns"]]
        types = {c.name: c.type for c in columns}
        tables.append(Table(
            name=t["name"], columns=columns,
            ordering=[OrderItem(**o) for o in t["ordering"]], scope=t["scope"],
            partitioned_by=t["partitioned_by"], unique=t["unique"],
            constants={k: decode(v, types[k]) for k, v in t["constants"].items()},
            bucketed=t["bucketed"], default_nulls=set(t["default_nulls"]),
            files=[[tuple(decode(v, c.type) for v, c in zip(row, columns)) for row in f] for f in t["files"]],
        ))
    return Catalog(data["target"], tables, data.get("target_partitions"))


def case_json(case: Case) -> dict:
    data = asdict(case)
    data["features"] = sorted(case.features)
    return data


def case_from_json(data: dict) -> Case:
    data = dict(data)
    data["features"] = set(data["features"])
    data["order"] = [tuple(k) for k in data["order"]] if data["order"] is not None else None
    return Case(**data)


def data_sql(catalog: Catalog) -> str:
    """The tables as SQL: DDL, then one INSERT per file, in file order."""
    literal = QueryGenerator(None, catalog).literal
    out = []
    for table in catalog.tables:
        columns = ", ".join(f"{c.name} {c.type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns)
        how = ""
        if catalog.target == "datafusion" and table.ordering:
            how = f" -- STORED AS PARQUET WITH ORDER ({', '.join(o.sql() for o in table.ordering)})"
        elif table.bucketed:
            keys = [o.column for o in table.ordering]
            how = f" -- written with bucketBy({len(table.files) + 1}, '{keys[0]}').sortBy({keys})"
        out.append(f"CREATE TABLE {table.name} ({columns});{how}")
        for i, rows in enumerate(table.files):
            values = ",\n  ".join("(" + ", ".join(literal(c.type, v) for c, v in zip(table.columns, row)) + ")"
                                  for row in rows)
            out.append(f"-- file part-{i:05d} ({len(rows)} rows)\nINSERT INTO {table.name} VALUES\n  {values};")
        out.append("")
    return "\n".join(out)


def write(failure: Failure, directory: Path) -> Path:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    case = failure.case
    suffix = "sql" if case.language == "sql" else "py"
    stem = "query" if case.language == "sql" else "job"
    (directory / "sortlint.yml").write_text(failure.catalog.yaml())
    (directory / "data.sql").write_text(data_sql(failure.catalog))
    (directory / f"{stem}.{suffix}").write_text(case.text)
    (directory / f"fixed.{suffix}").write_text(failure.fixed_text)
    (directory / "expected.txt").write_text((failure.expected.error or failure.expected.shown()) + "\n")
    (directory / "actual.txt").write_text((failure.actual.error or failure.actual.shown()) + "\n")
    if failure.upstream is not None:
        (directory / "upstream.sql").write_text(failure.upstream.text)
    (directory / "case.json").write_text(json.dumps({
        "engine": failure.engine, "kind": failure.kind, "settings": failure.settings,
        "catalog": catalog_json(failure.catalog), "case": case_json(case),
        **({"upstream": case_json(failure.upstream)} if failure.upstream is not None else {}),
    }, indent=1))
    findings = "\n".join(
        f"- {f['code']} line {f['line']}:{f['column']}: {f['message']} [{f['basis']}]"
        + (f" — fix ({f['fix']['applicability']}): {f['fix']['message']}" if f.get("fix") else "")
        for f in failure.findings
    )
    dropped = "\n".join(f"- {code}: {reason}" for code, reason in failure.dropped) or "(none)"
    upstream = ("" if failure.upstream is None else
                "## The file that writes the table the query reads (upstream.sql, not declared in "
                f"sortlint.yml)\n```\n{failure.upstream.text.rstrip()}\n```\n\n")
    order = (", ".join(f"output column {p + 1} {'DESC' if d else 'ASC'} NULLS {'FIRST' if n else 'LAST'}"
                       for p, d, n in case.order) if case.order else "(no final ORDER BY)")
    (directory / "README.md").write_text(f"""# {failure.cls}

{failure.detail}

Engine: {failure.engine}, settings {failure.settings}. Final ORDER BY checked: {order}.

## sortlint's findings whose fixes were applied
{findings or '(none)'}

Fixes dropped by sortlint's proof:
{dropped}

{upstream}## Original ({stem}.{suffix})
```
{case.text.rstrip()}
```

## Fixed (fixed.{suffix})
```
{failure.fixed_text.rstrip()}
```

## Result of the original (expected.txt) vs the fixed text (actual.txt)
```
{(failure.expected.error or failure.expected.shown(15))}
```
```
{(failure.actual.error or failure.actual.shown(15))}
```

Rerun: `cd tests && PYTHONPATH=..:. python -m fuzz.run replay {directory}`
""")
    return directory


def write_disagreement(label: str, catalog: Catalog, case: Case, plan_with: str, plan_without: str,
                       directory: Path) -> Path:
    """A query on which sortlint's SL001 and DataFusion's own sort decision differ."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "sortlint.yml").write_text(catalog.yaml())
    (directory / "data.sql").write_text(data_sql(catalog))
    (directory / "query.sql").write_text(case.text)
    (directory / "README.md").write_text(f"""# {label}

sortlint's SL001 and DataFusion's physical plan disagree about the final ORDER BY (DataFusion
sorts for it when its plan has more SortExec / PartialSortExec nodes with it than without, and
merges for it when it has more SortPreservingMergeExec nodes: the rows of its partitions
interleave without it).

```
{case.text}
```

## Physical plan with the ORDER BY
```
{plan_with.rstrip()}
```

## Physical plan without it
```
{plan_without.rstrip()}
```
""")
    return directory
