"""`sortlint coverage --compare-renderers`: the built-in renderer held to dbt's output.

Every model of the dbt projects under the paths is rendered twice, by dbt (one `dbt compile`
of each project, `sortlint.sources.dbt.compiled`) and by the built-in renderer
(`sortlint.sources.dbt.rendering`), and checked twice, once under each. A model differs
when the two renderings are not the same SQL tokens (layout and comments do not count; the
case of a keyword or a name does not either, a string's does), when one renderer builds it
and the other leaves it out (`enabled: false`), when one renders it and the other fails, or
when its findings are not the same (line, column, rule and message; the note on how a
model that asks the database was rendered is each renderer's own and does not count). A
model both renderers fail to render is no difference: either way the check reports it as
an error.

Installed packages (`dbt_packages/`, `dbt_modules/`) are not projects of their own here:
their macros are compared through the models of the projects that install them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sortlint.config import Config
from sortlint.config.citations import shown_path
from sortlint.errors import UserError
from sortlint.sources.dbt import compiled as dbt_compiled
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.rendering import render_model

PACKAGE_DIRECTORIES = ("dbt_packages", "dbt_modules")
# How each renderer says a model was rendered against an empty catalog (see lint.py's caveat).
_CAVEAT = re.compile(r" \[rendered (?:by dbt )?against an empty catalog[^\]]*\]")


@dataclass(frozen=True)
class Difference:
    """One model whose renderers disagree: `what` differs ("rendering", "findings",
    "enabled", "error"), first at `line` (the rendered line, or the finding's raw line);
    `by_dbt` and `builtin` are what each renderer gave there."""

    path: Path
    what: str
    line: int | None
    by_dbt: str
    builtin: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(shown_path(self.path)), "differs_in": self.what, "line": self.line,
                "dbt": self.by_dbt, "builtin": self.builtin}


@dataclass
class Comparison:
    projects: list[Path] = field(default_factory=list)
    models: int = 0  # compared
    disabled: int = 0  # left out by both renderers
    unrendered: int = 0  # neither renderer renders
    differences: list[Difference] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)  # projects dbt cannot render


def compare_renderers(paths: list[Path], config: Config, jobs: int = 1) -> Comparison:
    """Compare the two renderers on every model of the dbt projects `paths` hold (or that
    the model files among them belong to)."""
    from sortlint.workspace.discovery import discover

    projects = dbt.Projects(dict(config.dbt.vars))
    models: dict[Path, list[Path]] = {}
    for path in discover(paths, config).files:
        root = projects.root_of(path) if path.suffix == ".sql" else None
        if root is None or any(part in PACKAGE_DIRECTORIES for part in root.parts):
            continue
        if projects.at(root).model(path) is not None:
            models.setdefault(root, []).append(path)
    comparison = Comparison()
    for root, files in sorted(models.items()):
        _compare_project(projects.at(root), files, config, jobs, comparison)
    return comparison


def _compare_project(project: dbt.Project, files: list[Path], config: Config, jobs: int,
                     comparison: Comparison) -> None:
    by_dbt = replace(config, dbt=replace(config.dbt, renderer="dbt"))
    builtin = replace(config, dbt=replace(config.dbt, renderer="builtin"))
    compiled = dbt_compiled.compiled_project(project, by_dbt.dbt)
    assert compiled is not None  # the renderer is dbt
    if compiled.failure is not None:
        comparison.errors.append(UserError(
            f"dbt cannot render the project, so there is nothing to compare: {compiled.failure}",
            project.root / dbt.PROJECT_FILE))
        return
    comparison.projects.append(project.root)
    found = {name: _findings(files, replace(config, dbt=options), jobs)
             for name, options in (("dbt", by_dbt.dbt), ("builtin", builtin.dbt))}
    for path in files:
        outcome, difference = _rendering_difference(path, project, compiled, builtin)
        if outcome == "disabled":
            comparison.disabled += 1
            continue
        comparison.models += 1
        comparison.unrendered += outcome == "unrendered"
        difference = difference or _findings_difference(path, found["dbt"], found["builtin"])
        if difference is not None:
            comparison.differences.append(difference)


def _rendering_difference(path: Path, project: dbt.Project, compiled: dbt_compiled.CompiledProject,
                          builtin: Config) -> tuple[str, Difference | None]:
    """What became of the model under both renderers - "disabled" (both leave it out),
    "unrendered" (neither renders it) or "rendered" - and how the two differ."""
    raw = path.read_text(encoding="utf-8-sig")
    dbt_disabled = path.resolve() in compiled.disabled
    try:
        own = render_model(path, raw, project, builtin)
        own_text, own_error = (own.text if own.enabled else None), None
    except UserError as error:
        own_text, own_error = None, str(error)
    own_disabled = own_error is None and own_text is None or project.model(path) in project.disabled
    if dbt_disabled or own_disabled:
        if dbt_disabled and own_disabled:
            return "disabled", None
        left_out = "left out (enabled: false)"
        return "rendered", Difference(path, "enabled", None, left_out if dbt_disabled else "built",
                                      left_out if own_disabled else "built")
    model = compiled.models.get(path.resolve())
    dbt_error = "dbt did not compile the model" if model is None else model.error
    dbt_text = None if model is None else model.text
    if dbt_error is not None or dbt_text is None or own_error is not None:
        if (dbt_error is not None or dbt_text is None) and own_error is not None:
            return "unrendered", None
        return "rendered", Difference(path, "error", None, dbt_error or dbt_text or "",
                                      own_error or own_text or "")
    assert own_text is not None
    return "rendered", _first_difference(path, dbt_text, own_text, builtin.dialect)


def _first_difference(path: Path, by_dbt: str, builtin: str, dialect: str) -> Difference | None:
    """Where two renderings' tokens first differ: the line of each holding that token."""
    mine, theirs = _tokens(builtin, dialect), _tokens(by_dbt, dialect)
    for index in range(max(len(mine), len(theirs))):
        if index >= len(mine) or index >= len(theirs) or mine[index][0] != theirs[index][0]:
            return Difference(path, "rendering", _line_of(theirs, index, by_dbt),
                              _line_text(by_dbt, theirs, index), _line_text(builtin, mine, index))
    return None


def _tokens(sql: str, dialect: str) -> list[tuple[str, int]]:
    """The SQL's tokens (a string as written, anything else in lower case) with where each
    starts: two renderings that differ only in layout and comments have the same."""
    import sqlglot
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
    except TokenError:  # compared as words: the check reports what does not tokenize
        return [(m.group(), m.start()) for m in re.finditer(r"\S+", sql)]
    return [(t.text if t.token_type == TokenType.STRING else t.text.lower(), t.start) for t in tokens]


def _line_of(tokens: list[tuple[str, int]], index: int, text: str) -> int:
    at = tokens[index][1] if index < len(tokens) else len(text)
    return text.count("\n", 0, at) + 1


def _line_text(text: str, tokens: list[tuple[str, int]], index: int) -> str:
    if index >= len(tokens):
        return "(the rendering ends)"
    start = text.rfind("\n", 0, tokens[index][1]) + 1
    stop = text.find("\n", tokens[index][1])
    return text[start : stop if stop != -1 else len(text)].strip()


def _findings(files: list[Path], config: Config, jobs: int) -> dict[Path, list[str]]:
    """Each file's findings (and errors) under one renderer, as comparable lines."""
    from sortlint.workspace.check import check

    result = check(files, config, jobs=jobs)
    found: dict[Path, list[str]] = {}
    for finding in result.findings:
        message = _CAVEAT.sub("", finding.message)
        found.setdefault(finding.path.resolve(), []).append(
            f"{finding.line}:{finding.column}: {finding.code} {message}")
    return found


def _findings_difference(path: Path, by_dbt: dict[Path, list[str]],
                         builtin: dict[Path, list[str]]) -> Difference | None:
    theirs, mine = by_dbt.get(path.resolve(), []), builtin.get(path.resolve(), [])
    for index in range(max(len(theirs), len(mine))):
        one = theirs[index] if index < len(theirs) else "(no more findings)"
        other = mine[index] if index < len(mine) else "(no more findings)"
        if one != other:
            line = (theirs if index < len(theirs) else mine)[index].split(":")[0]
            return Difference(path, "findings", int(line), one, other)
    return None


# ---------------------------------------------------------------------------------------------
# The report


def summary(comparison: Comparison) -> str:
    projects = len(comparison.projects)
    counted = (f"{comparison.models} model{'s' if comparison.models != 1 else ''} of {projects} "
               f"dbt project{'s' if projects != 1 else ''}")
    extra = []
    if comparison.disabled:
        extra.append(f"{comparison.disabled} disabled, left out by both")
    if comparison.unrendered:
        extra.append(f"{comparison.unrendered} neither renders")
    if extra:
        counted += f" ({'; '.join(extra)})"
    differ = len(comparison.differences)
    verdict = (f"{differ} differ{'s' if differ == 1 else ''}" if differ
               else "dbt and the built-in renderer agree on every one")
    failed = len(comparison.errors)
    if failed:
        verdict += (f"; {failed} more dbt project{'s' if failed != 1 else ''} dbt cannot render, "
                    "not compared")
    return f"Compared {counted}: {verdict}."


def render_text(comparison: Comparison) -> str:
    lines = []
    for d in comparison.differences:
        at = f" at line {d.line}" if d.line is not None else ""
        lines += [f"{shown_path(d.path)}: {d.what} differs{at}",
                  f"  dbt:     {d.by_dbt}", f"  builtin: {d.builtin}"]
    lines.append(summary(comparison))
    return "\n".join(lines) + "\n"


def render_json(comparison: Comparison) -> str:
    import json

    return json.dumps({
        "projects": [str(shown_path(root)) for root in comparison.projects],
        "models": comparison.models, "disabled": comparison.disabled,
        "unrendered": comparison.unrendered,
        "differences": [d.as_dict() for d in comparison.differences],
        "errors": [str(error) for error in comparison.errors],
        "summary": summary(comparison),
    }, indent=2) + "\n"


def require_dbt() -> None:
    """Comparing needs dbt itself: a one-line usage error without it."""
    if dbt_compiled.dbt_version() is None:
        raise UserError("--compare-renderers renders every model with dbt too: it needs dbt-core "
                        "(sortlint's dbt extra installs it: README, Install)")

