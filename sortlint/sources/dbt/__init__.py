"""The dbt front end: templated SQL files and dbt projects.

`project` reads a dbt project (models, macros, sources, vars, the orderings its YAML
declares) and provides dbt's Jinja builtins; `rendering` renders a file with sqlfluff's Jinja
templater and maps the rendered statements back to the raw text; `models` builds a model's
statement, which defines the model for the models reading it.
"""
