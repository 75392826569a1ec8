"""`sortlint server`, end to end: a real LSP client (pytest-lsp) talking to
`python -m sortlint server` over stdio - diagnostics as documents open and change, code
actions and the edits they make, errors of the configuration and of a document that does
not parse, and a dbt model whose upstream model changes in an unsaved buffer."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[2]
CATALOG = (
    "sources:\n"
    "  events:\n"
    "    columns: {id: bigint, host: string not null, time: timestamp not null}\n"
    "    unique: [[id]]\n"
)
# A character beyond the Basic Multilingual Plane: one column for sortlint, two UTF-16 units.
CONSTANT = "SELECT host FROM events WHERE host = '😀' ORDER BY host, time;\n"
DECLARED = "SELECT id, host FROM events ORDER BY id, host;\n"
RULE_PAGE = "https://sortlint.readthedocs.io/en/latest/rules/redundant-sort-keys/"
# What dropping the sort key of `CONSTANT` and `DECLARED` does on Spark, on its own line.
SAME_PLAN = "\non Spark: same plan: an exchange and a sort by fewer keys"

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "sortlint", "server", "--dbt-renderer", "builtin"],
        server_env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ),
)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    lsp_client.diagnostics = Publications()
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def position(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def span(line: int, start: int, end_line: int, end: int) -> types.Range:
    return types.Range(start=position(line, start), end=position(end_line, end))


def warning(range: types.Range, message: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=range, message=message, severity=types.DiagnosticSeverity.Warning, code="SL003",
        code_description=types.CodeDescription(href=RULE_PAGE), source="sortlint",
    )


class Publications(dict):
    """The client's diagnostics by URI, counting how often each URI's were published (the
    same diagnostics published again are a publication too)."""

    def __init__(self) -> None:
        super().__init__()
        self.count: Counter[str] = Counter()

    def __setitem__(self, uri: str, diagnostics) -> None:
        self.count[uri] += 1
        super().__setitem__(uri, diagnostics)


def seen(client: LanguageClient, uri: str) -> int:
    return client.diagnostics.count[uri]


async def published(client: LanguageClient, uri: str, after: int = 0) -> list[types.Diagnostic]:
    """The diagnostics of `uri` once published more than `after` times."""
    for _ in range(1200):
        if seen(client, uri) > after:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics published for {uri}")


def open_document(client: LanguageClient, path: Path, text: str, language: str = "sql") -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    return uri


def change_document(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def test_an_open_document_shows_its_findings_and_they_follow_its_changes(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "q.sql", CONSTANT)
    constant = warning(span(0, 51, 0, 55), "sort key host is constant: WHERE events.host = '😀' (line 1)" + SAME_PLAN)
    assert await published(client, uri) == [constant]

    before = seen(client, uri)
    change_document(client, uri, 2, CONSTANT + DECLARED)  # unsaved: the file is not even on disk
    assert await published(client, uri, before) == [
        constant,
        warning(
            span(1, 41, 1, 45),
            "sort key host is determined by the earlier keys: declared unique key (id) of events (sortlint.yml:2)"
            + SAME_PLAN,
        ),
    ]
    assert not (tmp_path / "q.sql").exists()


async def test_each_diagnostic_says_on_its_own_line_what_its_fix_does_on_spark(client, tmp_path):
    """An effect known (saving operators, or the same plan by fewer keys), none (Spark drops
    the sort itself) and unknown (no fix whose plan to predict): as `check`'s report says them."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "q.sql", (
        "SELECT host, count(*) FROM events WHERE host = 'a' GROUP BY host, time ORDER BY host;\n"
        "WITH p AS (SELECT id, host FROM events ORDER BY host) SELECT e.id FROM events e JOIN p ON e.id = p.id;\n"
        "SELECT time, lag(time) OVER (PARTITION BY time ORDER BY time) AS p FROM events;\n"
    ))

    def diagnostic(range: types.Range, code: str, name: str, message: str) -> types.Diagnostic:
        return types.Diagnostic(
            range=range, message=message, severity=types.DiagnosticSeverity.Warning, code=code,
            code_description=types.CodeDescription(href=f"https://sortlint.readthedocs.io/en/latest/rules/{name}/"),
            source="sortlint",
        )

    assert await published(client, uri) == [
        diagnostic(span(0, 60, 0, 64), "SL103", "redundant-group-keys",
                   "group key host is constant: WHERE events.host = 'a' (line 1)\n"
                   "on Spark: same plan: a hash aggregate by fewer keys"),
        diagnostic(span(0, 71, 0, 84), "SL001", "unnecessary-sort",
                   "ORDER BY [host ASC NULLS FIRST] is already satisfied by its input: WHERE events.host = 'a' (line 1)\n"
                   "on Spark: saves an exchange and a sort"),
        diagnostic(span(1, 39, 1, 52), "SL002", "sort-without-effect",
                   "ORDER BY has no effect: its rows feed a join, which does not keep the order of its inputs. "
                   "Spark removes this sort itself; the clause only misleads readers\n"
                   "on Spark: no runtime effect"),
        diagnostic(span(2, 56, 2, 60), "SL201", "redundant-window-keys",
                   "window order key time is a partition key: constant inside each partition\n"
                   "on Spark: runtime effect unknown: the function needs its window's only ORDER BY key: "
                   "there is no fix whose plan to predict"),
    ]


