"""A table another statement of the repository wrote is read with the row-set facts of the
query that wrote it - constants, equal columns, keys, types - never its order; each finding
resting on them cites that file, says it is another file's code, and its fix is unsafe.

How the write leaves the table decides what survives: a dbt table, view or ephemeral model,
CREATE TABLE AS and saveAsTable keep every fact; an append - INSERT OVERWRITE too, which
under dynamic partition overwrite keeps the partitions its rows do not touch - keeps what
holds of the old rows and the new; a dbt incremental model keeps what every
run of its query guarantees; a partition overwritten keeps nothing. A table two files write
is known by its declarations alone: the order in which they run is not in the repository.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

import spark_support
from sortlint.cli import main
from spark_support import spark  # noqa: F401  (the session fixture)

# Every finding here that rests on upstream code is a group key: grouping by one key less
# saves nothing Spark runs, and the line says so.
UPSTREAM = " (code outside this statement, which may change) [upstream]"

TICKETS = """\
target: spark
sources:
  raw.tickets:
    columns: {id: bigint not null, kind: string not null, channel: string, opened_at: timestamp}
"""
DBT_SCHEMA = """\
version: 2
sources:
  - name: raw
    tables:
      - name: tickets
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def check(root: Path, capsys, *arguments: str) -> list[str]:
    """The finding lines of `sortlint check ARGUMENTS` run in `root` (the whole repository
    when no path is named)."""
    previous = Path.cwd()
    os.chdir(root)
    try:
        code = main(["check", "--no-cache", "--dbt-renderer", "builtin", *arguments, *([] if any(
            not a.startswith("-") for a in arguments) else ["."])])
    finally:
        os.chdir(previous)
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err
    return [line for line in out.splitlines() if ": SL" in line]


def dbt_project(root: Path, models: dict[str, str]) -> Path:
    return write(root, {
        "sortlint.yml": TICKETS,
        "dbt_project.yml": "name: desk\n",
        "models/sources.yml": DBT_SCHEMA,
        **{f"models/{name}": text for name, text in models.items()},
    })


# ---------------------------------------------------------------------------------------------
# Along the dbt DAG

STAGED_EMAILS = """\
{{ config(materialized='view') }}
select id, kind, channel
from {{ source('raw', 'tickets') }}
where kind = 'email'
"""
BY_CHANNEL = """\
{{ config(materialized='table') }}
select kind, channel, count(*) as tickets
from {{ ref('stg_tickets') }}
group by kind, channel
"""
KIND_IS_EMAIL = (
    "models/marts/by_channel.sql:4:10: SL103 group key kind is constant: WHERE tickets.kind = "
    "'email' (line 4) in models/staging/stg_tickets.sql" + UPSTREAM
)


def test_a_constant_of_an_upstream_model_is_known_downstream(tmp_path, capsys):
    dbt_project(tmp_path, {"staging/stg_tickets.sql": STAGED_EMAILS, "marts/by_channel.sql": BY_CHANNEL})
    assert check(tmp_path, capsys) == [KIND_IS_EMAIL]
    # what pre-commit runs: the one staged file, its upstream model analysed on demand
    assert check(tmp_path, capsys, "models/marts/by_channel.sql") == [KIND_IS_EMAIL]


def test_the_fix_keeps_any_value_of_the_column_not_the_upstream_value(tmp_path, capsys):
    staged = STAGED_EMAILS.replace("where kind = 'email'", "where opened_at = '2024-01-02 00:00:00'").replace(
        "select id, kind, channel", "select id, kind, channel, opened_at")
    by_day = BY_CHANNEL.replace("kind", "opened_at")
    dbt_project(tmp_path, {"staging/stg_tickets.sql": staged, "marts/by_channel.sql": by_day})
    opened_at_is_constant = (
        "models/marts/by_channel.sql:4:10: SL103 [*unsafe] group key opened_at is constant: WHERE "
        "tickets.opened_at = '2024-01-02 00:00:00' (line 4) in models/staging/stg_tickets.sql" + UPSTREAM
    )
    assert check(tmp_path, capsys, "--fix") == [opened_at_is_constant]  # unsafe: left as it is
    assert (tmp_path / "models/marts/by_channel.sql").read_text() == by_day
    check(tmp_path, capsys, "--fix", "--unsafe-fixes")
    assert (tmp_path / "models/marts/by_channel.sql").read_text() == by_day.replace(
        "select opened_at, channel,", "select any_value(opened_at) AS opened_at, channel,"
    ).replace("group by opened_at, channel", "group by channel")


