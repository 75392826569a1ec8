"""Templated SQL: Jinja files and dbt models, rendered, cut into statements and mapped back.

A `.sql` file is templated when it holds `{{`, `{%` or `{#`, or when it is a dbt model (see
`sortlint.sources.dbt.project`). It is rendered by sqlfluff's Jinja templater, with dbt's builtins
and the project's macros, because that templater also *traces* the rendering: it returns the
file as slices, each a piece of rendered text and the raw text it came from — a literal
(copied verbatim), an expression's output (`{{ ... }}`), or a tag or comment that rendered to
nothing (`{% if %}`, `{# #}`).

The rendered text is split into statements like a plain SQL file, and each statement becomes
a `Unit` whose `TemplateMap` sends its offsets to raw offsets through those slices. Inside a
literal the map is exact, so a finding points at the raw line and a fix edits the raw bytes;
text an expression produced maps to where the expression starts. A fix whose edit would
touch anything but literal text — an expression, a tag, a comment, a loop body written once
and rendered many times — is refused by `TemplateMap.uneditable`, so it is reported as
unavailable and never applied.

sqlfluff is imported here only when a templated file is rendered: checking plain SQL never
loads it.
"""

from __future__ import annotations

import bisect
import logging
import re
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from sqlglot.errors import TokenError

from sortlint.config import Config, DbtOptions
from sortlint.diagnostics import UneditableRegion
from sortlint.errors import UserError
from sortlint.files import stands_in
from sortlint.sources.dbt import budget
from sortlint.sources.dbt import compiled as dbt_compiled
from sortlint.sources.dbt import context as dbt_context
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.preparation import learn_dependencies, model_context, project_context_key
from sortlint.plan.tokens import tokenize
from sortlint.sources.frontend import JINJA_MARK, Reading
from sortlint.store import digest
from sortlint.sources.sql.files import failure_offset, statement_bounds
from sortlint.units import Unit, line_starts, raw_location



# ---------------------------------------------------------------------------------------------
# The front end


def jinja_units(path: Path, raw: str, reading: Reading) -> list[Unit] | None:
    """The statements of a templated `.sql` file, or None when the file is plain SQL.

    A dbt macro file is claimed and has no statements: it defines macros, it is not a query.
    """
    project = dbt.projects_of(reading).of(path)
    if project is not None and project.is_macro_file(path):
        return []
    model = project.model(path) if project is not None else None
    if model is None and not JINJA_MARK.search(raw):
        return None
    if model is not None and dbt_compiled.is_disabled(project, path, reading.config):
        return []  # `enabled: false`: dbt builds no such model
    rendered = reading.remembered((RENDERINGS, path, raw),
                                  lambda: _kept_rendering(path, raw, project, reading))
    if rendered.note is not None:
        reading.note(path, rendered.note)
    if model is not None and not rendered.enabled:
        return []  # `config(enabled=...)` computed while rendering: dbt builds no such model
    table = None
    if model is not None:
        table = dbt.ModelTable(dbt_compiled.table_name(project, model, reading.config.dbt), rendered.materialized)
        _warn_of_fileless_layout(path, model, table, reading)
    return statement_units(path, raw, rendered, reading.config.dialect, table)


def _warn_of_fileless_layout(path: Path, model: str, table: dbt.ModelTable, reading: Reading) -> None:
    """A layout declared on a view or an ephemeral model is a mistake of the configuration:
    the model stores no files, so no order of its files is ever kept (nor checked: SL301)."""
    source = reading.config.source(table.name)
    if table.stores_files or source is None or not (source.orderings or source.bucketing):
        return
    declared = source.orderings[0].location if source.orderings else None
    where = f"{declared}: " if declared is not None and declared.path is not None else ""
    kind = "an ephemeral model" if table.materialized == "ephemeral" else "a view"
    reading.warn(path, f"{where}{model} is {kind}: it stores no files, so its declared ordering is never "
                       "a layout (no SL301)")


RENDERINGS = "dbt-renderings"  # the store's namespace for renderings


