"""nsm lsp survives half-typed programs: the fuzz mutations of tests/fuzz_mutations.py applied
as edits to golden programs, each followed by a request, with the server in strict mode (a
handler that fails, or a check ending in an internal compiler error, answers with an error,
which fails the test). NEVE_LSP_EDITS sets the count
(200 by default; the issue's thousand: NEVE_LSP_EDITS=1000)."""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as L
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .helpers import REPO, SERVER, SERVER_ENV, change_doc, open_doc

sys.path.insert(0, str(REPO / "tests"))
import fuzz_mutations as fm  # noqa: E402

EDITS = int(os.environ.get("NEVE_LSP_EDITS", "200"))
PROGRAMS = sorted((REPO / "tests" / "programs").rglob("*.nv"))


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=SERVER, server_env={**SERVER_ENV, "NEVE_LSP_STRICT": "1"}))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_random_edits_never_fail(client: LanguageClient, tmp_path: Path):
    rng = random.Random(0x15B)
    picked = rng.sample(PROGRAMS, 10)
    per = -(-EDITS // len(picked))
    done = 0
    for prog in picked:
        text = prog.read_text()
        path = tmp_path / prog.name
        path.write_text(text)
        uri = open_doc(client, path, text)
        for k in range(per):
            if done == EDITS:
                break
            seed = rng.randrange(1 << 30)
            mutant = fm.mutate(text, seed).data.decode("utf-8", "replace")
            change_doc(client, uri, mutant, k + 2)
            lines = mutant.split("\n")
            line = rng.randrange(len(lines))
            pos = L.Position(line, rng.randrange(len(lines[line]) + 1))
            doc = L.TextDocumentIdentifier(uri)
            what = done % 4
            if what == 0:
                await client.text_document_hover_async(L.HoverParams(doc, pos))
            elif what == 1:
                await client.text_document_completion_async(L.CompletionParams(doc, pos))
            elif what == 2:
                await client.text_document_definition_async(L.DefinitionParams(doc, pos))
            else:
                await client.text_document_signature_help_async(L.SignatureHelpParams(doc, pos))
                await client.text_document_document_symbol_async(L.DocumentSymbolParams(doc))
            done += 1
    assert done == EDITS
    h = await client.text_document_hover_async(L.HoverParams(L.TextDocumentIdentifier(uri),
                                                             L.Position(0, 0)))
    assert h is None or h.contents is not None