def test_a_string_constant_of_an_upstream_model_is_kept_as_a_key(tmp_path, capsys):
    # any_value(kind) would make Spark's aggregate sort every row (a string's aggregation
    # buffer is not updated in place), and the value itself is another file's to change.
    dbt_project(tmp_path, {"staging/stg_tickets.sql": STAGED_EMAILS, "marts/by_channel.sql": BY_CHANNEL})
    assert check(tmp_path, capsys, "--fix", "--unsafe-fixes") == [KIND_IS_EMAIL]
    assert (tmp_path / "models/marts/by_channel.sql").read_text() == BY_CHANNEL


def test_facts_travel_along_a_chain_of_models(tmp_path, capsys):
    dbt_project(tmp_path, {
        "staging/stg_tickets.sql": STAGED_EMAILS,
        "intermediate/int_tickets.sql": "select id, kind, channel from {{ ref('stg_tickets') }}\n",
        "marts/by_channel.sql": BY_CHANNEL.replace("stg_tickets", "int_tickets"),
    })
    assert check(tmp_path, capsys, "models/marts/by_channel.sql") == [KIND_IS_EMAIL]


def test_an_upstream_grouping_key_is_unique_downstream(tmp_path, capsys):
    dbt_project(tmp_path, {
        "staging/per_channel.sql": "{{ config(materialized='table') }}\n"
                                   "select channel, count(*) as tickets\n"
                                   "from {{ source('raw', 'tickets') }}\ngroup by channel\n",
        "marts/report.sql": "select channel, tickets, count(*) as n\nfrom {{ ref('per_channel') }}\n"
                            "group by channel, tickets\n",
    })
    assert check(tmp_path, capsys) == [
        "models/marts/report.sql:3:19: SL103 [*unsafe] group key tickets is determined by the earlier keys: "
        "GROUP BY (line 4) in models/staging/per_channel.sql" + UPSTREAM
    ]


def test_an_incremental_model_keeps_its_constants_but_not_its_keys(tmp_path, capsys):
    incremental = ("{{ config(materialized='incremental') }}\n"
                   "select channel, kind, count(*) as tickets\nfrom {{ source('raw', 'tickets') }}\n"
                   "where kind = 'email'\ngroup by channel, kind\n")
    dbt_project(tmp_path, {
        "staging/daily.sql": incremental,
        "marts/report.sql": "select channel, kind, tickets, count(*) as n\nfrom {{ ref('daily') }}\n"
                            "group by channel, kind, tickets\n",
    })
    # every run appends its groups: channel is unique in each run's rows, not in the table
    assert check(tmp_path, capsys) == [
        "models/marts/report.sql:3:19: SL103 group key kind is constant: WHERE tickets.kind = "
        "'email' (line 4) in models/staging/daily.sql" + UPSTREAM,
        "models/staging/daily.sql:5:19: SL103 [*] group key kind is constant: WHERE tickets.kind = 'email' "
        "(line 4) [query]",
    ]


def test_an_upstream_order_is_never_known_downstream(tmp_path, capsys):
    dbt_project(tmp_path, {
        "staging/sorted.sql": "{{ config(materialized='table') }}\n"
                              "select id, channel from {{ source('raw', 'tickets') }} order by id\n",
        "marts/report.sql": "select id, channel from {{ ref('sorted') }} order by id\n",
    })
    assert check(tmp_path, capsys) == []


# ---------------------------------------------------------------------------------------------
# Across SQL files

SQL_CATALOG = TICKETS


def sql_repository(root: Path, files: dict[str, str]) -> Path:
    return write(root, {"sortlint.yml": SQL_CATALOG, **files})


READER = "SELECT kind, channel, count(*) AS n FROM emails GROUP BY kind, channel;\n"
READER_FINDING = ("c_read.sql:1:58: SL103 group key kind is constant: WHERE tickets.kind = 'email' "
                  "(line 1) in a_create.sql" + UPSTREAM)
