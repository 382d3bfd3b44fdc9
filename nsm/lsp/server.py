"""The pygls server behind `nsm lsp`: documents in, debounced checks on a worker thread,
diagnostics out, and the features of features.py answered from each document's latest check.
Importers of an edited module are re-checked after it; every handler survives any input."""
from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types as L
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from . import completion as C, features as F, signatures as S
from .engine import Analysis, Engine
from .index import Index
from .positions import Lines, token_at

DEBOUNCE_S = 0.15
STRICT = bool(os.environ.get("NEVE_LSP_STRICT"))    # tests: report handler failures
log = logging.getLogger("nsm.lsp")


def uri_of(path) -> str:
    return Path(path).resolve().as_uri()


def path_of(uri: str) -> Path:
    return Path(to_fs_path(uri) or uri)


class NeveServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("nsm-lsp", "0.1.0", text_document_sync_kind=L.TextDocumentSyncKind.Incremental)
        self.engine = Engine(natives=not os.environ.get("NEVE_LSP_NO_NATIVE"))
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="neve-check")
        self.indexes: dict[str, Index] = {}
        self.good: dict[str, Index] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.engine.on_native = self.native_built

    def native_built(self) -> None:
        """A package's bindings now exist: check every open document again (from the loop)."""
        loop = getattr(self, "_neve_loop", None)
        if loop is not None:
            loop.call_soon_threadsafe(lambda: [self.schedule(u, 0, cascade=False)
                                               for u in list(self.indexes)])

    # ---------------------------------------------------------------- checks
    def schedule(self, uri: str, delay: float = DEBOUNCE_S, cascade: bool = True) -> None:
        old = self.timers.pop(uri, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.timers[uri] = loop.call_later(
            delay, lambda: asyncio.ensure_future(self.refresh(uri, cascade)))

    async def analyse(self, uri: str) -> Index | None:
        doc = self.workspace.get_text_document(uri)
        path = path_of(uri)
        self.engine.set_text(path, doc.source)
        loop = self._neve_loop = asyncio.get_running_loop()
        a: Analysis = await loop.run_in_executor(self.worker, self.engine.analyse, path,
                                                 doc.version or 0)
        if STRICT:          # tests: an internal error of the compiler fails the request
            for d in a.diagnostics:
                if d.message.startswith(("internal compiler error", "internal error")):
                    raise RuntimeError(f"{path.name}: {d.message}")
        ix = _safe(Index, a) or Index(Analysis(a.path, a.text, a.version, a.tokens))
        self.indexes[uri] = ix
        if a.parsed:
            self.good[uri] = ix
        log.info("checked %s in %.1f ms", path.name, a.seconds * 1000)
        return ix

    async def refresh(self, uri: str, cascade: bool = True) -> None:
        self.timers.pop(uri, None)
        if uri not in self.workspace.text_documents:
            return
        try:
            ix = await self.analyse(uri)
        except Exception:  # noqa: BLE001 - the server stays up; the log says why
            log.exception("check of %s failed", uri)
            return
        self.publish(uri, ix.a)
        if cascade:
            for other, oix in list(self.indexes.items()):
                if other != uri and oix.a.depends_on(ix.a.path):
                    self.schedule(other, 0, cascade=False)

    async def fresh(self, uri: str) -> tuple[Index | None, Index | None]:
        """The document's index, checked now if the text changed since its last check."""
        doc = self.workspace.get_text_document(uri)
        ix = self.indexes.get(uri)
        if ix is None or ix.a.text != doc.source:
            ix = await self.analyse(uri)
        return ix, self.good.get(uri)

    def publish(self, uri: str, a: Analysis) -> None:
        self.text_document_publish_diagnostics(
            L.PublishDiagnosticsParams(uri=uri, diagnostics=lsp_diagnostics(a), version=a.version))


def _safe(f, *args):
    try:
        return f(*args)
    except Exception:  # noqa: BLE001
        log.exception("indexing failed")
        return None


NOTE_AT = re.compile(r"(\S+):(\d+):(\d+)")


def lsp_diagnostics(a: Analysis) -> list[L.Diagnostic]:
    """The compiler's diagnostics located in the document, with their hints and notes."""
    root = a.root.path if a.root is not None else None
    lines = Lines(a.text)
    out = []
    for d in a.diagnostics:
        if d.span is not None and d.span.file != root:
            continue
        if d.span is None:
            rng = L.Range(L.Position(0, 0), L.Position(0, 0))
        else:
            tok = token_at(a.tokens, d.span.line, d.span.col, touching=False)
            n = len(tok.text) if tok is not None and tok.span.col == d.span.col else 1
            rng = lines.range(d.span.line, d.span.col, n)
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        related = []
        for note in d.notes:
            m = NOTE_AT.search(note)
            loc = None
            if m is not None:
                real = a.real_of(m.group(1))
                if real is not None:
                    ln, c = int(m.group(2)), int(m.group(3))
                    loc = L.Location(uri_of(real), Lines(a.sources.get(m.group(1), "")).range(ln, c, 1))
            if loc is None:
                loc = L.Location(uri_of(a.path), rng)
            related.append(L.DiagnosticRelatedInformation(loc, note))
        out.append(L.Diagnostic(range=rng, message=message, severity=L.DiagnosticSeverity.Error,
                                source="neve", related_information=related or None,
                                data={"hint": d.hint} if d.hint else None))
    return out


server = NeveServer()


@server.feature(L.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: NeveServer, params: L.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(L.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: NeveServer, params: L.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(L.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: NeveServer, params: L.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(L.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: NeveServer, params: L.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.engine.set_text(path_of(uri), None)
    ls.indexes.pop(uri, None)
    ls.good.pop(uri, None)
    ls.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _at(ix: Index, pos: L.Position) -> tuple[int, int]:
    return Lines(ix.a.text).span_of(pos)


def guarded(default):
    """A feature handler that answers `default` instead of failing (and logs why)."""
    def deco(fn):
        async def run(ls, params):
            try:
                return await fn(ls, params)
            except ValueError:
                raise
            except Exception:  # noqa: BLE001 - never take the server down
                log.exception("%s failed", fn.__name__)
                if STRICT:             # tests: an answer that failed is an error response
                    raise
                return default
        run.__name__ = fn.__name__
        return run
    return deco


@server.feature(L.TEXT_DOCUMENT_HOVER)
@guarded(None)
async def hover(ls: NeveServer, params: L.HoverParams):
    ix, good = await ls.fresh(params.text_document.uri)
    return F.hover(ix, good, *_at(ix, params.position))


@server.feature(L.TEXT_DOCUMENT_DEFINITION)
@guarded([])
async def definition(ls: NeveServer, params: L.DefinitionParams):
    ix, good = await ls.fresh(params.text_document.uri)
    return F.definition(ix, good, *_at(ix, params.position))


@server.feature(L.TEXT_DOCUMENT_REFERENCES)
@guarded([])
async def references(ls: NeveServer, params: L.ReferenceParams):
    uri = params.text_document.uri
    ix, good = await ls.fresh(uri)
    others = await package_indexes(ls, ix)
    return F.references([ix] + [o for u, o in ls.indexes.items() if u != uri] + others, ix, good,
                        *_at(ix, params.position), params.context.include_declaration)


async def package_indexes(ls: NeveServer, ix: Index) -> list[Index]:
    """Indexes of the package's modules that are not open (checked on the worker)."""
    from nsm import project
    pkg = project.package_root(ix.a.path)
    if pkg is None:
        return []
    open_paths = {o.a.path for o in ls.indexes.values()}
    loop = asyncio.get_running_loop()
    out = []
    for p in sorted(project.module_root(pkg).rglob("*.nv")):
        rp = p.resolve()
        if rp in open_paths or "build" in rp.relative_to(pkg.resolve()).parts[:1]:
            continue
        a = await loop.run_in_executor(ls.worker, ls.engine.analyse, rp, 0)
        o = _safe(Index, a)
        if o is not None:
            out.append(o)
    return out


@server.feature(L.TEXT_DOCUMENT_COMPLETION,
                L.CompletionOptions(trigger_characters=[".", "/", " "]))
@guarded(None)
async def completion(ls: NeveServer, params: L.CompletionParams):
    ix, good = await ls.fresh(params.text_document.uri)
    return L.CompletionList(is_incomplete=False, items=C.completion(ix, good, *_at(ix, params.position)))


@server.feature(L.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded([])
async def document_symbol(ls: NeveServer, params: L.DocumentSymbolParams):
    ix, good = await ls.fresh(params.text_document.uri)
    return F.document_symbols(ix if ix.a.root is not None else good)


@server.feature(L.TEXT_DOCUMENT_SIGNATURE_HELP,
                L.SignatureHelpOptions(trigger_characters=["(", ","]))
@guarded(None)
async def signature_help(ls: NeveServer, params: L.SignatureHelpParams):
    ix, good = await ls.fresh(params.text_document.uri)
    return S.signature_help(ix, good, *_at(ix, params.position))


@server.feature(L.TEXT_DOCUMENT_RENAME)
@guarded(None)
async def rename(ls: NeveServer, params: L.RenameParams):
    ix, _ = await ls.fresh(params.text_document.uri)
    return F.rename(ix, *_at(ix, params.position), params.new_name)


@server.feature(L.TEXT_DOCUMENT_FORMATTING)
@guarded(None)
async def formatting(ls: NeveServer, params: L.DocumentFormattingParams):
    """`nsm fmt` on the document's text: one edit replacing it all (none when it does not
    parse: its diagnostics say why; none for a file marked `# nsm fmt: off`)."""
    from nsm.fmt.command import FormatError, format_text, layout_kept
    doc = ls.workspace.get_text_document(params.text_document.uri)
    if layout_kept(doc.source):
        return []
    try:
        out = format_text(doc.source, path_of(doc.uri).name)
    except FormatError:
        return None
    if out == doc.source:
        return []
    lines = doc.source.split("\n")
    end = L.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    return [L.TextEdit(L.Range(L.Position(0, 0), end), out)]


def main() -> None:
    """Serve over stdio. Whatever else writes to standard output (a native build's progress)
    goes to standard error: only the protocol may use the real one."""
    proto_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    os.environ.setdefault("NSM_QUIET", "1")
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if os.environ.get("NEVE_LSP_LOG") else logging.WARNING)
    server.start_io(sys.stdin.buffer, proto_out)
