"""`--output-format github`: GitHub Actions workflow commands, one per finding, which
GitHub shows as annotations on the pull request's files (`::warning file=...::message`).
Every finding is printed; GitHub decides how many it shows."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.errors import UserError
from sortlint.diagnostics import Finding


def render(findings: Sequence[Finding], errors: Sequence[UserError]) -> str:
    lines = [
        _command(
            "warning",
            {
                "file": f.path.as_posix(),
                "line": f.line,
                "endLine": f.end_line,
                "col": f.column,
                "title": f"{f.code} {f.name}",
            },
            f.message,
        )
        for f in findings
    ]
    for error in errors:
        where = {"file": str(error.path)} if error.path is not None else {}
        if error.path is not None and error.line:
            where["line"] = error.line
        lines.append(_command("error", where, error.message))
    return "".join(line + "\n" for line in lines)


def _command(kind: str, properties: dict, message: str) -> str:
    listed = ",".join(f"{key}={_property(str(value))}" for key, value in properties.items())
    return f"::{kind}{' ' + listed if listed else ''}::{_data(message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
