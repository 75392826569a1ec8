"""`sortlint server`: a language server (LSP over stdio) that checks an editor's open files
as they are typed - SQL files, dbt models, Airflow DAGs and PySpark jobs - and offers their
fixes as code actions.

`checking` checks open documents with their unsaved text (no LSP in it); `protocol` says
what a check found in LSP's terms; `server` is the pygls server, imported only by the
`server` command (pygls is the `lsp` extra).
"""
