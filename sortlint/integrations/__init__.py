"""What connects a check to the world around it: git (which lines a change touched), the
code-review APIs of GitHub and GitLab (posting findings where a change touched), Spark
(the catalog's declarations checked against the real tables, fixes run before and after),
and editors (`lsp`: a language server checking open files as they are typed)."""