async def test_changes_typed_in_quick_succession_are_checked_once_typing_pauses(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "q.sql", "SELECT 1;\n")
    assert await published(client, uri) == []
    before = seen(client, uri)
    for version, text in enumerate(["SELECT host FROM", "SELECT host FROM ev", CONSTANT], 2):
        change_document(client, uri, version, text)
    assert [d.code for d in await published(client, uri, before)] == ["SL003"]
    await asyncio.sleep(1)
    assert seen(client, uri) == before + 1  # the two first texts were never checked


async def test_each_fix_is_a_quick_fix_and_unsafe_ones_say_so(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "q.sql", CONSTANT + DECLARED)
    diagnostics = await published(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=span(0, 0, 2, 0),
            context=types.CodeActionContext(diagnostics=diagnostics, only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert [(a.title, a.kind, a.is_preferred, a.diagnostics) for a in actions] == [
        ("Fix SL003: drop the sort key host", "quickfix", True, (diagnostics[0],)),
        ("Fix SL003 (unsafe): drop the sort key host", "quickfix", False, (diagnostics[1],)),
    ]
    assert [a.edit for a in actions] == [
        types.WorkspaceEdit(changes={uri: (types.TextEdit(range=span(0, 51, 0, 57), new_text=""),)}),
        types.WorkspaceEdit(changes={uri: (types.TextEdit(range=span(1, 39, 1, 45), new_text=""),)}),
    ]

    only_the_first_line = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=span(0, 52, 0, 52),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert [a.title for a in only_the_first_line] == ["Fix SL003: drop the sort key host"]


async def test_fix_all_safe_applies_the_safe_fixes_proved(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "q.sql", DECLARED + CONSTANT)
    await published(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=span(0, 0, 0, 0),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Source]),
        )
    )
    assert [(a.title, a.kind) for a in actions] == [("Fix all safe sortlint findings", "source.fixAll.sortlint")]
    # only the safe fix, on line 2; the unsafe one on line 1 stays
    assert actions[0].edit == types.WorkspaceEdit(
        changes={uri: (types.TextEdit(range=span(1, 51, 1, 57), new_text=""),)}
    )


