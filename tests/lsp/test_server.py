"""nsm lsp end to end (pytest-lsp drives the server as an editor would): diagnostics and their
removal, hover, definition across modules and into Frost, completion after '.', symbols,
signature help, references and rename."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as L
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .helpers import MAIN, REPO, SERVER, SERVER_ENV, change_doc, open_doc, until, write_program


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=SERVER_ENV), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await lsp_client.initialize_session(L.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return write_program(tmp_path_factory.mktemp("lsp"))


def pos(text: str, needle: str, offset: int = 0) -> L.Position:
    """The position of `needle`'s first character (plus `offset`) in `text`."""
    i = text.index(needle) + offset
    line = text.count("\n", 0, i)
    return L.Position(line, i - (text.rfind("\n", 0, i) + 1))


pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_diagnostics_then_fixed(client: LanguageClient, program):
    main, _ = program
    bad = MAIN.replace("int total = helper.add(1, 2)", 'int total = "two"')
    uri = open_doc(client, main, bad)
    diags = await until(client, uri, lambda d: len(d) > 0)
    assert [d.message for d in diags] == ["expected int, got str\nhint: parse text with to_int(...)"]
    assert diags[0].range == L.Range(pos(bad, '"two"'), pos(bad, '"two"', 5))
    assert diags[0].source == "neve"
    change_doc(client, uri, MAIN, 2)
    assert list(await until(client, uri, lambda d: len(d) == 0)) == []


async def test_hint_and_parse_error(client: LanguageClient, program):
    main, _ = program
    text = MAIN.replace("print(total + p.norm2())", "print(totl)")
    uri = open_doc(client, main.with_name("typo.nv"), text)
    diags = await until(client, uri, lambda d: len(d) > 0)
    assert diags[0].message == "unknown variable 'totl'\nhint: did you mean 'total'?"
    assert diags[0].data == {"hint": "did you mean 'total'?"}
    change_doc(client, uri, text.replace("print(totl)", "print(total +"), 2)
    diags = await until(client, uri, lambda d: d and "totl" not in d[0].message)
    assert [(d.message, d.range.start.line, d.range.start.character) for d in diags] == \
        [("'(' was never closed", 7, 9), ("expected expression", 7, 17)]


async def test_hover_signature_and_docstring(client: LanguageClient, program):
    main, _ = program
    uri = open_doc(client, main, MAIN, 3)
    h = await client.text_document_hover_async(L.HoverParams(
        L.TextDocumentIdentifier(uri), pos(MAIN, "add(", 1)))
    assert h.contents.value == "```neve\ndef int add(int a, int b)\n```\n\nAdds two numbers.\nReturns their sum."
    h = await client.text_document_hover_async(L.HoverParams(
        L.TextDocumentIdentifier(uri), pos(MAIN, "t = frost")))
    assert h.contents.value == "```neve\nTensor t\n```"


async def test_definition_across_modules_and_into_frost(client: LanguageClient, program):
    main, helper = program
    uri = open_doc(client, main, MAIN, 4)
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), pos(MAIN, "add(")))
    assert [(l.uri, l.range.start.line, l.range.start.character) for l in locs] == \
        [(helper.resolve().as_uri(), 2, 8)]
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), pos(MAIN, "zeros")))
    frost = (REPO / "packages" / "frost" / "include.nv").resolve()
    assert len(locs) == 1 and locs[0].uri == frost.as_uri()
    line = frost.read_text().split("\n")[locs[0].range.start.line]
    assert line.startswith("def Tensor zeros(")
    locs = await client.text_document_definition_async(L.DefinitionParams(
        L.TextDocumentIdentifier(uri), pos(MAIN, "total +")))
    assert [(l.range.start.line, l.range.start.character) for l in locs] == [(4, 8)]


async def test_completion_after_dot(client: LanguageClient, program):
    main, _ = program
    text = MAIN.replace("print(total + p.norm2())", "print(total + p.norm2())\n    p.")
    uri = open_doc(client, main, text, 5)
    res = await client.text_document_completion_async(L.CompletionParams(
        L.TextDocumentIdentifier(uri), L.Position(8, 6)))
    assert {i.label for i in res.items} >= {"x", "y", "norm2"}
    res = await client.text_document_completion_async(L.CompletionParams(
        L.TextDocumentIdentifier(uri), pos(text, "add(")))
    assert {"add", "Point"} <= {i.label for i in res.items}
    res = await client.text_document_completion_async(L.CompletionParams(
        L.TextDocumentIdentifier(uri), pos(text, "zeros")))
    assert {"zeros", "Tensor", "matmul"} <= {i.label for i in res.items}


