"""A small GitHub and GitLab on 127.0.0.1 for the tests: the review endpoints as their
documentation describes them, with every request recorded.

GitHub (REST, `/repos/{owner}/{repo}/...`):
  GET   pulls/{n}/files, pulls/{n}/comments, pulls/{n}/reviews   paginated (`Link` header)
  POST  pulls/{n}/reviews     422 when a comment's lines are not in one hunk of the diff,
                              or `commit_id` is not the pull request's head
  PATCH pulls/comments/{id}
GitLab (REST v4, `/api/v4/projects/:id/merge_requests/:iid...`):
  GET   (the merge request, with `diff_refs`), diffs, discussions   paginated (`Link`)
  POST  discussions           400 when the position is not a line of the diff
  POST  notes
  PUT   discussions/:discussion_id/notes/:note_id
Both answer 401 to a wrong token. Tests queue other answers (rate limits, failures) for the
next requests with `answer_next`. The server runs in a daemon thread and stops with the
`with` block.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
GITHUB_DOCS = "https://docs.github.com/rest"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # by lower-case name
    body: object


@dataclass
class Answer:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: object = None


def hunks(patch: str) -> list[dict[int, int | None]]:
    """Each hunk of a patch: its new-side lines (to the old line, None for an added line)."""
    found: list[dict[int, int | None]] = []
    lines: dict[int, int | None] = {}
    old = new = 0
    for text in patch.splitlines():
        header = HUNK.match(text)
        if header:
            lines = {}
            found.append(lines)
            old, new = int(header.group(1)), int(header.group(3))
        elif not found or text.startswith("\\"):
            continue
        elif text.startswith("+"):
            lines[new] = None
            new += 1
        elif text.startswith("-"):
            old += 1
        else:
            lines[new] = old
            old += 1
            new += 1
    return found


class FakeApi:
    def __init__(self, token: str = "secret-token-123", page_size: int = 2) -> None:
        self.token = token
        self.page_size = page_size  # at most this many items a page, whatever per_page asks
        self.requests: list[Recorded] = []
        self.queued: list[Answer] = []
        self.lock = threading.Lock()
        self.ids = iter(range(1001, 1_000_000))
        # GitHub: pull request number -> head sha, files; comments and reviews made
        self.pulls: dict[tuple[str, int], dict] = {}
        self.comments: list[dict] = []
        self.reviews: list[dict] = []
        self.refused_lines: set[tuple[str, int]] = set()  # lines refused though the diff shows them
        # GitLab: (project, iid) -> diff_refs, diffs; discussions made
        self.merge_requests: dict[tuple[str, int], dict] = {}
        self.discussions: list[dict] = []

    # -- set-up ---------------------------------------------------------------------------

    def add_pull(self, repository: str, number: int, head: str, files: list[dict]) -> None:
        """`files` as GitHub lists them: filename, status, patch (, previous_filename)."""
        self.pulls[(repository, number)] = {"head": head, "files": files}

    def add_merge_request(self, project: str, iid: int, diff_refs: dict, diffs: list[dict]) -> None:
        self.merge_requests[(project, iid)] = {"diff_refs": diff_refs, "diffs": diffs}

    def answer_next(self, *answers: Answer) -> None:
        self.queued.extend(answers)

    def __enter__(self) -> FakeApi:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                api._handle(self)

            do_POST = do_PATCH = do_PUT = do_GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def made(self, method: str | None = None) -> list[Recorded]:
        """The requests made (with `method` only, if given), in order."""
        return [r for r in self.requests if method is None or r.method == method]

    # -- dispatch -------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        split = urllib.parse.urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        query = dict(urllib.parse.parse_qsl(split.query))
        headers = {name.lower(): value for name, value in handler.headers.items()}  # names are case-blind
        with self.lock:
            self.requests.append(Recorded(handler.command, split.path, query, headers, body))
            answer = self.queued.pop(0) if self.queued else None
            if answer is None:
                answer = self._answer(handler.command, split.path, query, headers, body)
        data = json.dumps(answer.body).encode() if answer.body is not None else b""
        handler.send_response(answer.status)
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, method: str, path: str, query: dict, headers: dict, body) -> Answer:
        if path.startswith("/api/v4/"):
            if headers.get("private-token") != self.token:
                return Answer(401, body={"message": "401 Unauthorized"})
            return self._gitlab(method, path.removeprefix("/api/v4"), query, body)
        if headers.get("authorization") != f"Bearer {self.token}":
            return Answer(401, body={"message": "Bad credentials", "documentation_url": GITHUB_DOCS})
        return self._github(method, path, query, body)

    def _page(self, path: str, query: dict, items: list) -> Answer:
        size = min(int(query.get("per_page", 30)), self.page_size)
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * size : page * size]
        headers = {}
        if page * size < len(items):
            following = urllib.parse.urlencode({**query, "page": page + 1})
            headers["Link"] = f'<{self.url}{path}?{following}>; rel="next", <{self.url}{path}?page=1>; rel="first"'
        return Answer(200, headers, chunk)

    # -- GitHub ---------------------------------------------------------------------------

    def _github(self, method: str, path: str, query: dict, body) -> Answer:
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/(\d+)/(files|comments|reviews)", path)
        if match:
            repository, number, what = match.group(1), int(match.group(2)), match.group(3)
            pull = self.pulls.get((repository, number))
            if pull is None:
                return Answer(404, body={"message": "Not Found", "documentation_url": GITHUB_DOCS})
            if method == "GET" and what == "files":
                return self._page(path, query, pull["files"])
            if method == "GET" and what == "comments":
                return self._page(path, query, [c for c in self.comments if c["pull"] == (repository, number)])
            if method == "GET" and what == "reviews":
                return self._page(path, query, [r for r in self.reviews if r["pull"] == (repository, number)])
            if method == "POST" and what == "reviews":
                return self._create_review(repository, number, pull, body)
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/comments/(\d+)", path)
        if match and method == "PATCH":
            for comment in self.comments:
                if comment["id"] == int(match.group(2)):
                    comment["body"] = body["body"]
                    return Answer(200, body=comment)
        return Answer(404, body={"message": "Not Found", "documentation_url": GITHUB_DOCS})

    def _create_review(self, repository: str, number: int, pull: dict, body: dict) -> Answer:
        unprocessable = Answer(422, body={"message": "Unprocessable Entity", "errors": ["Line could not be resolved"], "documentation_url": GITHUB_DOCS})
        if body.get("event") not in ("APPROVE", "REQUEST_CHANGES", "COMMENT"):
            return unprocessable
        if body.get("event") == "COMMENT" and not body.get("body"):
            return unprocessable
        if body.get("commit_id") != pull["head"]:
            return unprocessable
        patches = {f["filename"]: f.get("patch") or "" for f in pull["files"]}
        for comment in body.get("comments", []):
            if comment.get("side") != "RIGHT" or comment.get("path") not in patches:
                return unprocessable
            first, last = comment.get("start_line", comment["line"]), comment["line"]
            if first > last or any((comment["path"], n) in self.refused_lines for n in range(first, last + 1)):
                return unprocessable
            if not any(all(n in lines for n in range(first, last + 1)) for lines in hunks(patches[comment["path"]])):
                return unprocessable
        review = {"id": next(self.ids), "pull": (repository, number), "body": body["body"], "state": "COMMENTED", "commit_id": body["commit_id"]}
        self.reviews.append(review)
        for comment in body.get("comments", []):
            self.comments.append(
                {
                    "id": next(self.ids), "pull": (repository, number), "pull_request_review_id": review["id"],
                    "commit_id": body["commit_id"], "user": {"login": "github-actions[bot]"}, **comment,
                }
            )
        return Answer(200, body={k: v for k, v in review.items() if k != "pull"})

    # -- GitLab ---------------------------------------------------------------------------

    def _gitlab(self, method: str, path: str, query: dict, body) -> Answer:
        not_found = Answer(404, body={"message": "404 Not found"})
        match = re.fullmatch(r"/projects/([^/]+)/merge_requests/(\d+)(/.*)?", path)
        if not match:
            return not_found
        project, iid, rest = urllib.parse.unquote(match.group(1)), int(match.group(2)), match.group(3) or ""
        mr = self.merge_requests.get((project, iid))
        if mr is None:
            return not_found
        mine = [d for d in self.discussions if d["mr"] == (project, iid)]
        if method == "GET" and rest == "":
            return Answer(200, body={"iid": iid, "diff_refs": mr["diff_refs"]})
        if method == "GET" and rest == "/diffs":
            return self._page(f"/api/v4{path}", query, mr["diffs"])
        if method == "GET" and rest == "/discussions":
            return self._page(f"/api/v4{path}", query, [{k: v for k, v in d.items() if k != "mr"} for d in mine])
        if method == "POST" and rest == "/discussions":
            return self._create_discussion(project, iid, mr, body)
        if method == "POST" and rest == "/notes":
            note = {"id": next(self.ids), "body": body["body"], "type": None, "system": False}
            self.discussions.append({"mr": (project, iid), "id": f"d{next(self.ids)}", "individual_note": True, "notes": [note]})
            return Answer(201, body=note)
        edit = re.fullmatch(r"/discussions/([^/]+)/notes/(\d+)", rest)
        if method == "PUT" and edit:
            for discussion in mine:
                for note in discussion["notes"]:
                    if discussion["id"] == edit.group(1) and note["id"] == int(edit.group(2)):
                        note["body"] = body["body"]
                        return Answer(200, body=note)
        return not_found

    def _create_discussion(self, project: str, iid: int, mr: dict, body: dict) -> Answer:
        position = body.get("position")
        bad_line = Answer(400, body={"message": "400 Bad request - Note {:line_code=>[\"can't be blank\", \"must be a valid line code\"]}"})
        if position is not None:
            refs = mr["diff_refs"]
            if position.get("position_type") != "text" or any(position.get(k) != refs[k] for k in refs):
                return Answer(400, body={"message": "400 Bad request - position is invalid"})
            diff = next((d for d in mr["diffs"] if d["new_path"] == position.get("new_path")), None)
            if diff is None or position.get("old_path") != diff["old_path"]:
                return bad_line
            shown = {n: old for lines in hunks(diff["diff"]) for n, old in lines.items()}
            new_line = position.get("new_line")
            if new_line not in shown or position.get("old_line") != shown[new_line]:
                return bad_line
            if (position["new_path"], new_line) in self.refused_lines:
                return bad_line
        note = {"id": next(self.ids), "body": body["body"], "type": "DiffNote" if position else None, "system": False, "position": position}
        discussion = {"mr": (project, iid), "id": f"d{next(self.ids)}", "individual_note": False, "notes": [note]}
        self.discussions.append(discussion)
        return Answer(201, body={k: v for k, v in discussion.items() if k != "mr"})
