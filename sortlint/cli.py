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
from sortlint.errors import InternalError, UserError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
OUTPUT_FORMATS = ("text", "json", "github", "sarif", "gitlab", "rdjson", "junit")


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
    _checking_options(check)
    check.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    check.add_argument("--output-file", type=Path, metavar="FILE", help="write the report to FILE, not stdout")
    check.add_argument("--statistics", action="store_true", help="count the findings per rule instead of listing them")
    check.add_argument("--show-fixes", action="store_true", help="show each fix under its finding (with --fix: list what was fixed)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, proved before writing")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: also unsafe fixes")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, write nothing")
    check.add_argument(
        "--diff-base", metavar="REV",
        help="report only findings in statements changed since the merge base of REV and HEAD (work tree included)",
    )

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
    command.add_argument(
        "--dbt-renderer", choices=["auto", "dbt", "builtin"], default="auto",
        help="who renders dbt models: dbt itself when dbt-core is installed (auto, the "
        "default), dbt, or sortlint's built-in renderer",
    )


def _checking_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    command.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    command.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (errors still exit 2)")
    command.add_argument(
        "--jobs", type=_positive("a positive number of processes"), default=0, metavar="N",
        help="processes analysing files (default: one per CPU; without --fix/--diff)",
    )


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


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def _checking(args, paths, config, on_file=None, changes=None):
    """Check `paths`: the result, and its findings (with `changes`, those in changed
    statements)."""
    from sortlint.workspace.check import check

    jobs = getattr(args, "jobs", 1) or _available_cpus()
    result = check(paths, config, on_file=on_file, jobs=jobs)
    if changes is None:
        return result, result.findings
    from sortlint.integrations.changed_findings import changed_findings

    return result, changed_findings(result.files, changes, result.config or config)


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
    if args.var or args.incremental or args.dbt_renderer != "auto":
        from sortlint.sources.dbt.project import parse_var

        options = DbtOptions(
            vars=tuple(parse_var(v) for v in args.var),
            incremental=args.incremental,
            renderer=args.dbt_renderer,
        )
        config = replace(config, dbt=options)
    return config


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


def run_check(args) -> int:
    config = _config(args, args.paths)
    fixing = args.fix or args.diff
    if args.diff_base and fixing:
        raise UserError("--diff-base limits the report to changed statements; --fix and --diff rewrite whole files: give them the files instead")
    changes = _changes(args.diff_base, args.paths) if args.diff_base else None
    outcomes = []

    def fix(analysis, tables, reanalyse):
        from sortlint.rewriters.apply import fix_file

        outcome = fix_file(analysis, tables, reanalyse, unsafe=args.unsafe_fixes)
        outcomes.append(outcome)
        return outcome.final, outcome.tables

    result, findings = _checking(args, args.paths, config, on_file=fix if fixing else None, changes=changes)
    if fixing:
        _write_or_diff(outcomes, args.diff)
    errors = result.all_errors
    texts = {file.path: file.raw for file in result.files}
    report, errors_in_report = _report(args, findings, errors, texts, len(result.files), outcomes)
    _emit(report, args.output_file)
    if not errors_in_report:
        for error in errors:
            print(f"error: {error}", file=sys.stderr)
    _explain_internal_errors(errors)
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


def _report(args, findings, errors, texts, files: int, outcomes) -> tuple[str, bool]:
    """The report in the format asked for, and whether it shows the errors itself."""
    from sortlint.report import github, gitlab, json_format, junit, rdjson, sarif, statistics, text

    form = args.output_format
    if args.statistics:
        if form == "json":
            return statistics.render_json(findings), False
        return statistics.render_text(findings), False
    if form == "json":
        return json_format.render(findings), False
    if form == "github":
        return github.render(findings, errors), True
    if form == "sarif":
        return sarif.render(findings, errors, texts), True
    if form == "gitlab":
        return gitlab.render(findings, texts), False
    if form == "rdjson":
        return rdjson.render(findings, texts), False
    if form == "junit":
        return junit.render(findings, errors, files), True
    fixing = args.fix or args.diff
    shown = texts if args.show_fixes and not fixing else None
    report = text.render(findings, errors, files, args.unsafe_fixes, shown)
    if fixing:
        fixed = [f for o in outcomes for f in o.fixed]
        dropped = [(f, reason) for o in outcomes for f, reason in o.dropped]
        if args.show_fixes:
            report += text.render_fixed(fixed)
        report += text.render_fixes(len(fixed), dropped, len(findings), args.diff)
    return report, True


def _emit(report: str, output_file: Path | None) -> None:
    if output_file is None:
        sys.stdout.write(report)
        return
    from sortlint.rewriters.apply import write_atomically

    try:
        write_atomically(output_file, report)
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
    reviewed = review_findings(findings, result.findings, texts, changes)
    if args.dry_run:
        print(json.dumps(platform.dry_run(target, reviewed, changes, errors), indent=2, ensure_ascii=False))
    else:
        print(platform.run(target, reviewed, changes, errors, client))
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if reviewed and not args.exit_zero else EXIT_CLEAN


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
    result, _ = _checking(args, [args.file], config)
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


COMMANDS = {
    "check": run_check, "review": run_review, "explain": run_explain, "rules": run_rules, "rule": run_rule,
}