def _kept_rendering(path: Path, raw: str, project: dbt.Project | None, reading: Reading) -> Rendered:
    """The file's rendering, from the persistent cache when the run has one and the file is
    a model of a prepared project: a rendering depends on the file, the project's context
    (which `sources.dbt.preparation` digests, vars, renderer and versions included), the
    models it resolved (`preparation.model_context`) and the dialect only. A run renders a
    text once (the fixer analyses its file again)."""
    prepared = project is not None and project_context_key(project.root) in reading.memo
    if not prepared:
        return render_model(path, raw, project, reading.config)
    assert project is not None
    resolved = path.resolve()
    if reading.store is not None:
        key = digest(model_context(reading, project, resolved, raw), str(path), raw, reading.config.dialect)
        kept = reading.store.get(RENDERINGS, key)
        if isinstance(kept, Rendered):
            learn_dependencies(reading, project, resolved, raw, kept)
            return kept
    try:
        rendered = render_model(path, raw, project, reading.config)
    except UserError:
        learn_dependencies(reading, project, resolved, raw, None)
        raise
    learn_dependencies(reading, project, resolved, raw, rendered)
    if reading.store is not None:
        # keyed by every model it resolved, now known (more than a glance at its text finds)
        key = digest(model_context(reading, project, resolved, raw), str(path), raw, reading.config.dialect)
        reading.store.put(RENDERINGS, key, rendered)
    return rendered




def render_model(path: Path, raw: str, project: dbt.Project | None, config: Config) -> Rendered:
    """The file rendered as dbt would render it for this run (`config.dbt`): by the built-in
    renderer, unless the run chose dbt (`sortlint.sources.dbt.compiled.renderer`). A model
    dbt cannot render is then an error, not the built-in renderer's: the run asked for dbt's
    rendering and the other could differ. Only a text standing in for the file and edited
    beyond its literal text (`UNSAVED_EDIT`) is rendered by the built-in renderer, with a note."""
    model = project.model(path) if project is not None else None
    relations: dict[str, str] = {}
    if project is not None and model is not None:
        compiled = dbt_compiled.compiled_project(project, config.dbt)
        if compiled is not None:
            rendered, why_not_dbt = rendered_by_dbt(compiled, path, raw)
            if rendered is not None:
                return rendered
            if why_not_dbt != UNSAVED_EDIT:
                raise UserError(f"cannot render with dbt (renderer: dbt): {why_not_dbt}", path)
            relations = compiled.relations()
            rendered = render(path, raw, project, model, config.dialect, config.dbt,
                              tuple(sorted(relations.items())))
            return replace(rendered, note=f"{path}: rendered by sortlint's built-in renderer: {UNSAVED_EDIT}")
    return render(path, raw, project, model, config.dialect, config.dbt, ())


def rendered_by_dbt(
    compiled: dbt_compiled.CompiledProject, path: Path, raw: str
) -> tuple[Rendered | None, str | None]:
    """The model as dbt rendered it, or None and why not. A file the fixer has edited since
    (only ever inside literal text) is the same rendering with the same edits, and so is a
    text standing in for the file; one edited beyond is `UNSAVED_EDIT`."""
    if compiled.failure is not None:
        return None, f"dbt cannot render the project: {compiled.failure}"
    model = compiled.models.get(path.resolve())
    if model is None:
        return None, "dbt did not compile this model"
    if model.error is not None or model.text is None or model.raw is None:
        return None, model.error or "dbt gave no rendering"
    source, crlf = normalize_newlines(raw)
    slices = tuple(Slice(*piece) for piece in model.slices)
    rendered = Rendered(
        model.text,
        slices,
        reads=model.depends_on,
        crlf=crlf,
        renderer="dbt",
        caveat=dbt_compiled.QUERIED_CAVEAT if model.queried else None,
        materialized=model.materialized,
    )
    if source == model.raw:
        return rendered, None
    edited = rendered.with_raw_edits(model.raw, source)
    if edited is not None:
        return edited, None
    if stands_in(path):
        return None, UNSAVED_EDIT
    raise UserError(
        "cannot render template: the file changed outside its literal text since dbt "
        "rendered it; run sortlint again", path)


# Why a text standing in for a model's file (standard input, an editor's unsaved buffer) is
# rendered by the built-in renderer, whoever renders the project: dbt rendered the file as
# saved, and compiling the project again for each edit would take dbt's seconds per keystroke.
UNSAVED_EDIT = ("dbt rendered the saved file, and the text standing in for it changes more "
                "than its literal text")


# ---------------------------------------------------------------------------------------------
# Rendering


@dataclass(frozen=True)
class Slice:
    """One piece of the rendering: rendered text [start, stop) came from raw [raw_start,
    raw_stop). `kind` is sqlfluff's: literal, templated, block_start, block_mid, block_end,
    comment. Tags and comments render to nothing (start == stop)."""

    kind: str
    raw_start: int
    raw_stop: int
    start: int
    stop: int