async def test_symbols_signature_references_rename(client: LanguageClient, program):
    _, helper = program
    text = helper.read_text()
    uri = open_doc(client, helper, text)
    syms = await client.text_document_document_symbol_async(L.DocumentSymbolParams(
        L.TextDocumentIdentifier(uri)))
    assert [(s.name, s.kind) for s in syms] == [("add", L.SymbolKind.Function), ("Point", L.SymbolKind.Class)]
    assert [c.name for c in syms[1].children] == ["x", "y", "norm2"]
    main = helper.with_name("sig.nv")
    text2 = "import helper\n\nmain\n    int a = 1\n    print(helper.add(a, a))\n    a = helper.add(1, "
    uri2 = open_doc(client, main, text2)
    sh = await client.text_document_signature_help_async(L.SignatureHelpParams(
        L.TextDocumentIdentifier(uri2), L.Position(5, len("    a = helper.add(1, "))))
    assert sh.signatures[0].label == "def int add(int a, int b)" and sh.active_parameter == 1
    refs = await client.text_document_references_async(L.ReferenceParams(
        text_document=L.TextDocumentIdentifier(uri2), position=L.Position(3, 8),
        context=L.ReferenceContext(include_declaration=True)))
    # the last line does not parse yet: its `a` is no reference
    assert sorted((r.range.start.line, r.range.start.character) for r in refs) == \
        [(3, 8), (4, 21), (4, 24)]
    edit = await client.text_document_rename_async(L.RenameParams(
        L.TextDocumentIdentifier(uri2), L.Position(4, 21), "count"))
    assert sorted((e.range.start.line, e.range.start.character, e.new_text)
                  for e in edit.changes[uri2]) == \
        [(3, 8, "count"), (4, 21, "count"), (4, 24, "count")]


async def test_importer_rechecked_after_a_dependency_edit(client: LanguageClient, tmp_path):
    main, helper = write_program(tmp_path)
    uri_main = open_doc(client, main, MAIN)
    await until(client, uri_main, lambda d: len(d) == 0)
    uri_helper = open_doc(client, helper, helper.read_text())
    await until(client, uri_helper, lambda d: len(d) == 0)
    change_doc(client, uri_helper, helper.read_text().replace("def int add(", "def int plus("), 2)
    diags = await until(client, uri_main, lambda d: len(d) > 0)
    assert [d.message for d in diags] == ["module 'helper' has no function 'add'"]


async def test_formatting_is_nsm_fmt(client: LanguageClient, tmp_path):
    uri = open_doc(client, tmp_path / "f.nv", "main\n  print(1+2)\n")
    edits = await client.text_document_formatting_async(L.DocumentFormattingParams(
        L.TextDocumentIdentifier(uri), L.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert [(e.range.start, e.range.end, e.new_text) for e in edits] == \
        [(L.Position(0, 0), L.Position(2, 0), "main\n    print(1 + 2)\n")]


async def test_references_in_the_package(client: LanguageClient, tmp_path):
    pkg = tmp_path / "shop"
    (pkg / "src").mkdir(parents=True)
    (pkg / "neve.toml").write_text('[package]\nname = "shop"\nversion = "0.1.0"\nsrc = "src"\n')
    (pkg / "src" / "include.nv").write_text("import util\n\ndef int total()\n    return util.price(2)\n")
    util = pkg / "src" / "util.nv"
    text = "def int price(int n)\n    return 3 * n\n"
    util.write_text(text)
    uri = open_doc(client, util, text)
    refs = await client.text_document_references_async(L.ReferenceParams(
        text_document=L.TextDocumentIdentifier(uri), position=L.Position(0, 8),
        context=L.ReferenceContext(include_declaration=False)))
    assert [(r.uri.rsplit("/", 1)[-1], r.range.start.line, r.range.start.character) for r in refs] \
        == [("include.nv", 3, 16)]
