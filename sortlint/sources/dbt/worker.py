"""The process that renders a dbt project with dbt itself: `python -m sortlint.sources.dbt.worker`.

sortlint starts it once per project and run (`sortlint.sources.dbt.compiled`), in a process
of its own: dbt keeps global state (flags, adapters, its event manager) and the spark
adapter's session starts a JVM, neither of which belongs in the checking process. It reads a
request (JSON on stdin: the project, profiles and target directories, vars) and writes one
JSON answer to the file the request names.

It runs `dbt compile` on the project's models, and for each model of the project records
what sqlfluff's dbt templater records: while dbt renders the model, the same template is
rendered once more through sqlfluff's Jinja tracer with dbt's own environment and context,
which says which rendered text came from which raw text. It also records whether the model
sent SQL to the database while it rendered (`adapter.get_relation`, `run_query`, ...): such
a model rendered against whatever the profile's database holds, an empty catalog for the
local session sortlint writes.

Nothing here is imported by the checking process.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path


def main() -> int:
    request = json.loads(sys.stdin.read())
    answer_path = Path(request["answer"])
    try:
        answer = compile_project(request)
    except Exception as error:  # anything dbt raises: the project's error, with dbt's reason
        answer = {"failure": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}
    if _timed_out:  # the next run may finish it in time: not dbt's lasting verdict
        answer["transient"] = True
    answer_path.write_text(json.dumps(answer), encoding="utf-8")
    return 0


def compile_project(request: dict) -> dict:
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    import dbt.clients.jinja as core_jinja
    import dbt_common.clients.jinja as dbt_jinja
    from dbt.cli.main import dbtRunner
    from dbt.task.compile import CompileTask
    from dbt.version import __version__ as dbt_version
    from dbt_common.exceptions import CompilationError
    from jinja2.nativetypes import NativeEnvironment

    from sortlint.sources.dbt import budget

    project_dir = Path(request["project_dir"])
    traced: dict[str, dict] = {}
    queried: set[str] = set()
    current: list = [None]  # the model being rendered
    sources: dict[int, str] = {}
    get_template, render_template = dbt_jinja.get_template, dbt_jinja.render_template

    def remembering_get_template(string, ctx, node=None, *args, **kwargs):
        template = get_template(string, ctx, node, *args, **kwargs)
        sources[id(template)] = str(string)
        if not isinstance(template.environment, NativeEnvironment):  # whose output is not text
            template.environment.concat = budget.concat
        return template

    def budgeted_render_template(template, ctx, node=None):
        """A model's own code, parsed or compiled, rendered within the run's budget: past
        it, the model fails to compile (dbt goes on with the others). Parsing it renders
        nothing: a parse error would fail the whole project, and compiling it runs out of
        its budget again."""
        if node is None or getattr(node, "raw_code", None) != sources.get(id(template)):
            return tracing_render_template(template, ctx, node)
        seconds, max_bytes = request["render_timeout"], request["render_max_bytes"]
        try:
            with budget.limited(seconds, max_bytes):
                return tracing_render_template(template, ctx, node)
        except budget.OverBudget as over:
            error = budget.error(over, Path(node.original_file_path), seconds, max_bytes)
            if not error.lasting:
                _timed_out.append(node.unique_id)
            if not ctx.get("execute"):
                return ""
            raise CompilationError(error.message, node) from None

    def tracing_render_template(template, ctx, node=None):
        source = sources.get(id(template))
        if not _is_model_body(node, ctx, source):
            return render_template(template, ctx, node)
        current[0] = node
        try:
            rendered = render_template(template, ctx, node)
            traced[node.unique_id] = _trace(
                project_dir / node.original_file_path,
                rendered,
                lambda text: render_template(get_template(text, ctx, node), ctx, node),
            )
        finally:
            current[0] = None
        return rendered

    progress = _Progress(request.get("progress"))

    def on_event(event) -> None:
        if event.info.name == "SQLQuery" and current[0] is not None:
            queried.add(current[0].unique_id)
        elif event.info.name == "ConcurrencyLine":  # the project is parsed: compiling starts
            progress.started(event.data.node_count)
        elif event.info.name == "NodeFinished":
            progress.finished(event.data.node_info.unique_id)

    # dbt-core's `get_rendered` calls the names it imported from dbt-common: both are hooked.
    for module in (dbt_jinja, core_jinja):
        module.get_template = remembering_get_template
        module.render_template = budgeted_render_template
    _hide_secrets()
    _ordered_sets()
    _without_hooks()
    if request.get("incremental"):
        _built_before(current, queried)
    # `dbt compile` stops at the first model that fails; `dbt run` goes on with the models
    # that do not depend on it, and so does this compile, so that one model's failure
    # is only that model's error (and that of those reading it).
    CompileTask.raise_on_first_error = lambda self: False
    arguments = [
        "compile",
        "--project-dir", str(project_dir),
        "--profiles-dir", request["profiles_dir"],
        "--target-path", request["target_path"],
        "--log-path", request["log_path"],
        "--select", "resource_type:model",
        "--threads", "1",
        "--no-populate-cache",
        "--no-partial-parse",
        "--no-version-check",
        "--quiet",
        "--log-level", "none",
        "--log-level-file", "none",
    ]
    if request.get("vars"):
        arguments += ["--vars", request["vars"]]
    if request.get("profile"):
        arguments += ["--profile", request["profile"]]
    result = dbtRunner(callbacks=[on_event]).invoke(arguments)
    manifest_path = Path(request["target_path"]) / "manifest.json"
    if result.result is None or not manifest_path.is_file():
        failure = _message(result.exception) or "dbt compile failed"
        if isinstance(result.exception, UnicodeDecodeError):
            failure = f"{_undecodable(project_dir, result.exception) or failure}"
        return {"failure": failure, "dbt_version": dbt_version}
    statuses = {
        r.node.unique_id: (str(r.status), r.message) for r in getattr(result.result, "results", [])
    }
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    project_name = manifest["metadata"].get("project_name")
    models = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model" or node["package_name"] != project_name:
            continue
        unique_id = node["unique_id"]
        status, message = statuses.get(unique_id, ("skipped", "dbt did not compile it"))
        entry = _model_entry(node, project_dir)
        entry.update(status=status, queried=unique_id in queried)
        if unique_id in traced:
            entry.update(traced[unique_id])
        elif status == "success" and node.get("language", "sql") == "sql":
            entry.update(_identity_trace(project_dir / node["original_file_path"], node))
        else:
            entry["error"] = message or f"dbt compile: {status}"
        models.append(entry)
    disabled = [
        str(project_dir / node["original_file_path"])
        for nodes in manifest.get("disabled", {}).values()
        for node in nodes
        if node.get("resource_type") == "model" and node.get("package_name") == project_name
    ]
    return {"dbt_version": dbt_version, "project": project_name, "models": models,
            "disabled": disabled}


def _hide_secrets() -> None:
    """`env_var()` of a variable holding a secret renders its placeholder, as in the
    built-in renderer (`sortlint.sources.dbt.secret_env`), in every context of dbt's but
    the one profiles.yml and packages.yml are rendered in: the connection gets the real
    value, and no rendering, manifest or message of dbt's holds it. A model reading
    `DBT_ENV_SECRET_*`, which dbt refuses outside those files, renders its placeholder too."""
    import dbt.context.providers  # noqa: F401  (defines the contexts models and macros render in)
    from dbt.context.base import BaseContext
    from dbt.context.secret import SecretContext
    from dbt_common.context import get_invocation_context

    from sortlint.sources.dbt.secret_env import is_secret, placeholder

    def hiding(env_var):
        def env_var_or_placeholder(self, var: str, default: str | None = None) -> str:
            if is_secret(var) and var in get_invocation_context().env:
                return placeholder(var)
            return env_var(self, var, default)

        return env_var_or_placeholder

    # Each context class keeps its own table of the names it provides (`env_var` among them).
    contexts, seen = [BaseContext], set()
    while contexts:
        context = contexts.pop()
        if context in seen or issubclass(context, SecretContext):
            continue
        seen.add(context)
        members = context.__dict__["_context_members_"]
        members["env_var"] = hiding(members["env_var"])
        contexts += context.__subclasses__()


def _ordered_sets() -> None:
    """`set()` and `set_strict()` iterate in the order items were first added, as in the
    built-in renderer (`sortlint.sources.dbt.context.InsertionOrderedSet`): Python's order
    follows string hashes, which change from one process to the next, so a model iterating
    a set would render differently on every dbt run (dbt Labs' project evaluator does)."""
    import dbt.context.providers  # noqa: F401  (defines the contexts models and macros render in)
    from dbt.context.base import BaseContext
    from dbt.exceptions import SetStrictWrongTypeError

    from sortlint.sources.dbt.context import InsertionOrderedSet, set_or_default

    def set_strict(value):
        try:
            return InsertionOrderedSet(value)
        except TypeError as error:
            raise SetStrictWrongTypeError(error) from None

    contexts, seen = [BaseContext], set()
    while contexts:
        context = contexts.pop()
        if context in seen:
            continue
        seen.add(context)
        members = context.__dict__["_context_members_"]
        members["set"], members["set_strict"] = staticmethod(set_or_default), staticmethod(set_strict)
        contexts += context.__subclasses__()


def _without_hooks() -> None:
    """Rendering models never runs, nor parses, the project's `on-run-start` / `on-run-end`
    hooks: one that asks the database ('None' has no attribute 'table' against the empty
    catalog) would otherwise fail the whole project's parse, and no model reads them."""
    from dbt.parser.hooks import HookParser

    HookParser.parse_file = lambda self, block: None


def _built_before(current: list, queried: set[str]) -> None:
    """`--incremental`: the model being rendered finds its own table, as on every build
    after the first, so that `is_incremental()` is true for an incremental model."""
    from dbt.adapters.base.impl import BaseAdapter

    get_relation = BaseAdapter.get_relation

    def existing_self(self, database, schema, identifier):
        node = current[0]
        if node is not None and (str(schema).lower(), str(identifier).lower()) == (
            str(node.schema).lower(), str(node.alias).lower()
        ):
            queried.add(node.unique_id)
            return self.Relation.create(database=database, schema=schema,
                                        identifier=identifier, type="table")
        return get_relation(self, database, schema, identifier)

    BaseAdapter.get_relation = existing_self


def _is_model_body(node, ctx, source) -> bool:
    """Whether dbt is rendering a model's own SQL to compile it (not parsing it, not a
    macro, not a hook)."""
    return (
        node is not None
        and getattr(node, "resource_type", None) == "model"
        and bool(ctx.get("execute"))
        and source is not None
        and source == getattr(node, "raw_code", None)
    )


def _model_entry(node: dict, project_dir: Path) -> dict:
    return {
        "unique_id": node["unique_id"],
        "name": node["name"],
        "path": str(project_dir / node["original_file_path"]),
        "relation": node.get("relation_name"),
        "schema": node.get("schema"),
        "alias": node.get("alias"),
        "materialized": node["config"].get("materialized"),
        "meta": node["config"].get("meta") or {},
        "depends_on": [n for n in node["depends_on"]["nodes"] if n.startswith("model.")],
        "language": node.get("language", "sql"),
    }


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read().replace("\r\n", "\n").replace("\r", "\n")


def _trace(path: Path, rendered: str, render_func) -> dict:
    """The model's file traced through dbt's rendering, as sqlfluff's dbt templater does."""
    from sqlfluff.core import FluffConfig
    from sqlfluff.core.templaters import JinjaTemplater

    raw = _read(path)
    # dbt renders the file stripped and with keep_trailing_newline off; the raw text keeps
    # both, so the trace's rendering gets the final newline back.
    keeps = raw.endswith("\n") and not raw.rstrip().endswith("-%}")
    config = FluffConfig(overrides={"dialect": "ansi"})
    try:
        _, sliced, templated = JinjaTemplater().slice_file(
            raw, render_func=render_func, config=config, append_to_templated="\n" if keeps else ""
        )
    except Exception as error:  # the trace failed where dbt's own rendering did not
        return {"raw": raw, "rendered": rendered, "untraced": f"{type(error).__name__}: {error}"}
    slices = [
        [s.slice_type, s.source_slice.start, s.source_slice.stop,
         s.templated_slice.start, s.templated_slice.stop]
        for s in sliced
    ]
    return {"raw": raw, "rendered": rendered, "text": templated, "slices": slices}


def _identity_trace(path: Path, node: dict) -> dict:
    """A model without any Jinja: dbt renders it as it is."""
    raw = _read(path)
    return {"raw": raw, "rendered": node.get("compiled_code") or raw, "text": raw,
            "slices": [["literal", 0, len(raw), 0, len(raw)]]}


_timed_out: list[str] = []  # the models whose rendering ran out of time


class _Progress:
    """How far the compile is, for the checking process's progress line: "done total" in
    the file the request names (`progress`), replaced whole, so that a reader sees one
    state or the next. A large project compiles for minutes; this is what it shows then."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        self.total = 0
        self.done: set[str] = set()

    def started(self, total: int) -> None:
        self.total = total
        self._write()

    def finished(self, unique_id: str) -> None:
        self.done.add(unique_id)
        self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        # The total leaves out ephemeral models, which dbt compiles into their readers: a
        # count past it would read as more work than there is.
        state = f"{min(len(self.done), self.total)} {self.total}\n"
        try:
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(state, encoding="utf-8")
            temporary.replace(self.path)
        except OSError:
            self.path = None  # only the progress line goes without


def _undecodable(project_dir: Path, error: UnicodeDecodeError) -> str | None:
    """dbt's message for a file that is not UTF-8 is the codec's, which names no file: the
    first of the project's files whose bytes fail the same way."""
    from sortlint.sources.dbt.compiled import project_inputs

    for path in project_inputs(project_dir, ()):
        try:
            path.read_bytes().decode(error.encoding)
        except OSError:
            continue
        except UnicodeDecodeError as found:
            return f"{path.relative_to(project_dir)} is not UTF-8 text: {found.reason} at byte {found.start}"
    return None


def _message(error: BaseException | None) -> str:
    if error is None:
        return ""
    return " ".join(str(error).split())


if __name__ == "__main__":
    raise SystemExit(main())