CREATE_EMAILS = "CREATE TABLE emails AS SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email';\n"


A_CREATE = "(line 1) in a_create.sql"
BOTH = "(line 1) in a_create.sql; WHERE tickets.kind = 'email' (line 2) in a_create.sql"  # of old and new rows
WRITES = {
    "appended alike": "INSERT INTO emails SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email';\n",
    "appended other": "INSERT INTO emails SELECT id, kind, channel FROM raw.tickets WHERE kind = 'chat';\n",
    "appended any": "INSERT INTO emails SELECT id, kind, channel FROM raw.tickets;\n",
    "overwritten alike": "INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email';\n",
    "overwritten any": "INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets;\n",
    "partition overwritten": "INSERT OVERWRITE emails PARTITION (channel) SELECT id, 'sms', channel FROM raw.tickets;\n",
    "column list": "INSERT INTO emails (id, channel, kind) SELECT id, channel, 'email' FROM raw.tickets;\n",
    "by position, names differ": "INSERT INTO emails SELECT id, channel, kind FROM raw.tickets WHERE kind = 'email';\n",
}


@pytest.mark.parametrize("write, cited", [
    ("", A_CREATE),
    ("appended alike", BOTH),
    ("appended other", None),
    ("appended any", None),
    ("overwritten alike", BOTH),
    ("overwritten any", None),
    ("partition overwritten", None),
    ("column list", "(line 1) in a_create.sql; the query that writes emails in a_create.sql"),
    ("by position, names differ", None),
])
def test_what_a_later_write_leaves_of_a_tables_facts(tmp_path, capsys, write, cited):
    sql_repository(tmp_path, {"a_create.sql": CREATE_EMAILS + WRITES.get(write, ""), "c_read.sql": READER})
    found = [line for line in check(tmp_path, capsys) if line.startswith("c_read.sql")]
    assert found == ([] if cited is None else [READER_FINDING.replace("(line 1) in a_create.sql", cited)])


@pytest.mark.parametrize("change, kept", [
    ("UPDATE emails SET kind = 'chat' WHERE id = 1;\n", False),
    ("MERGE INTO emails t USING raw.tickets s ON t.id = s.id WHEN MATCHED THEN UPDATE SET kind = s.kind;\n", False),
    ("ALTER TABLE emails RENAME COLUMN channel TO medium;\n", False),
    ("DELETE FROM emails WHERE id = 1;\n", True),  # the rows left satisfy what all did
    ("TRUNCATE TABLE emails;\n", True),
])
def test_a_change_the_plan_does_not_follow_forgets_what_the_table_was_known_to_satisfy(tmp_path, capsys, change, kept):
    sql_repository(tmp_path, {"a_create.sql": CREATE_EMAILS + change, "c_read.sql": READER})
    found = [line for line in check(tmp_path, capsys) if line.startswith("c_read.sql")]
    assert found == ([READER_FINDING] if kept else [])


@pytest.mark.parametrize("write", ["appended alike", "overwritten alike"])
def test_a_table_two_files_write_is_known_by_its_declarations_alone(tmp_path, capsys, write):
    """Which file runs last is not in the repository: what either wrote may not hold."""
    sql_repository(tmp_path, {"a_create.sql": CREATE_EMAILS, "b_write.sql": WRITES[write], "c_read.sql": READER})
    assert [line for line in check(tmp_path, capsys) if line.startswith("c_read.sql")] == []
    assert [line for line in check(tmp_path, capsys, "c_read.sql") if line.startswith("c_read.sql")] == []


USE_SALES = "USE sales;\n"