async def test_fix_all_safe_is_resolved_when_the_client_resolves_edits(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "sortlint", "server"],
        server_env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    client = await config.start()
    client.diagnostics = Publications()
    resolving = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
            )
        )
    )
    await client.initialize_session(types.InitializeParams(capabilities=resolving, root_uri=tmp_path.as_uri()))
    try:
        uri = open_document(client, tmp_path / "q.sql", CONSTANT)
        await published(client, uri)
        [action] = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=span(0, 0, 0, 0),
                context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
            )
        )
        assert (action.title, action.edit) == ("Fix all safe sortlint findings", None)
        resolved = await client.code_action_resolve_async(action)
        assert resolved.edit == types.WorkspaceEdit(
            changes={uri: (types.TextEdit(range=span(0, 51, 0, 57), new_text=""),)}
        )
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_a_configuration_error_is_shown_on_the_configuration(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text("target: spark\nsources:\n  events:\n    columns: [host]\n")
    uri = open_document(client, tmp_path / "q.sql", CONSTANT)
    configuration = (tmp_path / "sortlint.yml").as_uri()
    assert await published(client, configuration) == [
        types.Diagnostic(
            range=span(3, 0, 3, 19), message="columns of source 'events' must be a mapping, got a list",
            severity=types.DiagnosticSeverity.Error, code="E002",
            source="sortlint",
        )
    ]
    assert await published(client, uri) == []

    before = seen(client, configuration)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await published(client, configuration, before) == []
    assert [d.code for d in client.diagnostics[uri]] == ["SL003"]


async def test_a_document_that_does_not_parse_shows_the_error_on_its_line(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    uri = open_document(client, tmp_path / "broken.sql", "SELECT 1;\nSELECT host FROM events WHERE (;\n")
    assert await published(client, uri) == [
        types.Diagnostic(
            range=span(1, 0, 1, 32),
            message="cannot parse SQL: Required keyword: 'this' missing for <class 'sqlglot.expressions.core.Paren'>",
            severity=types.DiagnosticSeverity.Error, code="E001",
            source="sortlint",
        )
    ]


async def test_a_dbt_model_follows_its_upstream_model_in_an_unsaved_buffer(client, tmp_path):
    project = tmp_path / "shop"
    (project / "models").mkdir(parents=True)
    (tmp_path / "sortlint.yml").write_text(CATALOG + "target: datafusion\n")  # a model is a view of its query
    (project / "dbt_project.yml").write_text("name: shop\n")
    upstream = project / "models" / "hosts.sql"
    upstream.write_text("select host, time from {{ source('raw', 'events') }}\n")
    reader = open_document(
        client, project / "models" / "report.sql", "select host, time from {{ ref('hosts') }} order by host, time\n"
    )
    assert await published(client, reader) == []

    upstream_uri = open_document(client, upstream, upstream.read_text())
    await published(client, upstream_uri)
    before = seen(client, reader)
    change_document(client, upstream_uri, 2, "select host, time from {{ source('raw', 'events') }} where host = 'a'\n")
    assert await published(client, reader, before) == [
        warning(span(0, 51, 0, 55), "sort key host is constant: WHERE events.host = 'a' (shop/models/hosts.sql:1) (code outside this statement, which may change)"),
    ]
    assert upstream.read_text() == "select host, time from {{ source('raw', 'events') }}\n"

    before = seen(client, reader)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=upstream_uri))
    )
    assert await published(client, reader, before) == []  # the upstream model as saved
    assert client.diagnostics[upstream_uri] == ()
    assert sorted(path.name for path in tmp_path.iterdir()) == [".sortlint_cache", "shop", "sortlint.yml"]


async def test_a_warning_about_the_configuration_is_logged_as_a_warning_once(client, tmp_path):
    project = tmp_path / "shop"
    (project / "models").mkdir(parents=True)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (project / "dbt_project.yml").write_text("name: shop\n")
    (project / "models" / "schema.yml").write_text("models:\n  - name: hosts\n    meta: {sortlint: {orderings: [[host]]}}\n")
    model = project / "models" / "hosts.sql"
    model.write_text("select host, time from {{ source('raw', 'events') }}\n")
    uri = open_document(client, model, model.read_text())
    assert await published(client, uri) == []
    change_document(client, uri, 2, "select host, time from {{ source('raw', 'events') }} -- edited\n")
    await published(client, uri, 1)

    assert [(log.type, log.message) for log in client.log_messages if "stores no files" in log.message] == [
        (types.MessageType.Warning, "shop/models/schema.yml:3: hosts is a view: it stores no files, so its "
                                    "declared ordering is never a layout (no SL301)"),
    ]


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "sortlint", "server", "--dbt-renderer", "builtin"],
    server_env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
)
# Checking this takes seconds (about 1 ms a statement): a check still running when the test
# acts on it.
BIG = "SELECT host FROM events WHERE host = 'a' ORDER BY host, time;\n" * 6000
PATIENCE = 60  # seconds: only so that a server that never answers fails the test, not hangs it