@dataclass(frozen=True)
class Rendered:
    text: str
    slices: tuple[Slice, ...]
    reads: tuple[str, ...] = ()  # the project's models the template reads through ref()
    crlf: tuple[int, ...] = ()  # see normalize_newlines: slices' raw offsets are before them
    renderer: str = "builtin"  # or "dbt"
    caveat: str | None = None  # what every finding in the file rests on beyond the query
    note: str | None = None  # what the user should know of how it was rendered (a fallback)
    enabled: bool = True  # false when its `config(enabled=...)` disables the model
    materialized: str | None = None  # a model's materialization, as its rendering decided it
    graph: bool = False  # the template read dbt's `graph` (every model of the project)

    def with_raw_edits(self, old: str, new: str) -> Rendered | None:
        """The rendering of `new`, a copy of `old` (the raw text this rendering is of) with
        edits inside literal text that renders once: the same edits land in the rendering.
        None when an edit touches anything else, or writes template syntax."""
        slices = list(self.slices)
        text = self.text
        shift = 0
        repeated = TemplateMap(self, 0, old)._repeated

        def as_written(i: int) -> bool:
            """Slice i is literal text rendered once, exactly as written (not whitespace a
            `{%-` tag stripped)."""
            s = self.slices[i]
            return (s.kind == "literal" and s.raw_start not in repeated
                    and self.text[s.start : s.stop] == old[s.raw_start : s.raw_stop])

        def edge_free(i: int, side: int) -> bool:
            """Nothing across slice i's edge changes how an edit at that edge renders: the
            file ends there, or next to it is literal text rendered as written, or a tag
            that strips no whitespace on this side (`-}}` before, `{%-` after it)."""
            j = i + side
            if not 0 <= j < len(self.slices):
                return True
            if self.slices[j].kind == "literal":
                return as_written(j)
            tag = old[self.slices[j].raw_start : self.slices[j].raw_stop]
            return not (tag[:3].endswith("-") if side > 0 else tag[-3:].startswith("-"))

        edits = dbt_compiled.rendering_change(old, new)
        for start, stop, replacement in edits:
            if "{" in replacement or "}" in replacement:
                return None
            index = next(
                (i for i, s in enumerate(self.slices)
                 if s.raw_start <= start and stop <= s.raw_stop and as_written(i)
                 and (start > s.raw_start or edge_free(i, -1))
                 and (stop < s.raw_stop or edge_free(i, 1))),
                None,
            )
            if index is None:
                return None
            piece = self.slices[index]
            at = piece.start + (start - piece.raw_start) + shift
            text = text[:at] + replacement + text[at + stop - start:]
            delta = len(replacement) - (stop - start)
            for i in range(index, len(slices)):
                s = slices[i]
                slices[i] = Slice(
                    s.kind,
                    s.raw_start + (0 if i == index else delta),
                    s.raw_stop + delta,
                    s.start + (0 if i == index else delta),
                    s.stop + delta,
                )
            shift += delta
        return replace(self, text=text, slices=tuple(slices))


def render(
    path: Path,
    raw: str,
    project: dbt.Project | None,
    model: str | None,
    dialect: str,
    options: DbtOptions,
    relations: tuple[tuple[str, str], ...] = (),
) -> Rendered:
    """Render one file; a file that does not render is the user's error, at its line.
    `relations` are the project's models as dbt names them, when dbt rendered the project."""
    _quiet_sqlfluff()
    source, crlf = normalize_newlines(raw)
    reads: list[str] = []
    context = dbt.builtins(project, model, dialect, options, reads, dict(relations))
    config_calls = context["config"]
    scope = graph = None
    if project is not None:
        graph = _Watched(dbt_context.graph(project))
        context, scope = dbt_context.context(project, context, graph, model)
    templater = _templater()(override_context=context)
    fluff_config = _fluff_config()
    try:
        with budget.limited(options.render_timeout, options.render_max_bytes):
            templated, violations = _processed(templater, fluff_config, source, path)
        if violations:
            first = min(violations, key=lambda v: v.line_no or 0)
            raise UserError(f"cannot render template: {_message(first)}", path, first.line_no or None)
    except budget.OverBudget as over:
        raise budget.error(over, path, options.render_timeout, options.render_max_bytes) from None
    except UserError:
        if model is not None and _disabled_when_parsed(source, project, model, dialect, options, relations):
            return Rendered("", (), crlf=crlf, enabled=False)
        raise
    slices = tuple(
        Slice(
            s.slice_type,
            s.source_slice.start,
            s.source_slice.stop,
            s.templated_slice.start,
            s.templated_slice.stop,
        )
        for s in templated.sliced_file
    )
    caveat = None
    if scope is not None and scope.queried:
        caveat = (f"rendered against an empty catalog: the model asks the database "
                  f"({', '.join(dict.fromkeys(scope.queried))})")
    # dbt's precedence: the model's own config() over its property file over dbt_project.yml
    # (`configs` merges those it reads literally; the rendering's calls are evaluated). A
    # setting whose Jinja could not be rendered is not known: the model is then checked.
    settings = {**(project.configs.get(model, {}) if project is not None and model else {}),
                **config_calls.settings}
    materialized = settings.get("materialized", dbt.DEFAULT_MATERIALIZED)
    return Rendered(templated.templated_str, slices, tuple(reads), crlf, caveat=caveat,
                    enabled=dbt.is_enabled(config_calls.settings),
                    materialized=materialized if isinstance(materialized, str) else None,
                    graph=graph is not None and graph.read)


