"""The `sortlint` command line."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from sortlint import __version__
from sortlint.errors import InternalError, UserError, each_error, missing_package
from sortlint.store import ENVIRONMENT_VARIABLE

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C ended
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: whoever read the output stopped reading
DEBUG = "SORTLINT_DEBUG"
# `text` is `concise`'s earlier name; `full` and `concise` are the text report's two forms.
TEXT_FORMATS = ("full", "concise", "text")
OUTPUT_FORMATS = (*TEXT_FORMATS, "json", "github", "sarif", "gitlab", "rdjson", "junit")
STATISTICS_FORMATS = (*TEXT_FORMATS, "json")


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `only`, the parser of that command alone: building
    the other commands' parsers cost a check the cache answers 2% of its time, and
    arguments naming one command are parsed by its parser alone."""

    def wanted(command: str) -> bool:
        return only is None or only == command

    main = argparse.ArgumentParser(
        prog="sortlint",
        description="Ordering-aware linter and rewriter for Spark data pipelines.",
    )
    main.add_argument("--version", action="version", version=f"sortlint {__version__}")
    commands = main.add_subparsers(dest="command", metavar="COMMAND")

    if wanted("check"):
        check = commands.add_parser("check", help="lint files; exit 1 on findings, 2 on errors")
        check.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
        _common(check)
        _checking_options(check)
        check.add_argument(
            "--output-format", choices=OUTPUT_FORMATS, default=None,
            help="full (each finding with its source; the default on a terminal), concise (one "
                 "line per finding; the default otherwise), or a machine format",
        )
        check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                           help="colour the text report (auto: on a terminal, unless NO_COLOR is set)")
        check.add_argument(
            "--stdin-filename", type=Path, metavar="PATH",
            help="with PATH `-`: check standard input as the file PATH (its configuration, its kind "
                 "of file); with --fix the fixed text goes to stdout and the report to stderr",
        )
        check.add_argument("--output-file", type=Path, metavar="FILE", help="write the report to FILE, not stdout")
        check.add_argument("--statistics", action="store_true", help="count the findings per rule instead of listing them (text or json)")
        check.add_argument("--show-fixes", action="store_true", help="show each fix under its finding (with --fix: list what was fixed)")
        check.add_argument("--fix", action="store_true", help="apply safe fixes, proved before writing")
        check.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: also unsafe fixes")
        check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, write nothing")
        check.add_argument(
            "--diff-base", metavar="REV",
            help="report only findings in statements changed since the merge base of REV and HEAD (work tree included)",
        )

    if wanted("review"):
        review = commands.add_parser(
            "review", help="post the findings on a pull request's changed lines as a review (GitHub, or GitLab)"
        )
        review.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
        _common(review)
        _checking_options(review)
        review.add_argument("--gitlab", action="store_true", help="review a GitLab merge request (default: a GitHub pull request)")
        review.add_argument("--repository", metavar="OWNER/NAME", help="GitHub: OWNER/NAME (GITHUB_REPOSITORY); GitLab: project id or path (CI_PROJECT_ID)")
        review.add_argument("--pr", type=_positive("a pull request number"), metavar="N", help="pull request number (GitLab: merge request IID)")
        review.add_argument("--base", metavar="REV", help="the revision the change is compared with (default: the pull request's base)")
        review.add_argument("--api-url", metavar="URL", help="the API's address (GITHUB_API_URL, CI_API_V4_URL)")
        review.add_argument("--dry-run", action="store_true", help="print the review as JSON instead of posting it")

    if wanted("coverage"):
        coverage = commands.add_parser(
            "coverage", help="how much sortlint analyses: statements, opaque nodes by reason, findings per rule"
        )
        coverage.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
        _common(coverage)
        coverage.add_argument("--output-format", choices=("text", "json"), default="text")
        coverage.add_argument(
            "--compare-renderers", action="store_true",
            help="render every dbt model with dbt (needs dbt-core) and with the built-in renderer, "
                 "and list each whose SQL or findings differ; exit 1 when any does",
        )
        coverage.add_argument(
            "--jobs", type=_positive("a positive number of processes"), default=1, metavar="N",
            help="processes analysing files (default: 1)",
        )

    if wanted("explain"):
        explain = commands.add_parser("explain", help="print each statement's plan and properties")
        explain.add_argument("file", type=Path)
        _common(explain)

    if wanted("catalog"):
        catalog = commands.add_parser("catalog", help="the catalog and Spark's catalog")
        catalog_commands = catalog.add_subparsers(dest="catalog_command", metavar="COMMAND", required=True)
        importing = catalog_commands.add_parser(
            "import", help="print (or --merge) catalog YAML for tables in Spark's catalog"
        )
        importing.add_argument("tables", nargs="*", metavar="TABLE", help="tables to import (default: all of the database)")
        importing.add_argument("--database", help="import every table of this database")
        importing.add_argument("--merge", type=Path, metavar="FILE", help="write into this sortlint.yml, keeping its declarations")
        _spark(importing)
        _debug(importing)

    if wanted("contracts"):
        contracts = commands.add_parser(
            "contracts", help="check the catalog's declarations against the tables, on Spark"
        )
        contracts.add_argument("--table", action="append", default=[], metavar="NAME", help="check this source only (repeatable)")
        contracts.add_argument("--sample", type=_fraction, metavar="FRACTION", help="check a sample of the rows")
        contracts.add_argument("--output-format", choices=["text", "json"], default="text")
        contracts.add_argument("--write-report", type=Path, metavar="FILE", help="record what held, for check (contracts_report)")
        contracts.add_argument("--config", type=Path, help="sortlint.yml or pyproject.toml to use")
        _spark(contracts)
        _debug(contracts)

    if wanted("verify"):
        verify = commands.add_parser(
            "verify", help="run the statements fixes would change, before and after, on Spark"
        )
        verify.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
        _common(verify)
        verify.add_argument("--unsafe-fixes", action="store_true", help="also the fixes resting on declarations")
        verify.add_argument("--sample", type=_fraction, metavar="FRACTION", help="run over a sample of every table read")
        verify.add_argument("--output-format", choices=["text", "json"], default="text")
        _spark(verify)

    if wanted("clean"):
        clean = commands.add_parser("clean", help="remove the cache")
        clean.add_argument("--config", type=Path, help="sortlint.yml or pyproject.toml to use")
        clean.add_argument("--cache-dir", type=Path, metavar="DIR", help="the cache to remove")
        _debug(clean)

    if wanted("server"):
        server = commands.add_parser(
            "server", help="a language server (LSP on stdin and stdout) checking an editor's open files as they are typed"
        )
        _common(server)
        server.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
        server.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
        _cache_options(server)

    if wanted("rules"):
        rules = commands.add_parser("rules", help="list the rules")
        _debug(rules)
    if wanted("rule"):
        rule = commands.add_parser("rule", help="print one rule's documentation")
        rule.add_argument("code", metavar="CODE_OR_NAME", help="a rule's code (SL001) or name (unnecessary-sort)")
        _debug(rule)
    return main