@contextlib.asynccontextmanager
async def session(tmp_path: Path, capabilities: types.ClientCapabilities | None = None):
    """A client of a server of its own, which the test may end as it likes; killed if it is
    still running at the end."""
    client = await SERVER.start()
    client.diagnostics = Publications()
    await client.initialize_session(
        types.InitializeParams(capabilities=capabilities or types.ClientCapabilities(), root_uri=tmp_path.as_uri())
    )
    try:
        yield client
    finally:
        if client._server.returncode is None:
            client._server.kill()
        await client.stop()


async def ended(client: LanguageClient) -> int:
    return await asyncio.wait_for(client._server.wait(), PATIENCE)


async def shut_down(client: LanguageClient) -> int:
    """Shut the server down as the protocol says; its exit code."""
    await asyncio.wait_for(client.shutdown_async(None), PATIENCE)
    client.exit(None)
    return await ended(client)


def errors_without_id(client: LanguageClient) -> list[types.ResponseError]:
    """The error responses the client will receive that answer no request of its own (id null)."""
    received: list[types.ResponseError] = []
    handle = client.protocol._handle_response

    def handle_response(msg_id, result=None, error=None):
        if msg_id is None:
            received.append(error)
        return handle(msg_id, result, error)

    client.protocol._handle_response = handle_response
    return received


def send_raw(client: LanguageClient, data: bytes) -> None:
    client._server.stdin.write(data)


def frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


HOVER = b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": {}}'


@pytest.mark.parametrize(
    "malformed",
    [
        pytest.param(frame(b'{"jsonrpc": "2.0", "id": 98, "method": '), id="not-json"),
        pytest.param(frame(HOVER, length=20), id="content-length-too-short"),
        pytest.param(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + HOVER, id="no-content-length"),
    ],
)
async def test_a_malformed_message_is_logged_and_the_server_goes_on(tmp_path, malformed):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    async with session(tmp_path) as client:
        send_raw(client, malformed)
        uri = open_document(client, tmp_path / "q.sql", CONSTANT)
        assert [d.code for d in await published(client, uri)] == ["SL003"]
        assert [log.type for log in client.log_messages if log.message.startswith("sortlint: ")] != []
        assert all(log.type == types.MessageType.Warning for log in client.log_messages if log.message.startswith("sortlint: "))
        assert await shut_down(client) == 0


async def test_a_body_that_is_not_json_is_answered_with_a_parse_error(tmp_path):
    async with session(tmp_path) as client:
        errors = errors_without_id(client)
        send_raw(client, frame(b'{"jsonrpc": "2.0", "id": 98, "method": '))
        assert await shut_down(client) == 0  # a message after it is answered, so it was read
    assert [(error.code, error.message.split(":")[0]) for error in errors] == [(-32700, "Parse error")]
    [log] = [log.message for log in client.log_messages if log.message.startswith("sortlint: ")]
    assert log.startswith("sortlint: a message that is not JSON") and '{"jsonrpc": "2.0", "id": 98' in log


async def test_exit_without_shutdown_ends_the_server_with_code_1(tmp_path):
    async with session(tmp_path) as client:
        client.exit(None)
        assert await ended(client) == 1


async def test_exit_ends_the_server_while_a_check_never_ends(tmp_path):
    project = tmp_path / "shop"
    (project / "models").mkdir(parents=True)
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    (project / "dbt_project.yml").write_text("name: shop\n")
    # Ten billion turns of a loop: this model's template renders for hours.
    forever = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    async with session(tmp_path) as client:
        model = open_document(client, project / "models" / "m.sql", forever + "select host from {{ source('raw', 'events') }}\n")
        await asyncio.sleep(0.5)  # its check has started
        client.exit(None)
        assert await ended(client) == 1  # no shutdown first
        assert seen(client, model) == 0