@pytest.mark.parametrize("between, kept", [
    ("", True),
    ("USE marketing;\n", False),  # emails is marketing.emails now
    ("USE SCHEMA marketing;\n", False),
    ("SET CATALOG other;\n", False),
])
def test_after_use_a_name_without_a_database_is_another_databases_table(tmp_path, capsys, between, kept):
    sql_repository(tmp_path, {"a_job.sql": USE_SALES + CREATE_EMAILS + between + READER})
    line = 3 + between.count("\n")
    assert check(tmp_path, capsys) == ([
        f"a_job.sql:{line}:58: SL103 group key kind is constant: WHERE tickets.kind = 'email' (line 2) "
        "in a_job.sql" + UPSTREAM] if kept else [])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_table_written_after_use_is_not_the_one_other_files_name_so(tmp_path, capsys, jobs):
    """b_sales.sql writes sales.chats, which e_read.sql (in its session's database) does not
    read; d_read.sql, after its USE, reads marketing.emails, not the emails a_create.sql
    writes - also in its 1,200 statements that workers analyse ahead from the tables as they
    were before the file."""
    chats = CREATE_EMAILS.replace("emails", "chats").replace("'email'", "'chat'")
    sql_repository(tmp_path, {
        "a_create.sql": CREATE_EMAILS, "b_sales.sql": USE_SALES + chats,
        "d_read.sql": "USE marketing;\n" + READER * 1200, "e_read.sql": READER.replace("emails", "chats"),
    })
    assert check(tmp_path, capsys, "--jobs", jobs) == []
    assert check(tmp_path, capsys, "--jobs", jobs, "d_read.sql") == []


def test_a_fix_after_use_is_proved_in_the_database_use_chose(tmp_path, capsys):
    """The proof analyses the fixed statement again, after the USE taken from before the fix:
    the USE must switch the database for it as it did for the check."""
    sql_repository(tmp_path, {"a_create.sql": CREATE_EMAILS,
                              "c_read.sql": "USE marketing;\nSELECT kind, channel FROM emails ORDER BY kind, channel, channel;\n"})
    assert check(tmp_path, capsys, "--fix") == []
    assert (tmp_path / "c_read.sql").read_text() == "USE marketing;\nSELECT kind, channel FROM emails ORDER BY kind, channel;\n"


def test_create_table_if_not_exists_may_keep_other_rows(tmp_path, capsys):
    sql_repository(tmp_path, {"a_create.sql": CREATE_EMAILS.replace("TABLE", "TABLE IF NOT EXISTS"),
                              "c_read.sql": READER})
    assert check(tmp_path, capsys) == []


@pytest.mark.spark
def test_spark_keeps_untouched_partitions_under_dynamic_partition_overwrite(spark, tmp_path):
    """Why INSERT OVERWRITE counts as an append: with the session's (or dbt-spark's
    insert_overwrite's) dynamic partition overwrite, the old rows of other partitions stay;
    saveAsTable in overwrite mode replaces the whole table even then."""
    spark.sql("DROP TABLE IF EXISTS overwritten")
    spark.sql("CREATE TABLE overwritten USING parquet PARTITIONED BY (d) AS "
              "SELECT * FROM VALUES (1, 'chat', 1), (2, 'email', 2) AS v(id, kind, d)")
    previous = spark.conf.get("spark.sql.sources.partitionOverwriteMode")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql("INSERT OVERWRITE overwritten SELECT * FROM VALUES (3, 'email', 2) AS v(id, kind, d)")
        assert sorted(map(tuple, spark.table("overwritten").collect())) == [(1, "chat", 1), (3, "email", 2)]
        spark.createDataFrame([(4, "email", 2)], "id int, kind string, d int").write.mode(
            "overwrite").saveAsTable("overwritten")
        assert sorted(map(tuple, spark.table("overwritten").collect())) == [(4, "email", 2)]
    finally:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", previous)
        spark.sql("DROP TABLE IF EXISTS overwritten")


# ---------------------------------------------------------------------------------------------
# Written by PySpark

JOB = """\
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
emails = spark.table("raw.tickets").where(F.col("kind") == "email").select("id", "kind", "channel")
emails.write{mode}.saveAsTable("emails")
"""


@pytest.mark.parametrize("mode, kept", [("", True), (".mode('overwrite')", True), (".mode('append')", False),
                                        (".mode('ignore')", False)])
def test_a_table_a_job_saved_is_read_with_its_facts(tmp_path, capsys, mode, kept):
    sql_repository(tmp_path, {"a_create.py": JOB.format(mode=mode), "c_read.sql": READER})
    found = [line for line in check(tmp_path, capsys) if line.startswith("c_read.sql")]
    expected = ("c_read.sql:1:58: SL103 group key kind is constant: WHERE tickets.kind = 'email' "
                "(line 4) in a_create.py" + UPSTREAM)
    assert found == ([expected] if kept else [])


