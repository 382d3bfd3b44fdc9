"""Parser: turns the lexer's tokens into the syntax tree of ast.py (recursive descent, precedence climbing; LANGUAGE.md Appendix A).

This module is the public API. The grammar is split by concern into mixins that _Parser combines:
stream (token cursor, errors, resynchronisation, nesting counters), toplevel, statements, types and
expressions; grammar holds the tables (compiler/prescan.py is the pass over a module's tokens before parsing), and
dump the S-expression printer.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

from .. import ast
from ..diagnostics import CompileError, Diagnostics, Span
from ..tokens import T, Token
from .dump import dump
from .expressions import _Expressions
from .grammar import BUILTIN_GENERICS, COMPOSITE_TYPES, MAX_NESTING, NESTING_MESSAGE, OPERATOR_SYMBOLS
from ..prescan import ImportLine, _prescan, import_paths, scan_imports
from .statements import _Statements
from .stream import _Sync, _TokenStream
from .toplevel import _TopLevel
from .types import _Types

__all__ = ["BUILTIN_GENERICS", "COMPOSITE_TYPES", "MAX_NESTING", "NESTING_MESSAGE", "OPERATOR_SYMBOLS",
           "declared_names", "dump", "import_paths", "parse_expression", "parse_module", "scan_imports"]

# Python frames per nesting level are bounded (about 5 per block or bracket, 4 per type list), so with
# every kind at its limit at one point the parser needs under 4000 frames; the default limit of 1000
# is too low. The limit is raised only while parsing (parsing recursion is pure Python, no C stack).
_RECURSION_LIMIT = 8000
_limit_lock = threading.Lock()
_limit_users = 0
_limit_saved = 0


class _Parser(_TopLevel, _Statements, _Types, _Expressions, _TokenStream):
    """The recursive-descent parser: one instance per module (or f-string field), its state in
    _TokenStream, its grammar in the mixins."""


def parse_module(tokens: list[Token], path: str, diags: Diagnostics,
                 known_types: frozenset[str] = frozenset(),
                 known_generics: frozenset[str] = frozenset()) -> ast.Module:
    """Parse one module's tokens. Errors go to `diags` (the module then holds what parsed cleanly).

    `known_types` / `known_generics` name the types and the generic functions and classes visible
    from imports, bare (`Tensor`, after `from m import Tensor`) or qualified (`m.Box`). The module's
    own classes, aliases and generic functions are found by a pre-scan of the tokens. Raises only
    CompileError (from `diags`, at its error limit).
    """
    types, generics, modules = _prescan(tokens)
    parser = _Parser(tokens, path, diags, frozenset(known_types) | types,
                     BUILTIN_GENERICS | frozenset(known_generics) | generics, modules)
    with _recursion_limit():
        return parser.module()


def declared_names(tokens: list[Token]) -> tuple[frozenset[str], frozenset[str]]:
    """The type names (classes, aliases, opaque C types of protos) and generic names a module
    declares, from its tokens alone: what its importers' parsers must know (Appendix A, 1)."""
    types, generics, _ = _prescan(tokens)
    return types, generics


def parse_expression(source: str, span: Span, diags: Diagnostics) -> ast.Expr:
    """Parse the expression text of an f-string field starting at `span` (spans point into its file).

    Errors are reported to `diags`; a field that does not parse raises CompileError.
    """
    parser = _Parser([Token(T.EOF, "", span)], span.file, diags, frozenset(), BUILTIN_GENERICS,
                     frozenset())
    with _recursion_limit():
        try:
            return parser.field(source, span)
        except _Sync:
            raise CompileError() from None


@contextmanager
def _recursion_limit():
    """Raise the interpreter's recursion limit for the duration of a parse (shared by threads)."""
    global _limit_users, _limit_saved
    with _limit_lock:
        if _limit_users == 0:
            _limit_saved = sys.getrecursionlimit()
            if _limit_saved < _RECURSION_LIMIT:
                sys.setrecursionlimit(_RECURSION_LIMIT)
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_limit_saved)