class _Watched(Mapping):
    """dbt's `graph` as one rendering sees it, telling whether it was read: a rendering that
    read it depends on every model of the project (`preparation.model_context`)."""

    def __init__(self, graph: Mapping[str, Any]) -> None:
        self.graph, self.read = graph, False

    def __getitem__(self, key: str) -> Any:
        self.read = True
        return self.graph[key]

    def __iter__(self) -> Iterator[str]:
        self.read = True
        return iter(self.graph)

    def __len__(self) -> int:
        self.read = True
        return len(self.graph)


def _disabled_when_parsed(
    source: str, project: dbt.Project | None, model: str, dialect: str, options: DbtOptions,
    relations: tuple[tuple[str, str], ...],
) -> bool:
    """Whether dbt leaves out a model that does not render: dbt parses every model before
    it compiles any, with each var not set as None, to learn its `config(...)`; a model
    that parsing disables (`config(enabled=var('flag', false))`) is never compiled, so a
    var its SQL needs but nobody set is no error of dbt's. Parsed here the same way."""
    context = dbt.builtins(project, model, dialect, options, [], dict(relations), parsing=True)
    config_calls = context["config"]
    if project is not None:
        context, _ = dbt_context.context(project, context, dbt_context.graph(project), model)
    try:
        with budget.limited(options.render_timeout, options.render_max_bytes):
            _, _, render_func = _templater()(override_context=context).construct_render_func(
                fname=None, config=_fluff_config())
            render_func(source)
    except Exception:  # noqa: BLE001  what parsing could not finish: the settings made before
        pass
    return not dbt.is_enabled(config_calls.settings)


def _processed(templater, fluff_config, source: str, path: Path):
    """sqlfluff's rendering and trace of the file; a template that does not render is the
    user's error, at its line."""
    from sqlfluff.core.errors import SQLFluffSkipFile, SQLTemplaterError

    try:
        templated, violations = templater.process(
            in_str=source, fname=str(path), config=fluff_config
        )
    except SQLTemplaterError as error:
        line = error.line_no if error.line_no and error.line_no > 1 else None
        line = line or _failing_line(templater, fluff_config, source) or error.line_no or None
        raise UserError(f"cannot render template: {_message(error)}", path, line) from None
    except dbt.RenderFailure as error:
        line = _failing_line(templater, fluff_config, source)
        raise UserError(f"cannot render template: {error}", path, line) from None
    except RecursionError:  # a template (not a macro, which names itself: context.MacroProxy)
        raise UserError("cannot render template: Jinja recursion without end (Python's stack "
                        "ran out)", path) from None
    except SQLFluffSkipFile as error:  # the tracer's rendering differs from the template's
        raise UserError(f"cannot render template: its rendering cannot be traced back to its "
                        f"text ({' '.join(str(error).split())})", path) from None
    except Exception as error:  # the template's own code may raise anything (`{{ 1 / 0 }}`)
        raise UserError(f"cannot render template: {type(error).__name__}: {error}", path) from None
    return templated, violations


def normalize_newlines(raw: str) -> tuple[str, tuple[int, ...]]:
    """The text with every line break a single \\n, as Jinja renders them (sqlfluff's slices
    are only consistent on such text), and where each \\r\\n was: the positions, in the new
    text, of the \\n that stands for it. A lone \\r keeps its place and length."""
    crlf = []
    removed = 0
    position = raw.find("\r\n")
    while position != -1:
        crlf.append(position - removed)
        removed += 1
        position = raw.find("\r\n", position + 2)
    return raw.replace("\r\n", "\n").replace("\r", "\n"), tuple(crlf)