DELTA_JOB = JOB.format(mode="").replace("from pyspark.sql", "from delta.tables import DeltaTable\nfrom pyspark.sql")
SAVED = ("c_read.sql:1:58: SL103 group key kind is constant: WHERE tickets.kind = 'email' "
         "(line 5) in a_create.py" + UPSTREAM)


@pytest.mark.parametrize("after, kept", [
    ('DeltaTable.forName(spark, "emails").update("id = 1", {"kind": "\'chat\'"})', False),
    ('DeltaTable.forName(spark, tableOrViewName="emails").updateExpr("id = 1", {"kind": "\'chat\'"})', False),
    ('(DeltaTable.forName(spark, "emails").alias("t").merge(spark.table("raw.tickets").alias("s"), "t.id = s.id")\n'
     ' .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())', False),
    ('DeltaTable.forName(spark, "emails").restoreToVersion(3)', False),
    ('DeltaTable.createOrReplace(spark).tableName("emails").addColumn("id", "BIGINT").execute()', False),
    ('fix_up(DeltaTable.forName(spark, "emails"))', False),  # code the reader cannot follow
    ('table = DeltaTable.forName(spark, "emails")\ntable.update("id = 1", {"kind": "\'chat\'"})', False),
    ('DeltaTable.forName(spark, "emails").delete("id = 1")', True),  # the rows left satisfy what all did
    ('DeltaTable.forName(spark, "emails").optimize().executeZOrderBy("channel")', True),  # the same rows
    ('DeltaTable.forName(spark, "emails").vacuum()', True),
    ('DeltaTable.forName(spark, "emails").toDF().show()', True),
    ('DeltaTable.forName(spark, "other").update("id = 1", {"kind": "\'chat\'"})', True),
])
def test_a_delta_tables_update_or_merge_forgets_what_its_rows_were_known_to_satisfy(tmp_path, capsys, after, kept):
    sql_repository(tmp_path, {"a_create.py": DELTA_JOB + after + "\n", "c_read.sql": READER})
    found = [line for line in check(tmp_path, capsys) if line.startswith("c_read.sql")]
    assert found == ([SAVED] if kept else [])


RELOADED = """\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()


def reload():
    spark.table("raw.tickets").select("id", "kind", "channel").write.mode("overwrite").saveAsTable("emails")


spark.table("raw.tickets").where("kind = 'email'").select("id", "kind", "channel").write.mode("overwrite").saveAsTable("emails")
{between}spark.table("emails").groupBy("kind", "channel").count().collect()
"""


@pytest.mark.parametrize("between", ["", "reload()\n"])
def test_a_table_a_functions_body_writes_is_known_by_its_declarations_alone(tmp_path, capsys, between):
    """When the body runs is not known where a call may be hidden (a decorated function, a
    method, a callback): called or not, the module's own write of the table says nothing."""
    sql_repository(tmp_path, {"a_job.py": RELOADED.format(between=between)})
    assert check(tmp_path, capsys) == []


READ_IN_A_FUNCTION = """\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
spark.table("raw.tickets").where("kind = 'email'").select("id", "kind", "channel").write.mode("overwrite").saveAsTable("emails")


def report():
    spark.table("emails").groupBy("kind", "channel").count().collect()


spark.table("raw.tickets").select("id", "kind", "channel").write.mode("overwrite").saveAsTable("emails")
report()
"""


def test_a_functions_body_forgets_what_the_modules_statements_wrote(tmp_path, capsys):
    """report() runs after the second write, though its body stands after the first."""
    sql_repository(tmp_path, {"a_job.py": READ_IN_A_FUNCTION})
    assert check(tmp_path, capsys) == []


