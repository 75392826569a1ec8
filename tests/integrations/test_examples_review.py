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


def test_review_dry_run_of_a_change_to_the_examples(tmp_path, monkeypatch, capsys):
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    repo = git.Repo.init(root, initial_branch="main")
    repo.git.add(A=True)
    repo.index.commit("examples", author=AUTHOR, committer=AUTHOR)
    # One changed file: the second query's WHERE now names another host (its ORDER BY, a
    # line below, does not change), and two queries are added at the end.
    path = root / FILE
    text = path.read_text().replace("WHERE host = 'api-1.example.com'\nORDER BY host;", "WHERE host = 'api-2.example.com'\nORDER BY host;")
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
            "| [SL001 unnecessary-sort](https://sortlint.readthedocs.io/en/latest/rules/unnecessary-sort/) | 1 | 1 |",
            "| [SL003 redundant-sort-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/) | 1 | 1 |",
            "| [SL103 redundant-group-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-group-keys/) | 1 | 1 |",
            "",
            f"3 have a fix: apply the suggestions, or run `sortlint check --fix {FILE}` locally.",
        ]),
        "comments": [
            {
                "path": FILE, "start_line": 13, "start_side": "RIGHT", "line": 14, "side": "RIGHT",
                "body": "**[SL001 unnecessary-sort](https://sortlint.readthedocs.io/en/latest/rules/unnecessary-sort/)**: ORDER BY [host "
                "ASC NULLS FIRST] is already satisfied by its input: WHERE events.host = 'api-2.example.com' "
                "(line 13) (basis: query)\n\n"
                "On Spark: saves an exchange and a sort.\n\n"
                "Fix: remove the ORDER BY.\n\n"
                "```suggestion\nWHERE host = 'api-2.example.com';\n```\n\n"
                "<!-- sortlint:finding 557fcf9a33bad9fefd4a58ad8292135e -->",
            },
            {
                # The table is stored ordered by (host, time), but Spark does not read it in order:
                # only the constant host goes.
                "path": FILE, "line": 42, "side": "RIGHT",
                "body": "**[SL003 redundant-sort-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/)**: sort key "
                "host is constant: WHERE events.host = 'db-1.example.com' (line 41) (basis: query)\n\n"
                "On Spark: same plan: an exchange and a sort by fewer keys.\n\n"
                "Fix: drop the sort key host.\n\n"
                "```suggestion\nORDER BY time;\n```\n\n"
                "<!-- sortlint:finding 1b7bb05cc0fdb90e80a149c1ceac1c55 -->",
            },
            {
                "path": FILE, "start_line": 44, "start_side": "RIGHT", "line": 47, "side": "RIGHT",
                "body": "**[SL103 redundant-group-keys](https://sortlint.readthedocs.io/en/latest/rules/redundant-group-keys/)**: group "
                "key host is constant: WHERE events.host = 'db-1.example.com' (line 46) (basis: query)\n\n"
                "On Spark: same plan: a hash aggregate by fewer keys.\n\n"
                "Fix: drop the group key host.\n\n"
                "```suggestion\nSELECT 'db-1.example.com' AS host, level, count(*) AS slow_requests\n"
                "FROM telemetry.events\nWHERE host = 'db-1.example.com' AND latency_ms > 1000\nGROUP BY level;\n```\n\n"
                "<!-- sortlint:finding 87fc3e95126ad7ef9611aa248cf9138c -->",
            },
        ],
    }
    # The file's other findings (its unchanged queries, e.g. the inner sort on line 19) are not
    # in the review, though `check` reports them.
    assert main(["check", FILE]) == 1
    assert f"{FILE}:19:70: SL002" in capsys.readouterr().out
