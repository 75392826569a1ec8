"""The language server's own JSON of a document's diagnostics (`protocol.Encoder`): what pygls
itself sends for them, publish after publish, as they move and change."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.protocol import default_converter

from sortlint.integrations.lsp.protocol import Encoder

CONVERTER = default_converter()


def diagnostic(line: int, message: str, **more) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=line, character=3), end=types.Position(line=line + 1, character=0)),
        message=message,
        **more,
    )


def pygls_json(diagnostics: list[types.Diagnostic]):
    return json.loads(json.dumps(diagnostics, default=CONVERTER.unstructure))


def test_each_publish_is_what_pygls_sends_for_the_same_diagnostics():
    warning = {
        "severity": types.DiagnosticSeverity.Warning, "code": "SL003", "source": "sortlint",
        "code_description": types.CodeDescription(href="https://sortlint.readthedocs.io/en/latest/rules/x/"),
    }
    first = [
        diagnostic(0, "ORDER BY host, time: time is redundant (line 4)", **warning),
        diagnostic(7, "WHERE host = '😀' \"quoted\" \\ é", **warning),
        diagnostic(8, "sort key host is constant\non Spark: saves an exchange and a sort", **warning),
        diagnostic(9, "does not parse", severity=types.DiagnosticSeverity.Error, code="E101", source="sortlint"),
        diagnostic(12, "tagged", tags=[types.DiagnosticTag.Unnecessary], **warning),
    ]
    encoder = Encoder(CONVERTER.unstructure)
    assert json.loads(encoder.encode(first)) == pygls_json(first)
    # Moved down a line, one message changed: what it kept is not what it sends.
    for moved in first:
        moved.range.start.line += 1
        moved.range.end.line += 1
    second = [first[0], diagnostic(7, "another message", **warning), *first[2:]]
    assert json.loads(encoder.encode(second)) == pygls_json(second)
    assert json.loads(encoder.encode([])) == []
    assert json.loads(encoder.encode(second[:1])) == pygls_json(second[:1])
