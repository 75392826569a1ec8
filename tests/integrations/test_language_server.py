"""`sortlint server`, end to end: a real LSP client (pytest-lsp) talking to
`python -m sortlint server` over stdio - diagnostics as documents open and change, code
actions and the edits they make, errors of the configuration and of a document that does
not parse, and a dbt model whose upstream model changes in an unsaved buffer."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
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
    constant = warning(span(0, 51, 0, 55), "sort key host is constant: WHERE events.host = '😀' (line 1)")
    assert await published(client, uri) == [constant]

    before = seen(client, uri)
    change_document(client, uri, 2, CONSTANT + DECLARED)  # unsaved: the file is not even on disk
    assert await published(client, uri, before) == [
        constant,
        warning(
            span(1, 41, 1, 45),
            "sort key host is determined by the earlier keys: declared unique key (id) of events (sortlint.yml:2)",
        ),
    ]
    assert not (tmp_path / "q.sql").exists()


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
