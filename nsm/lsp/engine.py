"""Checks open documents the way `nsm check` does (the planner's import map, the compiler's loader
and checker), but from the editor's unsaved texts, keeping every parsed module between checks:
an edit re-parses only the changed module (and those whose parse depends on it) and re-checks
only the bodies of the document being analysed."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from compiler.diagnostics import CompileError, Diagnostic, Diagnostics
from compiler.modules import Loader, Module, resolved
from nsm.build.stamps import FileDB


class OverlayDB(FileDB):
    """The planner's file database (in memory), reading open documents from the editor."""

    def __init__(self, overlay: dict[str, str]) -> None:
        super().__init__(None)
        self.overlay = overlay
        self._scans: dict[str, tuple[str, list[str]]] = {}

    def unchanged(self, path: str) -> bool:
        return True if path in self.overlay else super().unchanged(path)

    def fact(self, path: str, name: str):
        if path in self.overlay and name == "imports":
            from compiler.prescan import scan_imports
            text = self.overlay[path]
            hit = self._scans.get(path)
            if hit is None or hit[0] != text:
                hit = self._scans[path] = (text, scan_imports(text, path))
            return hit[1]
        return super().fact(path, name)

    def note_scan(self, path: str, text: str, specs: list[str]) -> None:
        """The import paths of an open document, from tokens already lexed."""
        self._scans[path] = (text, specs)


@dataclass
class _Parsed:
    """A module as a previous check left it, with the diagnostics its loading reported."""
    module: Module
    source: str
    entry: object
    diags: list[Diagnostic]


class CachingLoader(Loader):
    """The compiler's Loader, reading open documents from the editor and reusing a module parsed
    by an earlier check when its text, its import-map entry and the modules it imports are the
    same (a module's parse depends on the names its imports declare)."""

    def __init__(self, diags: Diagnostics, imports, overlay: dict[str, str],
                 cache: dict[Path, _Parsed]) -> None:
        super().__init__(diags, imports)
        self.overlay = overlay
        self.cache = cache
        self.reparsed: list[str] = []

    def load(self, file, shown=None, source=None, tokens=None):
        real = resolved(file)
        if real in self.by_file:
            return self.by_file[real]
        if source is None:
            source = self.overlay.get(str(real))
        if source is None:
            try:
                source = Path(real).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return super().load(file, shown, None, tokens)   # reports why
        entry = self.map.entry(str(real))
        hit = self.cache.get(real)
        if hit is not None and hit.source == source and hit.entry == entry:
            self.by_file[real] = hit.module
            if all(self.load(Path(d.real)) is d for d in hit.module.deps):
                self.diags.add_source(hit.module.path, source)
                for d in hit.diags:
                    self.diags.items.append(d)
                self.order.append(hit.module)
                return hit.module
            del self.by_file[real]
        mark = len(self.diags.items)
        mod = super().load(file, shown, source, tokens)
        if mod is not None:
            self.reparsed.append(mod.path)
            own = [d for d in self.diags.items[mark:] if d.span is not None and d.span.file == mod.path]
            self.cache[real] = _Parsed(mod, source, entry, own)
        return mod


@dataclass
class Analysis:
    """One check of one document: its module, tokens and text, every module of its program
    (shown path -> Module), the checker's records and the diagnostics."""
    path: Path
    text: str
    version: int
    tokens: list
    root: Module | None = None
    modules: dict[str, Module] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    checker: object = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    parsed: bool = False           # the document lexed and parsed without an error
    reparsed: list[str] = field(default_factory=list)   # modules parsed afresh (not reused)

    def real_of(self, shown: str) -> Path | None:
        m = self.modules.get(shown)
        return Path(m.real) if m is not None else None

    def depends_on(self, real: Path) -> bool:
        return any(Path(m.real) == real for m in self.modules.values())


