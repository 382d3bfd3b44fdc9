"""Shared set-up of the nsm lsp tests: the server command, a small two-module program, and a
client helper that waits for a document's diagnostics."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from lsprotocol import types as L

REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "nsm.cli", "lsp"]
# no native build in the background of these tests (CI time): Frost is checked without its
# bindings, which only its bodies use
SERVER_ENV = {**os.environ, "NEVE_LSP_NO_NATIVE": "1"}

HELPER = """\
# Adds two numbers.
# Returns their sum.
def int add(int a, int b)
    return a + b

class Point
    int x, y
    # Distance squared from the origin.
    def int norm2()
        return self.x * self.x + self.y * self.y
"""

MAIN = """\
import helper
import frost

main
    int total = helper.add(1, 2)
    helper.Point p = new helper.Point()
    var t = frost.zeros([2, 3])
    print(total + p.norm2())
"""


def write_program(folder: Path) -> tuple[Path, Path]:
    (folder / "helper.nv").write_text(HELPER)
    (folder / "main.nv").write_text(MAIN)
    return folder / "main.nv", folder / "helper.nv"


def open_doc(client, path: Path, text: str, version: int = 1) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(L.DidOpenTextDocumentParams(
        L.TextDocumentItem(uri=uri, language_id="neve", version=version, text=text)))
    return uri


def change_doc(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(L.DidChangeTextDocumentParams(
        L.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [L.TextDocumentContentChangeWholeDocument(text=text)]))


async def until(client, uri: str, pred, timeout: float = 60.0):
    """The diagnostics published for `uri` once they satisfy `pred`."""
    async def poll():
        while True:
            got = client.diagnostics.get(uri)
            if got is not None and pred(got):
                return got
            await asyncio.sleep(0.05)
    return await asyncio.wait_for(poll(), timeout)
