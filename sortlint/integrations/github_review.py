"""`sortlint review` on GitHub: one pull-request review with a comment per new finding.

Defaults come from what GitHub Actions provides: `GITHUB_REPOSITORY`, the event file at
`GITHUB_EVENT_PATH` (its `pull_request`: number, `base.sha`, `head.sha`), `GITHUB_API_URL`
(GitHub Enterprise Server's API too) and the token in `GITHUB_TOKEN`.

Requests, as GitHub documents them:
* `GET /repos/{owner}/{repo}/pulls/{n}/files`: the diff GitHub shows, whose lines (added
  ones and the context around them) are the ones a comment can be on;
* `GET .../pulls/{n}/comments` and `GET .../pulls/{n}/reviews`: what earlier runs said;
* `POST .../pulls/{n}/reviews` with `event: COMMENT`, `commit_id`, the summary as `body`
  and one comment per new finding (`path`, `line`, `side: RIGHT`, and `start_line` with
  `start_side` for several lines). If GitHub refuses a line anyway (422), the review is
  posted again with those findings in its summary;
* `PATCH .../pulls/comments/{id}`: an earlier comment whose finding is gone says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sortlint.errors import UserError
from sortlint.integrations.git_changes import Changes
from sortlint.integrations.http import Client, Rejected
from sortlint.integrations.review import (
    Earlier,
    Plan,
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
from sortlint.integrations.suggestions import github_block
from sortlint.integrations.unified_diff import ShownLines, shown_lines

DEFAULT_API = "https://api.github.com"
REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class PullRequest:
    api_url: str
    repository: str  # owner/name
    number: int | None  # None only for a dry run
    base: str  # the revision the change is compared with
    head: str | None  # the commit reviewed; None: the work tree's HEAD


def pull_request(
    environ: Mapping[str, str],
    repository: str | None = None,
    number: int | None = None,
    base: str | None = None,
    api_url: str | None = None,
    dry_run: bool = False,
) -> PullRequest:
    """The pull request to review: the command line's values, else the Actions event's."""
    event = _event(environ)
    pull = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
    number = number if number is not None else pull.get("number")
    base = base or _sha(pull, "base")
    head = _sha(pull, "head")
    repository = repository or environ.get("GITHUB_REPOSITORY")
    if base is None:
        raise UserError("no base revision: pass --base REV (outside a pull_request event of GitHub Actions)")
    if not dry_run:
        if repository is None:
            raise UserError("no repository: pass --repository OWNER/NAME (or set GITHUB_REPOSITORY)")
        if number is None:
            raise UserError("no pull request: pass --pr N (outside a pull_request event of GitHub Actions)")
    if repository is not None and not REPOSITORY.fullmatch(repository):
        raise UserError(f"--repository must be OWNER/NAME, got {repository!r}")
    api = api_url or environ.get("GITHUB_API_URL") or DEFAULT_API
    return PullRequest(api.rstrip("/"), repository or "", number, base, head)


def _event(environ: Mapping[str, str]) -> dict:
    path = environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the GitHub event: {error}", path) from None
    return event if isinstance(event, dict) else {}


def _sha(pull: dict, side: str) -> str | None:
    ref = pull.get(side)
    return ref.get("sha") if isinstance(ref, dict) else None


def client(pr: PullRequest, environ: Mapping[str, str], notify: Callable[[str], None]) -> Client:
    token = environ.get("GITHUB_TOKEN")
    if not token:
        raise UserError("no token: set GITHUB_TOKEN (in a workflow: `GITHUB_TOKEN: ${{ github.token }}`)")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    return Client(
        pr.api_url, headers, token, "GitHub", "GITHUB_TOKEN", frozenset({422}), notify, address_hint="GITHUB_API_URL"
    )


def review_request(todo: Plan, head: str, errors: Sequence[UserError] = ()) -> dict:
    """The body of `POST .../pulls/{n}/reviews`."""
    return {
        "commit_id": head,
        "event": "COMMENT",
        "body": summary_body(todo, "GitHub", errors),
        "comments": [_comment(reviewed) for reviewed in todo.comments],
    }


def _comment(reviewed: ReviewFinding) -> dict:
    place = reviewed.placement
    block = github_block(place.replacement) if place.replacement is not None else None
    comment: dict = {"path": reviewed.path}
    if place.first != place.last:
        comment |= {"start_line": place.first, "start_side": "RIGHT"}
    comment |= {"line": place.last, "side": "RIGHT", "body": comment_body(reviewed, block)}
    return comment


def pull_diff(github: Client, pr: PullRequest) -> dict[str, ShownLines]:
    """The lines of each file GitHub's diff of the pull request shows (a file without a
    `patch`, binary or too large, shows none)."""
    files = github.get_all(f"{_pull(pr)}/files")
    return {f["filename"]: shown_lines(f.get("patch") or "") for f in files if f.get("status") != "removed"}


def earlier_review(github: Client, pr: PullRequest) -> Earlier:
    comments = github.get_all(f"{_pull(pr)}/comments")
    reviews = github.get_all(f"{_pull(pr)}/reviews")
    return earlier(((c["id"], c.get("body") or "") for c in comments), (r.get("body") or "" for r in reviews))


def dry_run(pr: PullRequest, reviewed: Sequence[ReviewFinding], changes: Changes, errors: Sequence[UserError]) -> dict:
    """The review a first run would post, with the local diff standing for GitHub's."""
    head = pr.head or changes.head
    check_reviewable(reviewed, changes, head)
    local = {path: change.lines for path, change in changes.files.items()}
    return review_request(plan(reviewed, shown_by(local)), head, errors)


def run(
    pr: PullRequest, reviewed: Sequence[ReviewFinding], changes: Changes, errors: Sequence[UserError],
    github: Client,
) -> str:
    """Post the review: new findings, and earlier comments on gone ones edited; what was done."""
    head = pr.head or changes.head
    check_reviewable(reviewed, changes, head)
    todo = plan(reviewed, shown_by(pull_diff(github, pr)), earlier_review(github, pr))
    done = []
    if todo.new:
        try:
            github.request("POST", f"{_pull(pr)}/reviews", review_request(todo, head, errors))
        except Rejected as refusal:
            if not todo.comments:
                raise
            todo = todo.in_summary(todo.comments)
            github.request("POST", f"{_pull(pr)}/reviews", review_request(todo, head, errors))
            done.append(f"{refusal.message}, so every finding went into the summary")
        done.append(
            f"posted a review with {counted(len(todo.comments), 'comment')} and "
            f"{counted(len(todo.summarised), 'finding')} in its summary"
        )
    else:
        done.append("nothing new to post")
    for posted in todo.resolved:
        github.request("PATCH", f"/repos/{pr.repository}/pulls/comments/{posted.ref}", {"body": resolved_body(posted, head)})
    if todo.resolved:
        done.append(f"marked {counted(len(todo.resolved), 'earlier comment')} resolved")
    return f"GitHub pull request #{pr.number}: " + "; ".join(done) + "."


def _pull(pr: PullRequest) -> str:
    return f"/repos/{pr.repository}/pulls/{pr.number}"
