"""How long `sortlint server` makes an editor wait for diagnostics, with a big file open.

    .venv/bin/python benchmarks/language_server.py [--scale F] [--edits N] [--fix-all]

A real client (pygls's) starts `python -m sortlint server` over stdio in a temporary folder
holding a 2 MB SQL file of ~20,400 statements (three kinds, each a finding or a fix: the
`fix` input of `big_statements.py`) and a one-statement file, and measures, in wall seconds
from the notification sent to the diagnostics received:

* open     - the big file opened: its first check, every statement analysed (no cache);
* edit     - a one-line edit of the big file (a statement in its middle, no line moved),
             median of `--edits` edits, each after the previous one's diagnostics;
* lines    - an edit adding a line a third of the way in (every statement after it moves
             down), then one removing it, ...: median of `--edits`;
* noqa     - a `-- noqa: SL003` typed at the end of a line, on a line further each time:
             median of `--edits`;
* small    - the small file opened while the big one is checked again from scratch (the
             configuration changed on disk: no statement's analysis before holds);
* newer    - an edit of the big file while it is checked after an edit before it: the
             diagnostics of the newer text (the older check is abandoned);
* fix all  - with `--fix-all`, the `source.fixAll.sortlint` code action's edit for the big
             file (proved as `check --fix` proves it; minutes).

`--scale` multiplies the big file's size (0.1 for a quick run). See docs/editors.md for the
figures and the machine they were measured on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from big_statements import FIXABLE  # noqa: E402

SMALL = "SELECT order_id FROM sales.orders ORDER BY order_id, order_id;\n"


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("sortlint-benchmark", "1")
        self.published: dict[str, tuple[int | None, list[types.Diagnostic]]] = {}
        self.arrived: dict[str, asyncio.Event] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = (params.version, list(params.diagnostics))
            self.event(params.uri).set()

        self.checks: list[str] = []  # the server's "checked ... in N s" log lines

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            if params.message.startswith("checked "):
                self.checks.append(params.message)

    def event(self, uri: str) -> asyncio.Event:
        return self.arrived.setdefault(uri, asyncio.Event())

    async def diagnostics(self, uri: str, version: int) -> list[types.Diagnostic]:
        """Wait for the diagnostics of `uri`'s `version`."""
        while True:
            found = self.published.get(uri)
            if found is not None and found[0] == version:
                return found[1]
            self.event(uri).clear()
            await self.event(uri).wait()

    def open(self, uri: str, text: str) -> None:
        self.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="sql", version=1, text=text)))

    def change(self, uri: str, version: int, text: str) -> None:
        self.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def edited(name: str, took: list[float], checks: list[str]) -> tuple[str, float, str]:
    """A row of edits: the median of their times, each, and the median of the server's checks
    alone (its log's "checked ... in N s")."""
    inside = [float(line.rsplit(" in ", 1)[1].split(" s")[0]) for line in checks]
    return (name, statistics.median(took), f"median of {len(took)}: " + ", ".join(f"{t:.2f}" for t in took)
            + f" (the check itself: median {statistics.median(inside):.2f})")


async def run(folder: Path, scale: float, edits: int, fix_all: bool) -> list[tuple[str, float, str]]:
    big_text = FIXABLE * int(50_000 * 2 / 4.9 * scale / 3)
    lines = big_text.splitlines(keepends=True)
    big, small = folder / "big.sql", folder / "small.sql"
    (folder / "sortlint.yml").write_text("target: spark\n")
    rows: list[tuple[str, float, str]] = []
    client = Client()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    await client.start_io(sys.executable, "-m", "sortlint", "server", "--no-cache", cwd=str(folder), env=env)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=folder.as_uri()))
    client.initialized(types.InitializedParams())
    uri = big.as_uri()
    described = f"{len(big_text) / 1e6:.1f} MB, {big_text.count(';')} statements"

    start = time.perf_counter()
    client.open(uri, big_text)
    found = await client.diagnostics(uri, 1)
    rows.append(("open", time.perf_counter() - start, f"{described}: {len(found)} diagnostics"))

    version, took = 1, []
    for edit in range(edits):
        version += 1
        middle = len(lines) // 2 + edit
        lines[middle] = lines[middle].replace("amount", "amount ", 1) if "amount" in lines[middle] else lines[middle] + " "
        start = time.perf_counter()
        client.change(uri, version, "".join(lines))
        await client.diagnostics(uri, version)
        took.append(time.perf_counter() - start)
    rows.append(edited("edit", took, client.checks[-edits:]))

    took, third = [], len(lines) // 3
    for edit in range(edits):
        version += 1
        if edit % 2:
            del lines[third]
        else:
            lines.insert(third, "-- a line more\n")
        start = time.perf_counter()
        client.change(uri, version, "".join(lines))
        await client.diagnostics(uri, version)
        took.append(time.perf_counter() - start)
    rows.append(edited("lines", took, client.checks[-edits:]))

    took = []
    for edit in range(edits):
        version += 1
        lines[third + 1 + 2 * edit] = lines[third + 1 + 2 * edit].replace(";\n", "; -- noqa: SL003\n")
        start = time.perf_counter()
        client.change(uri, version, "".join(lines))
        await client.diagnostics(uri, version)
        took.append(time.perf_counter() - start)
    rows.append(edited("noqa", took, client.checks[-edits:]))

    # A table more in the catalog: the analysis before holds for no statement.
    (folder / "sortlint.yml").write_text("target: spark\nsources:\n  other.t:\n    columns: {a: int}\n")
    version += 1
    client.change(uri, version, "-- a line more\n" + "".join(lines))
    await asyncio.sleep(1)  # its check is under way
    start = time.perf_counter()
    client.open(small.as_uri(), SMALL)
    await client.diagnostics(small.as_uri(), 1)
    rows.append(("small", time.perf_counter() - start, "opened while the big file is checked from scratch"))

    version += 1
    start = time.perf_counter()
    client.change(uri, version, "-- two lines more\n-- a line more\n" + "".join(lines))
    await client.diagnostics(uri, version)
    rows.append(("newer", time.perf_counter() - start, "an edit while the big file is checked: its own check, from scratch"))

    if fix_all:
        start = time.perf_counter()
        await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.sortlint"])))
        rows.append(("fix all", time.perf_counter() - start, "the fix-all action with its edit"))

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--fix-all", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = asyncio.run(run(Path(folder), args.scale, args.edits, args.fix_all))
    print(f"{'what':<8} {'seconds':>8}  notes")
    for name, seconds, notes in rows:
        print(f"{name:<8} {seconds:>8.2f}  {notes}")


if __name__ == "__main__":
    main()
