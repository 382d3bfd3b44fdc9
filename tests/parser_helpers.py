"""Helpers shared by the parser tests: parse source text, return trees or located errors."""
from __future__ import annotations

import textwrap
from pathlib import Path


from compiler import ast
from compiler.diagnostics import Diagnostics, Span
from compiler.lexer import tokenize
from compiler.parser import dump, parse_expression, parse_module

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"   # ../shared beside the repo


def seeds_or_skip() -> Path:
    """The seeds folder; a clone without ../shared skips the calling test (with its reason),
    except under CI=true, where a missing folder fails it."""
    import os
    import pytest
    if not SEEDS.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"seeds folder {SEEDS} is missing (CI=true)")
        pytest.skip(f"seeds folder {SEEDS} is missing (../shared beside the repository)")
    return SEEDS


def parse(src: str, **kw) -> tuple[ast.Module, list[str]]:
    """Parse a whole file; return the module and its errors as 'line:col: message'."""
    d = Diagnostics()
    toks = tokenize(src, "t.nv", d)
    m = parse_module(toks, "t.nv", d, **kw)
    return m, [f"{x.span.line}:{x.span.col}: {x.message}" for x in d.items]


def ok(src: str, **kw) -> ast.Module:
    m, errs = parse(textwrap.dedent(src), **kw)
    assert errs == []
    return m


def errors(src: str, **kw) -> list[str]:
    return parse(textwrap.dedent(src), **kw)[1]


def body(src: str, **kw) -> list[str]:
    """Dump of each statement of `main` holding the given (dedented) lines."""
    lines = textwrap.dedent(src).strip("\n").splitlines()
    m = ok("main\n" + "".join(f"    {ln}\n" for ln in lines), **kw)
    main = [i for i in m.items if isinstance(i, ast.MainDef)][0]
    return [dump(s) for s in main.body.body]


def stmt(src: str, **kw) -> str:
    [s] = body(src, **kw)
    return s


def expr(src: str) -> str:
    d = Diagnostics()
    e = parse_expression(src, Span("t.nv", 1, 1), d)
    assert d.items == []
    return dump(e)


def expr_errors(src: str) -> list[str]:
    return errors(f"main\n    x = {src}\n")
