"""Lexical scopes of a function body (5.1), the base of a thread body's capturing scope (9.2)."""
from __future__ import annotations

from .. import tir as T


class Scope:
    """Lexical scopes of one function body: a stack of dicts plus the set of all names, since
    a function may not redeclare a visible local (5.1)."""

    def __init__(self) -> None:
        self.frames: list[dict[str, T.Var]] = [{}]

    def lookup(self, name: str) -> T.Var | None:
        for f in reversed(self.frames):
            if name in f:
                return f[name]
        return None

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def declare(self, var: T.Var) -> None:
        self.frames[-1][var.name] = var

    def visible_names(self) -> list[str]:
        return [n for f in self.frames for n in f]
