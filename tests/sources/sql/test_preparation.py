"""The glance at a project's files that finds which file defines a table: the names a text
may write, and a definer only for a name exactly one file writes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sortlint.config import Config, load_config
from sortlint.sources.frontend import Reading
from sortlint.sources.registry import prepare as every_front_end
from sortlint.sources.sql.preparation import prepare, written_names
from sortlint.workspace.discovery import ProjectFiles

SQL = """\
CREATE OR REPLACE TEMPORARY VIEW `Sales`.`Paid` AS SELECT * FROM sales.orders;
create table if not exists staging.daily as select 1 as x;
REPLACE TABLE snapshots AS SELECT 1 AS x;
INSERT OVERWRITE TABLE facts SELECT * FROM staging.daily;
insert into db.events (a, b) values (1, 2);
INSERT OVERWRITE LOCAL DIRECTORY '/tmp/out' SELECT 1;
MERGE INTO targets USING updates ON targets.id = updates.id WHEN MATCHED THEN DELETE;
DELETE FROM stale WHERE at < '2024-01-01';
DROP TABLE IF EXISTS scratch;
SELECT * FROM sales.orders;
SELECT * FROM last_update u JOIN recreate_table_log l ON u.id = l.id;
"""


def test_the_names_sql_text_may_write():
    assert list(written_names(SQL)) == [
        "sales.paid", "staging.daily", "snapshots", "facts", "db.events", "targets", "stale", "scratch",
    ]


def test_the_names_a_python_file_writes_in_sql_and_with_dataframe_calls():
    raw = """\
spark.sql("INSERT INTO audit.runs SELECT current_timestamp()")
df.write.mode("overwrite").saveAsTable("marts.Daily")
df.createOrReplaceTempView('recent')
df.write.insertInto(tableName="facts")
spark.table("read.only").write.save("/tmp/out")
DeltaTable.forName(spark, "delta.events").merge(updates, "id = id")
DeltaTable.createOrReplace(spark).tableName("delta.created").execute()
"""
    assert list(written_names(raw, python=True)) == [
        "audit.runs", "marts.daily", "recent", "facts", "delta.events", "delta.created",
    ]
    assert list(written_names(raw)) == ["audit.runs"]


def project(root: Path, files: dict[str, str], config: str = "target: spark\n"):
    (root / "sortlint.yml").write_text(config)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    config_ = load_config(root / "sortlint.yml")
    return Reading(config_, project_files=ProjectFiles(config_, ()))


def definers(root: Path, reading: Reading) -> dict[str, str]:
    found = prepare([], reading).definers
    return {name: path.relative_to(root.resolve()).as_posix() for name, path in sorted(found.items())}


def test_a_name_one_file_writes_is_defined_by_it_and_one_two_files_write_by_none(tmp_path):
    reading = project(tmp_path, {
        "views.sql": "CREATE VIEW v AS SELECT 1 AS a;\nINSERT INTO t SELECT 1 AS a;\n",
        "jobs/load.py": 'df.write.insertInto("t")\ndf.createOrReplaceTempView("w")\n',
        "jobs/notes.txt": "CREATE VIEW x AS SELECT 1",  # not a kind of file sortlint reads
    })
    assert definers(tmp_path, reading) == {"v": "views.sql", "w": "jobs/load.py"}


def test_files_the_check_would_not_read_write_nothing(tmp_path):
    reading = project(tmp_path, {
        "views.sql": "CREATE VIEW v AS SELECT 1 AS a;\n",
        "old/views.sql": "CREATE VIEW v AS SELECT 2 AS a;\n",  # excluded by the configuration
        "scratch/views.sql": "CREATE VIEW v AS SELECT 3 AS a;\n",  # ignored by git
        ".hidden/views.sql": "CREATE VIEW v AS SELECT 4 AS a;\n",
        "shop/dbt_project.yml": "name: shop\n",
        "shop/models/v.sql": "CREATE VIEW v AS SELECT 5 AS a",  # a dbt project's: dbt's to define
    }, config="target: spark\nexclude: ['old/**']\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("scratch/\n")
    assert definers(tmp_path, reading) == {"v": "views.sql"}


def test_beside_a_dbt_project_at_the_root_plain_sql_defines_what_it_writes_and_dbts_folders_nothing(tmp_path):
    """dbt_project.yml at the root makes its model, macro and output folders and its
    installed packages dbt's; the other folders are a plain repository's."""
    reading = project(tmp_path, {
        "dbt_project.yml": "name: shop\nmodel-paths: [transform]\n",
        "transform/v.sql": "CREATE VIEW v AS SELECT 1 AS a",  # a model: dbt's to define
        "macros/m.sql": "{% macro m() %}CREATE TABLE w AS SELECT 1 AS a{% endmacro %}",
        "target/run/shop/v.sql": "create or replace view x as select 1 as a",  # dbt's rendering
        "dbt_packages/utils/dbt_project.yml": "name: utils\n",
        "dbt_packages/utils/scripts/y.sql": "CREATE VIEW y AS SELECT 1 AS a",
        "sql/a.sql": "CREATE VIEW emails AS SELECT 1 AS a;\n",
        "models/b.sql": "CREATE TABLE b AS SELECT 1 AS a;\n",  # not a model path of this project
    })
    every_front_end([], reading)  # the dbt front end's, which runs first, says which folders are dbt's
    assert definers(tmp_path, reading) == {"b": "models/b.sql", "emails": "sql/a.sql"}


def test_without_a_configuration_file_the_project_is_the_checked_files(tmp_path):
    (tmp_path / "a.sql").write_text("CREATE VIEW v AS SELECT 1 AS a;\n")
    (tmp_path / "b.sql").write_text("CREATE VIEW v AS SELECT 2 AS a;\n")
    config = Config(root=tmp_path, path=None)
    reading = Reading(config, project_files=ProjectFiles(config, (tmp_path / "a.sql",)))
    assert definers(tmp_path, reading) == {"v": "a.sql"}


def test_a_file_reading_a_defined_name_has_its_definer_upstream_for_the_order_of_work(tmp_path):
    reading = project(tmp_path, {
        "views.sql": "CREATE VIEW v AS SELECT a FROM raw.t;\nSELECT a FROM v;\n",  # its own: not upstream
        "report.sql": "SELECT a FROM raw.t JOIN v USING (a);\n",
        "jobs/read.py": 'spark.table("v").count()\nspark.table("w").count()\n',
        "jobs/load.py": 'df.createOrReplaceTempView("w")\n',
    })
    upstream = prepare([], reading).upstream
    assert {path.relative_to(tmp_path.resolve()).as_posix(): [u.relative_to(tmp_path.resolve()).as_posix() for u in up]
            for path, up in upstream.items()} == {
        "report.sql": ["views.sql"],
        "jobs/read.py": ["jobs/load.py", "views.sql"],
    }
