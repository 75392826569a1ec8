"""The Airflow front end: the SQL that DAG operators run, analysed where it is written.

`dags` reads DAG files, `macros` renders Airflow's Jinja as placeholders, `templates` checks
the template files DAGs reference as files of their own.

**Which calls.** A call whose class name ends in ``Operator`` (``SQLExecuteQueryOperator``,
``SparkSqlOperator``, ``DatabricksSqlOperator``, ``PostgresOperator``, ...) and that passes
``sql=`` (or ``hql=``, HiveOperator's name for it) as a keyword — Airflow operators take their
arguments by keyword. ``Op.partial(...).expand(sql=[...])`` counts too (each mapped value is
read like ``sql=``). Operators without such an argument (``SparkSubmitOperator``,
``BigQueryInsertJobOperator``'s ``configuration``) hold no SQL text for us. Inside callables,
a hook's ``run``, ``run_cli``, ``get_records``, ``get_first``, ``get_pandas_df``, ``get_df``,
``get_results`` or ``to_csv``, and a hook made with ``sql=``. The configuration's
``airflow.sql_arguments`` adds the project's own classes. All SQL is read with the configured
``dialect``, whatever connection the operator uses.

**Which values.** ``sql=`` may be a string literal (plain, raw, triple-quoted, an f-string,
an implicit concatenation of adjacent literals), a list or tuple of them, or a name bound
once in the file to one of these (followed through simple assignments). A string ending in
``.sql`` or ``.hql`` is, as in Airflow, a template file: it is looked up in the DAG file's
folder, then in the DAG's ``template_searchpath`` (a literal, a module constant, or
``os.path.join(os.path.dirname(__file__), ...)`` / ``Path(__file__).parent / ...``). An
absolute entry that does not exist here is matched by its longest tail that exists under
the project root (``/opt/airflow/dags/sql`` finds ``dags/sql``); a relative one, which
Airflow reads from its working directory, is taken from the DAG's folder, else from the
project root. The DAG is the ``with DAG(...)`` block or ``@dag(...)`` function around the
operator, the one its ``dag=`` names, or the file's only DAG.

SQL that Python code builds - in a function of the file or of a module of the repository,
with ``+``, ``.format``, ``%``, f-strings, ``join``, names bound in branches or reassigned -
is read as the code builds it (`sortlint.sources.runtime_sql`): each unknown piece a
placeholder inside a statement, an opaque unit between statements.

What no code fixes - a parameter of the callable, a call to a library, a file that is not
found, Jinja statements (``{% if %}``, ``{% for %}``) - is not analysed. It is not silently
dropped either: it becomes an *opaque unit* at the ``sql=`` value, which ``sortlint
explain`` prints as ``Opaque '<why>'``, and it reports nothing.

**Offsets.** A literal is decoded to its value with a map back to the file
(`sortlint.sources.python.strings`): a finding points at the line inside the Python file,
and a fix is written inside the literal, escaped for its quoting (``\\'`` in a ``'...'``
string, ``\\n`` for a line break outside triple quotes, braces doubled in an f-string).

**Macros.** Airflow renders ``sql`` with Jinja before it runs; sortlint renders each
``{{ ... }}`` (and each f-string field) as a placeholder, an opaque region no fix may edit:

* ``{{ params.x }}`` / ``{{ params['x'] }}`` whose value is a literal in the operator's
  ``params``, the DAG's ``params`` or ``default_args['params']`` (a ``Param(default)``
  counts), and an f-string field naming a module constant, render as that value, exactly as
  Airflow renders them by default (a run triggered with other params is not what is
  analysed); the value is never copied into a fix;
* inside a SQL string, a quoted name or a comment: kept as written (``'{{ ds }}'`` is a
  constant string, which it is at run time);
* glued to a name (``events_{{ ds_nodash }}``): a bare word made of the expression
  (``events_ds_nodash``);
* elsewhere: a quoted identifier of the expression (`` `{{ params.table }}` ``): an unknown
  table or column, of which nothing is known and nothing is concluded.

``{# ... #}`` renders as nothing; whitespace control (``{{- x -}}``) is ignored.

**Template files and double reports.** A template file that the configuration's
``include``/``exclude`` globs select is checked as a file of its own:
`sortlint.sources.airflow.templates`, registered as a SQL front end, claims a ``.sql``/``.hql`` file that holds Jinja and that a
DAG of the project references (a DAG file under the configuration's directory that its
globs select; without a configuration file nothing is claimed), and renders it with that
DAG's params (the values on which all referencing operators agree). Its findings and fixes
are in that file, and the DAG file adds nothing for it — so `sortlint check dags/x.py`
alone does not check x's included template files; checking the folder does. A template
file the globs leave out is analysed from the DAG that references it (once per DAG file):
findings name the template file and its lines, and fixes are reported as unavailable
(sortlint writes only the files it checks).
"""
