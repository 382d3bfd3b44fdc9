"""A checker for editors (nsm lsp): checks the bodies of chosen modules only and records, for
every expression it checks, the typed result, so a tool can map a source position to a type or
a symbol. Builds never use it; the checker itself is unchanged (this subclass observes it)."""
from __future__ import annotations

from .checker import Checker


class RecordingChecker(Checker):
    """`focus`: the modules whose function bodies are checked (others by their declarations);
    `exprs` maps (file, line, col) of an expression's span to [(ast node, typed expr)], innermost
    last; `types` does the same for type names; `scopes` and `functions` keep what was built."""

    def __init__(self, modules, root, diags, std=None, focus=()) -> None:
        super().__init__(modules, root, diags, std)
        self.focus = set(focus)
        self.exprs: dict[tuple, list] = {}
        self.types: dict[tuple, list] = {}
        self.functions: list = []
        self.scopes: list = []

    def build_scopes(self, modules):
        self.scopes = super().build_scopes(modules)
        return self.scopes

    def check_function(self, sym) -> None:
        scope = sym.scope
        if scope is not None and scope.mod not in self.focus and not sym.env:
            return                       # outside the edited module: its declarations suffice
        self.functions.append(sym)
        super().check_function(sym)

    def analyse_calls(self, checked):
        return checked                   # frames and recursion only matter to code generation

    def expr(self, e, expected=None, allow_void=False):
        r = super().expr(e, expected, allow_void)
        self._note(self.exprs, e, r)
        return r

    def resolve_type(self, te, allow_void=False):
        t = super().resolve_type(te, allow_void)
        self._note(self.types, te, (t, self.ms))
        return t

    @staticmethod
    def _note(table, node, value) -> None:
        sp = getattr(node, "span", None)
        if sp is not None:
            table.setdefault((sp.file, sp.line, sp.col), []).append((node, value))