@lru_cache(maxsize=1)
def _quiet_sqlfluff() -> None:
    """sqlfluff logs its tracer's doubts as warnings; with no handler configured Python
    would print them on stderr, in the middle of sortlint's report. What matters reaches
    the user as a render error."""
    logger = logging.getLogger("sqlfluff")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


@lru_cache(maxsize=1)
def _fluff_config():
    """sqlfluff's configuration for the Jinja templater: dbt's builtins (sortlint's own
    `ref`, `source`, `var`... and the macros of `sortlint.sources.dbt.context` override
    them)."""
    from sqlfluff.core import FluffConfig

    jinja = {"apply_dbt_builtins": True}
    return FluffConfig(overrides={"dialect": "ansi"}, configs={"templater": {"jinja": jinja}})


@lru_cache(maxsize=1)
def _templater():
    """sqlfluff's Jinja templater with what dbt's environment adds: the `break` and
    `continue` tags and dbt's filters; and with a `process` that compiles the file once."""
    from jinja2 import TemplateSyntaxError
    from jinja2.exceptions import TemplateError
    from jinja2.compiler import CodeGenerator
    from jinja2.idtracking import VAR_LOAD_RESOLVE
    from sqlfluff.core.errors import SQLTemplaterError
    from sqlfluff.core.templaters import JinjaTemplater
    from sqlfluff.core.templaters.base import TemplatedFile, large_file_check

    class CompilingTracker(CodeGenerator):
        """Jinja's code generator, also collecting the names the template looks up in its
        context, as `jinja2.meta.find_undeclared_variables` does with a generator that
        throws the code away (sqlfluff then generates it again to render)."""

        def __init__(self, environment) -> None:
            # named as `from_string` names a template (the name is in the code); the file
            # as the introspection names it (only its errors say it)
            super().__init__(environment, None, "<introspection>", optimized=environment.optimized)
            self.undeclared: set[str] = set()

        def enter_frame(self, frame) -> None:
            super().enter_frame(frame)
            for action, name in frame.symbols.loads.values():
                if action == VAR_LOAD_RESOLVE and name not in self.environment.globals:
                    self.undeclared.add(name)

    class DbtJinjaTemplater(JinjaTemplater):
        @large_file_check
        def process(self, *, in_str, fname, config=None, formatter=None):
            """sqlfluff's `process`, giving the same text, slices and errors, with less work.

            sqlfluff parses the file to find its undeclared names, generates its code to
            find them, then parses and compiles it again to render it; its tracer renders a
            traced copy of the file (literals replaced by markers, `JinjaTracer.trace`),
            then the file. Here the file is compiled once only, and where it can be, not at
            all (`_copy_compiled`): the traced copy is rendered twice, the second time in
            place of the file, and the markers of that output replaced by what they stand
            for (`_untraced`) are the file's own rendering."""
            if not re.search(r"\{[{%#]", in_str):  # sqlfluff's fast path, as it decides
                return super().process(in_str=in_str, fname=fname, config=config,
                                       formatter=formatter)
            env, live_context, render_func = self.construct_render_func(fname=fname, config=config)
            copied = self._copy_compiled(env, in_str, config, render_func)
            tree = None
            if copied is None:
                tracer = copy = None
                tracker = CompilingTracker(env)
                try:
                    tree = env.parse(in_str)
                    tracker.visit(tree)
                except Exception as err:  # as sqlfluff reports it
                    error = SQLTemplaterError("Failed to parse Jinja syntax. Correct the syntax "
                                              "or select an alternative templater. Error: "
                                              + str(err))
                    if isinstance(err, TemplateSyntaxError):
                        error.line_no = err.lineno
                    raise error from None
            else:
                tracer, copy, tracker = copied
            undefined = self._init_undefined_tracking(
                live_context, tracker.undeclared,
                ignore_templating="templating" in config.get("ignore"))
            code = env._compile(tracker.stream.getvalue(), "<template>")
            template = env.template_class.from_code(env, code, env.make_globals(live_context), None)
            first: list[str] = []

            def rendered(text: str) -> str:
                """The tracer's renderings, in its order: its traced copy, then the file,
                each from the state the one before left in the context (a `config(...)`
                that `config.get` reads)."""
                if copy is None:
                    return template.render() if text == in_str else render_func(text)
                if not first:
                    first.append(template.render())
                    return first[0]
                if _untraced(first[0], tracer) is None:  # as sqlfluff renders the file
                    return render_func(in_str)
                own = _untraced(template.render(), tracer)
                # a NUL the first rendering did not write: the file rendered a third time
                return own if own is not None else render_func(in_str)

            try:
                if tracer is None:
                    tracer = self._get_jinja_analyzer(in_str, self._get_jinja_env(config)).analyze(
                        rendered)
                else:
                    tracer.render_func = rendered
                trace = tracer.trace()
            except (TemplateError, TypeError, ValueError) as err:
                raise SQLTemplaterError(
                    f"Unrecoverable failure in Jinja templating: {err}. Have you correctly "
                    "configured your variables? "
                    "https://docs.sqlfluff.com/en/latest/perma/variables.html",
                    line_no=1, line_pos=1) from None
            templated = TemplatedFile(source_str=in_str, templated_str=trace.templated_str,
                                      fname=fname, sliced_file=trace.sliced_file,
                                      raw_sliced=trace.raw_sliced)
            if undefined and tree is None:  # the file's own tree says where the names are
                tree = env.parse(in_str)
            violations = self._generate_violations_for_undefined_variables(in_str, tree, undefined)
            return templated, violations

        def _copy_compiled(self, env, in_str, config, render_func):
            """The tracer of the file, its traced copy, and the copy parsed and compiled (a
            `CompilingTracker` that visited it: the copy holds the file's every expression
            and tag, so it looks up the same names); None when the copy may not stand for
            the file, or anything fails on the way (nothing is rendered yet: the file is
            then compiled, and fails as sqlfluff reports it).

            The copy's rendering, its markers replaced, is the file's when every marker goes
            straight to the output (`_captures_markers`)."""
            try:
                tracer = self._get_jinja_analyzer(in_str, self._get_jinja_env(config)).analyze(
                    render_func)
                copy = "".join(tracer.raw_slice_info[s].alternate_code
                               if tracer.raw_slice_info[s].alternate_code is not None else s.raw
                               for s in tracer.raw_sliced)  # as `JinjaTracer.trace` writes it
                tree = env.parse(copy)
                if _captures_markers(tree):
                    return None
                tracker = CompilingTracker(env)
                tracker.visit(tree)
            except Exception:  # noqa: BLE001  compiled from the file instead, failing as sqlfluff does
                return None
            return tracer, copy, tracker

        @staticmethod
        def infer_type(value):
            """sqlfluff reads each context value written as text (`"3"` is 3); the values of
            sortlint's context are objects already, and trying each of them (hundreds of
            macros per rendering) cost a third of a model's rendering."""
            return JinjaTemplater.infer_type(value) if isinstance(value, str) else value

        def _get_jinja_env(self, config=None):
            environment = super()._get_jinja_env(config)
            environment.add_extension("jinja2.ext.loopcontrols")
            environment.filters.update(dbt.FILTERS)
            environment.concat = budget.concat
            # Jinja's optimizer folds constant expressions while it generates a template's
            # code, to values the rendering would compute the same way (a sandbox folds no
            # call; a filter is folded only when it needs no context, and the filters are
            # pure): a fifth of the code generation, paid for each model and its traced copy.
            environment.optimized = False
            return environment

    return DbtJinjaTemplater


