"""Real git repositories for the tests, made with GitPython in temporary directories."""

from __future__ import annotations

import textwrap
from pathlib import Path

import git

AUTHOR = git.Actor("Test Author", "author@example.com")


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def commit(repo: git.Repo, message: str) -> str:
    """Commit everything in the work tree (additions, edits, removals); the commit's id."""
    repo.git.add(A=True)
    return repo.index.commit(message, author=AUTHOR, committer=AUTHOR).hexsha


def new_repo(root: Path, files: dict[str, str]) -> git.Repo:
    """A repository on branch `main` whose first commit holds `files`."""
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", AUTHOR.name)
        config.set_value("user", "email", AUTHOR.email)
    write(root, files)
    commit(repo, "base")
    return repo


def rename(repo: git.Repo, old: str, new: str) -> None:
    repo.git.mv(old, new)


# A warehouse with all four kinds of source, as a pull request finds it. The events table
# holds the events of one instant, declared without the engine knowing it, so fixes resting
# on that are unsafe.
CATALOG = """
target: datafusion
dialect: spark
sources:
  telemetry.events:
    columns:
      event_id: bigint not null
      host: string not null
      time: timestamp not null
      level: string
      latency_ms: int
    constants: {time: '2024-01-01 00:00:00'}
    unique: [[event_id]]
    engine_known: false
"""

BASE_FILES = {
    "sortlint.yml": CATALOG,
    "sql/api_views.sql": """
        -- The API hosts' events, read by other files.
        CREATE VIEW api_events AS
        SELECT host, time, latency_ms
        FROM telemetry.events
        WHERE host = 'api-1.example.com';
        """,
    "sql/latency.sql": """
        SELECT host,
               time,
               latency_ms
        FROM telemetry.events
        WHERE latency_ms > 0
          AND level IS NOT NULL
          AND event_id > 0
          AND time IS NOT NULL
        ORDER BY host, time;

        SELECT host, count(*) AS events
        FROM telemetry.events
        GROUP BY level, host, time;
        """,
    "sql/old_name.sql": """
        SELECT host, level
        FROM telemetry.events
        WHERE level = 'ERROR'
        ORDER BY level, host;
        """,
    "dbt/dbt_project.yml": """
        name: shop
        version: "1.0.0"
        config-version: 2
        model-paths: ["models"]
        """,
    "dbt/models/host_events.sql": """
        select host, time, latency_ms
        from telemetry.events
        where latency_ms > 100
        """,
    "jobs/latency_job.py": '''
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F


        def slow_requests(spark: SparkSession) -> None:
            events = spark.table("telemetry.events")
            slow = events.filter(F.col("latency_ms") > 500)
            slow.write.mode("overwrite").saveAsTable("telemetry.slow_requests")
        ''',
}

# The pull request: edits a statement far above its unchanged ORDER BY, adds a statement
# reading a view of an unchanged file, adds a file, renames a file and edits it above its
# unchanged ORDER BY, and adds sorts to a dbt model and a PySpark job.
PULL_REQUEST_FILES = {
    "sql/latency.sql": """
        SELECT host,
               time,
               latency_ms
        FROM telemetry.events
        WHERE latency_ms > 10
          AND level IS NOT NULL
          AND event_id > 0
          AND time IS NOT NULL
        ORDER BY host, time;

        SELECT host, count(*) AS events
        FROM telemetry.events
        GROUP BY level, host, time;

        SELECT host, max(latency_ms) AS slowest FROM api_events GROUP BY host, time;
        """,
    "sql/new_report.sql": """
        SELECT host, level, count(*) AS events
        FROM telemetry.events
        WHERE level = 'WARN'
        GROUP BY host, level
        ORDER BY level, host;
        """,
    "sql/errors.sql": """
        SELECT host, level
        FROM telemetry.events
        WHERE level = 'FATAL'
        ORDER BY level, host;
        """,
    "dbt/models/host_events.sql": """
        select host, time, latency_ms
        from telemetry.events
        where latency_ms > 100
        order by host, time
        """,
    "jobs/latency_job.py": '''
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F


        def slow_requests(spark: SparkSession) -> None:
            events = spark.table("telemetry.events")
            slow = events.filter(F.col("latency_ms") > 500).orderBy("host", "time")
            slow.write.mode("overwrite").saveAsTable("telemetry.slow_requests")
        ''',
}


def pull_request_repo(root: Path) -> tuple[git.Repo, str, str]:
    """The warehouse at its base commit on `main`, and a branch `change` with the pull
    request's commit checked out: (repository, base commit, head commit)."""
    repo = new_repo(root, BASE_FILES)
    base = repo.head.commit.hexsha
    repo.git.checkout("-b", "change")
    rename(repo, "sql/old_name.sql", "sql/errors.sql")
    write(root, PULL_REQUEST_FILES)
    head = commit(repo, "pull request")
    return repo, base, head


STATUSES = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "copied"}


def pull_files(repo: git.Repo, base: str, head: str) -> list[dict]:
    """The files of `git diff base...head` as GitHub lists a pull request's files:
    filename, status, patch (the hunks), previous_filename for a rename."""
    files = []
    for line in repo.git.diff(f"{base}...{head}", "-M", name_status=True).splitlines():
        status, *paths = line.split("\t")
        text = repo.git.diff(f"{base}...{head}", "-M", "--", *paths)
        entry = {"filename": paths[-1], "status": STATUSES[status[0]], "patch": text[text.find("\n@@") + 1 :] + "\n"}
        if status[0] == "R":
            entry["previous_filename"] = paths[0]
        files.append(entry)
    return files


def merge_request_diffs(repo: git.Repo, base: str, head: str) -> list[dict]:
    """The same files as GitLab lists a merge request's diffs."""
    return [
        {
            "old_path": f.get("previous_filename", f["filename"]),
            "new_path": f["filename"],
            "diff": f["patch"],
            "new_file": f["status"] == "added",
            "renamed_file": f["status"] == "renamed",
            "deleted_file": f["status"] == "removed",
        }
        for f in pull_files(repo, base, head)
    ]
