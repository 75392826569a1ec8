"""Environment variables that hold secrets, and what a model renders in their place.

A model may read a secret with `env_var()` (an API token in a filter, a password in a
connection string). Whatever a rendering holds ends up in findings, reports, review
comments and the cache, so a secret's value never enters one: `env_var()` of such a
variable renders `hidden_env_var_<NAME>`, a placeholder of its own for each variable.

A variable holds a secret when its name contains TOKEN, SECRET, PASSWORD or KEY, in any
case: the review's tokens (`GITHUB_TOKEN`, `GITLAB_TOKEN`, `CI_JOB_TOKEN`) and dbt's
`DBT_ENV_SECRET_*` are among them.

The placeholder is a word (letters, digits and `_`), so the SQL around it stays valid
inside a string literal and outside one. A filter `b = '{{ env_var("X_TOKEN") }}'` makes
`b` a constant, which it is whatever the value; two variables never render the same
placeholder, so two secrets never look equal. A comparison of a secret with another
literal is the one thing decided as if the value were the placeholder; no rule concludes
anything from a comparison of two literals.
"""

from __future__ import annotations

import hashlib
import os
import re

SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "KEY")
WORD = re.compile(r"[A-Za-z0-9_]+")


def is_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def placeholder(name: str) -> str:
    """What `env_var(name)` renders for a variable holding a secret: the name when it is a
    word, else its digest (one name, one placeholder, and the SQL stays valid)."""
    return "hidden_env_var_" + (name if WORD.fullmatch(name) else hashlib.sha256(name.encode()).hexdigest()[:16])


def env_value(name: str, default: str | None = None) -> str | None:
    """What `env_var(name, default)` renders: the variable's value (its placeholder for a
    secret), else the default (written in the project, so no secret); None for neither."""
    if name not in os.environ:
        return default
    return placeholder(name) if is_secret(name) else os.environ[name]


def secret_values() -> list[str]:
    """The values of the variables holding secrets, for a text rendered with them."""
    return [value for name, value in os.environ.items() if is_secret(name) and value]
