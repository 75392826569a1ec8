"""The JSON client against a real HTTP server on 127.0.0.1: pages, rate limits waited out
a bounded number of times, failures as one line that never shows the token."""

from __future__ import annotations

import socket
from email.utils import formatdate

import pytest
from api_server import Answer, FakeApi

from sortlint.errors import UserError
from sortlint.integrations.http import LONGEST_WAIT, RETRIES, Client, Rejected, next_page

TOKEN = "ghp_secret-token-123"
FILES = [{"filename": f"f{n}.sql", "status": "added", "patch": ""} for n in range(5)]
PATH = "/repos/acme/warehouse/pulls/7/files"


@pytest.fixture
def api():
    with FakeApi(token=TOKEN, page_size=2) as server:
        server.add_pull("acme/warehouse", 7, "0" * 40, FILES)
        yield server


class Clock:
    """Time that moves only when slept through."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def client(api: FakeApi, token: str = TOKEN, clock: Clock | None = None, notices: list | None = None) -> Client:
    clock = clock or Clock()
    return Client(
        api.url, {"Authorization": f"Bearer {token}"}, token, "GitHub", "GITHUB_TOKEN",
        frozenset({422}), (notices if notices is not None else []).append, clock.sleep, clock, "GITHUB_API_URL",
    )


def test_a_list_is_read_whole_through_the_link_header(api):
    assert client(api).get_all(PATH) == FILES
    assert [(r.method, r.path, r.query) for r in api.requests] == [
        ("GET", PATH, {"per_page": "100"}),
        ("GET", PATH, {"per_page": "100", "page": "2"}),
        ("GET", PATH, {"per_page": "100", "page": "3"}),
    ]
    first = api.requests[0].headers
    assert first["authorization"] == f"Bearer {TOKEN}"
    assert first["user-agent"].startswith("sortlint/")


def test_a_rate_limit_with_retry_after_is_waited_out(api):
    clock, notices = Clock(), []
    api.answer_next(Answer(429, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit"}))
    assert client(api, clock=clock, notices=notices).get_all(PATH) == FILES
    assert clock.slept == [1.0]
    assert notices == [f"GitHub: rate limited on GET {PATH}; retrying in 1 s"]
    assert [r.query.get("page") for r in api.requests] == [None, None, "2", "3"]


def test_retry_after_as_an_http_date(api):
    clock = Clock()
    api.answer_next(Answer(403, {"Retry-After": formatdate(clock.now + 20, usegmt=True)}, {"message": "secondary rate limit"}))
    client(api, clock=clock).get(PATH)
    assert clock.slept == [20.0]


def test_an_exhausted_primary_limit_waits_until_its_reset(api):
    clock = Clock()
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(clock.now) + 30)}
    api.answer_next(Answer(403, reset, {"message": "API rate limit exceeded for installation ID 1."}))
    client(api, clock=clock).get(PATH)
    assert clock.slept == [31.0]  # one second past the reset


def test_retries_are_bounded(api):
    clock = Clock()
    api.answer_next(*[Answer(429, {"Retry-After": "2"}) for _ in range(RETRIES + 1)])
    with pytest.raises(UserError) as raised:
        client(api, clock=clock).get(PATH)
    assert str(raised.value) == f"GitHub: rate limited on GET {PATH}; the limit resets in 2 s: run again later"
    assert clock.slept == [2.0] * RETRIES
    assert len(api.requests) == RETRIES + 1


def test_a_limit_that_resets_too_late_is_not_waited_for(api):
    clock = Clock()
    api.answer_next(Answer(429, {"Retry-After": str(int(LONGEST_WAIT) + 600)}))
    with pytest.raises(UserError) as raised:
        client(api, clock=clock).get(PATH)
    assert str(raised.value) == f"GitHub: rate limited on GET {PATH}; the limit resets in {int(LONGEST_WAIT) + 600} s: run again later"
    assert clock.slept == []


def test_a_403_that_is_no_rate_limit_is_a_permission_error(api):
    api.answer_next(Answer(403, {}, {"message": "Resource not accessible by integration"}))
    with pytest.raises(UserError) as raised:
        client(api).get(PATH)
    assert str(raised.value) == (
        f"GitHub: GET {PATH} was refused (403 forbidden: Resource not accessible by integration): "
        "the token in GITHUB_TOKEN lacks the permission"
    )


def test_a_wrong_token_is_one_line_without_the_token(api):
    with pytest.raises(UserError) as raised:
        client(api, token="ghp_wrong-token-456").get(PATH)
    assert str(raised.value) == f"GitHub: GET {PATH} was refused (401 unauthorized: Bad credentials): check the token in GITHUB_TOKEN"


def test_a_server_repeating_the_token_does_not_get_it_printed(api):
    api.answer_next(Answer(401, {}, {"message": f"token {TOKEN} is revoked"}))
    with pytest.raises(UserError) as raised:
        client(api).get(PATH)
    assert TOKEN not in str(raised.value)
    assert "token *** is revoked" in str(raised.value)


def test_not_found(api):
    with pytest.raises(UserError) as raised:
        client(api).get("/repos/acme/warehouse/pulls/8/files")
    assert str(raised.value) == (
        "GitHub: GET /repos/acme/warehouse/pulls/8/files was not found (404: Not Found): "
        "check the repository and number, and that the token can see them"
    )


def test_refused_content_is_for_the_caller_to_handle(api):
    with pytest.raises(Rejected) as raised:
        client(api).request("POST", "/repos/acme/warehouse/pulls/7/reviews", {"event": "COMMENT", "body": "x", "commit_id": "1" * 40})
    assert str(raised.value) == (
        "GitHub: POST /repos/acme/warehouse/pulls/7/reviews was refused (422: Unprocessable Entity; Line could not be resolved)"
    )
    assert api.requests[0].body == {"event": "COMMENT", "body": "x", "commit_id": "1" * 40}
    assert api.requests[0].headers["content-type"] == "application/json"


def test_a_server_that_is_not_there():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable = Client(f"http://127.0.0.1:{port}", {}, TOKEN, "GitHub", "GITHUB_TOKEN")
    with pytest.raises(UserError) as raised:
        unreachable.get(PATH)
    assert str(raised.value).startswith(f"GitHub: cannot reach http://127.0.0.1:{port} (")


def test_a_next_page_elsewhere_is_not_followed(api):
    api.answer_next(Answer(200, {"Link": '<http://203.0.113.9/steal?page=2>; rel="next"'}, []))
    with pytest.raises(UserError) as raised:
        client(api).get_all(PATH)
    assert str(raised.value) == "GitHub: a next page at another address (http://203.0.113.9) was not followed"
    assert len(api.requests) == 1


def test_next_page_in_a_link_header():
    link = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"'
    assert next_page(link) == "https://api.github.com/x?page=2"
    assert next_page('<https://gitlab.example.com/x?page=1>; rel="first"') is None
    assert next_page("") is None


def test_a_redirect_within_the_api_is_followed_with_the_token(api):
    api.answer_next(Answer(301, {"Location": f"{api.url}{PATH}?moved=1"}))
    assert client(api).get(PATH) == FILES[:2]
    assert [(r.path, r.query, r.headers["authorization"]) for r in api.requests] == [
        (PATH, {}, f"Bearer {TOKEN}"),
        (PATH, {"moved": "1"}, f"Bearer {TOKEN}"),
    ]


def test_a_redirect_to_another_address_is_not_followed(api):
    with FakeApi(token="") as elsewhere:
        api.answer_next(Answer(302, {"Location": f"{elsewhere.url}/collect"}))
        with pytest.raises(UserError) as raised:
            client(api).request("POST", PATH, {"body": "x"})
        assert elsewhere.requests == []
    assert str(raised.value) == (
        f"GitHub: POST {PATH} was redirected to another address ({elsewhere.url}), which is not followed: "
        f"the token goes only to {api.url} (check GITHUB_API_URL or --api-url)"
    )
    [asked] = api.requests
    assert (asked.method, asked.headers["authorization"], asked.body) == ("POST", f"Bearer {TOKEN}", {"body": "x"})
