"""`nsm fmt [--check] [PATHS]`: formats files in place, or lists those that would change. A file
that does not lex and parse is refused with the compiler's diagnostics; a layout whose syntax
tree differs from the original's (which would be a bug of the formatter) is never written."""
from __future__ import annotations

import sys
from pathlib import Path

from compiler.diagnostics import CompileError, Diagnostics

from .layout import layout

SKIP_DIRS = {".git", "build", ".venv", "node_modules", "__pycache__"}


class FormatError(Exception):
    """A file that cannot be formatted; the message is what the user sees."""


def parse(text: str, path: str):
    """Tokens and syntax tree of `text`, or FormatError with the rendered diagnostics."""
    from compiler.lexer import tokenize
    from compiler.parser import parse_module
    diags = Diagnostics()
    diags.add_source(path, text)
    tree = None
    tokens = []
    try:
        tokens = tokenize(text, path, diags)
        if not diags.has_errors:
            tree = parse_module(tokens, path, diags)
    except CompileError:
        pass
    except RecursionError:
        diags.error(None, f"{path}: nests too deeply to format")
    if diags.has_errors:
        raise FormatError(diags.render_all())
    return tokens, tree


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
    change its syntax tree. Runs on a deep stack, as the compiler does (trees nest deeply)."""
    import threading
    from compiler.driver import DEEP_RECURSION_LIMIT, DEEP_STACK_BYTES
    box: list = []

    def work() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        try:
            box.append(_format(text, path))
        except (FormatError, RecursionError) as e:
            box.append(e if isinstance(e, FormatError) else
                       FormatError(f"error: {path} nests too deeply to format\n"))
        finally:
            sys.setrecursionlimit(old)
    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        t = threading.Thread(target=work, name="neve-fmt")
        t.start()
    finally:
        threading.stack_size(old_size)
    t.join()
    if isinstance(box[0], FormatError):
        raise box[0]
    return box[0]


def _format(text: str, path: str) -> str:
    tokens, tree = parse(text, path)
    out = layout(text, tokens)
    try:
        _, again = parse(out, path)
    except FormatError as e:
        raise FormatError(f"error: nsm fmt would break {path} (a bug of nsm fmt; the file is "
                          f"left as it is):\n{e}") from None
    if not same_tree(again, tree):
        raise FormatError(f"error: nsm fmt would change the meaning of {path} (a bug of nsm fmt; "
                          f"the file is left as it is)\n")
    return out


def neve_files(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*.nv")
                          if not SKIP_DIRS & set(f.relative_to(p).parts[:-1]))
        else:
            out.append(p)
    return out


def run_fmt(paths: list[str], check_only: bool) -> int:
    """Format (or with `check_only`, list) the .nv files under `paths`; the exit status."""
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