def _debug(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--debug", action="store_true",
        help=f"print the traceback of sortlint's own errors, and Java's log of a Spark command "
             f"(or set {DEBUG}=1)",
    )


def _common(command: argparse.ArgumentParser) -> None:
    command.add_argument("--config", type=Path, help="sortlint.yml or pyproject.toml to use")
    command.add_argument("--target", choices=["spark", "datafusion"], help="override the config's target")
    command.add_argument(
        "--var", action="append", default=[], metavar="NAME=VALUE",
        help="a dbt var for rendering models (wins over dbt_project.yml; repeatable)",
    )
    command.add_argument(
        "--incremental", action="store_true", help="render dbt models with is_incremental() true"
    )
    command.add_argument(
        "--dbt-renderer", choices=["auto", "dbt", "builtin"], default="auto",
        help="who renders dbt models: sortlint's built-in renderer (the default) or dbt itself "
        "(needs dbt-core; seconds per model); auto leaves the choice to $SORTLINT_DBT_RENDERER, "
        "then the configuration (dbt: renderer)",
    )
    _debug(command)


def _checking_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    command.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    command.add_argument(
        "--ignore-noop", action="store_true",
        help="leave out findings whose fix changes nothing Spark runs (config: ignore_noop)",
    )
    command.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (errors still exit 2)")
    command.add_argument(
        "--no-force-exclude", dest="force_exclude", action="store_false",
        help="check files named on the command line even when the config's exclude or .gitignore leaves them out",
    )
    command.add_argument(
        "--jobs", type=_positive("a positive number of processes"), default=0, metavar="N",
        help="processes analysing files (default: one per CPU); with --fix/--diff or one file, the runs of a file of many statements",
    )
    _cache_options(command)