async def test_resolving_the_fix_all_of_a_document_gone_says_so_without_a_traceback(tmp_path, capfd):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    resolving = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
            )
        )
    )
    async with session(tmp_path, resolving) as client:
        path = tmp_path / "q.sql"
        path.write_text(CONSTANT)
        uri = open_document(client, path, CONSTANT)
        await published(client, uri)
        [action] = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=span(0, 0, 0, 0),
                context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
            )
        )
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        path.unlink()
        with pytest.raises(JsonRpcException) as raised:
            await client.code_action_resolve_async(action)
        assert (raised.value.code, raised.value.message, raised.value.data) == (
            -32602, f"cannot fix {uri}: it is not open; ask for its code actions again", None
        )
        assert await shut_down(client) == 0
    assert "Traceback" not in capfd.readouterr().err


async def test_an_unknown_command_is_refused_without_a_traceback(tmp_path, capfd):
    async with session(tmp_path) as client:
        with pytest.raises(JsonRpcException) as raised:
            await client.workspace_execute_command_async(types.ExecuteCommandParams(command="sortlint.nothing"))
        assert (raised.value.code, raised.value.message, raised.value.data) == (
            -32602, "unknown command sortlint.nothing", None
        )
        assert await shut_down(client) == 0
    assert "Traceback" not in capfd.readouterr().err


