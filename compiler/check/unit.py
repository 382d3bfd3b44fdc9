"""Checking one build unit: the unit's modules fully, other modules by their declarations.

Bodies of non-generic functions of modules outside the unit are not checked; the facts
lowering needs from them (may_raise, recursion) come from those modules' interfaces. Generic
instances are checked wherever they are used. In the program's root unit, the `$Name`
mentions recorded in every interface join the unit's own, so globals are created in the
whole program's order (7.3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import tir as T
from .callgraph import analyse
from .expr import Abandon
from .members import global_capable
from .checker import Checker
from ..diagnostics import InternalError

if TYPE_CHECKING:                  # the loader's Module, named in annotations only
    from ..modules import Module

REC_SUFFIX = "~rec"


class UnitChecker(Checker):
    def __init__(self, modules: list[Module], root: Module, diags, std, unit: set[Module],
                 ifaces: dict[str, dict]) -> None:
        super().__init__(modules, root, diags, std)
        self.unit = unit
        self.ifaces = ifaces            # module key -> interface, for modules outside the unit
        self.require_main = False       # only the unit holding main has one
        self.skipped: list[T.FuncSym] = []
        self.mentions: list[tuple] = []  # this unit's own `$Name` mentions
        self.injecting = False

    def outside(self, f: T.FuncSym) -> bool:
        """Declared in a module outside the unit and neither a generic instance nor a gpu
        function (whose body this unit's kernels compile into their PTX)."""
        return f.scope is not None and f.scope.mod not in self.unit and not f.env and \
            getattr(f.ast, "kind", "def") != "gpu"

    def check_function(self, sym: T.FuncSym) -> None:
        if self.outside(sym):
            self.skipped.append(sym)
            return
        super().check_function(sym)

    def note_global(self, info, here, span, name) -> None:
        if not self.injecting:
            self.mentions.append((here, info))
        super().note_global(info, here, span, name)

    def before_bodies(self, scopes) -> None:
        while self.pending_classes:           # layouts and ctors of the unit's classes
            self.complete_class(self.pending_classes.pop(0))
        for ms in scopes:
            if ms.mod not in self.unit:
                continue
            # the unit defining C owns the function creating $C (a strong definition that
            # wins over the linkonce copies of the units mentioning $C)
            for decl in ms.classes.values():
                info = decl.instances.get(())
                if info is not None and not decl.ast.tparams and global_capable(info) \
                        and info.maker is None:
                    self.try_maker(info)
        if getattr(self, "main_sym", None) is not None:
            self.inject_globals(scopes)

    def try_maker(self, info) -> None:
        """Make $C's creator unless that reports errors (a ctor default that does not check):
        those are the program's to report at a real `$C`, as the whole-program build does."""
        mark = len(self.diags.items)
        try:
            self.make_maker(info)
        except Abandon:
            pass
        if len(self.diags.items) > mark:
            for d in self.diags.items[mark:]:
                self.diags._seen.discard((d.span, d.message))
            del self.diags.items[mark:]
            if info.maker in self.extra_funcs:
                self.extra_funcs.remove(info.maker)
            info.maker = None

    def inject_globals(self, scopes) -> None:
        """The root unit creates every global of the program: those its imports mention too."""
        by_key = {ms.key: ms for ms in scopes}
        index = {m.key: i for i, m in enumerate(self.modules)}
        self.injecting = True
        try:
            for key in sorted(self.ifaces):
                for mod_key, line, col, cls_key, cls_name in self.ifaces[key].get("globals", []):
                    ms = by_key.get(cls_key)
                    decl = ms.classes.get(cls_name) if ms is not None else None
                    if decl is None or mod_key not in index:
                        raise InternalError(f"interface of module {key} names an unknown "
                                            f"global ${cls_name} of {cls_key}; rebuild it")
                    info = self.class_info(decl, (), decl.ast.span)
                    if not info.ready:
                        self.complete_class(info)
                    self.note_global(info, (index[mod_key], line, col), decl.ast.span, cls_name)
        finally:
            self.injecting = False

    def analyse_calls(self, checked: list[T.FuncSym]) -> list[T.FuncSym]:
        skipped = set(self.skipped)
        checked = [f for f in checked if f not in skipped]
        for n, f in enumerate(self.skipped):
            self.apply_facts(f, n)
        analyse(checked)
        self.report_kernel_recursion(checked)
        for f in checked:
            # an instance's recursion can depend on bodies this unit did not see, and it
            # changes the code (a stack probe, callers' frames): name the two variants apart
            # so linkonce copies from different units never mix them
            if f.env and f.scc is not None:
                f.symbol += REC_SUFFIX
        return checked

    def apply_facts(self, f: T.FuncSym, n: int) -> None:
        mod = f.scope.mod
        iface = self.ifaces.get(mod.key)
        fact = iface["facts"].get(f.symbol) if iface is not None else None
        if fact is None:
            if getattr(f, "foreign", None) is not None:
                return                       # a proto: its facts come with its declaration
            raise InternalError(f"the interface of module {mod.path} ({mod.key}.nvi) has no "
                                f"entry for {f.symbol}; rebuild that module")
        f.may_raise = bool(fact[0])
        f.scc = -(n + 1) if fact[1] else None    # a component of its own, outside the unit

    def unit_mentions(self) -> dict[Module, list]:
        """The unit's own `$Name` mentions as interface entries, per unit module: each
        module's own, and those attributed to modules outside the unit (generic instances)
        with the unit's first module."""
        first = min(self.unit, key=lambda m: m.key)
        out: dict[Module, set] = {m: set() for m in self.unit}
        for (idx, line, col), info in self.mentions:
            mod = self.modules[idx]
            entry = (mod.key, line, col, info.decl.scope.key, info.decl.name)
            out[mod if mod in self.unit else first].add(entry)
        return {m: [list(e) for e in sorted(v)] for m, v in out.items()}
