"""The composite action and the documented workflow files are complete: they parse, and
they give each command what it needs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def readme_block(after_heading: str) -> dict:
    """The first YAML block after a heading of the CI page."""
    text = (ROOT / "docs" / "ci.md").read_text()
    section = text.split(f"\n{after_heading}\n", 1)[1]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))


def test_the_action_installs_itself_reviews_and_writes_sarif():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"paths", "review", "sarif-file", "fail-on-findings", "args", "token", "python-version"}
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    runs = [step for step in steps if "run" in step]
    assert all(step["shell"] == "bash" for step in runs)
    assert 'pip install --quiet "$GITHUB_ACTION_PATH"' in runs[0]["run"]
    assert "sortlint review $exit_zero $SORTLINT_ARGS $SORTLINT_PATHS" in runs[1]["run"]
    assert runs[1]["env"]["GITHUB_TOKEN"] == "${{ inputs.token }}"
    assert '--output-format sarif --output-file "$SORTLINT_SARIF"' in runs[2]["run"]
    # Inputs reach the scripts through the environment, never spliced into the script.
    assert all("${{" not in step["run"] for step in runs)


def test_the_github_workflow():
    workflow = readme_block("## GitHub Actions")
    assert workflow[True] == {"pull_request": None}  # YAML reads `on` as true
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write", "security-events": "write"}
    checkout, sortlint, upload = workflow["jobs"]["sortlint"]["steps"]
    assert checkout["uses"] == "actions/checkout@v4"
    assert checkout["with"] == {"ref": "${{ github.event.pull_request.head.sha }}", "fetch-depth": 0}
    assert sortlint["with"]["sarif-file"] == upload["with"]["sarif_file"] == "sortlint.sarif"
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@") and upload["if"] == "always()"


def test_the_gitlab_job():
    job = readme_block("## GitLab CI")["sortlint"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"] == {"GIT_DEPTH": "0"}
    install, report, review = job["script"]
    assert report == "sortlint check --output-format gitlab --output-file gl-code-quality-report.json --exit-zero"
    assert review == "sortlint review --gitlab --exit-zero"
    assert job["artifacts"] == {"when": "always", "reports": {"codequality": "gl-code-quality-report.json"}}


def test_the_actions_scripts_review_a_pull_request_and_write_sarif(tmp_path):
    """The action's review and SARIF steps, run by bash as the runner runs them, against
    a GitHub on 127.0.0.1 (sortlint installed is this one)."""
    import json
    import os
    import subprocess
    import sys

    from api_server import FakeApi
    from git_repos import pull_files, pull_request_repo

    repo, base, head = pull_request_repo(tmp_path / "warehouse")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 5, "base": {"sha": base}, "head": {"sha": head}}}))
    steps = {step.get("name"): step for step in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]}
    with FakeApi() as api:
        api.add_pull("acme/warehouse", 5, head, pull_files(repo, base, head))
        environment = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "GITHUB_REPOSITORY": "acme/warehouse", "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": api.url,
            "GITHUB_TOKEN": api.token, "SORTLINT_PATHS": ".", "SORTLINT_ARGS": "--jobs 1",
            "SORTLINT_FAIL": "false", "SORTLINT_SARIF": "sortlint.sarif",
        }
        for name in ("Review the pull request", "Write SARIF"):
            done = subprocess.run(
                ["bash", "-e", "-c", steps[name]["run"]], cwd=repo.working_tree_dir, env=environment,
                capture_output=True, text=True, timeout=300,
            )
            assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout == ""
        [review] = api.made("POST")
        assert len(review.body["comments"]) == 7
    log = json.loads((tmp_path / "warehouse" / "sortlint.sarif").read_text())
    assert len(log["runs"][0]["results"]) == 9  # SARIF has every finding, for code scanning
    repo.close()