HEADER = "from pyspark.sql import SparkSession\n\nspark = SparkSession.builder.getOrCreate()\n"
CREATE = "spark.sql(\"CREATE OR REPLACE TABLE emails AS SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email'\")\n"
READ_EMAILS = 'spark.table("emails").groupBy("kind", "channel").count().collect()\n'
RUN_ORDER = {
    # The one write CREATE, last: its facts hold.
    "created": CREATE,
    # A string named before it runs runs where it is called: after the DataFrame's write.
    "named, run last": (
        "EMAILS = \"CREATE OR REPLACE TABLE emails AS SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email'\"\n"
        'spark.table("raw.tickets").select("id", "kind", "channel").write.mode("overwrite").saveAsTable("emails")\n'
        "spark.sql(EMAILS)\n"),
    # A DataFrame made before the CREATE and written after it: the write runs last.
    "DataFrame written last": (
        'everything = spark.table("raw.tickets").select("id", "kind", "channel")\n' + CREATE
        + 'everything.write.mode("overwrite").saveAsTable("emails")\n'),
    # spark.sql in a function's body runs where the function is called.
    "function called last": (
        '\n\ndef reload():\n    spark.sql("INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets")\n\n\n'
        + CREATE + "reload()\n"),
    # A statement built at run time writes what its pieces name.
    "built at run time": (
        CREATE + 'spark.sql("INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets WHERE id > " + str(10))\n'),
    # One string run from two places runs at each.
    "run twice": (
        'RELOAD = "INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets"\n'
        "spark.sql(RELOAD)\n" + CREATE + "spark.sql(RELOAD)\n"),
}


@pytest.mark.parametrize("job, cited", [
    ("created", 4), ("named, run last", 4), ("DataFrame written last", None), ("function called last", None),
    ("built at run time", None), ("run twice", None),
])
def test_a_jobs_statements_see_the_tables_in_the_order_they_run(tmp_path, capsys, job, cited):
    text = HEADER + RUN_ORDER[job] + READ_EMAILS
    sql_repository(tmp_path, {"a_job.py": text})
    line = text.count("\n")
    assert check(tmp_path, capsys) == ([] if cited is None else [
        f"a_job.py:{line}:31: SL103 group key \"kind\" is constant: WHERE tickets.kind = 'email' (line {cited}) "
        "in a_job.py" + UPSTREAM])


DAG = """\
from airflow import DAG
from airflow.providers.apache.spark.operators.spark_sql import SparkSqlOperator

with DAG("emails") as dag:
    create = SparkSqlOperator(task_id="create", sql="CREATE OR REPLACE TABLE emails AS SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email'")
    read = SparkSqlOperator(task_id="read", sql="SELECT kind, channel, count(*) AS n FROM emails GROUP BY kind, channel")
{reload}    create >> {downstream}read
"""
RELOAD_TASK = '    reload = SparkSqlOperator(task_id="reload", sql="INSERT OVERWRITE emails SELECT id, kind, channel FROM raw.tickets")\n'


@pytest.mark.parametrize("reload, found", [
    ("", ["a_dag.py:6:107: SL103 group key kind is constant: WHERE tickets.kind = 'email' (line 5) in a_dag.py"
          + UPSTREAM]),
    (RELOAD_TASK, []),  # reload runs between them: the DAG's order, not the file's
])
def test_a_table_two_tasks_of_a_dag_write_is_known_by_its_declarations_alone(tmp_path, capsys, reload, found):
    sql_repository(tmp_path, {"a_dag.py": DAG.format(reload=reload, downstream="reload >> " if reload else "")})
    assert check(tmp_path, capsys) == found


ON_SPARK = """\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
everything = spark.table("raw.tickets").select("id", "kind", "channel")
spark.sql("DROP TABLE IF EXISTS emails")
spark.sql("CREATE TABLE emails AS SELECT id, kind, channel FROM raw.tickets WHERE kind = 'email'")
everything.write.mode("overwrite").saveAsTable("emails")
spark.table("emails").groupBy("kind", "channel").count().collect()
"""