class Engine:
    """The open documents and what was parsed; `analyse` checks one document."""

    def __init__(self, natives: bool = True) -> None:
        """`natives`: build missing native parts (off: check without their bindings)."""
        self.natives = natives
        self.overlay: dict[str, str] = {}
        self.cache: dict[Path, _Parsed] = {}
        self.db = OverlayDB(self.overlay)
        self.natives_tried: set[Path] = set()
        self.on_native = None          # called (on another thread) when a native part is built

    def set_text(self, path: Path, text: str | None) -> None:
        key = str(resolved(path))
        if text is None:
            self.overlay.pop(key, None)
        else:
            self.overlay[key] = text

    def import_map(self, path: Path):
        """The planner's import map for the program rooted at `path`. A native part whose
        bindings (what the compiler reads of it) are not built yet is built on a thread of its
        own, and the program is checked without them meanwhile; `on_native` is called after."""
        from nsm.build.graph import Planner
        p = Planner(self.db, resolved(path))
        p.node(Path(path))
        for spec in [s for s in p.natives.values() if s is not None]:
            if self.natives and spec.root not in self.natives_tried:
                self.natives_tried.add(spec.root)
                threading.Thread(target=self._build_native, args=(spec, p.building),
                                 daemon=True, name="neve-native").start()
        imap = p.import_map()
        for e in imap.modules.values():
            if e.bindings is not None and not Path(e.bindings).is_file():
                e.bindings = None
        return imap

    def _build_native(self, spec, building) -> None:
        try:
            from nsm.build.native import ensure_native
            ensure_native(spec.root, False, building)
        except Exception:  # noqa: BLE001 - an editor goes on without the bindings
            return
        if self.on_native is not None:
            self.on_native()

    def analyse(self, path: Path, version: int = 0) -> Analysis:
        """Check the document at `path` (its editor text, else the file); never raises."""
        from compiler.driver import run_guarded
        t0 = time.perf_counter()
        real = resolved(path)
        text = self.overlay.get(str(real))
        if text is None:
            try:
                text = real.read_text()
            except (OSError, UnicodeDecodeError):
                text = ""
        out = Analysis(real, text, version, [])

        def work(res) -> None:
            from compiler.lexer import tokenize
            from compiler.modules import shown_path
            diags = res.diags
            shown = shown_path(real)
            out.tokens = tokens = tokenize(text, shown, diags)
            if str(real) in self.overlay:
                from compiler.prescan import import_paths
                self.db.note_scan(str(real), text, ["/".join(ln.parts) for ln in import_paths(tokens)])
            imap = self.import_map(real)
            loader = CachingLoader(diags, imap, self.overlay, self.cache)
            try:
                out.root = loader.load_root(shown, text, tokens)
            finally:
                out.modules = {m.path: m for m in loader.order}
                out.reparsed = loader.reparsed
                out.sources = diags.sources
            out.parsed = out.root is not None and not any(
                d.span is not None and d.span.file == shown for d in diags.items)
            out.checker = _check(loader, out.root, diags)

        try:
            res = run_guarded(work)
            out.diagnostics = res.diags.sorted()
        except Exception as e:  # noqa: BLE001 - the server stays up whatever the input
            out.diagnostics = [Diagnostic(None, f"internal error of nsm lsp: {type(e).__name__}: {e}")]
        out.seconds = time.perf_counter() - t0
        return out


def _check(loader: CachingLoader, root: Module, diags: Diagnostics):
    """The recording checker run over the loaded program, bodies of `root` only. An editor
    cannot tell a program from a module that others import, so no file needs a main."""
    from compiler.check.recording import RecordingChecker
    ck = RecordingChecker(loader.order, root, diags, loader.std, focus=(root,))
    ck.require_main = False
    mark = len(diags.items)
    try:
        ck.check()
    except CompileError:
        pass
    if mark:           # after a parse error the checker sees a partial tree: only records count
        for d in diags.items[mark:]:
            diags._seen.discard((d.span, d.message))
        del diags.items[mark:]
    return ck
