"""`sortlint review` against a GitHub on 127.0.0.1, from a real pull-request repository:
exact requests, a re-run that does not repeat itself, gone findings edited, refused lines
moved into the summary, and failures as one line with exit code 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from api_server import Answer, FakeApi
from git_repos import commit, pull_files, pull_request_repo, write

from sortlint.cli import main

REPOSITORY = "acme/warehouse"
NUMBER = 7
DECLARED = "declared constant time = '2024-01-01 00:00:00' of telemetry.events (sortlint.yml:4)"
UNSAFE = "It rests on a declaration the engine does not enforce (named above): apply it only while the table really is stored that way."
PAGE = "https://sortlint.readthedocs.io/en/latest/rules/{}/"


@pytest.fixture
def pull_request(tmp_path, monkeypatch):
    """The pull-request repository (the head checked out), a GitHub that has the pull
    request, and the environment GitHub Actions gives a `pull_request` workflow."""
    repo, base, head = pull_request_repo(tmp_path / "warehouse")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "pull_request": {"number": NUMBER, "base": {"sha": base}, "head": {"sha": head}}}))
    with FakeApi() as api:
        api.add_pull(REPOSITORY, NUMBER, head, pull_files(repo, base, head))
        monkeypatch.chdir(repo.working_tree_dir)
        for name in ("GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_API_URL", "GITHUB_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("GITHUB_TOKEN", api.token)
        monkeypatch.setenv("GITHUB_REPOSITORY", REPOSITORY)
        monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
        monkeypatch.setenv("GITHUB_API_URL", api.url)
        yield repo, api, head
    repo.close()


def comment(path: str, line: int, body: str, start: int | None = None) -> dict:
    placed: dict = {"path": path}
    if start is not None:
        placed |= {"start_line": start, "start_side": "RIGHT"}
    return placed | {"line": line, "side": "RIGHT", "body": body}


def rule(code: str, name: str) -> str:
    return f"**[{code} {name}]({PAGE.format(name)})**"


def marker(fingerprint: str) -> str:
    return f"<!-- sortlint:finding {fingerprint} -->"


MODEL_SORT = (
    f"{rule('SL003', 'redundant-sort-keys')}: sort key time is constant: {DECLARED} (basis: declared)\n\n"
    f"Fix, **unsafe**: drop the sort key time. {UNSAFE}\n\n"
    "```suggestion\norder by host\n```\n\n" + marker("2885bf502cafc429b910141225a7580c")
)
JOB_SORT = (
    f'{rule("SL003", "redundant-sort-keys")}: sort key "time" is constant: {DECLARED} (basis: declared)\n\n'
    f'Fix, **unsafe**: drop the sort key "time". {UNSAFE}\n\n'
    '```suggestion\n    slow = events.filter(F.col("latency_ms") > 500).orderBy("host")\n```\n\n'
    + marker("913098893740dd59933b8e5147989c8e")
)
RENAMED_SORT = (
    f"{rule('SL003', 'redundant-sort-keys')}: sort key level is constant: WHERE events.level = 'FATAL' (line 3) "
    "(basis: query)\n\n"
    "Fix: drop the sort key level.\n\n"
    "```suggestion\nORDER BY host;\n```\n\n" + marker("636dd2b0d1ff905dc97329c64c2ebe7c")
)
# Both keys of the view's GROUP BY are constant: no fix (an aggregate keeps one key, so
# that it returns no row when no row comes).
VIEW_GROUP_KEY = (
    f"{rule('SL103', 'redundant-group-keys')}: group key host is constant: WHERE events.host = "
    "'api-1.example.com' (sql/api_views.sql:5) (code outside this statement, which may change) (basis: upstream)\n\n"
    + marker("badf6e16cdbae70be82196e35d4f0848")
)
VIEW_GROUP_TIME = (
    f"{rule('SL103', 'redundant-group-keys')}: group key time is constant: {DECLARED} (basis: declared)\n\n"
    + marker("67b1e248c3c6e104b44f93b897e54ee2")
)
REPORT_GROUP_KEY = (
    f"{rule('SL103', 'redundant-group-keys')}: group key level is constant: WHERE events.level = 'WARN' (line 3) "
    "(basis: query)\n\n"
    "Fix: drop the group key level.\n\n"
    "```suggestion\nSELECT host, 'WARN' AS level, count(*) AS events\nFROM telemetry.events\nWHERE level = 'WARN'\n"
    "GROUP BY host\n```\n\n" + marker("ed54001510752c4ca26abce46a77f130")
)
REPORT_SORT = (
    f"{rule('SL003', 'redundant-sort-keys')}: sort key level is constant: WHERE events.level = 'WARN' (line 3) "
    "(basis: query)\n\n"
    "Fix: drop the sort key level.\n\n"
    "```suggestion\nORDER BY host;\n```\n\n" + marker("e6ab82bcdf60c0c89b42257efa45a34b")
)
COMMENTS = [
    comment("dbt/models/host_events.sql", 4, MODEL_SORT),
    comment("jobs/latency_job.py", 7, JOB_SORT),
    comment("sql/errors.sql", 4, RENAMED_SORT),
    comment("sql/latency.sql", 15, VIEW_GROUP_KEY),
    comment("sql/latency.sql", 15, VIEW_GROUP_TIME),
    comment("sql/new_report.sql", 4, REPORT_GROUP_KEY, start=1),
    comment("sql/new_report.sql", 5, REPORT_SORT),
]
FAR_SORT = (
    f"- `sql/latency.sql:9` **SL003 redundant-sort-keys**: sort key time is constant: {DECLARED} "
    + marker("6dd936300a388d09d77f4433e8274894")
)


def summary(outside: list[str], counts=((5, 5), (3, 1)), fixes: str | None = None) -> str:
    rows = [("SL003", "redundant-sort-keys"), ("SL103", "redundant-group-keys")]
    total = sum(count for count, _ in counts)
    lines = [
        "<!-- sortlint:summary -->",
        f"**sortlint** found {total} findings in the statements this change touches.",
        "",
        "| Rule | Findings | With a fix |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| [{c} {n}]({PAGE.format(n)}) | {count} | {fixed} |" for (c, n), (count, fixed) in zip(rows, counts) if count]
    lines += [
        "",
        fixes
        or "6 have a fix: apply the suggestions, or run `sortlint check --fix dbt/models/host_events.sql "
        "jobs/latency_job.py sql/errors.sql sql/latency.sql sql/new_report.sql` locally (add `--unsafe-fixes` for "
        "the 3 that rest on a declaration the engine does not enforce).",
    ]
    if outside:
        lines += ["", "Not on a line of the diff GitHub shows:", *outside]
    return "\n".join(lines)


def reads() -> list[tuple[str, str, str | None]]:
    """The requests that read the pull request (two items a page)."""
    pull = f"/repos/{REPOSITORY}/pulls/{NUMBER}"
    return [
        ("GET", f"{pull}/files", None), ("GET", f"{pull}/files", "2"), ("GET", f"{pull}/files", "3"),
    ]


def test_one_review_with_a_comment_per_finding_on_the_diffs_lines(pull_request, capsys):
    repo, api, head = pull_request
    assert main(["review"]) == 1
    assert capsys.readouterr().out == f"GitHub pull request #{NUMBER}: posted a review with 7 comments and 1 finding in its summary.\n"
    pull = f"/repos/{REPOSITORY}/pulls/{NUMBER}"
    assert [(r.method, r.path, r.query.get("page")) for r in api.requests] == reads() + [
        ("GET", f"{pull}/comments", None), ("GET", f"{pull}/reviews", None), ("POST", f"{pull}/reviews", None),
    ]
    [post] = api.made("POST")
    assert post.body == {"commit_id": head, "event": "COMMENT", "body": summary([FAR_SORT]), "comments": COMMENTS}
    assert post.headers["accept"] == "application/vnd.github+json"
    assert post.headers["x-github-api-version"] == "2022-11-28"


def test_a_rerun_does_not_repeat_itself(pull_request, capsys):
    repo, api, head = pull_request
    assert main(["review"]) == 1
    capsys.readouterr()
    assert main(["review"]) == 1
    assert capsys.readouterr().out == f"GitHub pull request #{NUMBER}: nothing new to post.\n"
    assert len(api.made("POST")) == 1
    # It read every page of the comments its first run made (two a page).
    assert [r.query.get("page") for r in api.made("GET") if r.path.endswith("/comments")][-4:] == [None, "2", "3", "4"]


def test_a_rerun_after_a_push_posts_only_new_findings_and_marks_gone_ones(pull_request, capsys):
    repo, api, head = pull_request
    assert main(["review"]) == 1
    root = Path(repo.working_tree_dir)
    # The author takes the job's suggestion and adds a sort elsewhere.
    job = (root / "jobs/latency_job.py").read_text().replace('.orderBy("host", "time")', '.orderBy("host")')
    write(root, {"jobs/latency_job.py": job, "sql/api_views.sql": (root / "sql/api_views.sql").read_text() + "\nSELECT host FROM telemetry.events ORDER BY time, host;\n"})
    pushed = commit(repo, "review fixes")
    base = repo.commit("main").hexsha
    api.add_pull(REPOSITORY, NUMBER, pushed, pull_files(repo, base, pushed))
    event_file = Path(os.environ["GITHUB_EVENT_PATH"])
    event = json.loads(event_file.read_text())
    event["pull_request"]["head"]["sha"] = pushed
    event_file.write_text(json.dumps(event))
    capsys.readouterr()

    assert main(["review"]) == 1
    assert capsys.readouterr().out == (
        f"GitHub pull request #{NUMBER}: posted a review with 1 comment and 0 findings in its summary; "
        "marked 1 earlier comment resolved.\n"
    )
    new_sort = (
        f"{rule('SL003', 'redundant-sort-keys')}: sort key time is constant: {DECLARED} (basis: declared)\n\n"
        f"Fix, **unsafe**: drop the sort key time. {UNSAFE}\n\n"
        "```suggestion\nSELECT host FROM telemetry.events ORDER BY host;\n```\n\n" + marker("0accb0669055b5ac8251e962cc41fe7a")
    )
    second = api.made("POST")[1].body
    assert second["commit_id"] == pushed
    assert [(c["path"], c["line"]) for c in second["comments"]] == [("sql/api_views.sql", 7)]
    assert second["comments"][0]["body"] == new_sort
    # The summary counts every finding, and lists no finding an earlier summary listed.
    assert second["body"] == summary(
        [], counts=((5, 5), (3, 1)),
        fixes="6 have a fix: apply the suggestions, or run `sortlint check --fix dbt/models/host_events.sql "
        "sql/api_views.sql sql/errors.sql sql/latency.sql sql/new_report.sql` locally (add `--unsafe-fixes` for "
        "the 3 that rest on a declaration the engine does not enforce).",
    )
    [patch] = api.made("PATCH")
    job_comment = next(c for c in api.comments if c["path"] == "jobs/latency_job.py")
    assert patch.path == f"/repos/{REPOSITORY}/pulls/comments/{job_comment['id']}"
    assert patch.body == {
        "body": f"Resolved: sortlint no longer reports this as of {pushed[:12]}.\n\n"
        f'~~{rule("SL003", "redundant-sort-keys")}: sort key "time" is constant: {DECLARED} (basis: declared)~~\n\n'
        "<!-- sortlint:finding 913098893740dd59933b8e5147989c8e resolved -->"
    }
    # A third run has nothing to say: the resolved comment stays resolved.
    assert main(["review"]) == 1
    assert capsys.readouterr().out == f"GitHub pull request #{NUMBER}: nothing new to post.\n"
    assert len(api.made("PATCH")) == 1


def test_comments_github_refuses_go_into_the_summary(pull_request, capsys):
    repo, api, head = pull_request
    api.refused_lines = {("sql/errors.sql", 4)}  # GitHub's diff moved on, say
    assert main(["review"]) == 1
    first, second = api.made("POST")
    assert first.body["comments"] == COMMENTS
    assert second.body["comments"] == []
    listed = [line for line in second.body["body"].split("\n") if line.startswith("- `")]
    assert [line.split("`")[1] for line in listed] == [
        "dbt/models/host_events.sql:4", "jobs/latency_job.py:7", "sql/errors.sql:4", "sql/latency.sql:9",
        "sql/latency.sql:15", "sql/latency.sql:15", "sql/new_report.sql:4", "sql/new_report.sql:5",
    ]
    assert capsys.readouterr().out == (
        f"GitHub pull request #{NUMBER}: GitHub: POST /repos/{REPOSITORY}/pulls/{NUMBER}/reviews was refused "
        "(422: Unprocessable Entity; Line could not be resolved), so every finding went into the summary; "
        "posted a review with 0 comments and 8 findings in its summary.\n"
    )
    assert listed[0] == (
        f"- `dbt/models/host_events.sql:4` **SL003 redundant-sort-keys**: sort key time is constant: {DECLARED} "
        + marker("2885bf502cafc429b910141225a7580c")
    )


def test_a_rate_limit_is_waited_out(pull_request, capsys):
    repo, api, head = pull_request
    api.answer_next(Answer(403, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit."}))
    assert main(["review"]) == 1
    out = capsys.readouterr()
    assert out.err == f"GitHub: rate limited on GET /repos/{REPOSITORY}/pulls/{NUMBER}/files; retrying in 1 s\n"
    assert len(api.made("POST")) == 1


def test_a_wrong_token_is_one_line_and_exit_2(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not-the-token")
    assert main(["review"]) == 2
    out = capsys.readouterr()
    assert out.err == (
        f"error: GitHub: GET /repos/{REPOSITORY}/pulls/{NUMBER}/files was refused (401 unauthorized: Bad "
        "credentials): check the token in GITHUB_TOKEN\n"
    )
    assert "ghp_not-the-token" not in out.out + out.err


def test_an_unknown_pull_request(pull_request, capsys):
    repo, api, head = pull_request
    assert main(["review", "--pr", "8"]) == 2
    assert capsys.readouterr().err == (
        f"error: GitHub: GET /repos/{REPOSITORY}/pulls/8/files was not found (404: Not Found): check the "
        "repository and number, and that the token can see them\n"
    )


def test_github_out_of_reach(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # discard: nothing listens
    assert main(["review"]) == 2
    assert capsys.readouterr().err.startswith("error: GitHub: cannot reach http://127.0.0.1:9 (")


def test_the_command_line_wins_over_the_environment(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/else")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    assert main(["review", "--repository", REPOSITORY, "--pr", str(NUMBER), "--base", "main", "--api-url", api.url]) == 1
    [post] = api.made("POST")
    assert post.path == f"/repos/{REPOSITORY}/pulls/{NUMBER}/reviews"
    assert post.body["commit_id"] == head  # the work tree's HEAD
    assert post.body["comments"] == COMMENTS


def test_what_is_missing_is_said(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    assert main(["review"]) == 2
    assert capsys.readouterr().err == "error: no base revision: pass --base REV (outside a pull_request event of GitHub Actions)\n"
    assert main(["review", "--base", "main"]) == 2
    assert capsys.readouterr().err == "error: no pull request: pass --pr N (outside a pull_request event of GitHub Actions)\n"
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["review", "--base", "main", "--pr", "7"]) == 2
    assert capsys.readouterr().err == "error: no token: set GITHUB_TOKEN (in a workflow: `GITHUB_TOKEN: ${{ github.token }}`)\n"
    assert main(["review", "--base", "main", "--pr", "7", "--repository", "not a repository"]) == 2
    assert capsys.readouterr().err == "error: --repository must be OWNER/NAME, got 'not a repository'\n"
    assert api.requests == []


def test_a_work_tree_at_another_commit_is_refused(pull_request, capsys):
    repo, api, head = pull_request
    repo.git.checkout("main")
    assert main(["review"]) == 2
    assert capsys.readouterr().err == (
        f"error: the work tree is at commit {repo.head.commit.hexsha[:12]}, not at the reviewed head {head[:12]}: "
        "check out the head commit of the change (for a pull request on GitHub Actions: actions/checkout with "
        "`ref: ${{ github.event.pull_request.head.sha }}`)\n"
    )
    assert api.requests == []


def test_uncommitted_edits_of_a_commented_file_are_refused(pull_request, capsys):
    repo, api, head = pull_request
    path = Path(repo.working_tree_dir) / "sql/new_report.sql"
    path.write_text("\n" + path.read_text())
    assert main(["review"]) == 2
    assert capsys.readouterr().err == (
        f"error: sql/new_report.sql: not as committed in {head[:12]}; the review would point at lines the "
        "commit does not have: commit or stash first\n"
    )
    assert api.made("POST") == []


def test_dry_run_prints_the_review_and_contacts_nothing(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["review", "--dry-run"]) == 1
    printed = json.loads(capsys.readouterr().out)
    # The local diff stands for GitHub's: the same lines are shown.
    assert printed == {"commit_id": head, "event": "COMMENT", "body": summary([FAR_SORT]), "comments": COMMENTS}
    assert api.requests == []


def test_exit_zero(pull_request, capsys):
    assert main(["review", "--exit-zero"]) == 0


def test_a_redirect_to_another_address_gets_no_token(pull_request, capsys):
    """An API answering with a redirect elsewhere (a wrong address, a hostile proxy) is
    refused: the token goes only to the API's own address."""
    repo, api, head = pull_request
    with FakeApi(token="") as elsewhere:
        redirect = Answer(302, {"Location": f"{elsewhere.url}/collect"})
        api.answer_next(*[redirect] * 5)
        assert main(["review"]) == 2
        assert capsys.readouterr().err == (
            f"error: GitHub: GET /repos/{REPOSITORY}/pulls/{NUMBER}/files was redirected to another address "
            f"({elsewhere.url}), which is not followed: the token goes only to {api.url} (check GITHUB_API_URL "
            "or --api-url)\n"
        )
        assert elsewhere.requests == []
    [asked] = api.requests
    assert (asked.method, asked.path, asked.headers["authorization"]) == (
        "GET", f"/repos/{REPOSITORY}/pulls/{NUMBER}/files", f"Bearer {api.token}",
    )


