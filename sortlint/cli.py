"""The `sortlint` command line."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from dataclasses import replace
from pathlib import Path

from sortlint import __version__
from sortlint.errors import InternalError, UserError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="sortlint",
        description="Ordering-aware linter and rewriter for Spark data pipelines.",
    )
    main.add_argument("--version", action="version", version=f"sortlint {__version__}")
    commands = main.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="lint files; exit 1 on findings, 2 on errors")
    check.add_argument("paths", nargs="*", type=Path, default=[Path(".")], metavar="PATH")
    _common(check)
    check.add_argument("--output-format", choices=["text", "json"], default="text")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, proved before writing")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: also unsafe fixes")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, write nothing")
    check.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    check.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    check.add_argument(
        "--jobs", type=_jobs, default=0, metavar="N",
        help="processes analysing files (default: one per CPU; without --fix/--diff)",
    )

    explain = commands.add_parser("explain", help="print each statement's plan and properties")
    explain.add_argument("file", type=Path)
    _common(explain)

    commands.add_parser("rules", help="list the rules")
    rule = commands.add_parser("rule", help="print one rule's documentation")
    rule.add_argument("code")
    return main


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


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of processes, got {text!r}")
    return value


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def _checking(args, paths, config, on_file=None):
    from sortlint.workspace.check import check

    jobs = getattr(args, "jobs", 1) or _available_cpus()
    return check(paths, config, on_file=on_file, jobs=jobs)


def entry() -> int:
    """The console script: one run per process."""
    _quiet_collector()
    return main()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command is None:
        parser().print_help()
        return EXIT_CLEAN
    try:
        return COMMANDS[args.command](args)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # sortlint's own bug outside any one file: said, not a traceback
        failure = InternalError.during(error, f"running `sortlint {args.command}`")
        print(f"error: {failure}", file=sys.stderr)
        _explain_internal_errors([failure])
        return EXIT_ERROR


def _explain_internal_errors(errors) -> None:
    """With SORTLINT_DEBUG=1, the traceback of every internal error, for its report."""
    if os.environ.get("SORTLINT_DEBUG") != "1":
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
    from sortlint.config import DbtOptions, load_config

    config = load_config(args.config, start_paths=paths)
    if args.target:
        config = replace(config, target=args.target)
    if getattr(args, "select", None):
        config = replace(config, select=_codes(args.select))
    if getattr(args, "ignore", None):
        config = replace(config, ignore=config.ignore + _codes(args.ignore))
    if args.var or args.incremental:
        from sortlint.sources.dbt.project import parse_var

        options = DbtOptions(vars=tuple(parse_var(v) for v in args.var), incremental=args.incremental)
        config = replace(config, dbt=options)
    return config


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


def run_check(args) -> int:
    from sortlint.report import json_format, text

    config = _config(args, args.paths)
    fixing = args.fix or args.diff
    outcomes = []

    def fix(analysis, tables, reanalyse):
        from sortlint.rewriters.apply import fix_file

        outcome = fix_file(analysis, tables, reanalyse, unsafe=args.unsafe_fixes)
        outcomes.append(outcome)
        return outcome.final, outcome.tables

    result = _checking(args, args.paths, config, on_file=fix if fixing else None)
    if fixing:
        _write_or_diff(outcomes, args.diff)
    findings, errors = result.findings, result.all_errors
    if args.output_format == "json":
        sys.stdout.write(json_format.render(findings))
        for error in errors:
            print(f"error: {error}", file=sys.stderr)
    else:
        fixed = sum(len(o.fixed) for o in outcomes)
        dropped = [(f, reason) for o in outcomes for f, reason in o.dropped]
        report = text.render(findings, errors, len(result.files), args.unsafe_fixes)
        if fixing:
            report += text.render_fixes(fixed, dropped, len(findings), args.diff)
        sys.stdout.write(report)
    _explain_internal_errors(errors)
    if errors:
        return EXIT_ERROR
    if args.diff:
        return EXIT_FINDINGS if any(o.changed for o in outcomes) else EXIT_CLEAN
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _write_or_diff(outcomes, diff: bool) -> None:
    import difflib

    from sortlint.rewriters.apply import write_atomically

    for outcome in outcomes:
        if not outcome.changed:
            continue
        path = outcome.original.path
        if diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    outcome.original.raw.splitlines(keepends=True),
                    outcome.final.raw.splitlines(keepends=True),
                    fromfile=f"a/{path}",
                    tofile=f"b/{path}",
                )
            )
        else:
            write_atomically(path, outcome.final.raw)


def run_explain(args) -> int:
    from sortlint.linter.lint import analyse_statement
    from sortlint.report.explain import render_statement

    config = _config(args, [args.file])
    result = _checking(args, [args.file], config)
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
    _explain_internal_errors(result.all_errors)
    return EXIT_ERROR if result.all_errors else EXIT_CLEAN


def _within(finding, unit) -> bool:
    first = unit.location(0)[0]
    last = unit.location(len(unit.text))[0]
    return first <= finding.line <= last


def run_rules(args) -> int:
    from sortlint.linter.rules import RULES

    width = max(len(rule.name) for rule in RULES)
    for rule in RULES:
        print(f"{rule.code}  {rule.name:<{width}}  {rule.summary}")
    return EXIT_CLEAN


def run_rule(args) -> int:
    from sortlint.linter.rules import rule

    found = rule(args.code)
    if found is None:
        raise UserError(f"unknown rule {args.code!r}; `sortlint rules` lists them")
    print(found.doc.strip())
    return EXIT_CLEAN


COMMANDS = {"check": run_check, "explain": run_explain, "rules": run_rules, "rule": run_rule}