def _captures_markers(tree) -> bool:
    """Whether the traced copy's tree may make a value of output holding its markers (and
    pass it through a filter, whose output would differ from the file's): a macro, a
    `{% call %}` or `{% set %}` block, a `{% filter %}`, a `{% block %}` (which `self` calls),
    a recursive loop (which `loop(...)` calls), holding marked text; or `{% extends %}`.
    sqlfluff leaves the text of the first three unmarked, but not after a block nested in
    them ends."""
    from jinja2 import nodes

    capturing = (nodes.Macro, nodes.CallBlock, nodes.AssignBlock, nodes.FilterBlock, nodes.Block,
                 nodes.For)
    return next(tree.find_all(nodes.Extends), None) is not None or any(
        "\0" in data.data
        for node in tree.find_all(capturing)
        if not isinstance(node, nodes.For) or node.recursive
        for data in node.find_all(nodes.TemplateData)
    )


# A marker of sqlfluff's traced copy, after the \0 that starts it, as `JinjaTracer.trace`
# reads it: a slice's id, then `_<length>` for a literal or a block's end.
_MARKER = re.compile(r"([0-9a-f]+)(_(\d+))?")


def _untraced(output: str, tracer) -> str | None:
    """The file's own rendering, from `output`, a rendering of sqlfluff's traced copy
    (`DbtJinjaTemplater.process`): each marker replaced by what the file renders there — a literal's
    text (nothing for whitespace a tag strips, `_0`), an expression's output (which
    follows its marker and a space), nothing for a block's end; text no marker stands for
    (`{% raw %}`) stays. None when a marker is not one the copy wrote: its output holds
    text no marker can be told from."""
    codes = {info.unique_alternate_id: (piece, info.alternate_code)
             for piece, info in tracer.raw_slice_info.items()
             if info.unique_alternate_id is not None}
    first, *marked = output.split("\0")
    own = [first]
    for text in marked:
        found = _MARKER.match(text)
        if found is None or found.group(1) not in codes:
            return None
        piece, code = codes[found.group(1)]
        marker = "\0" + found.group(0)
        if found.group(3) is None:
            if not (code.startswith(marker + " ") and text[found.end():found.end() + 1] == " "):
                return None
            own.append(text[found.end() + 1:])
            continue
        length = int(found.group(3))
        if code == marker and piece.slice_type == "literal" and length in (0, len(piece.raw)):
            own.append(piece.raw[:length])
        elif code == piece.raw + marker and length == 0:
            pass  # a block's end
        else:
            return None
        own.append(text[found.end():])
    return "".join(own)


