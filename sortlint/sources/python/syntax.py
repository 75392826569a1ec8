"""Whether a Python file parses, said as Python says it.

Every Python file sortlint is given is checked for syntax, whatever it holds, as ruff checks
every file it is given: a job that uses a global `spark` without importing PySpark is still a
job, and a file that does not parse is one whose SQL and DataFrames are not seen. Python's
own parser decides (it is fast, and its messages name the problem: "'(' was never closed"),
and only its grammar: what the compiler refuses later (`return` outside a function, as a
notebook's cell may have) is no syntax error. A file this interpreter's parser refuses is
read again by libcst, which reads newer syntax than an older interpreter (a job written for
Python 3.12 checked on 3.10): only a file neither parses is an error.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

from sortlint.errors import UserError


def check_syntax(path: Path, raw: str) -> None:
    """Raise the UserError (with its line) that says why `raw` is not Python, if it is not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape's SyntaxWarning is not ours to print
            ast.parse(raw, str(path))
    except SyntaxError as error:
        if not _libcst_parses(raw):
            raise UserError(f"cannot parse Python: {error.msg}", path, error.lineno) from None
    except ValueError as error:  # a NUL byte, before Python 3.12
        raise UserError(f"cannot parse Python: {error}", path) from None
    except (RecursionError, MemoryError):
        raise UserError("too deeply nested to analyse", path) from None


def _libcst_parses(raw: str) -> bool:
    import libcst  # only for a file this interpreter cannot parse

    try:
        libcst.parse_module(raw)
    except (libcst.ParserSyntaxError, RecursionError):
        return False
    return True
