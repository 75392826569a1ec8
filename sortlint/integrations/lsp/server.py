"""The language server: pygls over stdio.

When documents are checked: at once when one is opened, saved or closed; `DEBOUNCE` seconds
after the last change, so that typing is checked once it pauses. Each open document has
checks of its own, each in a process of its own (`jobs`): a small document's diagnostics
never wait for a big one's check, and a change to a document kills the check of its older
text at once - that check publishes nothing. A change (or a close, or a change to another
file, such as the configuration) also checks the project's other open documents again - a
model's readers see its new text - once each one's own running check, if any, is done; what
did not change is taken from the cache. A document whose text changed while it was checked
is left to the check its change asked for.

Errors of other files the check read - the configuration, a catalog - are published on
those files, and cleared there once they are gone.

A message the server cannot read is logged and the server goes on (`transport`); `exit`
ends the process at once, checks running or not, with 0 after `shutdown` and 1 without, as
the protocol says.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from sortlint import __version__
from sortlint.collector import collector_paused
from sortlint.config.citations import shown_path
from sortlint.diagnostics import Applicability, Finding
from sortlint.integrations.lsp import jobs, protocol
from sortlint.integrations.lsp.changes import changes
from sortlint.integrations.lsp.checking import (
    Earlier,
    ProjectCheck,
    Settings,
    check_big_document,
    check_documents,
    fix_safely,
)
from sortlint.integrations.lsp.transport import read_messages
from sortlint.sources.registry import SUFFIXES

DEBOUNCE = 0.3  # seconds without a change before the changed documents are checked
# Characters from which a document has a process of its own that keeps its analysis,
# statement by statement, to analyse again only the statements an edit touched (below,
# a check reads the whole file from the cache or analyses it afresh: a few hundred ms).
BIG = 100_000

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shown:
    """A document's last published check: the text checked, its findings and their
    diagnostics (what its quick fixes are made from)."""

    text: str
    findings: tuple[protocol.Shown, ...]


class Refusal(JsonRpcException):
    """A request the server answers with an error that is no bug of its own: the client is
    told why, and no traceback is logged."""

    CODE = JsonRpcInvalidParams.CODE


class SortlintProtocol(LanguageServerProtocol):
    def _send_handler_result(self, future, *, msg_id):
        refusal = None if future.cancelled() else future.exception()
        if not isinstance(refusal, Refusal):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        logger.info("refused request %s: %s", msg_id, refusal.message)
        self._send_response(msg_id, error=refusal.to_response_error())

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams):
        # pygls raises for an unknown command from inside its handler, which logs a traceback.
        if params.command not in self.fm.commands:
            raise Refusal(f"unknown command {params.command}")
        return (yield from super().lsp_workspace__execute_command(params))

    def publish_encoded(self, uri: str, diagnostics: str, version: int | None) -> None:
        """Publish a document's diagnostics already encoded as a JSON array (`protocol.Encoder`),
        framed as pygls frames what it sends - its framing counts characters, this bytes."""
        params = f'{{"uri":{json.dumps(uri)},"diagnostics":{diagnostics}'
        params += "}" if version is None else f',"version":{version}}}'
        body = f'{{"jsonrpc":"2.0","method":"{types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS}","params":{params}}}'.encode()
        if self.writer is None:
            logger.error("Unable to send data, no available transport!")
            return
        header = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        written = self.writer.write(header.encode() + body)
        if inspect.isawaitable(written):
            asyncio.ensure_future(written)


class SortlintServer(LanguageServer):
    def __init__(self, settings: Settings) -> None:
        super().__init__("sortlint", __version__, protocol_cls=SortlintProtocol)
        self.settings = settings
        self.changed: dict[Path, bool] = {}  # files changed since the last check was scheduled: whether their text did
        self.waiting: asyncio.Task | None = None  # the debounce before the next check
        self.running: dict[Path, asyncio.Task] = {}  # by document (or project, with none open): its check
        self.again: set[Path] = set()  # documents to check again once their running check is done
        self.shown: dict[str, Shown] = {}  # by document URI
        self.encoders: dict[str, protocol.Encoder] = {}  # by document URI: its diagnostics' JSON
        self.elsewhere: dict[Path | None, set[str]] = {}  # by project: other files' URIs given errors
        self.said: set[str] = set()  # messages logged once
        self.workers: dict[Path, jobs.Worker] = {}  # by big document: the process that checks it
        # By big document: the number of the last answer of its worker taken in, and its
        # findings as shown (what the next answer's changes apply to: see `changes`).
        self.received: dict[Path, tuple[int, tuple[protocol.Shown, ...]]] = {}
        self.numbers = itertools.count(1)
        self.shut_down = False

    def schedule(self, uri: str, delay: float, edited: bool) -> None:
        """Check the document (and, when its text was `edited`, its project's other open
        documents) `delay` seconds from now, unless another change comes first."""
        path = _path(uri)
        self.changed[path] = self.changed.get(path, False) or edited
        if edited and path in self.running:
            self.running.pop(path).cancel()  # a check of the text before: no one wants it now
        if self.waiting is not None:
            self.waiting.cancel()
        self.waiting = asyncio.get_running_loop().create_task(self._after(delay))

    async def _after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        changed, self.changed, self.waiting = self.changed, {}, None
        documents = self.open_files()
        checkable = {path for path in documents if path.suffix in SUFFIXES}
        followers: set[Path] = set()
        for path, edited in sorted(changed.items()):
            own = path in checkable
            if own:
                self._start(path, restart=edited)
            if edited or not own:
                project = self.settings.project_of(path)
                others = {other for other in checkable if other != path and self.settings.project_of(other) == project}
                followers |= others
                if not others and not own and project is not None:
                    self._start(project, restart=False)  # no document: the configuration alone
        for path in sorted(followers - set(changed)):
            self._start(path, restart=False)

    def _start(self, key: Path, restart: bool) -> None:
        """Check a document (or, `key` a project, its configuration): now, killing a check
        under way when `restart`, else once the check under way is done."""
        task = self.running.get(key)
        if task is not None and not task.done():
            if not restart:
                self.again.add(key)
                return
            task.cancel()
        self.again.discard(key)
        self.running[key] = asyncio.get_running_loop().create_task(self._check(key))

    async def _check(self, key: Path) -> None:
        try:
            document = self.open_files().get(key)
            if document is not None:
                await self._check_document(key, document)
            elif key.suffix not in SUFFIXES:  # a project's configuration, no document of it open
                await self._check_configuration(key)
        except jobs.Killed:  # closed meanwhile, or the check's process died
            logger.info("the check of %s ended without an answer", key)
        except Exception:  # sortlint's own bug: logged, the server goes on
            logger.exception("checking %s", key)
        finally:
            if self.running.get(key) is asyncio.current_task():
                del self.running[key]
                if key in self.again:
                    self._start(key, restart=False)

    async def _check_document(self, path: Path, document: TextDocument) -> None:
        project = self.settings.project_of(path)
        text, version = document.source, document.version
        started = time.perf_counter()
        if len(text) >= BIG and jobs.forking():
            worker = self.workers.get(path)
            if worker is None:
                worker = self.workers[path] = jobs.Worker(partial(_check_big, self.settings))
            number, base = next(self.numbers), self.received.get(path)
            found = await worker.ask((path, project, self.buffers(), number, base[0] if base is not None else None))
            with collector_paused():
                findings = self._findings(text, found, path, base[1] if base is not None else ())
            if self.workers.get(path) is worker:  # not closed meanwhile
                self.received[path] = (number, findings)
        else:
            self.received.pop(path, None)
            found = await jobs.run(check_documents, [path], project, self.buffers(), self.settings)
            findings = self._findings(text, found, path, ())
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=(
            f"checked {shown_path(path)} (version {version}) in {time.perf_counter() - started:.2f} s"
            + (", the statements no edit touched taken from the check before" if found.incremental else "")
        )))
        if document.source == text and self.open_files().get(path) is document:
            with collector_paused():
                self._show(document.uri, text, version, found, path, findings)
        self._show_elsewhere(project, found)
        self._say(found)

    async def _check_configuration(self, project: Path) -> None:
        found = await jobs.run(check_documents, [], project, self.buffers(), self.settings)
        self._show_elsewhere(project, found)
        self._say(found)

    def _say(self, found: ProjectCheck) -> None:
        for kind, messages in ((types.MessageType.Info, found.messages), (types.MessageType.Warning, found.warnings)):
            for message in messages:
                if message not in self.said:
                    self.said.add(message)
                    self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def complain(self, text: str) -> None:
        """Say what went wrong with a message from the client (it is logged, not shown)."""
        logger.warning("%s", text)
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=f"sortlint: {text}"))

    def end(self, code: int) -> None:
        """End the process now: a check under way - a template rendering forever - is
        killed, not waited for (nor is the thread reading the client's messages)."""
        jobs.kill_all()
        logging.shutdown()
        os._exit(code)

    def open_files(self) -> dict[Path, TextDocument]:
        """The open documents that are files (an untitled buffer has no configuration)."""
        return {
            _path(document.uri): document
            for document in self.workspace.text_documents.values()
            if document.uri.startswith("file:")
        }

    def buffers(self) -> dict[Path, str]:
        return {path: document.source for path, document in self.open_files().items()}

    def _findings(
        self, text: str, found: ProjectCheck, path: Path, before: tuple[protocol.Shown, ...]
    ) -> tuple[protocol.Shown, ...]:
        """The document's findings as shown: those `found`, or - from a big document's
        worker - `found.changes` applied to those `before` (the worker's last answer taken
        in), their diagnostics moved rather than made again where they can be."""
        codec = self.workspace.position_codec
        lines = protocol.lines_of(text)
        changed = found.changes
        if changed is None:
            analysis = found.files.get(path.resolve())
            return tuple(protocol.shown(finding, lines, codec) for finding in (analysis.findings if analysis else []))
        return (
            *(protocol.reused(earlier, 0, lines, codec) for earlier in before[: changed.kept]),
            *(protocol.shown(finding, lines, codec) for finding in changed.middle),
            *(protocol.reused(earlier, changed.down, lines, codec) for earlier in before[len(before) - changed.moved :]),
        )

    def _show(
        self, uri: str, text: str, version: int | None, found: ProjectCheck, path: Path,
        findings: tuple[protocol.Shown, ...],
    ) -> None:
        codec = self.workspace.position_codec
        lines = protocol.lines_of(text)
        errors = [protocol.error_diagnostic(error, lines, codec) for error in found.errors.get(path.resolve(), [])]
        self.shown[uri] = Shown(text, findings)
        diagnostics = [diagnostic for _, diagnostic, _ in findings] + errors
        encoder = self.encoders.get(uri)
        if encoder is None:
            encoder = self.encoders[uri] = protocol.Encoder(self.protocol._converter.unstructure)
        assert isinstance(self.protocol, SortlintProtocol)
        self.protocol.publish_encoded(uri, encoder.encode(diagnostics), version)

    def _show_elsewhere(self, project: Path | None, found: ProjectCheck) -> None:
        """Publish the errors of files other than the open documents (each one's own check
        publishes its diagnostics), and clear the files that had some the last time and
        have none now."""
        resolved_documents = {path.resolve() for path in self.open_files()}
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
        document = self.workspace.text_documents.get(uri)
        if document is None:  # an action made for a document closed since (or deleted)
            raise Refusal(f"cannot fix {uri}: it is not open; ask for its code actions again")
        text = document.source
        fixed = await jobs.run(fix_safely, _path(uri), self.buffers(), self.settings)
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


def _check_big(
    settings: Settings,
    request: tuple[Path, Path | None, dict[Path, str], int, int | None],
    state: tuple[Earlier | None, int, list[Finding]] | None,
) -> tuple[ProjectCheck, tuple[Earlier | None, int, list[Finding]]]:
    """A big document's check, in its worker (`jobs.Worker`), which keeps the analysis to
    take from next time and the findings it sent: the answer numbered `number` sends them
    as changes to those of the answer numbered `base`, when that is the last it sent (see
    `changes`)."""
    document, project, buffers, number, base = request
    earlier, sent, findings_sent = state if state is not None else (None, 0, [])
    found, earlier = check_big_document(document, project, buffers, settings, earlier)
    resolved = document.resolve()
    analysis = found.files.get(resolved)
    findings = analysis.findings if analysis is not None else []
    if base is not None and base == sent:
        found.changes = changes(findings_sent, findings)
        if analysis is not None:
            found.files[resolved] = replace(analysis, findings=[])
    return found, (earlier, number, findings)


def build(settings: Settings) -> SortlintServer:
    server = SortlintServer(settings)

    @server.feature(types.INITIALIZED)
    def initialized(ls: SortlintServer, params: types.InitializedParams) -> None:
        # Paths in messages (a declaration's `sortlint.yml:4`) and a project without a
        # configuration are as `sortlint check` run from the workspace's root has them.
        root = ls.workspace.root_path
        if root and Path(root).is_dir():
            os.chdir(root)

    @server.feature(types.SHUTDOWN)
    def shutting_down(ls: SortlintServer, params: Any) -> None:
        ls.shut_down = True

    @server.feature(types.EXIT)
    def exiting(ls: SortlintServer, params: Any) -> None:
        ls.end(0 if ls.shut_down else 1)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def opened(ls: SortlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0, edited=False)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def changed(ls: SortlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE, edited=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: SortlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0, edited=False)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def closed(ls: SortlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.shown.pop(uri, None)
        ls.encoders.pop(uri, None)
        ls.received.pop(_path(uri), None)
        worker = ls.workers.pop(_path(uri), None)
        if worker is not None:
            worker.end()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ls.schedule(uri, 0, edited=True)  # its readers now read the file as saved

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, protocol.FIX_ALL], resolve_provider=True
        ),
    )
    async def code_actions(ls: SortlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        shown = ls.shown.get(uri)
        document = ls.workspace.text_documents.get(uri)
        if shown is None or document is None or shown.text != document.source:
            return None  # the findings are of an older text; its check is on its way
        only = params.context.only
        actions = []
        if protocol.wanted(types.CodeActionKind.QuickFix, only):
            lines = protocol.lines_of(shown.text)
            for finding, diagnostic, down in shown.findings:
                if protocol.overlaps(diagnostic.range, params.range):
                    action = protocol.fix_action(finding, diagnostic, uri, lines, ls.workspace.position_codec, down)
                    if action is not None:
                        actions.append(action)
        safe = [f for f, _, _ in shown.findings if f.fix is not None and f.fix.edits and f.fix.applicability is Applicability.SAFE]
        if protocol.wanted(protocol.FIX_ALL, only) and safe:
            fix_all = types.CodeAction(title=protocol.FIX_ALL_TITLE, kind=protocol.FIX_ALL, data={"uri": uri})
            if not ls.resolves_edits():
                fix_all.edit = await ls.fix_all(uri)
            actions.append(fix_all)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: SortlintServer, action: types.CodeAction) -> types.CodeAction:
        if action.kind == protocol.FIX_ALL and action.edit is None:
            uri = action.data.get("uri") if isinstance(action.data, dict) else None
            if not isinstance(uri, str):
                raise Refusal(f"not an action sortlint made: its data is {action.data!r}")
            action.edit = await ls.fix_all(uri)
        return action

    return server


def serve(settings: Settings) -> None:
    """Speak LSP on stdin and stdout until the client says exit (or closes stdin)."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # The protocol has stdout to itself: whatever else would print there (a library's
    # print) goes to stderr, which clients log.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    # And stdin to itself, read through a file object of its own: a check's process, forked
    # while a thread waits for the client inside that object's lock, closes `sys.stdin` as it
    # starts, which would wait for that lock forever.
    protocol_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    sys.stdin = open(os.devnull)
    if jobs.forking():
        jobs.preload()
    server = build(settings)
    server.protocol.set_writer(StdoutWriter(protocol_out))
    stop = server._stop_event = threading.Event()
    try:
        asyncio.run(read_messages(stop, StdinAsyncReader(protocol_in, server.thread_pool), server.protocol, server.complain))
    except BrokenPipeError:
        logger.error("the connection to the client is lost")
    finally:
        jobs.kill_all()
    # stdin closed without `exit`: the thread pool's reader is done, and no check is left.
    server.end(1 if not server.shut_down else 0)
