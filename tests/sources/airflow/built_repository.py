"""A repository of Airflow DAGs whose Hive/Spark SQL is built at run time (issue 33), written
for the tests: a helpers module (`alter_partition()`), functions returning formatted HQL,
callables concatenating pieces and running them with `HiveCliHook().run_cli(...)`, operators
given `hql=` built by a function, names bound in branches or reassigned."""

from __future__ import annotations

from pathlib import Path

CATALOG = """\
target: spark
include: ["dags/**/*.py"]
sources:
  ods.orders:
    columns: {order_id: bigint not null, user_id: bigint not null, amount: double, dt: string not null}
  ods.users:
    columns: {user_id: bigint not null, name: string, region: string, dt: string not null}
  ods.events:
    columns: {user_id: bigint not null, kind: string not null, ts: timestamp, dt: string not null}
"""

FILES = {
    "dags/common/__init__.py": "",
    "dags/common/hive_utils.py": '''\
DB = "dw"
SETTINGS = "SET hive.exec.dynamic.partition.mode=nonstrict;"


def alter_partition(table, pt):
    return "ALTER TABLE {db}.{table} ADD IF NOT EXISTS PARTITION (pt='{pt}');".format(db=DB, table=table, pt=pt)


def repair(table):
    return "MSCK REPAIR TABLE %s.%s;" % (DB, table)
''',
    "dags/common/queries.py": '''\
USERS_OF_DAY = """
SELECT user_id, name, region FROM ods.users WHERE dt = '{day}'
"""
''',
    # The dominant shape: a function returning formatted HQL, a callable concatenating it
    # after a helper's DDL, run by a hook.
    "dags/orders_daily.py": '''\
from airflow import DAG
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook
from common import hive_utils as cf

table_name = "orders_daily"


def x_sql_task(ds, v_date):
    HQL = \'\'\'
    INSERT OVERWRITE TABLE {db}.{table} PARTITION (pt='{pt}')
    SELECT user_id, max(amount) AS amount
    FROM (SELECT user_id, amount FROM ods.orders WHERE dt = '{v_date}' ORDER BY amount) t
    GROUP BY user_id
    \'\'\'.format(pt=ds, v_date=v_date, table=table_name, db=cf.DB)
    return HQL


def run_task(ds, **kwargs):
    v_date = kwargs["v_date"]
    _sql = "\\n" + cf.alter_partition(table_name, ds) + "\\n" + x_sql_task(ds, v_date)
    hive_hook = HiveCliHook()
    hive_hook.run_cli(_sql)


with DAG("orders_daily") as dag:
    PythonOperator(task_id="run", python_callable=run_task)
''',
    "dags/users_snapshot.py": '''\
from airflow import DAG
from airflow.providers.apache.hive.operators.hive import HiveOperator
from common.hive_utils import DB


def snapshot_hql(table):
    return f"""
INSERT OVERWRITE TABLE {DB}.{table} PARTITION (pt='{{{{ ds }}}}')
SELECT user_id, name, region FROM ods.users WHERE dt = '{{{{ ds }}}}' ORDER BY dt, user_id
"""


with DAG("users_snapshot") as dag:
    HiveOperator(task_id="snapshot", hql=snapshot_hql("users_snapshot"))
''',
    "dags/events_branch.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook


def load(ds, full=False):
    if full:
        sql = "INSERT OVERWRITE TABLE dw.events_all SELECT user_id, kind FROM ods.events"
    else:
        sql = "INSERT OVERWRITE TABLE dw.events_all SELECT user_id, kind FROM ods.events WHERE dt = '" + ds + "'"
    HiveCliHook().run_cli(sql)


PythonOperator(task_id="load", python_callable=load)
''',
    "dags/events_reassigned.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook
from common.hive_utils import SETTINGS

QUERY = """
INSERT OVERWRITE TABLE dw.events_kinds PARTITION (pt='{pt}')
SELECT kind, count(*) AS n FROM ods.events WHERE dt = '{pt}' GROUP BY kind
"""


def run(ds, **kwargs):
    sql = SETTINGS
    sql += "\\n" + QUERY.format(pt=ds)
    HiveCliHook().run_cli(hql=sql)


PythonOperator(task_id="run", python_callable=run)
''',
    "dags/users_joined.py": '''\
import textwrap

from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook
from common import hive_utils


def build(ds):
    insert = textwrap.dedent("""
        INSERT OVERWRITE TABLE dw.users_regions PARTITION (pt='%s')
        SELECT region, count(DISTINCT user_id) AS users FROM ods.users
        WHERE dt = '%s' GROUP BY region
    """) % (ds, ds)
    return "\\n".join([hive_utils.alter_partition("users_regions", ds), insert])


def run(ds, **kwargs):
    HiveCliHook().run_cli(build(ds))


PythonOperator(task_id="run", python_callable=run)
''',
    "dags/orders_repair.py": '''\
from airflow import DAG
from airflow.providers.apache.hive.operators.hive import HiveOperator
from common import hive_utils as cf


def orders_hql(day):
    return cf.repair("orders_by_user") + """
INSERT OVERWRITE TABLE dw.orders_by_user PARTITION (pt='%s')
SELECT user_id, count(*) AS orders FROM ods.orders WHERE dt = '%s' GROUP BY user_id
""" % (day, day)


with DAG("orders_repair") as dag:
    HiveOperator(task_id="repair", hql=orders_hql("{{ ds }}"))
''',
    "dags/users_server2.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveServer2Hook
from common.queries import USERS_OF_DAY


def check(ds, **kwargs):
    rows = HiveServer2Hook().get_records(USERS_OF_DAY.format(day=ds))
    return len(rows)


PythonOperator(task_id="check", python_callable=check)
''',
    "dags/spark_sql.py": '''\
from airflow import DAG
from airflow.providers.apache.spark.operators.spark_sql import SparkSqlOperator
from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

COLUMNS = ["user_id", "kind"]


def kinds_sql(day):
    return "SELECT " + ", ".join(COLUMNS) + " FROM ods.events WHERE dt = '" + day + "'"


with DAG("spark_sql") as dag:
    SparkSqlOperator(task_id="kinds", sql=kinds_sql("{{ ds }}") + " ORDER BY kind")
    SQLExecuteQueryOperator(task_id="count", sql="SELECT count(*) FROM ods.events WHERE dt = '{}'".format("x"))
''',
    "dags/helpers_loop.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook

TABLES = ["orders", "users"]


def refresh(ds, **kwargs):
    hook = HiveCliHook()
    for table in TABLES:
        hook.run_cli("MSCK REPAIR TABLE ods." + table)


PythonOperator(task_id="refresh", python_callable=refresh)
''',
    "dags/strip_and_percent.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook

TEMPLATE = """
    INSERT OVERWRITE TABLE dw.users_names PARTITION (pt='%(pt)s')
    SELECT user_id, name FROM ods.users WHERE dt = '%(pt)s'
"""


def sql_for(ds):
    return (TEMPLATE % {"pt": ds}).strip()


def run(ds, **kwargs):
    HiveCliHook().run_cli(sql_for(ds))


PythonOperator(task_id="run", python_callable=run)
''',
    "dags/run_helper.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook


def run_hql(sql):
    HiveCliHook().run_cli(sql)


def orders(ds, **kwargs):
    run_hql("INSERT OVERWRITE TABLE dw.orders_copy SELECT order_id, user_id FROM ods.orders WHERE dt = '%s'" % ds)


def users(ds, **kwargs):
    run_hql("INSERT OVERWRITE TABLE dw.users_copy SELECT user_id, name FROM ods.users WHERE dt = '%s'" % ds)


PythonOperator(task_id="orders", python_callable=orders)
PythonOperator(task_id="users", python_callable=users)
''',
    "dags/read_at_run_time.py": '''\
from airflow.models import Variable
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook


def run(ds, **kwargs):
    sql = Variable.get("nightly_sql")
    HiveCliHook().run_cli(sql)


PythonOperator(task_id="run", python_callable=run)
''',
    "dags/prefix_unknown.py": '''\
from airflow.operators.python import PythonOperator
from airflow.providers.apache.hive.hooks.hive import HiveCliHook
from vendor_lib import session_settings


def run(ds, **kwargs):
    sql = session_settings() + """
INSERT OVERWRITE TABLE dw.orders_users PARTITION (pt='{0}')
SELECT o.order_id, u.name FROM ods.orders o JOIN ods.users u ON o.user_id = u.user_id
WHERE o.dt = '{0}'
""".format(ds)
    HiveCliHook().run_cli(sql)


PythonOperator(task_id="run", python_callable=run)
''',
}


def write_repository(root: Path) -> Path:
    (root / "sortlint.yml").write_text(CATALOG)
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
