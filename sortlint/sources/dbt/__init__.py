"""The dbt front end: templated SQL files and dbt projects.

`project` reads a dbt project (models, macros, sources, vars, model configs, the orderings
its YAML declares) and provides dbt's basic Jinja builtins; `compiled` renders a whole
project with dbt itself when the run chooses dbt (in the process `worker`, traced, cached
by content); `context` is the rest of dbt's
context for the built-in renderer (dbt's and packages' macros, dispatch, `adapter` against
an empty catalog, filters, `graph`); `rendering` picks the renderer for a file, renders it
with sqlfluff's Jinja templater when dbt did not, and maps the rendered statements back to
the raw text; `models` builds a model's statement, which defines the model for the models
reading it; `budget` bounds the time and output of each rendering, by either renderer.
"""
