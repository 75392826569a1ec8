"""The issue's "done when": the examples repository made into a git repository with one
changed file; `sortlint review --dry-run` shows exactly the findings in the statements the
change touched, with suggestion blocks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
from git_repos import AUTHOR

from sortlint.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILE = "warehouse/telemetry/host_latency.sql"
ADDED = """
-- The slow requests of one host, and how many there are per level.
SELECT host, time, latency_ms
FROM telemetry.events
WHERE host = 'db-1.example.com' AND latency_ms > 1000
ORDER BY host, time;

SELECT host, level, count(*) AS slow_requests
FROM telemetry.events
WHERE host = 'db-1.example.com' AND latency_ms > 1000
GROUP BY host, level;
"""
DECLARED = "declared ordering [host ASC NULLS FIRST, time ASC NULLS FIRST] of telemetry.events (sortlint.yml:19)"
UNSAFE = "It rests on a declaration the engine does not enforce (named above): apply it only while the table really is stored that way."


def test_review_dry_run_of_a_change_to_the_examples(tmp_path, monkeypatch, capsys):
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    repo = git.Repo.init(root, initial_branch="main")
    repo.git.add(A=True)
    repo.index.commit("examples", author=AUTHOR, committer=AUTHOR)
    # One changed file: the first query's WHERE now names another host (its ORDER BY, a
    # line below, does not change), and two queries are added at the end.
    path = root / FILE
    text = path.read_text().replace("WHERE host = 'api-1.example.com'\nORDER BY time;", "WHERE host = 'api-2.example.com'\nORDER BY time;")
    path.write_text(text + ADDED)
    repo.git.add(A=True)
    head = repo.index.commit("change", author=AUTHOR, committer=AUTHOR).hexsha
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)

    assert main(["review", "--dry-run", "--base", "HEAD~1"]) == 1
    printed = json.loads(capsys.readouterr().out)
    repo.close()
    assert printed == {
        "commit_id": head,
        "event": "COMMENT",
        "body": "\n".join([
            "<!-- sortlint:summary -->",
            "**sortlint** found 3 findings in the statements this change touches.",
            "",
            "| Rule | Findings | With a fix |",
            "| --- | ---: | ---: |",
            "| [SL001 unnecessary-sort](https://sortlint.dev/rules/unnecessary-sort/) | 2 | 2 |",
            "| [SL103 redundant-group-keys](https://sortlint.dev/rules/redundant-group-keys/) | 1 | 1 |",
            "",
            f"3 have a fix: apply the suggestions, or run `sortlint check --fix {FILE}` locally (add "
            "`--unsafe-fixes` for the 2 that rest on a declaration the engine does not enforce).",
        ]),
        "comments": [
            {
                "path": FILE, "start_line": 6, "start_side": "RIGHT", "line": 7, "side": "RIGHT",
                "body": "**[SL001 unnecessary-sort](https://sortlint.dev/rules/unnecessary-sort/)**: ORDER BY [time "
                f"ASC NULLS FIRST] is already satisfied by its input: {DECLARED}; WHERE events.host = "
                "'api-2.example.com' (line 6) (basis: declared)\n\n"
                f"Fix, **unsafe**: remove the ORDER BY. {UNSAFE}\n\n"
                "```suggestion\nWHERE host = 'api-2.example.com';\n```\n\n"
                "<!-- sortlint:finding cf3368f2251ce8953f023175df512a7b -->",
            },
            {
                "path": FILE, "start_line": 39, "start_side": "RIGHT", "line": 40, "side": "RIGHT",
                "body": "**[SL001 unnecessary-sort](https://sortlint.dev/rules/unnecessary-sort/)**: ORDER BY [host "
                f"ASC NULLS FIRST, time ASC NULLS FIRST] is already satisfied by its input: {DECLARED}; WHERE "
                "events.host = 'db-1.example.com' (line 39) (basis: declared)\n\n"
                f"Fix, **unsafe**: remove the ORDER BY. {UNSAFE}\n\n"
                "```suggestion\nWHERE host = 'db-1.example.com' AND latency_ms > 1000;\n```\n\n"
                "<!-- sortlint:finding ee8cc2445677f4ad7450f45c21649c4c -->",
            },
            {
                "path": FILE, "start_line": 42, "start_side": "RIGHT", "line": 45, "side": "RIGHT",
                "body": "**[SL103 redundant-group-keys](https://sortlint.dev/rules/redundant-group-keys/)**: group "
                "key host is constant: WHERE events.host = 'db-1.example.com' (line 44) (basis: query)\n\n"
                "Fix: drop the group key host.\n\n"
                "```suggestion\nSELECT 'db-1.example.com' AS host, level, count(*) AS slow_requests\n"
                "FROM telemetry.events\nWHERE host = 'db-1.example.com' AND latency_ms > 1000\nGROUP BY level;\n```\n\n"
                "<!-- sortlint:finding 87fc3e95126ad7ef9611aa248cf9138c -->",
            },
        ],
    }
    # The file's other finding (its unchanged third query, line 17) is not in the review,
    # though `check` reports it.
    assert main(["check", FILE]) == 1
    assert f"{FILE}:17:1: SL001" in capsys.readouterr().out
