"""`sortlint review --gitlab` against a GitLab on 127.0.0.1, from a real merge-request
repository: a thread per finding with a text position, GitLab's suggestion blocks, a
summary note, a re-run that does not repeat itself, refused positions in the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_server import Answer, FakeApi
from git_repos import commit, merge_request_diffs, pull_request_repo

from sortlint.cli import main

PROJECT = "acme/warehouse"
IID = 3
MR = f"/api/v4/projects/acme%2Fwarehouse/merge_requests/{IID}"
DECLARED = "declared constant time = '2024-01-01 00:00:00' of telemetry.events (sortlint.yml:4)"
UNSAFE = "It rests on a declaration the engine does not enforce (named above): apply it only while the table really is stored that way."
CI_VARIABLES = ("CI_API_V4_URL", "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID", "CI_MERGE_REQUEST_DIFF_BASE_SHA", "GITLAB_TOKEN")


@pytest.fixture
def merge_request(tmp_path, monkeypatch):
    repo, base, head = pull_request_repo(tmp_path / "warehouse")
    refs = {"base_sha": base, "start_sha": base, "head_sha": head}
    with FakeApi() as api:
        api.add_merge_request(PROJECT, IID, refs, merge_request_diffs(repo, base, head))
        monkeypatch.chdir(repo.working_tree_dir)
        for name in CI_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("CI_API_V4_URL", f"{api.url}/api/v4")
        monkeypatch.setenv("CI_PROJECT_ID", PROJECT)
        monkeypatch.setenv("CI_MERGE_REQUEST_IID", str(IID))
        monkeypatch.setenv("CI_MERGE_REQUEST_DIFF_BASE_SHA", base)
        monkeypatch.setenv("GITLAB_TOKEN", api.token)
        yield repo, api, refs
    repo.close()


def position(refs: dict, old_path: str, new_path: str, new_line: int, old_line: int | None = None) -> dict:
    placed = {"position_type": "text", **refs, "old_path": old_path, "new_path": new_path, "new_line": new_line}
    return placed if old_line is None else placed | {"old_line": old_line}


def test_a_thread_per_finding_and_a_summary_note(merge_request, capsys):
    repo, api, refs = merge_request
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().out == f"GitLab merge request !{IID}: opened 7 threads and put 1 finding in the summary note.\n"
    assert [(r.method, r.path, r.query.get("page")) for r in api.requests] == [
        ("GET", MR, None),
        ("GET", f"{MR}/diffs", None), ("GET", f"{MR}/diffs", "2"), ("GET", f"{MR}/diffs", "3"),
        ("GET", f"{MR}/discussions", None),
        *[("POST", f"{MR}/discussions", None)] * 7,
        ("POST", f"{MR}/notes", None),
    ]
    threads = [r.body for r in api.made("POST")[:-1]]
    assert [t["position"] for t in threads] == [
        # added lines: the new line only
        position(refs, "dbt/models/host_events.sql", "dbt/models/host_events.sql", 4),
        position(refs, "jobs/latency_job.py", "jobs/latency_job.py", 7),
        # an unchanged line of a renamed file: its old and new paths, both line numbers
        position(refs, "sql/old_name.sql", "sql/errors.sql", 4, old_line=4),
        position(refs, "sql/latency.sql", "sql/latency.sql", 15),
        position(refs, "sql/latency.sql", "sql/latency.sql", 15),
        position(refs, "sql/new_report.sql", "sql/new_report.sql", 1),
        position(refs, "sql/new_report.sql", "sql/new_report.sql", 5),
    ]
    assert threads[0]["body"] == (
        "**[SL003 redundant-sort-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/)**: sort key time is "
        f"constant: {DECLARED} (basis: declared)\n\n"
        f"Fix, **unsafe**: drop the sort key time. {UNSAFE}\n\n"
        # GitLab's block: the commented line
        "```suggestion:-0+0\norder by host\n```\n\n"
        "<!-- sortlint:finding 2885bf502cafc429b910141225a7580c -->"
    )
    assert threads[5]["body"] == (
        "**[SL103 redundant-group-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-group-keys/)**: group key level is "
        "constant: WHERE events.level = 'WARN' (line 3) (basis: query)\n\n"
        "Fix: drop the group key level.\n\n"
        "```suggestion:-0+3\nSELECT host, 'WARN' AS level, count(*) AS events\nFROM telemetry.events\n"
        "WHERE level = 'WARN'\nGROUP BY host\n```\n\n"
        "<!-- sortlint:finding ed54001510752c4ca26abce46a77f130 -->"
    )
    assert api.made("POST")[-1].body == {"body": "\n".join([
        "<!-- sortlint:summary -->",
        "**sortlint** found 8 findings in the statements this change touches.",
        "",
        "| Rule | Findings | With a fix |",
        "| --- | ---: | ---: |",
        "| [SL003 redundant-sort-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/) | 5 | 5 |",
        "| [SL103 redundant-group-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-group-keys/) | 3 | 1 |",
        "",
        "6 have a fix: apply the suggestions, or run `sortlint check --fix dbt/models/host_events.sql "
        "jobs/latency_job.py sql/errors.sql sql/latency.sql sql/new_report.sql` locally (add `--unsafe-fixes` for "
        "the 3 that rest on a declaration the engine does not enforce).",
        "",
        "Not on a line of the diff GitLab shows:",
        f"- `sql/latency.sql:9` **SL003 redundant-sort-keys**: sort key time is constant: {DECLARED} "
        "<!-- sortlint:finding 6dd936300a388d09d77f4433e8274894 -->",
    ])}
    assert api.requests[0].headers["private-token"] == api.token


def test_a_rerun_does_not_repeat_itself_and_marks_gone_findings(merge_request, capsys):
    repo, api, refs = merge_request
    assert main(["review", "--gitlab"]) == 1
    root = Path(repo.working_tree_dir)
    (root / "sql/errors.sql").write_text("SELECT host, level\nFROM telemetry.events\nWHERE level = 'FATAL';\n")
    pushed = commit(repo, "take the suggestion")
    api.merge_requests[(PROJECT, IID)]["diff_refs"]["head_sha"] = pushed
    api.merge_requests[(PROJECT, IID)]["diffs"] = merge_request_diffs(repo, refs["base_sha"], pushed)
    capsys.readouterr()
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().out == f"GitLab merge request !{IID}: nothing new to post; marked 1 earlier thread resolved.\n"
    [edit] = api.made("PUT")
    thread = next(d for d in api.discussions if d["notes"][0].get("position") and d["notes"][0]["position"]["new_path"] == "sql/errors.sql")
    assert edit.path == f"{MR}/discussions/{thread['id']}/notes/{thread['notes'][0]['id']}"
    assert edit.body == {"body": (
        f"Resolved: sortlint no longer reports this as of {pushed[:12]}.\n\n"
        "~~**[SL003 redundant-sort-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/)**: sort key level is "
        "constant: WHERE events.level = 'FATAL' (line 3) (basis: query)~~\n\n"
        "<!-- sortlint:finding 636dd2b0d1ff905dc97329c64c2ebe7c resolved -->"
    )}
    assert len(api.made("POST")) == 8  # nothing posted again
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().out == f"GitLab merge request !{IID}: nothing new to post.\n"


def test_a_position_gitlab_refuses_puts_the_finding_into_the_summary(merge_request, capsys):
    repo, api, refs = merge_request
    api.refused_lines = {("jobs/latency_job.py", 7)}
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().out == f"GitLab merge request !{IID}: opened 6 threads and put 2 findings in the summary note.\n"
    note = api.made("POST")[-1].body["body"]
    listed = [line.split("`")[1] for line in note.split("\n") if line.startswith("- `")]
    assert listed == ["jobs/latency_job.py:7", "sql/latency.sql:9"]
    # The next run knows both from the summary: it repeats neither.
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().out == f"GitLab merge request !{IID}: nothing new to post.\n"


def test_a_wrong_token(merge_request, monkeypatch, capsys):
    repo, api, refs = merge_request
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-wrong")
    assert main(["review", "--gitlab"]) == 2
    assert capsys.readouterr().err == (
        f"error: GitLab: GET {MR} was refused (401 unauthorized: 401 Unauthorized): check the token in GITLAB_TOKEN\n"
    )


def test_a_rate_limit_is_waited_out(merge_request, capsys):
    repo, api, refs = merge_request
    api.answer_next(Answer(429, {"Retry-After": "1", "RateLimit-Remaining": "0"}, {"message": "Retry later"}))
    assert main(["review", "--gitlab"]) == 1
    assert capsys.readouterr().err == f"GitLab: rate limited on GET {MR}; retrying in 1 s\n"


def test_the_project_can_be_its_numeric_id(merge_request, monkeypatch, capsys):
    repo, api, refs = merge_request
    api.merge_requests[("42", IID)] = api.merge_requests[(PROJECT, IID)]
    assert main(["review", "--gitlab", "--repository", "42"]) == 1
    assert api.requests[0].path == f"/api/v4/projects/42/merge_requests/{IID}"


def test_missing_ci_variables_are_named(merge_request, monkeypatch, capsys):
    repo, api, refs = merge_request
    monkeypatch.delenv("CI_MERGE_REQUEST_IID")
    assert main(["review", "--gitlab"]) == 2
    assert capsys.readouterr().err == "error: no merge request: pass --pr IID (outside a merge request pipeline)\n"
    monkeypatch.delenv("CI_API_V4_URL")
    assert main(["review", "--gitlab", "--pr", "3"]) == 2
    assert capsys.readouterr().err == (
        "error: no API address: pass --api-url https://gitlab.example.com/api/v4 (or set CI_API_V4_URL)\n"
    )
    assert api.requests == []


def test_dry_run(merge_request, monkeypatch, capsys):
    repo, api, refs = merge_request
    monkeypatch.delenv("GITLAB_TOKEN")
    assert main(["review", "--gitlab", "--dry-run"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert [d["position"] for d in printed["discussions"]][:3] == [
        position(refs, "dbt/models/host_events.sql", "dbt/models/host_events.sql", 4),
        position(refs, "jobs/latency_job.py", "jobs/latency_job.py", 7),
        position(refs, "sql/old_name.sql", "sql/errors.sql", 4, old_line=4),
    ]
    assert len(printed["discussions"]) == 7
    assert printed["note"]["body"].startswith("<!-- sortlint:summary -->\n**sortlint** found 8 findings")
    assert api.requests == []


def test_a_redirect_to_another_address_gets_no_token(merge_request, capsys):
    repo, api, refs = merge_request
    with FakeApi(token="") as elsewhere:
        api.answer_next(*[Answer(307, {"Location": f"{elsewhere.url}/api/v4/collect"})] * 5)
        assert main(["review", "--gitlab"]) == 2
        assert capsys.readouterr().err == (
            f"error: GitLab: GET {MR} was redirected to another address ({elsewhere.url}), which is not "
            f"followed: the token goes only to {api.url} (check CI_API_V4_URL or --api-url)\n"
        )
        assert elsewhere.requests == []
    [asked] = api.requests
    assert (asked.method, asked.path, asked.headers["private-token"]) == ("GET", MR, api.token)


def test_dry_run_refuses_uncommitted_files_as_the_review_does(merge_request, monkeypatch, capsys):
    repo, api, refs = merge_request
    monkeypatch.delenv("GITLAB_TOKEN")
    path = Path(repo.working_tree_dir) / "sql/errors.sql"
    path.write_text("\n" + path.read_text())
    assert main(["review", "--gitlab", "--dry-run"]) == 2
    assert capsys.readouterr() == (
        "",
        f"error: sql/errors.sql: not as committed in {refs['head_sha'][:12]}; the review would point at lines "
        "the commit does not have: commit or stash first\n",
    )
    monkeypatch.setenv("GITLAB_TOKEN", api.token)
    assert main(["review", "--gitlab"]) == 2  # as the review itself refuses
    assert capsys.readouterr().err.startswith("error: sql/errors.sql: not as committed in ")
