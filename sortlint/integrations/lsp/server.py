"""The language server: pygls over stdio.

When documents are checked: at once when one is opened, saved or closed; `DEBOUNCE` seconds
after the last change, so that typing is checked once it pauses (a newer change cancels the
check an older one was waiting for). A check covers every open document of each project a
change touched - a model's readers see its new text - and publishes each one's diagnostics;
a document whose text changed while it was checked is left to the check its change asked
for. Checks run one at a time on a thread of their own, so that the server keeps reading
the client's messages meanwhile (and `standing_in` is never shared by two checks).

Errors of other files the check read - the configuration, a catalog - are published on
those files, and cleared there once they are gone.
"""

from __future__ import annotations

import asyncio
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from sortlint import __version__
from sortlint.diagnostics import Applicability, Finding
from sortlint.integrations.lsp import protocol
from sortlint.integrations.lsp.checking import ProjectCheck, Settings, check_documents, fix_safely
from sortlint.sources.registry import SUFFIXES

DEBOUNCE = 0.3  # seconds without a change before the changed documents are checked


@dataclass(frozen=True)
class Shown:
    """A document's last published check: the text checked, its findings and their
    diagnostics (what its quick fixes are made from)."""

    text: str
    findings: tuple[tuple[Finding, types.Diagnostic], ...]


class SortlintServer(LanguageServer):
    def __init__(self, settings: Settings) -> None:
        super().__init__("sortlint", __version__)
        self.settings = settings
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sortlint-check")
        self.lock = asyncio.Lock()
        self.changed: set[Path] = set()  # files changed since the last check was scheduled
        self.waiting: asyncio.Task | None = None  # the debounce before the next check
        self.shown: dict[str, Shown] = {}  # by document URI
        self.elsewhere: dict[Path | None, set[str]] = {}  # by project: other files' URIs given errors
        self.said: set[str] = set()  # messages logged once

    def schedule(self, uri: str, delay: float) -> None:
        self.changed.add(_path(uri))
        if self.waiting is not None:
            self.waiting.cancel()
        self.waiting = asyncio.get_running_loop().create_task(self._after(delay))

    async def _after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        changed, self.changed, self.waiting = self.changed, set(), None
        # A task of its own: a later change cancels a debounce, never a check under way.
        asyncio.get_running_loop().create_task(self.recheck(changed))

    async def recheck(self, changed: set[Path]) -> None:
        async with self.lock:
            for project in dict.fromkeys(self.settings.project_of(path) for path in sorted(changed)):
                await self._check_project(project)

    async def _check_project(self, project: Path | None) -> None:
        documents = {
            path: document
            for path, document in self.open_files().items()
            if path.suffix in SUFFIXES and self.settings.project_of(path) == project
        }
        texts = {path: document.source for path, document in documents.items()}
        found = await asyncio.get_running_loop().run_in_executor(
            self.checker, check_documents, list(documents), project, self.buffers(), self.settings
        )
        for path, document in documents.items():
            if document.source == texts[path]:
                self._show(document.uri, texts[path], document.version, found, path)
        self._show_elsewhere(project, found, set(documents))
        for kind, messages in ((types.MessageType.Info, found.messages), (types.MessageType.Warning, found.warnings)):
            for message in messages:
                if message not in self.said:
                    self.said.add(message)
                    self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def open_files(self) -> dict[Path, TextDocument]:
        """The open documents that are files (an untitled buffer has no configuration)."""
        return {
            _path(document.uri): document
            for document in self.workspace.text_documents.values()
            if document.uri.startswith("file:")
        }

    def buffers(self) -> dict[Path, str]:
        return {path: document.source for path, document in self.open_files().items()}

    def _show(self, uri: str, text: str, version: int | None, found: ProjectCheck, path: Path) -> None:
        codec = self.workspace.position_codec
        lines = protocol.lines_of(text)
        resolved = path.resolve()
        analysis = found.files.get(resolved)
        findings = tuple(
            (finding, protocol.finding_diagnostic(finding, lines, codec))
            for finding in (analysis.findings if analysis is not None else [])
        )
        errors = [protocol.error_diagnostic(error, lines, codec) for error in found.errors.get(resolved, [])]
        self.shown[uri] = Shown(text, findings)
        diagnostics = [diagnostic for _, diagnostic in findings] + errors
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def _show_elsewhere(self, project: Path | None, found: ProjectCheck, documents: set[Path]) -> None:
        """Publish the errors of files other than the documents checked, and clear the
        files that had some the last time and have none now."""
        resolved_documents = {path.resolve() for path in documents}
        codec = self.workspace.position_codec
        now: set[str] = set()
        for path, errors in found.errors.items():
            if path in resolved_documents:
                continue
            uri = path.as_uri()
            lines = protocol.lines_of(self._text_of(path))
            diagnostics = [protocol.error_diagnostic(error, lines, codec) for error in errors]
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
            now.add(uri)
        for uri in self.elsewhere.get(project, set()) - now:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.elsewhere[project] = now

    def _text_of(self, path: Path) -> str:
        for open_path, document in self.open_files().items():
            if open_path.resolve() == path:
                return document.source
        try:
            return path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return ""

    async def fix_all(self, uri: str) -> types.WorkspaceEdit:
        """The edit applying every safe fix of the document as it is now (none: nothing to fix)."""
        text = self.workspace.get_text_document(uri).source
        fixed = await asyncio.get_running_loop().run_in_executor(
            self.checker, fix_safely, _path(uri), self.buffers(), self.settings
        )
        if fixed is None or fixed == text:
            return types.WorkspaceEdit(changes={})
        return protocol.replacement(uri, text, fixed, self.workspace.position_codec)

    def resolves_edits(self) -> bool:
        """Whether the client asks for a code action's edit only once it is chosen."""
        code_action = self.client_capabilities.text_document and self.client_capabilities.text_document.code_action
        support = code_action.resolve_support if code_action else None
        return support is not None and "edit" in support.properties


