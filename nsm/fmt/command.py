"""`nsm fmt [--check] [PATHS]`: formats files in place, or lists those that would change. A file
that does not lex and parse is refused with the compiler's diagnostics; a layout whose syntax
tree differs from the original's (which would be a bug of the formatter) is never written."""
from __future__ import annotations

import sys
from pathlib import Path

from compiler.diagnostics import CompileError, Diagnostics

from .arrows import channel_arrows
from .layout import layout

SKIP_DIRS = {".git", "build", ".venv", "node_modules", "__pycache__"}
MARKER = "# nsm fmt: off"


def layout_kept(text: str) -> bool:
    """Whether the file's leading comment block (the comment and blank lines above its first
    line of code) has the line `# nsm fmt: off`: a file whose layout is what it tests."""
    for line in text.lstrip("\ufeff").splitlines():
        line = line.strip()
        if line == MARKER:
            return True
        if line and not line.startswith("#"):
            return False
    return False


class FormatError(Exception):
    """A file that cannot be formatted; the message is what the user sees."""


NONE = (frozenset(), frozenset())


def parse(text: str, path: str, known=None):
    """Tokens, syntax tree and the imported names used, or FormatError with the rendered
    diagnostics. Without `known`, a file that does not parse alone is parsed again knowing the
    types and generics its imports declare (`m.Box<int>` needs them, LANGUAGE.md Appendix A),
    as the compiler parses it."""
    from compiler.lexer import tokenize
    from compiler.parser import parse_module
    diags = Diagnostics()
    diags.add_source(path, text)
    tree = None
    tokens = []
    try:
        tokens = tokenize(text, path, diags)
        if not diags.has_errors:
            types, generics = known or NONE
            tree = parse_module(tokens, path, diags, types, generics)
    except CompileError:
        pass
    if diags.has_errors:
        if known is None and tokens and not any(d.span is None for d in diags.items):
            found = imported_names(tokens, path)
            if found != NONE:
                return parse(text, path, found)
        raise FormatError(diags.render_all())
    return tokens, tree, known or NONE


def imported_names(tokens, path: str) -> tuple[frozenset, frozenset]:
    """The type and generic names a module's imports make visible, as compiler/modules.py
    computes them, each import found where nsm's planner looks."""
    from compiler.lexer import tokenize
    from compiler.parser import declared_names
    from compiler.prescan import import_paths
    from nsm.build.graph import EscapeError, Planner
    from nsm.build.stamps import FileDB
    here = Path(path).resolve()
    try:
        planner = Planner(FileDB(), here)
    except Exception:  # noqa: BLE001 - a bad manifest: no names, the error stands
        return frozenset(), frozenset()
    known_t, known_g = set(), set()
    for line in import_paths(tokens):
        try:
            found, _ = planner.resolve(here, line.parts)
            dep = tokenize(found.read_text(encoding="utf-8"), str(found), Diagnostics()) \
                if found is not None else None
        except (OSError, UnicodeDecodeError, EscapeError, CompileError):
            dep = None
        if dep is None:
            continue
        t, g = declared_names(dep)
        if line.binding is not None:
            known_t |= {f"{line.binding}.{x}" for x in t}
            known_g |= {f"{line.binding}.{x}" for x in g}
        known_t |= {n for n in line.names if n in t}
        known_g |= {n for n in line.names if n in g}
    return frozenset(known_t), frozenset(known_g)


def same_tree(a, b) -> bool:
    """Whether two syntax trees are equal but for their source positions (iterative: a tree
    can nest thousands deep)."""
    import dataclasses
    from compiler.diagnostics import Span
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, Span):
            continue
        if isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif dataclasses.is_dataclass(x):
            todo.extend((getattr(x, f.name), getattr(y, f.name)) for f in dataclasses.fields(x))
        elif x != y:
            return False
    return True


def format_text(text: str, path: str) -> str:
    """The canonical layout of `text`; FormatError if it does not parse or the layout would
    change its syntax tree."""
    try:
        return on_deep_stack(lambda: _format(text, path))
    except RecursionError:
        raise FormatError(f"error: {path} nests too deeply to format\n") from None


DEEP_THREAD = "neve-fmt"


def on_deep_stack(fn):
    """fn() on a thread with the compiler's deep stack and recursion limit (syntax trees nest
    as deeply as the source does), or right here when already on one."""
    import threading
    if threading.current_thread().name == DEEP_THREAD:
        return fn()
    from compiler.driver import DEEP_RECURSION_LIMIT, DEEP_STACK_BYTES
    box: list = []

    def work() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        try:
            box.append((True, fn()))
        except BaseException as e:  # noqa: BLE001 - raised again on the caller's thread
            box.append((False, e))
        finally:
            sys.setrecursionlimit(old)
    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        t = threading.Thread(target=work, name=DEEP_THREAD)
        t.start()
    finally:
        threading.stack_size(old_size)
    t.join()
    ok, value = box[0]
    if not ok:
        raise value
    return value


def _format(text: str, path: str) -> str:
    return format_with_trees(text, path)[0]


def format_with_trees(text: str, path: str):
    """The layout of `text` with the syntax trees of both (FormatError as format_text)."""
    tokens, tree, known = parse(text, path)
    out = layout(text, tokens, channel_arrows(tree, tokens))
    try:
        _, again, _ = parse(out, path, known)
    except FormatError as e:
        raise FormatError(f"error: nsm fmt would break {path} (a bug of nsm fmt; the file is "
                          f"left as it is):\n{e}") from None
    if not same_tree(again, tree):
        raise FormatError(f"error: nsm fmt would change the meaning of {path} (a bug of nsm fmt; "
                          f"the file is left as it is)\n")
    return out, tree, again


def neve_files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*.nv")
                          if not SKIP_DIRS & set(f.relative_to(p).parts[:-1]))
        else:
            out.append(p)
    return out


def run_fmt(paths: list[str], check_only: bool, verbose: bool = False) -> int:
    """Format (or with `check_only`, list) the .nv files under `paths`, skipping those marked
    `# nsm fmt: off` (named on stderr with `verbose`); the exit status."""
    return on_deep_stack(lambda: _run_fmt(paths, check_only, verbose))


def _run_fmt(paths: list[str], check_only: bool, verbose: bool) -> int:
    status = 0
    changed = []
    for f in neve_files(paths):
        try:
            data = f.read_bytes()
        except OSError as e:
            sys.stderr.write(f"error: cannot read {f}: {e.strerror or e}\n")
            status = 1
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            sys.stderr.write(f"{f}: error: source is not valid UTF-8\n")
            status = 1
            continue
        if layout_kept(text):
            if verbose:
                sys.stderr.write(f"{f}: skipped ({MARKER})\n")
            continue
        try:
            out = format_text(text, str(f))
        except FormatError as e:
            sys.stderr.write(str(e))
            status = 1
            continue
        if out == text:
            continue
        changed.append(f)
        if check_only:
            print(f)
        else:
            f.write_text(out)
    if check_only and changed:
        status = 1
    return status
