"""nsm fmt and `<-` (LANGUAGE.md 2.4): the channel operator of a simple statement and of a
declaration item keeps its spaced arrow; anywhere else `x<-3` compares and prints `x < -3`."""
from __future__ import annotations

import pytest

from compiler import ast
from nsm.fmt.arrows import _nodes
from nsm.fmt.command import format_text, format_with_trees, same_tree


def body(lines: str) -> str:
    return "main\n" + "".join(f"    {ln}\n" for ln in lines.split("\n"))


@pytest.mark.parametrize("src,want", [
    ("if x<-3\n    pass", "if x < -3\n    pass"),
    ("while x<-3\n    pass", "while x < -3\n    pass"),
    ("bool b = x<-3", "bool b = x < -3"),
    ("b = x<-3", "b = x < -3"),
    ("print(x<-3, f(y)<-1)", "print(x < -3, f(y) < -1)"),
    ("b = x<--3", "b = x < - -3"),
    ("b = x<-y*2", "b = x < -y * 2"),
    ("ch<-v", "ch <- v"),
    ("x<-ch", "x <- ch"),
    ("a[i]<-ch", "a[i] <- ch"),
    ("a<-1", "a <- 1"),                          # statement level: still the channel operator
    ("ch<-x<-3", "ch <- x < -3"),                # its right side compares
    ("int w<-ch", "int w <- ch"),
    ("int w<-ch, z<-ch", "int w <- ch, z <- ch"),
    ("channel<int> c<-chs[0]", "channel<int> c <- chs[0]"),
    ("launch [1] [4] k(x)<-3>", "launch [1] [4] k(x)<-3>"),   # a compile-time list stays glued
])
def test_arrow_layout(src, want):
    out, before, after = format_with_trees(body(src), "a.nv")
    assert out == body(want)
    assert same_tree(before, after)
    assert format_text(out, "a.nv") == out                     # idempotent


def kinds(tree) -> list[str]:
    return sorted(type(n).__name__ for n in _nodes(tree)
                  if isinstance(n, (ast.ChanOp, ast.Binary, ast.Unary)) or
                  isinstance(n, ast.DeclItem) and n.recv is not None)


def test_the_parser_reads_the_layout_as_the_source():
    src = body("if x<-3\n    y<-ch\nint w<-ch\nb = x<-3")
    out, before, after = format_with_trees(src, "a.nv")
    assert out == body("if x < -3\n    y <- ch\nint w <- ch\nb = x < -3")
    assert kinds(before) == kinds(after) == ["Binary", "Binary", "ChanOp", "DeclItem", "Unary",
                                             "Unary"]
