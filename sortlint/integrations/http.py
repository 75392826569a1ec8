"""A small JSON client for the GitHub and GitLab REST APIs, on the standard library.

What users need from it: a list read whole (pages followed through the `Link` header), a
rate limit waited out (GitHub's and GitLab's 403/429 with `Retry-After` or a reset time) a
bounded number of times, and every failure turned into one line that says what to do.
The token goes into a header and never into a message: any text a server sends back is
shown with the token blotted out. It goes only to the API's own origin (scheme, host and
port): a redirect within it is followed with the token, a redirect to any other address is
refused, and so is a next page elsewhere.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sortlint import __version__
from sortlint.errors import UserError

RETRIES = 3  # rate-limited attempts before giving up
LONGEST_WAIT = 120.0  # seconds; a limit that resets later than this is reported, not waited out
PAGES = 100  # pages read of one list at most
TIMEOUT = 30.0  # seconds for a request's connection and each read


class _CrossOriginRedirect(Exception):
    def __init__(self, address: str) -> None:
        self.address = address


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """urllib follows a redirect with the request's headers, the token's among them: one
    that leaves the request's origin is stopped before anything is sent there."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            fp.close()
            raise _CrossOriginRedirect(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


class Rejected(UserError):
    """The server refused a request's content (GitHub's 422, GitLab's 400). A caller that
    knows what to do instead catches it; otherwise it is reported like any failure."""


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    data: object  # the decoded JSON body (None when empty)


@dataclass
class Client:
    """Requests to one API (`base_url`, e.g. https://api.github.com) with `headers` (the
    token's among them). `service` names the API in messages, `token_hint` says where the
    token came from and `address_hint` where the address did. `notify` is told of each
    wait; `sleep` and `clock` are time's (tests pass their own)."""

    base_url: str
    headers: Mapping[str, str]
    token: str
    service: str
    token_hint: str
    rejected_statuses: frozenset[int] = frozenset({422})
    notify: Callable[[str], None] = lambda message: None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    address_hint: str = "the API's address"

    def get(self, path: str, query: Mapping[str, object] | None = None) -> object:
        return self.request("GET", path, query=query).data

    def get_all(self, path: str, query: Mapping[str, object] | None = None) -> list:
        """Every item of a paginated list, following `Link: <...>; rel="next"`."""
        items: list = []
        url = self._url(path, {"per_page": 100, **(query or {})})
        for _ in range(PAGES):
            response = self._send("GET", url, None)
            if not isinstance(response.data, list):
                raise UserError(f"{self.service}: expected a list from GET {_path_of(url)}")
            items += response.data
            url = next_page(response.headers.get("Link", ""))
            if url is None:
                return items
            self._check_same_origin(url)
        raise UserError(f"{self.service}: GET {path} has more than {PAGES} pages")

    def request(self, method: str, path: str, body: object = None, query: Mapping[str, object] | None = None) -> Response:
        return self._send(method, self._url(path, query), body)

    def _url(self, path: str, query: Mapping[str, object] | None) -> str:
        url = self.base_url.rstrip("/") + path
        return url + ("?" + urllib.parse.urlencode(query) if query else "")

    def _check_same_origin(self, url: str) -> None:
        """The token goes only to the API it is for, whatever a `Link` header says."""
        if _origin(url) != _origin(self.base_url):
            raise UserError(f"{self.service}: a next page at another address ({_origin(url)}) was not followed")

    def _send(self, method: str, url: str, body: object) -> Response:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {
            "Accept": "application/json",
            "User-Agent": f"sortlint/{__version__}",
            **self.headers,
        }
        if data is not None:
            headers["Content-Type"] = "application/json"
        what = f"{method} {_path_of(url)}"
        for attempt in range(RETRIES + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with _OPENER.open(request, timeout=TIMEOUT) as reply:
                    return Response(reply.status, reply.headers, _decoded(reply.read()))
            except _CrossOriginRedirect as redirect:
                raise UserError(
                    f"{self.service}: {what} was redirected to another address ({_origin(redirect.address)}), "
                    f"which is not followed: the token goes only to {_origin(self.base_url)} "
                    f"(check {self.address_hint} or --api-url)"
                ) from None
            except urllib.error.HTTPError as error:
                with error:
                    text = error.read().decode("utf-8", "replace")
                    wait = self._rate_limit_wait(error.code, error.headers, text)
                if wait is None:
                    raise self._failure(what, error.code, text) from None
                if attempt == RETRIES or wait > LONGEST_WAIT:
                    raise UserError(
                        f"{self.service}: rate limited on {what}; the limit resets in "
                        f"{wait:.0f} s: run again later"
                    ) from None
                self.notify(f"{self.service}: rate limited on {what}; retrying in {wait:.0f} s")
                self.sleep(wait)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
                reason = getattr(error, "reason", error)
                raise UserError(f"{self.service}: cannot reach {_origin(url)} ({self._hidden(str(reason))})") from None
        raise AssertionError("unreachable")  # the loop returns or raises

    def _rate_limit_wait(self, status: int, headers, text: str) -> float | None:
        """Seconds to wait before retrying, or None when this is not a rate limit.

        GitHub: 403 or 429 with `Retry-After` (secondary limits), or with
        `x-ratelimit-remaining: 0` and the reset time in `x-ratelimit-reset` (epoch
        seconds); GitLab: 429 with `Retry-After` or `RateLimit-Reset`."""
        if status not in (403, 429):
            return None
        retry_after = headers.get("Retry-After")
        if retry_after:
            return max(0.0, _seconds(retry_after, self.clock()))
        reset = headers.get("x-ratelimit-reset") or headers.get("RateLimit-Reset")
        remaining = headers.get("x-ratelimit-remaining") or headers.get("RateLimit-Remaining")
        if reset and (remaining == "0" or status == 429):
            try:
                return max(0.0, float(reset) - self.clock()) + 1.0
            except ValueError:
                return None
        if status == 429 or "rate limit" in text.lower():
            return 60.0  # GitHub: without headers, wait at least a minute
        return None

    def _failure(self, what: str, status: int, text: str) -> Exception:
        message = self._hidden(_server_message(text))
        said = f": {message}" if message else ""
        if status in self.rejected_statuses:
            return Rejected(f"{self.service}: {what} was refused ({status}{said})")
        if status == 401:
            return UserError(f"{self.service}: {what} was refused (401 unauthorized{said}): check the token in {self.token_hint}")
        if status == 403:
            return UserError(f"{self.service}: {what} was refused (403 forbidden{said}): the token in {self.token_hint} lacks the permission")
        if status == 404:
            return UserError(f"{self.service}: {what} was not found (404{said}): check the repository and number, and that the token can see them")
        return UserError(f"{self.service}: {what} failed ({status}{said})")

    def _hidden(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text


def next_page(link: str) -> str | None:
    """The `rel="next"` address of a `Link` header (RFC 8288), or None."""
    for part in link.split(","):
        address, _, params = part.partition(";")
        relations = [p.strip() for p in params.split(";")]
        if any(r.replace(" ", "") in ('rel="next"', "rel=next") for r in relations):
            return address.strip().removeprefix("<").removesuffix(">")
    return None


def _seconds(retry_after: str, now: float) -> float:
    """`Retry-After`: a number of seconds or an HTTP date."""
    try:
        return float(retry_after)
    except ValueError:
        when = email.utils.parsedate_to_datetime(retry_after)
        return when.timestamp() - now


def _decoded(body: bytes) -> object:
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except ValueError:
        raise UserError("the server's answer is not JSON") from None


def _server_message(text: str) -> str:
    """What the server said about a failure, on one line."""
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:200]
    if isinstance(data, dict):
        parts = [str(data.get("message") or data.get("error") or "")]
        errors = data.get("errors")
        if isinstance(errors, list):
            parts += [e if isinstance(e, str) else str(e.get("message") or e) for e in errors]
        return "; ".join(p for p in parts if p)[:500]
    return ""


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _path_of(url: str) -> str:
    return urllib.parse.urlsplit(url).path