def _message(error) -> str:
    """The templater's message without its advertising (links to sqlfluff's docs)."""
    text = error.desc() if hasattr(error, "desc") else str(error)
    text = text.replace(
        "Failed to parse Jinja syntax. Correct the syntax or select an alternative templater. "
        "Error: ",
        "Jinja syntax error: ",
    )
    return re.sub(r"\s*Have you correctly configured your variables\?.*$", "", text, flags=re.S)


def _failing_line(templater, fluff_config, raw: str) -> int | None:
    """The raw line of a failure inside the template: sqlfluff renders a traced copy of the
    file (all on one line), so the file is rendered once more as it is, and the outermost
    template frame of the failure says where."""
    try:
        _, _, render_func = templater.construct_render_func(fname=None, config=fluff_config)
        render_func(raw)
    except Exception as error:  # whatever the template raised
        frames = traceback.extract_tb(error.__traceback__)
        lines = [frame.lineno for frame in frames if frame.filename == "<template>"]
        return lines[0] if lines else None
    return None


# ---------------------------------------------------------------------------------------------
# Statements and their maps


def statement_units(
    path: Path, raw: str, rendered: Rendered, dialect: str, table: dbt.ModelTable | None
) -> list[Unit]:
    """One unit per statement of the rendered text; a model's last statement defines its
    `table` (the name its readers' `ref` renders), which the unit carries to its builder."""
    tokens = _tokenize(path, raw, rendered, dialect)
    bounds = statement_bounds(tokens)
    units = []
    for index, (start, end) in enumerate(bounds):
        mapping = TemplateMap(rendered, start, raw)
        defines = table is not None and index == len(bounds) - 1
        units.append(
            Unit(path, rendered.text[start:end], mapping.to_raw(0), raw, offsets=mapping,
                 kind=dbt.MODEL_KIND if defines else "sql", payload=table if defines else None)
        )
    return units


def _tokenize(path: Path, raw: str, rendered: Rendered, dialect: str):
    """The rendered text's tokens; a failure is reported at the raw line it comes from."""
    try:
        return tokenize(rendered.text, dialect)[0]
    except TokenError:
        offset = failure_offset(rendered.text, dialect)
        near = rendered.text[offset : offset + 30].splitlines()[0] if rendered.text[offset:] else ""
        line, _ = raw_location(line_starts(raw), TemplateMap(rendered, 0, raw).to_raw(offset))
        raise UserError(f"cannot tokenize the rendered SQL near {near!r}", path, line) from None


