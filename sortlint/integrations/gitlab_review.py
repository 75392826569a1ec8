"""`sortlint review --gitlab`: a merge-request thread per new finding, and a summary note.

Defaults come from GitLab CI's predefined variables: `CI_API_V4_URL`, `CI_PROJECT_ID`,
`CI_MERGE_REQUEST_IID`, `CI_MERGE_REQUEST_DIFF_BASE_SHA`; the token (a project or personal
access token with the `api` scope) from `GITLAB_TOKEN`.

Requests, as GitLab documents them:
* `GET /projects/:id/merge_requests/:iid`: the merge request's `diff_refs` (base, start
  and head commits), which every diff position names;
* `GET .../merge_requests/:iid/diffs`: the diff GitLab shows, whose lines (added ones, and
  the unchanged ones around them, which need their old line number too) a thread can be on;
* `GET .../merge_requests/:iid/discussions`: what earlier runs said;
* `POST .../merge_requests/:iid/discussions` with a `text` position (`base_sha`,
  `start_sha`, `head_sha`, `old_path`, `new_path`, `new_line`, and `old_line` for an
  unchanged line) and the fix in GitLab's `suggestion:-0+N` block. A position GitLab
  refuses (400) puts the finding into the summary;
* `POST .../merge_requests/:iid/notes`: the summary;
* `PUT .../discussions/:discussion_id/notes/:note_id`: an earlier thread whose finding is
  gone says so.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sortlint.errors import UserError
from sortlint.integrations.git_changes import Changes
from sortlint.integrations.http import Client, Rejected
from sortlint.integrations.review import (
    Earlier,
    ReviewFinding,
    check_reviewable,
    comment_body,
    counted,
    earlier,
    plan,
    resolved_body,
    shown_by,
    summary_body,
)
from sortlint.integrations.suggestions import gitlab_block
from sortlint.integrations.unified_diff import ShownLines, shown_lines


@dataclass(frozen=True)
class MergeRequest:
    api_url: str  # .../api/v4
    project: str  # numeric id or full path
    iid: int | None  # None only for a dry run
    base: str  # the revision the change is compared with

    @property
    def path(self) -> str:
        return f"/projects/{urllib.parse.quote(self.project, safe='')}/merge_requests/{self.iid}"


@dataclass(frozen=True)
class DiffFile:
    old_path: str
    lines: ShownLines


def merge_request(
    environ: Mapping[str, str],
    project: str | None = None,
    iid: int | None = None,
    base: str | None = None,
    api_url: str | None = None,
    dry_run: bool = False,
) -> MergeRequest:
    project = project or environ.get("CI_PROJECT_ID")
    if iid is None and environ.get("CI_MERGE_REQUEST_IID"):
        try:
            iid = int(environ["CI_MERGE_REQUEST_IID"])
        except ValueError:
            raise UserError(f"CI_MERGE_REQUEST_IID is not a number: {environ['CI_MERGE_REQUEST_IID']!r}") from None
    base = base or environ.get("CI_MERGE_REQUEST_DIFF_BASE_SHA")
    api = api_url or environ.get("CI_API_V4_URL")
    if base is None:
        raise UserError("no base revision: pass --base REV (outside a merge request pipeline)")
    if not dry_run:
        if not project:
            raise UserError("no project: pass --repository ID-OR-PATH (or set CI_PROJECT_ID)")
        if iid is None:
            raise UserError("no merge request: pass --pr IID (outside a merge request pipeline)")
        if not api:
            raise UserError("no API address: pass --api-url https://gitlab.example.com/api/v4 (or set CI_API_V4_URL)")
    return MergeRequest((api or "").rstrip("/"), project or "", iid, base)


def client(mr: MergeRequest, environ: Mapping[str, str], notify: Callable[[str], None]) -> Client:
    token = environ.get("GITLAB_TOKEN")
    if not token:
        raise UserError("no token: set GITLAB_TOKEN (a project access token with the api scope)")
    return Client(
        mr.api_url, {"PRIVATE-TOKEN": token}, token, "GitLab", "GITLAB_TOKEN", frozenset({400}), notify,
        address_hint="CI_API_V4_URL",
    )


def diff_refs(gitlab: Client, mr: MergeRequest) -> dict[str, str]:
    refs = (gitlab.get(mr.path) or {}).get("diff_refs") or {}
    if not all(refs.get(k) for k in ("base_sha", "start_sha", "head_sha")):
        raise UserError(f"GitLab: merge request !{mr.iid} has no diff yet (no diff_refs)")
    return {k: refs[k] for k in ("base_sha", "start_sha", "head_sha")}


def merge_request_diff(gitlab: Client, mr: MergeRequest) -> dict[str, DiffFile]:
    files = gitlab.get_all(f"{mr.path}/diffs")
    return {
        f["new_path"]: DiffFile(f.get("old_path") or f["new_path"], shown_lines(f.get("diff") or ""))
        for f in files
        if not f.get("deleted_file")
    }


def discussion_request(reviewed: ReviewFinding, refs: Mapping[str, str], file: DiffFile) -> dict:
    """The body of `POST .../discussions` for one finding: on its first line, the fix
    replacing that line and the ones below it."""
    place = reviewed.placement
    block = gitlab_block(place.replacement, place.last - place.first) if place.replacement is not None else None
    position: dict = {
        "position_type": "text",
        **refs,
        "old_path": file.old_path,
        "new_path": reviewed.path,
        "new_line": place.first,
    }
    old_line = file.lines.context.get(place.first)
    if old_line is not None:
        position["old_line"] = old_line
    return {"body": comment_body(reviewed, block), "position": position}


def earlier_discussions(gitlab: Client, mr: MergeRequest) -> Earlier:
    discussions = gitlab.get_all(f"{mr.path}/discussions")
    notes = [(d["id"], note) for d in discussions for note in d.get("notes") or () if not note.get("system")]
    return earlier(
        (((discussion, note["id"]), note.get("body") or "") for discussion, note in notes),
        (note.get("body") or "" for _, note in notes),
    )


def dry_run(mr: MergeRequest, reviewed: Sequence[ReviewFinding], changes: Changes, errors: Sequence[UserError]) -> dict:
    """What a first run would post, with the local diff and commits standing for GitLab's."""
    check_reviewable(reviewed, changes, changes.head)
    refs = {"base_sha": changes.base, "start_sha": changes.target, "head_sha": changes.head}
    local = {path: DiffFile(change.old_path or path, change.lines) for path, change in changes.files.items()}
    todo = plan(reviewed, shown_by({path: file.lines for path, file in local.items()}))
    return {
        "discussions": [discussion_request(r, refs, local[r.path]) for r in todo.comments],
        "note": {"body": summary_body(todo, "GitLab", errors)},
    }