def test_the_fix_command_quotes_paths_for_a_shell(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    query = "SELECT host, level FROM telemetry.events WHERE level = 'WARN' ORDER BY level, host;\n"
    write(Path(repo.working_tree_dir), {"sql/daily report é.sql": query, "sql/it's $HOME.sql": query})
    commit(repo, "two reports")
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    assert main(["review", "--dry-run", "--base", "main"]) == 1
    body = json.loads(capsys.readouterr().out)["body"]
    [fixes] = [line for line in body.split("\n") if " have a fix: " in line]
    assert fixes == (
        "8 have a fix: apply the suggestions, or run `sortlint check --fix dbt/models/host_events.sql "
        "jobs/latency_job.py 'sql/daily report é.sql' sql/errors.sql 'sql/it'\"'\"'s $HOME.sql' sql/latency.sql "
        "sql/new_report.sql` locally (add `--unsafe-fixes` for the 3 that rest on a declaration the engine does "
        "not enforce)."
    )


def test_dry_run_refuses_uncommitted_and_untracked_files_as_the_review_does(pull_request, monkeypatch, capsys):
    repo, api, head = pull_request
    monkeypatch.delenv("GITHUB_TOKEN")
    root = Path(repo.working_tree_dir)
    (root / "sql/new_report.sql").write_text("\n" + (root / "sql/new_report.sql").read_text())
    write(root, {"sql/draft.sql": "SELECT host, level FROM telemetry.events WHERE level = 'WARN' ORDER BY level, host;\n"})
    assert main(["review", "--dry-run"]) == 2
    assert capsys.readouterr() == (
        "",
        f"error: sql/draft.sql, sql/new_report.sql: not as committed in {head[:12]}; the review would point at "
        "lines the commit does not have: commit or stash first\n",
    )
    (root / "sql/new_report.sql").unlink()
    repo.git.checkout("--", "sql/new_report.sql")
    assert main(["review", "--dry-run"]) == 2
    assert capsys.readouterr().err == (
        f"error: sql/draft.sql: not as committed in {head[:12]}; the review would point at lines the commit "
        "does not have: commit or stash first\n"
    )
    assert api.requests == []