async def test_a_small_document_is_not_kept_waiting_by_the_check_of_a_big_one(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    async with session(tmp_path) as client:
        big = open_document(client, tmp_path / "big.sql", BIG)
        await asyncio.sleep(0.5)  # its check has started
        small = open_document(client, tmp_path / "small.sql", CONSTANT)
        assert [d.code for d in await published(client, small)] == ["SL003"]
        assert seen(client, big) == 0  # the big document's check is still running
        assert await shut_down(client) == 0


def checked(client: LanguageClient) -> list[str]:
    """The checks the server said it finished: each document's name and version, and
    whether it took from the check before what no edit touched."""
    return [
        re.sub(r" in [0-9.]+ s", "", log.message.removeprefix("checked "))
        for log in client.log_messages if log.message.startswith("checked ")
    ]


async def test_a_change_to_a_big_document_abandons_the_check_of_its_text_before(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    async with session(tmp_path) as client:
        uri = open_document(client, tmp_path / "big.sql", BIG)
        await asyncio.sleep(0.5)  # its check has started
        change_document(client, uri, 2, BIG + CONSTANT)
        assert len(await published(client, uri)) == 6001
        assert checked(client) == ["big.sql (version 2)"]  # the check of version 1 never ended
        assert await shut_down(client) == 0


async def test_an_edit_of_a_big_document_analyses_again_only_the_statements_it_touched(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    lines = BIG.splitlines(keepends=True)
    async with session(tmp_path) as client:
        uri = open_document(client, tmp_path / "big.sql", DECLARED + BIG)
        assert 3000 in {d.range.start.line for d in await published(client, uri)}
        assert len(client.diagnostics[uri]) == 6001

        lines[2999] = "SELECT host FROM events ORDER BY host, time;\n"  # its finding gone, no line moved
        change_document(client, uri, 2, DECLARED + "".join(lines))
        after_edit = await published(client, uri, 1)
        assert len(after_edit) == 6000 and "declared unique key (id)" in after_edit[0].message
        assert 3000 not in {d.range.start.line for d in after_edit}

        # The catalog no longer declares the key: no statement's analysis before holds.
        (tmp_path / "sortlint.yml").write_text(CATALOG.replace("    unique: [[id]]\n", ""))
        lines[5999] = lines[5999].replace("'a'", "'b'")
        change_document(client, uri, 3, DECLARED + "".join(lines))
        after_catalog = await published(client, uri, 2)
        assert len(after_catalog) == 5999 and "declared unique key" not in after_catalog[0].message
        assert checked(client) == [
            "big.sql (version 1)",
            "big.sql (version 2), the statements no edit touched taken from the check before",
            "big.sql (version 3)",
        ]
        assert await shut_down(client) == 0


async def test_edits_of_a_big_document_adding_or_removing_lines_or_a_noqa_move_the_rest(tmp_path):
    """Statements whose messages cite no line (`BIG`'s cite their WHERE's) move with the
    lines an edit adds or removes before them: they are taken from the check before."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    lines = ["SELECT host, time FROM events ORDER BY time, host, time;\n"] * 6000
    async with session(tmp_path) as client:
        uri = open_document(client, tmp_path / "big.sql", DECLARED + "".join(lines))
        first = await published(client, uri)
        assert len(first) == 6001

        change_document(client, uri, 2, "-- a line\n-- and another\n" + DECLARED + "".join(lines))  # all two lines down
        assert await published(client, uri, 1) == [moved(diagnostic, 2) for diagnostic in first]

        lines[2999] = lines[2999].replace(";", "; -- noqa: SL003")  # its finding silenced
        del lines[10:12]  # two statements gone, the lines after them up two
        change_document(client, uri, 3, "-- a line\n-- and another\n" + DECLARED + "".join(lines))
        after = await published(client, uri, 2)
        assert after == [moved(d, 2) for d in first[:11]] + [d for d in first[13:] if d.range.start.line != 3000]

        # A statement before another on its line: the other's columns in UTF-16 move when
        # a character beyond the BMP takes the place of one that is not.
        lines[100] = "SELECT 'x'; " + lines[100]
        change_document(client, uri, 4, "-- a line\n-- and another\n" + DECLARED + "".join(lines))
        before_emoji = await published(client, uri, 3)
        lines[100] = lines[100].replace("'x'", "'😀'")
        change_document(client, uri, 5, "-- a line\n-- and another\n" + DECLARED + "".join(lines))
        after_emoji = await published(client, uri, 4)
        assert [d.range for d in before_emoji if d.range.start.line == 103] == [span(103, 63, 103, 67)]
        assert [d.range for d in after_emoji if d.range.start.line == 103] == [span(103, 64, 103, 68)]
        assert [d for d in after_emoji if d.range.start.line != 103] == [
            d for d in before_emoji if d.range.start.line != 103
        ]
        assert checked(client) == [
            "big.sql (version 1)",
            *(f"big.sql (version {version}), the statements no edit touched taken from the check before"
              for version in range(2, 6)),
        ]
        assert await shut_down(client) == 0


async def test_an_edit_of_a_big_document_changing_only_a_findings_spark_effect_shows_the_new_one(tmp_path):
    """A LIMIT typed after a sort: its finding stays where it was and says the same, but
    dropping its key now lightens a sorted top-k, not an exchange and a sort - the worker
    sends it as changed (`changes`), and the diagnostic is made again."""
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    lines = BIG.splitlines(keepends=True)
    async with session(tmp_path) as client:
        uri = open_document(client, tmp_path / "big.sql", "".join(lines))
        first = await published(client, uri)
        constant = "sort key host is constant: WHERE events.host = 'a' (line 3001)"
        assert [d.message for d in first if d.range.start.line == 3000] == [constant + SAME_PLAN]

        lines[3000] = lines[3000].replace(";", " LIMIT 10;")
        change_document(client, uri, 2, "".join(lines))
        after = await published(client, uri, 1)
        assert [(d.range, d.message) for d in after if d.range.start.line == 3000] == [
            (span(3000, 50, 3000, 54), constant + "\non Spark: same plan: a sorted top-k by fewer keys")
        ]
        assert [d for d in after if d.range.start.line != 3000] == [d for d in first if d.range.start.line != 3000]
        assert checked(client)[-1] == "big.sql (version 2), the statements no edit touched taken from the check before"
        assert await shut_down(client) == 0


def moved(diagnostic: types.Diagnostic, lines: int) -> types.Diagnostic:
    start, end = diagnostic.range.start, diagnostic.range.end
    return types.Diagnostic(
        range=span(start.line + lines, start.character, end.line + lines, end.character),
        message=diagnostic.message, severity=diagnostic.severity, code=diagnostic.code,
        code_description=diagnostic.code_description, source=diagnostic.source,
    )


async def test_a_big_document_follows_a_view_another_document_defines(tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG)
    view = tmp_path / "v.sql"
    view.write_text("CREATE VIEW v AS SELECT host, time FROM events WHERE host = 'a';\n")
    reader = "SELECT host, time FROM v ORDER BY host, time;\n"
    async with session(tmp_path) as client:
        view_uri = open_document(client, view, view.read_text())
        uri = open_document(client, tmp_path / "big.sql", BIG + reader)
        diagnostics = await published(client, uri)
        assert len(diagnostics) == 6001 and "(v.sql:1)" in diagnostics[-1].message

        before = seen(client, uri)
        change_document(client, view_uri, 2, "CREATE VIEW v AS SELECT host, time FROM events;\n")
        assert len(await published(client, uri, before)) == 6000  # what the big document read changed
        assert checked(client)[-1] == "big.sql (version 1)"  # so nothing was taken from before
        assert await shut_down(client) == 0


async def test_a_template_that_never_ends_is_its_documents_error_and_the_server_goes_on(client, tmp_path):
    (tmp_path / "sortlint.yml").write_text(CATALOG + "dbt:\n  render_timeout: 1\n")
    loops = "SELECT host FROM events {% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    uri = open_document(client, tmp_path / "loops.sql", loops + "\n")
    assert await published(client, uri) == [
        types.Diagnostic(
            range=span(0, 0, 0, len(loops)),
            message="rendering took longer than 1 s; a template that never ends? (sortlint.yml's "
                    "`dbt: {render_timeout: ...}` sets the limit)",
            severity=types.DiagnosticSeverity.Error, code="E001", source="sortlint",
        )
    ]
    change_document(client, uri, 2, CONSTANT)
    assert [d.code for d in await published(client, uri, 1)] == ["SL003"]


# A big document of statements, one a line, with strings and comments holding `;`, and a
# view its readers after it read.
MIXED = "SELECT host FROM events WHERE host = 'a;b' ORDER BY host, time; -- c;\n"
VIEW = "CREATE VIEW v AS SELECT host, time FROM events WHERE host = 'a';\n"
READER = "SELECT host, time FROM v ORDER BY host, time;\n"
EDITS = [  # what an edit does to the line it is made on (or nothing, where it cannot)
    lambda line: line.replace("'a;b'", "'a;;b'"),  # a `;` typed in a string
    lambda line: line.replace("time; --", "time --"),  # a `;` removed: two statements one
    lambda line: line.replace("'a;b'", "'a;b"),  # a string opened, up to the next quote
    lambda line: line.replace("-- c;", "/* c;"),  # a comment opened, to the end of the file
    lambda line: line.replace("host = 'a'", "host = 'b'"),  # what the view's readers read
    lambda line: "SELECT 1; " + line,  # a statement added
    lambda line: line.replace("ORDER BY host, time", "ORDER BY time"),  # a finding gone
    lambda line: "\n" + line,  # a line added: the lines after it move, the view's among them
    lambda line: line.replace("\n", " "),  # a line removed: two lines one
    lambda line: "",  # a statement and its line removed (the view, its reader)
    lambda line: line.replace("-- c;", "-- noqa: SL003 c;"),  # a finding silenced
]


@pytest.mark.parametrize("seed", range(3))
async def test_any_edits_of_a_big_document_give_the_diagnostics_of_its_text_checked_afresh(tmp_path, seed):
    chosen = random.Random(seed)
    lines = [DECLARED] + [MIXED] * 800 + [VIEW] + [READER, MIXED] * 400 + [MIXED] * 300
    (tmp_path / "edited").mkdir()
    (tmp_path / "afresh").mkdir()
    for folder in ("edited", "afresh"):
        (tmp_path / folder / "sortlint.yml").write_text(CATALOG)
    async with session(tmp_path / "edited") as client:
        uri = open_document(client, tmp_path / "edited" / "big.sql", "".join(lines))
        await published(client, uri)
        for version in range(2, 10):
            where = chosen.choice([801, 802, chosen.randrange(len(lines))])  # the view, its reader, or any
            lines[where] = chosen.choice(EDITS)(lines[where])
            change_document(client, uri, version, "".join(lines))
            edited = await published(client, uri, version - 1)
        assert any(check.endswith("taken from the check before") for check in checked(client))
        assert await shut_down(client) == 0
    async with session(tmp_path / "afresh") as client:
        uri = open_document(client, tmp_path / "afresh" / "big.sql", "".join(lines))
        assert edited == await published(client, uri)
        assert await shut_down(client) == 0