def run(
    mr: MergeRequest, reviewed: Sequence[ReviewFinding], changes: Changes, errors: Sequence[UserError],
    gitlab: Client,
) -> str:
    """Open a thread per new finding, post the summary, and edit the threads on gone
    findings; what was done."""
    refs = diff_refs(gitlab, mr)
    check_reviewable(reviewed, changes, refs["head_sha"])
    diff = merge_request_diff(gitlab, mr)
    todo = plan(reviewed, shown_by({path: file.lines for path, file in diff.items()}), earlier_discussions(gitlab, mr))
    refused: list[ReviewFinding] = []
    for reviewed_finding in todo.comments:
        try:
            gitlab.request("POST", f"{mr.path}/discussions", discussion_request(reviewed_finding, refs, diff[reviewed_finding.path]))
        except Rejected:
            refused.append(reviewed_finding)
    done = []
    if todo.new:
        todo = todo.in_summary(refused)
        gitlab.request("POST", f"{mr.path}/notes", {"body": summary_body(todo, "GitLab", errors)})
        done.append(
            f"opened {counted(len(todo.comments), 'thread')} and put {counted(len(todo.summarised), 'finding')} "
            "in the summary note"
        )
    else:
        done.append("nothing new to post")
    for posted in todo.resolved:
        discussion, note = posted.ref
        gitlab.request("PUT", f"{mr.path}/discussions/{discussion}/notes/{note}", {"body": resolved_body(posted, refs["head_sha"])})
    if todo.resolved:
        done.append(f"marked {counted(len(todo.resolved), 'earlier thread')} resolved")
    return f"GitLab merge request !{mr.iid}: " + "; ".join(done) + "."