def _path(uri: str) -> Path:
    return Path(to_fs_path(uri) or uri)


def build(settings: Settings) -> SortlintServer:
    server = SortlintServer(settings)

    @server.feature(types.INITIALIZED)
    def initialized(ls: SortlintServer, params: types.InitializedParams) -> None:
        # Paths in messages (a declaration's `sortlint.yml:4`) and a project without a
        # configuration are as `sortlint check` run from the workspace's root has them.
        root = ls.workspace.root_path
        if root and Path(root).is_dir():
            os.chdir(root)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def opened(ls: SortlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def changed(ls: SortlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: SortlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def closed(ls: SortlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.shown.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ls.schedule(uri, 0)  # its readers now read the file as saved

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, protocol.FIX_ALL], resolve_provider=True
        ),
    )
    async def code_actions(ls: SortlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        shown = ls.shown.get(uri)
        if shown is None or shown.text != ls.workspace.get_text_document(uri).source:
            return None  # the findings are of an older text; its check is on its way
        only = params.context.only
        actions = []
        if protocol.wanted(types.CodeActionKind.QuickFix, only):
            lines = protocol.lines_of(shown.text)
            for finding, diagnostic in shown.findings:
                if protocol.overlaps(diagnostic.range, params.range):
                    action = protocol.fix_action(finding, diagnostic, uri, lines, ls.workspace.position_codec)
                    if action is not None:
                        actions.append(action)
        safe = [f for f, _ in shown.findings if f.fix is not None and f.fix.edits and f.fix.applicability is Applicability.SAFE]
        if protocol.wanted(protocol.FIX_ALL, only) and safe:
            fix_all = types.CodeAction(title=protocol.FIX_ALL_TITLE, kind=protocol.FIX_ALL, data={"uri": uri})
            if not ls.resolves_edits():
                fix_all.edit = await ls.fix_all(uri)
            actions.append(fix_all)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: SortlintServer, action: types.CodeAction) -> types.CodeAction:
        if action.kind == protocol.FIX_ALL and isinstance(action.data, dict) and action.edit is None:
            action.edit = await ls.fix_all(action.data["uri"])
        return action

    return server


def serve(settings: Settings) -> None:
    """Speak LSP on stdin and stdout until the client says exit."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # The protocol has stdout to itself: whatever else would print there (a library's
    # print) goes to stderr, which clients log.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    build(settings).start_io(sys.stdin.buffer, protocol_out)
