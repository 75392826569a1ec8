"""Reading the client's messages: LSP's base protocol, tolerant of a message that breaks it.

Each message is headers (`Content-Length: N`, maybe others), an empty line, then N bytes
of JSON. pygls's reader assumes every client gets this right: a frame whose length is
shorter than its body leaves the rest of the body in front of the next header, a frame
without `Content-Length` leaves its whole body there, and either way the next header is
never recognised again - the server lives on but hears nothing more, `shutdown` included.
Here a `Content-Length` header is found wherever its line begins (what comes before it is
what is left of a broken message), whatever the case of its name and the spaces around
its value, so that the next well-formed message is read whatever came before it.

What cannot be read is logged, through `complain`, and the server goes on: a body that is
not JSON is answered with JSON-RPC's Parse error (-32700, id null), as the specification
says; a body that is JSON but no JSON-RPC message with Invalid Request (-32600); a request
whose parameters are not what its method takes with Invalid Params (-32602), its id
echoed, so that the client's request does not wait forever.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from pygls.io_ import StdinAsyncReader
from pygls.protocol import JsonRPCProtocol

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([0-9]+)[ \t]*\r?\n?\Z", re.IGNORECASE)
_HEADER = re.compile(rb"[A-Za-z0-9-]+[ \t]*:[^\r\n]*\r?\n?\Z")
_SHOWN = 200  # bytes of a bad message quoted in the log


async def read_messages(
    stop: threading.Event, reader: StdinAsyncReader, protocol: JsonRPCProtocol, complain: Callable[[str], None]
) -> None:
    """Hand each message read to `protocol` until the input ends or `stop` is set."""
    length: int | None = None
    junk = b""  # bytes that belong to no message, said once the next message starts
    headers = False  # a header of the next message was read
    while not stop.is_set():
        line = await reader.readline()
        if not line:
            break
        found = _CONTENT_LENGTH.search(line)
        if found is not None:
            junk += line[: found.start()]
            if junk:
                complain(f"skipped {len(junk)} bytes that are no message: {_quoted(junk)}")
                junk = b""
            length, headers = int(found.group(1)), True
            continue
        if line.strip():
            if _HEADER.fullmatch(line) is not None:
                headers = True
            else:
                junk += line
            continue
        # The empty line ending the headers.
        if length is None:
            if headers:
                complain("a message without Content-Length: skipped, up to the next Content-Length header")
            headers = False
            continue
        body = await reader.readexactly(length)
        if len(body) < length:  # the input ended inside the message
            break
        length, headers = None, False
        _handle(body, protocol, complain)
    if junk:
        complain(f"skipped {len(junk)} bytes that are no message: {_quoted(junk)}")


def _handle(body: bytes, protocol: JsonRPCProtocol, complain: Callable[[str], None]) -> None:
    try:
        data = json.loads(body)
    except ValueError as error:  # not UTF-8, or not JSON
        complain(f"a message that is not JSON ({error}): {_quoted(body)}")
        _answer(protocol, None, PARSE_ERROR, f"Parse error: {error}")
        return
    request_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0" or not ("method" in data or "id" in data):
        complain(f"a message that is no JSON-RPC 2.0 message: {_quoted(body)}")
        _answer(protocol, request_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
        return
    try:
        # pygls structures a message as `json.loads` builds it (its `object_hook`): only the
        # outermost object, the one with "jsonrpc", is changed, so this is the same.
        message = protocol.structure_message(data)
    except Exception as error:
        method = data.get("method")
        complain(f"a {method!r} message whose contents are not what it takes ({error}): {_quoted(body)}")
        if "method" in data and request_id is not None:
            _answer(protocol, request_id, INVALID_PARAMS, f"Invalid Params: not what {method} takes")
        return
    try:
        protocol.handle_message(message)
    except Exception as error:  # pygls answers a request's own errors; this is any other
        logger.exception("Unable to handle message")
        complain(f"could not handle a message ({type(error).__name__}: {error}): {_quoted(body)}")


def _answer(protocol: JsonRPCProtocol, request_id: Any, code: int, message: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def _quoted(data: bytes) -> str:
    shown = data[:_SHOWN].decode("utf-8", "backslashreplace")
    return repr(shown) + ("..." if len(data) > _SHOWN else "")