def _cache_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--cache-dir", type=Path, metavar="DIR",
        help=f"where results are cached (default: ${ENVIRONMENT_VARIABLE}, else .sortlint_cache beside the configuration)",
    )
    command.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")


def _positive(what: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = -1
        if value < 1:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


def _spark(command: argparse.ArgumentParser) -> None:
    command.add_argument("--master", help="Spark master URL (local[*], yarn, k8s://..., spark://...)")
    command.add_argument(
        "--spark-conf", action="append", default=[], type=_conf, metavar="KEY=VALUE",
        help="a Spark setting (repeatable)",
    )
    command.add_argument("--app-name", default="sortlint", help="the Spark application's name")


def _conf(text: str) -> tuple[str, str]:
    from sortlint.integrations.spark.session import parse_conf

    try:
        return parse_conf(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return value


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def _checking(args, paths, config, on_file=None, changes=None, plans=False, fixing=False):
    """Check `paths`: the result, and its findings (with `changes`, those in changed
    statements); `plans` keeps every statement's plan in the result. An `on_file` that
    fixes (`fixing`) sees of each statement only what proves a fix, not its plan."""
    from sortlint.linter.results import Kept
    from sortlint.workspace.check import check

    jobs = getattr(args, "jobs", 1) or _available_cpus()
    force_exclude = getattr(args, "force_exclude", True)
    store = _store(args, config)
    sees = Kept.FACTS if fixing else Kept.PLANS
    from sortlint.report.progress import progress_line

    progress = progress_line(sys.stderr, os.environ)
    try:
        result = check(paths, config, on_file=on_file, jobs=jobs, force_exclude=force_exclude, plans=plans,
                       on_file_sees=sees, store=store, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    for path, reason in result.skipped:
        print(f"note: {path}: skipped: {reason}", file=sys.stderr)
    for problem in store.problems if store is not None else ():
        print(f"note: {problem}", file=sys.stderr)
    for kind, text in dict.fromkeys(remark for file in result.files for remark in file.remarks):
        print(f"{kind}: {text}", file=sys.stderr)
    if not result.files and not result.errors:
        _warn_nothing_matched(paths, result.config or config)
    if changes is None:
        return result, result.findings
    from sortlint.integrations.changed_findings import changed_findings

    return result, changed_findings(result.files, changes, result.config or config)


def _warn_nothing_matched(paths, config) -> None:
    """A check of no file passes, as ruff's does, but says so: a CI job whose paths or
    globs are wrong would otherwise pass unnoticed."""
    from sortlint.sources.registry import SUFFIXES

    kinds = ", ".join(SUFFIXES[:-1]) + f" and {SUFFIXES[-1]}"
    print(
        f"warning: no files checked: nothing in {', '.join(map(str, paths))} matched "
        f"(sortlint reads {kinds} files; include: {', '.join(config.include)})",
        file=sys.stderr,
    )


def _store(args, config):
    """The persistent cache the command reads and writes, or None (`--no-cache`)."""
    from sortlint.store import Store, cache_directory, disabled_by_environment

    given = getattr(args, "cache_dir", None)
    if getattr(args, "no_cache", False) or (given is None and disabled_by_environment()):
        return None
    return Store(cache_directory(given, config.root))


def run_clean(args) -> int:
    from sortlint.config import load_config
    from sortlint.store import cache_directory, clear

    directory = cache_directory(args.cache_dir, load_config(args.config, start_paths=[Path(".")]).root)
    if clear(directory):
        print(f"removed the cache {directory}")
    else:
        print(f"no cache at {directory}")
    return EXIT_CLEAN


def entry() -> int:
    """The console script: one run per process."""
    # stdout holds what was asked for: the command stops when it cannot be written. Notes
    # and errors are not worth stopping for when they cannot be said, only the exit code.
    sys.stdout, sys.stderr = _Output(sys.stdout, "stdout", fatal=True), _Output(sys.stderr, "stderr", fatal=False)
    errors = sys.stderr
    try:
        _quiet_collector()
        code = main()
        sys.stdout.flush()  # a reader that went away, or a full disk, is noticed here at the latest
        return EXIT_ERROR if errors.failed else code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _stop_writing_stdout()
        return EXIT_BROKEN_PIPE
    except UserError as error:  # the output could not be written
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR


class _Output:
    """A standard stream whose failure to take what is written (a full disk, a device
    error) is the user's, not a bug of sortlint's: a `fatal` stream's is a UserError (one
    line, exit code 2), another's is `failed` and what follows goes nowhere. A reader gone
    away stays a BrokenPipeError (exit code 141)."""

    def __init__(self, stream, name: str, fatal: bool) -> None:
        self._stream, self._name, self._fatal = stream, name, fatal
        self.failed = False

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def writelines(self, lines) -> None:
        self._guarded(self._stream.writelines, lines)

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    def _guarded(self, operation, *arguments):
        try:
            return operation(*arguments)
        except BrokenPipeError:
            raise
        except OSError as error:
            # What is still buffered would fail again at exit, as a traceback: it goes nowhere.
            _stop_writing(self._stream)
            self.failed = True
            if self._fatal:
                raise UserError(f"cannot write to {self._name}: {error.strerror or error}") from None
            return None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """One command. Its exit code says one thing: 0 clean, 1 findings (or changes `--diff`
    would make), 2 an error of any kind - usage, configuration, input, writing, sortlint's
    own - each said in one line; 130 interrupted, 141 when the output's reader went away."""
    given = sys.argv[1:] if argv is None else argv
    args = parser(given[0] if given and given[0] in COMMANDS else None).parse_args(given)
    _quiet_sqlglot()
    if args.command is None:
        parser().print_help()
        return EXIT_CLEAN
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("sortlint: interrupted (no file is left half-written)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _stop_writing_stdout()
        return EXIT_BROKEN_PIPE
    except UserError as error:
        _fail(args, error)
        return EXIT_ERROR
    except ModuleNotFoundError as error:
        command = f"sortlint {args.command}"
        _fail(args, missing_package(error, command) or InternalError.during(error, f"running `{command}`"))
        return EXIT_ERROR
    except Exception as error:  # sortlint's own bug outside any one file: said, not a traceback
        _fail(args, InternalError.during(error, f"running `sortlint {args.command}`"))
        return EXIT_ERROR


def _quiet_sqlglot() -> None:
    """sqlglot warns on stderr, in the middle of the report, when it reads a statement it
    does not know as a bare command (`MSCK REPAIR TABLE ...`). sortlint reads such a
    statement as opaque, which `sortlint coverage` counts: the warning says nothing more."""
    import logging

    logger = logging.getLogger("sqlglot")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _fail(args, error: UserError) -> None:
    """An error that ends the command: one line on stderr, and - for a JSON report - the
    report, so that its reader still gets valid JSON, holding the error."""
    errors = each_error(error)
    for one in errors:
        print(f"error: {one}", file=sys.stderr)
    _explain_internal_errors(args, errors)
    if getattr(args, "output_format", None) == "json" and not getattr(args, "statistics", False):
        from sortlint.report import json_format

        try:
            _emit(json_format.render([], errors), getattr(args, "output_file", None))
        except UserError:
            pass  # the report cannot be written either; stderr has said what went wrong


def _stop_writing_stdout() -> None:
    _stop_writing(sys.stdout)


def _stop_writing(stream) -> None:
    """Point the stream at /dev/null, so that flushing what is left at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError):
        pass


def _debugging(args) -> bool:
    return getattr(args, "debug", False) or os.environ.get(DEBUG) == "1"


def _explain_internal_errors(args, errors) -> None:
    """With --debug (or SORTLINT_DEBUG=1), the traceback of every internal error, for its
    report."""
    if not _debugging(args):
        return
    for error in errors:
        if isinstance(error, InternalError) and error.details:
            print(error.details, file=sys.stderr, end="")


def _quiet_collector() -> None:
    """A check keeps every file's plans until it reports, so the collector's full passes
    would scan them again and again for cycles that are rarely there: leave what was
    imported out of its reach and collect less often (about a fifth of a run's time)."""
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def _config(args, paths):
    from sortlint.config import load_config
    from sortlint.linter.rules import CODES

    config = load_config(args.config, start_paths=paths, rules=CODES)
    if getattr(args, "target", None):
        config = replace(config, target=args.target)
    if getattr(args, "select", None):
        config = replace(config, select=_codes(args.select, "--select"))
    if getattr(args, "ignore", None):
        config = replace(config, ignore=config.ignore + _codes(args.ignore, "--ignore"))
    if getattr(args, "ignore_noop", False):
        config = replace(config, ignore_noop=True)
    chosen = os.environ.get("SORTLINT_DBT_RENDERER", "").strip().lower()
    if chosen not in ("", "auto", "builtin", "dbt"):
        # Ignored, a misspelt `dbt` would render with the built-in renderer unnoticed.
        raise UserError(f"SORTLINT_DBT_RENDERER={os.environ['SORTLINT_DBT_RENDERER']!r}: expected builtin or dbt")
    if getattr(args, "var", None) or getattr(args, "incremental", False) or getattr(args, "dbt_renderer", "auto") != "auto":
        from sortlint.sources.dbt.project import parse_var

        options = replace(
            config.dbt,
            vars=tuple(parse_var(v) for v in args.var),
            incremental=args.incremental,
            renderer=args.dbt_renderer,
        )
        config = replace(config, dbt=options)
    return config


def _codes(text: str, option: str) -> tuple[str, ...]:
    """The rule codes or prefixes of a comma-separated option; each must select a rule."""
    from sortlint.config.settings import unknown_rule_code
    from sortlint.linter.rules import CODES

    codes = tuple(code.strip().upper() for code in text.split(",") if code.strip())
    for code in codes:
        problem = unknown_rule_code(code, CODES, f"in {option}")
        if problem is not None:
            raise UserError(problem)
    return codes


def run_check(args) -> int:
    stdin = _stdin_text(args)
    if stdin is not None:
        from sortlint.files import standing_in

        with standing_in({args.stdin_filename: stdin}):
            return _run_check(args, stdin)
    return _run_check(args)


def _stdin_text(args) -> bytes | None:
    """The text to check in place of `--stdin-filename`'s file (its path `-`), or None."""
    reads = [path for path in args.paths if str(path) == "-"]
    if not reads and args.stdin_filename is None:
        return None
    if args.stdin_filename is None:
        raise UserError("checking standard input (PATH -) needs --stdin-filename PATH: the file it stands for")
    if args.paths != [Path("-")] and args.paths != [Path(".")]:
        raise UserError("--stdin-filename checks standard input alone: give `-` as the only PATH")
    args.paths = [args.stdin_filename]
    return sys.stdin.buffer.read()


def _run_check(args, stdin: bytes | None = None) -> int:
    if args.output_format is None:  # full on a terminal; pipes and CI logs keep one line each
        to_terminal = args.output_file is None and sys.stdout.isatty() and stdin is None
        args.output_format = "full" if to_terminal else "concise"
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        raise UserError(
            f"--statistics counts the findings in place of the report, in text or json; a "
            f"{args.output_format} report has no place for the counts: drop one of the two"
        )
    config = _config(args, args.paths)
    fixing = args.fix or args.diff
    if args.diff_base and fixing:
        raise UserError("--diff-base limits the report to changed statements; --fix and --diff rewrite whole files: give them the files instead")
    changes = _changes(args.diff_base, args.paths) if args.diff_base else None
    outcomes = []

    def fix(analysis, tables, reanalyse):
        from sortlint.rewriters.apply import fix_file

        outcome = fix_file(analysis, tables, reanalyse, unsafe=args.unsafe_fixes)
        outcomes.append(outcome.reported())
        return outcome.final, outcome.tables

    result, findings = _checking(
        args, args.paths, config, on_file=fix if fixing else None, changes=changes, fixing=fixing
    )
    files = result.files
    if args.diff:
        _print_diff(outcomes, sys.stdout if args.output_format in TEXT_FORMATS else sys.stderr)
        files = [outcome.original for outcome in outcomes]  # what a check reports; the diff fixes it
    elif args.fix and stdin is not None:
        # ruff's convention: the text, fixed or as it came (a file not checked too: an editor
        # replaces its buffer with it), on stdout; the report on stderr
        from sortlint.files import BOM, decode_source

        fixed = [outcome.final.raw for outcome in outcomes]
        mark = BOM.decode("utf-8") if stdin.startswith(BOM) else ""  # as a fixed file keeps it
        sys.stdout.write(mark + (fixed[0] if fixed else decode_source(stdin, args.stdin_filename)))
        files = [outcome.final for outcome in outcomes]
    elif args.fix:
        from sortlint.rewriters.apply import write_fixes

        write_fixes(outcomes)
        files = [outcome.kept for outcome in outcomes]
    if fixing:
        findings = [finding for file in files for finding in file.findings]
    errors = result.errors + [error for file in files for error in file.errors]
    errors += [outcome.write_error for outcome in outcomes if outcome.write_error is not None]
    if config.contracts_report is not None:
        from sortlint.integrations.spark.contracts_report import annotate

        findings = annotate(findings, result.config or config)
    texts = {file.path: file.raw for file in files}
    report = _report(args, findings, errors, texts, len(files), outcomes, _docs(result.config or config))
    if args.fix and stdin is not None and args.output_file is None:
        sys.stderr.write(report)
    else:
        _emit(report, args.output_file)
    for error in errors:  # whatever the format holds, as ruff says them: on stderr
        print(f"error: {error}", file=sys.stderr)
    _explain_internal_errors(args, errors)
    if errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if args.diff:
        return EXIT_FINDINGS if any(o.changed for o in outcomes) else EXIT_CLEAN
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _changes(rev: str, paths):
    from sortlint.integrations.git_changes import changes_since

    return changes_since(rev, paths[0] if paths else Path("."))


def _docs(config) -> str:
    """The documentation site rule links point at: the configuration's mirror, or the
    project's."""
    from sortlint.report.rule_pages import HOME

    return config.docs_url or HOME


def _report(args, findings, errors, texts, files: int, outcomes, docs: str) -> str:
    """The report in the format asked for: its findings, and the errors as entries where the
    format has a place for them (the text report counts them)."""
    # Each format's module is imported when it is asked for (junit's pulls in xml.etree).
    form = args.output_format
    if args.statistics:
        from sortlint.report import statistics

        if form == "json":
            return statistics.render_json(findings, args.unsafe_fixes)
        return statistics.render_text(findings, args.unsafe_fixes)
    if form == "json":
        from sortlint.report import json_format

        return json_format.render(findings, errors)
    if form == "github":
        from sortlint.report import github

        return github.render(findings, errors)
    if form == "sarif":
        from sortlint.report import sarif

        return sarif.render(findings, errors, texts, docs)
    if form == "gitlab":
        from sortlint.report import gitlab

        return gitlab.render(findings, texts)
    if form == "rdjson":
        from sortlint.report import rdjson

        return rdjson.render(findings, texts, docs)
    if form == "junit":
        from sortlint.report import junit

        return junit.render(findings, errors, files)
    from sortlint.report import text
    from sortlint.report.colors import Palette, wants_color

    fixing = args.fix or args.diff
    shown = texts if args.show_fixes and not fixing else None
    sources = texts if form == "full" else None
    terminal = args.output_file is None and sys.stdout.isatty()
    palette = Palette(wants_color(args.color, terminal, os.environ))
    report = text.render(findings, errors, files, args.unsafe_fixes, shown, sources, palette)
    if fixing:
        fixed = [f for o in outcomes if o.write_error is None for f in o.fixed]
        dropped = [(f, reason) for o in outcomes for f, reason in o.dropped]
        if args.show_fixes:
            report += text.render_fixed(fixed)
        remaining = sum(len(o.kept.findings) for o in outcomes)  # with --diff: after the changes
        report += text.render_fixes(len(fixed), dropped, remaining, args.diff)
    return report


def _emit(report: str, output_file: Path | None) -> None:
    if output_file is None:
        sys.stdout.write(report)
        return
    from sortlint.files import write_output

    try:
        if not output_file.parent.exists():  # as ruff does: CI names a report's folder before it is made
            output_file.parent.mkdir(parents=True, exist_ok=True)
        write_output(output_file, report)
    except OSError as error:
        raise UserError(f"cannot write the report: {error.strerror}", output_file) from None


def run_review(args) -> int:
    from sortlint.integrations import github_review, gitlab_review
    from sortlint.integrations.review import review_findings

    platform = gitlab_review if args.gitlab else github_review
    describe = gitlab_review.merge_request if args.gitlab else github_review.pull_request
    target = describe(os.environ, args.repository, args.pr, args.base, args.api_url, args.dry_run)
    notify = lambda message: print(message, file=sys.stderr)  # noqa: E731
    client = None if args.dry_run else platform.client(target, os.environ, notify)  # a missing token fails first
    changes = _changes(target.base, args.paths)
    config = _config(args, args.paths)
    result, findings = _checking(args, args.paths, config, changes=changes)
    errors = result.all_errors
    texts = {file.path: file.raw for file in result.files}
    reviewed = review_findings(findings, result.findings, texts, changes, _docs(result.config or config))
    if args.dry_run:
        print(json.dumps(platform.dry_run(target, reviewed, changes, errors), indent=2, ensure_ascii=False))
    else:
        print(platform.run(target, reviewed, changes, errors, client))
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    _explain_internal_errors(args, errors)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if reviewed and not args.exit_zero else EXIT_CLEAN


def _print_diff(outcomes, out) -> None:
    import difflib

    for outcome in outcomes:
        if outcome.changed:
            path = outcome.original.path
            out.writelines(
                difflib.unified_diff(
                    outcome.original.raw.splitlines(keepends=True),
                    outcome.final.raw.splitlines(keepends=True),
                    fromfile=f"a/{path}",
                    tofile=f"b/{path}",
                )
            )


def run_coverage(args) -> int:
    from sortlint.report import coverage

    if args.compare_renderers:
        return _compare_renderers(args)
    config = _config(args, args.paths)
    report = coverage.Coverage()

    def count(analysis, tables, reanalyse):  # each file's plans, counted and let go
        report.add(analysis)
        return analysis, tables

    result, findings = _checking(args, args.paths, config, on_file=count)
    report.close(len(result.files), findings, result.all_errors)
    render = coverage.render_json if args.output_format == "json" else coverage.render_text
    print(render(report), end="")
    return EXIT_CLEAN


def _compare_renderers(args) -> int:
    """Exit 0 when dbt and the built-in renderer agree on every model, 1 when one differs
    (as a check with findings: something to look at), 2 when a project cannot be compared."""
    from sortlint.integrations import dbt_renderers

    dbt_renderers.require_dbt()
    config = _config(args, args.paths)
    found = dbt_renderers.compare_renderers(args.paths, config, args.jobs)
    render = dbt_renderers.render_json if args.output_format == "json" else dbt_renderers.render_text
    print(render(found), end="")
    for error in found.errors:
        print(f"error: {error}", file=sys.stderr)
    if found.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if found.differences else EXIT_CLEAN


def run_explain(args) -> int:
    from sortlint.linter.lint import analyse_statement
    from sortlint.report.explain import render_statement

    config = _config(args, [args.file])
    result, _ = _checking(args, [args.file], config, plans=True)
    config = result.config or config  # with the dbt project's declarations
    blocks = []
    for file in result.files:
        for statement in file.statements:
            unit = statement.unit
            analysis = analyse_statement(unit, statement.root, config)
            findings = [f for f in file.findings if _within(f, unit)]
            title = f"{unit.path}:{unit.location(0)[0]}: statement (target: {config.target})"
            locate = lambda span, unit=unit: unit.location(span.start)
            blocks.append(render_statement(title, statement.root, analysis, findings, locate))
    print("\n\n".join(blocks))
    for error in result.all_errors:
        print(f"error: {error}", file=sys.stderr)
    _explain_internal_errors(args, result.all_errors)
    return EXIT_ERROR if result.all_errors else EXIT_CLEAN


def _within(finding, unit) -> bool:
    first = unit.location(0)[0]
    last = unit.location(len(unit.text))[0]
    return first <= finding.line <= last


def run_rules(args) -> int:
    from sortlint.linter.rules import rules

    width = max(len(rule.name) for rule in rules())
    for rule in rules():
        print(f"{rule.code}  {rule.name:<{width}}  {rule.summary}")
    return EXIT_CLEAN


def run_rule(args) -> int:
    from sortlint.linter.rules import rule

    found = rule(args.code)
    if found is None:
        raise UserError(f"unknown rule {args.code!r}; `sortlint rules` lists them")
    from sortlint.report.rule_pages import rule_url

    print(found.doc.strip())
    print(f"\n{rule_url(found.name)}")
    return EXIT_CLEAN


def _session(args):
    from sortlint.integrations.spark.session import SparkOptions, spark_session

    return spark_session(SparkOptions(args.master, tuple(args.spark_conf), args.app_name,
                                      java_output=_debugging(args)))


def run_catalog(args) -> int:
    from sortlint.integrations.spark import catalog_import

    if args.merge is not None:
        from sortlint.config import load_config

        load_config(args.merge)  # a configuration sortlint cannot read is not merged into
    spark = _session(args)
    descriptions = []
    for name in catalog_import.table_names(spark, args.tables, args.database):
        description = catalog_import.describe_table(spark, name)
        if description is None:
            raise UserError(f"table {name} is not in Spark's catalog")
        descriptions.append(description)
    if args.merge is None:
        sys.stdout.write(catalog_import.render(descriptions))
        return EXIT_CLEAN
    merge = catalog_import.merge_into(args.merge, descriptions)
    for conflict in merge.conflicts:
        print(f"conflict: {conflict}")
    print(
        f"Merged {len(descriptions)} table{'s' if len(descriptions) != 1 else ''} into {args.merge}: "
        f"{len(merge.added_tables)} added, {len(merge.added)} declarations added, "
        f"{len(merge.conflicts)} conflict{'s' if len(merge.conflicts) != 1 else ''}."
    )
    return EXIT_FINDINGS if merge.conflicts else EXIT_CLEAN


def run_contracts(args) -> int:
    import json

    from sortlint.integrations.spark import contracts, contracts_report

    config = contracts.with_dbt_declarations(_config(args, []))
    sources = contracts.selected_sources(config, args.table)
    spark = _session(args)
    progress = _progress if sys.stderr.isatty() else None
    results = contracts.check_contracts(spark, sources, args.sample, progress)
    if args.write_report is not None:
        contracts_report.write_report(args.write_report, spark, results, args.sample)
    outcomes = [outcome for result in results for outcome in result.outcomes]
    if args.output_format == "json":
        sys.stdout.write(json.dumps([o.as_json() for o in outcomes], indent=2, default=str) + "\n")
    else:
        sys.stdout.write(contracts.render_text(results))
    return EXIT_FINDINGS if any(o.status == "violated" for o in outcomes) else EXIT_CLEAN


def _progress(index: int, total: int, source) -> None:
    print(f"[{index}/{total}] checking {source.name} ...", file=sys.stderr, flush=True)


def run_verify(args) -> int:
    import json

    from sortlint.integrations.spark import verify

    config = _config(args, args.paths)
    outcomes = []

    def fix(analysis, tables, reanalyse):
        from sortlint.rewriters.apply import fix_file

        outcome = fix_file(analysis, tables, reanalyse, unsafe=args.unsafe_fixes)
        outcomes.append(outcome)
        return outcome.final, outcome.tables

    result, _ = _checking(args, args.paths, config, on_file=fix, fixing=True)
    config = result.config or config
    for error in result.all_errors:
        print(f"error: {error}", file=sys.stderr)
    found = verify.changes(outcomes)
    results = verify.verify_changes(_session(args), found, config, args.sample) if found else []
    if args.output_format == "json":
        sys.stdout.write(json.dumps([r.as_json() for r in results], indent=2) + "\n")
    else:
        sys.stdout.write(verify.render_text(results, args.unsafe_fixes))
    if any(r.verdict == "different" for r in results):
        return EXIT_FINDINGS
    return EXIT_ERROR if result.all_errors else EXIT_CLEAN


def run_server(args) -> int:
    from sortlint.integrations.lsp.checking import Settings
    from sortlint.integrations.lsp.server import serve

    for option, codes in (("--select", args.select), ("--ignore", args.ignore)):
        if codes:
            _codes(codes, option)  # a mistyped code stops the server before it starts
    # The server works from the workspace's root once the editor names it: paths given here
    # are relative to where it was started.
    args.config = args.config.resolve() if args.config is not None else None
    args.cache_dir = args.cache_dir.resolve() if args.cache_dir is not None else None
    settings = Settings(
        configure=lambda paths: _config(args, paths),
        store_for=lambda config: _store(args, config),
        config_path=args.config,
    )
    serve(settings)
    return EXIT_CLEAN


COMMANDS = {
    "check": run_check,
    "review": run_review,
    "coverage": run_coverage,
    "explain": run_explain,
    "catalog": run_catalog,
    "contracts": run_contracts,
    "verify": run_verify,
    "clean": run_clean,
    "server": run_server,
    "rules": run_rules,
    "rule": run_rule,
}