@pytest.mark.spark
def test_spark_runs_a_jobs_statements_in_the_order_they_are_called(tmp_path, capsys, spark):
    """The job itself, run on Spark: the DataFrame made before the CREATE and written after it
    leaves every kind in the table, so the kind its CREATE kept is no constant of it."""
    sql_repository(tmp_path, {"a_job.py": ON_SPARK})
    assert check(tmp_path, capsys) == []
    spark.sql("CREATE DATABASE IF NOT EXISTS raw")
    spark.sql("DROP TABLE IF EXISTS raw.tickets")
    rows = [(i, ["email", "chat", "sms"][i % 3], ["web", None][i % 2], None) for i in range(60)]
    spark.createDataFrame(rows, "id bigint, kind string, channel string, opened_at timestamp").repartition(3).write.saveAsTable(
        "raw.tickets")
    try:
        exec(compile(ON_SPARK, "a_job.py", "exec"), {"__name__": "a_job"})
        assert sorted(row.kind for row in spark.sql("SELECT DISTINCT kind FROM emails").collect()) == ["chat", "email", "sms"]
    finally:
        spark.sql("DROP TABLE IF EXISTS emails")


IN_MAIN = JOB.format(mode="").replace("emails = ", "def main():\n    emails = ").replace(
    "\nemails.write", "\n    emails.write")


@pytest.mark.parametrize("caller, kept", [
    ("main()\n", True),
    ('if __name__ == "__main__":\n    main()\n', True),
    ("main()\nmain()\n", False),  # run twice: what the first left, the second reads
    ("for _ in range(2):\n    main()\n", False),
    ('spark.table("raw.tickets").write.saveAsTable("all_tickets")\nmain()\n', False),  # the module runs more
    ("jobs = [main]\njobs[0]()\n", False),  # a call sortlint does not follow
])
def test_the_body_of_a_jobs_main_runs_as_the_modules_own_code(tmp_path, capsys, caller, kept):
    """A job's main() that the module calls once, running nothing else, runs its body once,
    in its order: what it writes travels to other files. Any other body's writes do not."""
    sql_repository(tmp_path, {"a_create.py": IN_MAIN + "\n\n" + caller, "c_read.sql": READER})
    expected = ("c_read.sql:1:58: SL103 group key kind is constant: WHERE tickets.kind = 'email' "
                "(line 5) in a_create.py" + UPSTREAM)
    assert check(tmp_path, capsys) == ([expected] if kept else [])


# ---------------------------------------------------------------------------------------------
# Spark runs the fixed reader on the table the upstream statement wrote


@pytest.mark.spark
def test_spark_gives_the_same_rows_after_the_unsafe_fixes(tmp_path, capsys, spark):
    upstream = ("CREATE TABLE per_channel AS SELECT channel, kind, count(*) AS tickets FROM raw.tickets "
                "WHERE kind = 'email' GROUP BY channel, kind;\n")
    reader = ("SELECT channel, kind, tickets, count(*) AS n FROM per_channel "
              "GROUP BY channel, kind, tickets ORDER BY channel, kind;\n")
    sql_repository(tmp_path, {"a_create.sql": upstream, "c_read.sql": reader})
    read = [line.split(": ")[1].split(" ")[0] for line in check(tmp_path, capsys) if line.startswith("c_read")]
    assert read == ["SL103", "SL103", "SL003"]
    check(tmp_path, capsys, "--fix", "--unsafe-fixes")
    fixed = (tmp_path / "c_read.sql").read_text()
    # kind stays grouped (a string: any_value would make the aggregate sort), tickets goes.
    assert fixed == ("SELECT channel, kind, any_value(tickets) AS tickets, count(*) AS n "
                     "FROM per_channel GROUP BY channel, kind ORDER BY channel;\n")

    spark.sql("CREATE DATABASE IF NOT EXISTS raw")
    spark.sql("DROP TABLE IF EXISTS raw.tickets")
    spark.sql("DROP TABLE IF EXISTS per_channel")
    rows = [(i, ["email", "chat", "sms"][i % 3], [None, "web", "phone", "mail"][i % 4], None) for i in range(400)]
    frame = spark.createDataFrame(rows, "id bigint, kind string, channel string, opened_at timestamp")
    frame.repartition(4).write.saveAsTable("raw.tickets")  # several files
    spark.sql(upstream.rstrip(";\n"))
    before, after = (spark.sql(sql.rstrip(";\n")) for sql in (reader, fixed))
    assert spark_support.schema_of(spark, reader.rstrip(";\n")) == spark_support.schema_of(spark, fixed.rstrip(";\n"))
    assert Counter(map(tuple, before.collect())) == Counter(map(tuple, after.collect()))
    assert len(before.collect()) == 4