@dataclass(frozen=True)
class TemplateMap:
    """Offsets of one statement's rendered text, mapped to the raw file through the slices.

    `shift` is where the statement starts in the whole rendered text. Slices count raw
    offsets in the file with its line breaks normalised (`crlf` says where they were not).
    """

    rendered: Rendered
    shift: int
    raw: str

    @property
    def slices(self) -> tuple[Slice, ...]:
        return self.rendered.slices

    @property
    def caveat(self) -> str | None:
        """What every finding of the statement rests on beyond its query (a rendering by
        dbt without the tables the model asked about)."""
        return self.rendered.caveat

    @cached_property
    def _stops(self) -> list[int]:
        return [s.stop for s in self.slices]

    @cached_property
    def _repeated(self) -> frozenset[int]:
        """Raw starts of literals rendered more than once: loop bodies."""
        seen: set[int] = set()
        twice: set[int] = set()
        for s in self.slices:
            if s.kind == "literal":
                (twice if s.raw_start in seen else seen).add(s.raw_start)
        return frozenset(twice)

    def to_raw(self, offset: int) -> int:
        """Exact inside a literal; an expression's output maps to where the expression starts.
        At a boundary the slice that starts there wins, so a range that begins right after
        a tag begins after it in the raw text too."""
        position = self.shift + offset
        index = bisect.bisect_right(self._stops, position)
        if index >= len(self.slices):
            normalized = self.slices[-1].raw_stop if self.slices else position
        elif self.slices[index].kind == "literal":
            normalized = self.slices[index].raw_start + position - self.slices[index].start
        else:
            normalized = self.slices[index].raw_start
        return self._denormalized(normalized)

    def _denormalized(self, offset: int) -> int:
        """A normalised raw offset in the file as it is: one more for each \\r\\n before it."""
        return offset + bisect.bisect_left(self.rendered.crlf, offset)

    def encode(self, text: str) -> str:
        """Inserted text as written into the raw file: with the file's line breaks.

        Text that repeats what an expression of the file rendered (`'EUR' AS currency`
        where `'EUR'` came from `{{ var(...) }}`) is refused: written into the raw file it
        would freeze one rendering of the template. Any word-bounded repetition counts, so
        a coincidence is refused too; that only costs a fix.
        """
        for piece in self._expressions:
            output = self.rendered.text[piece.start : piece.stop].strip()
            if re.search(rf"(?<!\w){re.escape(output)}(?!\w)", text):
                line, _ = raw_location(line_starts(self.raw), self._denormalized(piece.raw_start))
                raise UneditableRegion(
                    f"the new text would copy {output!r}, the output of the template "
                    f"{self._snippet(piece)} at line {line}"
                )
        return text.replace("\r\n", "\n").replace("\n", "\r\n") if self.rendered.crlf else text

    @cached_property
    def _expressions(self) -> tuple[Slice, ...]:
        """The slices an expression rendered, when their output holds a word."""
        return tuple(
            s
            for s in self.slices
            if s.kind != "literal" and re.search(r"\w", self.rendered.text[s.start : s.stop])
        )

    def uneditable(self, start: int, end: int) -> str | None:
        """Why replacing rendered [start, end) would not be the same edit on the raw file:
        the range overlaps an expression's output, would take a tag or comment with it (or
        insert next to one, where the text would land on the wrong side), or lies in a
        loop body; None when the range is literal text only."""
        first, last = self.shift + start, self.shift + end
        index = max(bisect.bisect_left(self._stops, first) - 1, 0)
        for piece in self.slices[index:]:
            if piece.start > last:
                break
            if self._touches(piece, first, last):
                return self._reason(piece)
        return None

    def _touches(self, piece: Slice, first: int, last: int) -> bool:
        if piece.kind == "literal":
            if piece.raw_start not in self._repeated:
                return False
            return piece.start < last and first < piece.stop or (
                first == last and piece.start <= first < piece.stop
            )
        if piece.start == piece.stop:  # a tag, a comment, an expression rendering nothing
            at = piece.start
            return first < at <= last or first == last == at
        return piece.start < last and first < piece.stop or (
            first == last and piece.start < first < piece.stop
        )

    def _reason(self, piece: Slice) -> str:
        line, _ = raw_location(line_starts(self.raw), self._denormalized(piece.raw_start))
        if piece.kind == "literal":
            return f"the edit would touch text inside a {{% for %}} loop at line {line}"
        what = {"templated": "template expression", "comment": "template comment"}.get(
            piece.kind, "template tag"
        )
        return f"the edit would touch the {what} {self._snippet(piece)} at line {line}"

    def _snippet(self, piece: Slice) -> str:
        start, stop = self._denormalized(piece.raw_start), self._denormalized(piece.raw_stop)
        text = " ".join(self.raw[start:stop].split())
        return text if len(text) <= 40 else text[:37] + "..."
