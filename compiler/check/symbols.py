"""Top-level symbols of a program: module scopes, classes and their instantiations, generic
functions awaiting monomorphisation, operators, globals."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import ast as A
from .. import tir as T
from ..types import ClassT, Type

if TYPE_CHECKING:                  # the loader's Module, named in annotations only
    from ..modules import Module


@dataclass(frozen=True)
class CInt:
    """A compile-time parameter's value in an instance's environment, beside type parameters
    (docs/phase2.md); its text is the symbol suffix."""
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(eq=False)
class GenericFunc:
    """A `def` with type parameters: specialised per type-argument list (6.4)."""
    ast: A.FuncDef
    scope: "ModScope"
    instances: dict[tuple[Type, ...], T.FuncSym] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.ast.name


@dataclass(eq=False)
class ClassDecl:
    """A class definition; `instances` maps type arguments to ClassInfo (one for non-generic)."""
    ast: A.ClassDef
    scope: "ModScope"
    instances: dict[tuple[Type, ...], "ClassInfo"] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.ast.name


@dataclass(eq=False)
class ClassInfo:
    """One concrete class (a generic class with its type arguments)."""
    decl: ClassDecl
    type: ClassT
    env: dict[str, Type]
    fields: list[tuple[str, Type]] = field(default_factory=list)
    field_index: dict[str, int] = field(default_factory=dict)
    field_caps: dict[str, int] = field(default_factory=dict)      # channel fields (3.4)
    methods: dict[str, T.FuncSym] = field(default_factory=dict)   # nearest definitions, inherited too
    ctor: T.FuncSym | None = None
    base: "ClassInfo | None" = None                              # 7.5
    slots: list[str] = field(default_factory=list)               # vtable order, bases' first
    own_methods: set[str] = field(default_factory=set)           # defined in this class's body
    abstract: str | None = None    # the first abstract method (bases first), or None
    to_str: T.FuncSym | None = None
    ready: bool = False            # fields resolved
    maker: T.FuncSym | None = None  # creates the global instance $C (7.3)

    @property
    def init(self) -> T.FuncSym | None:
        """The ctor `new C()` runs: C's own, else the nearest base's (7.5)."""
        c = self
        while c is not None and c.ctor is None:
            c = c.base
        return c.ctor if c is not None else None

    @property
    def vtable(self) -> list[T.FuncSym]:
        return [self.methods[n] for n in self.slots]

    def extends(self, other: "ClassInfo") -> bool:
        c = self
        while c is not None:
            if c is other:
                return True
            c = c.base
        return False


@dataclass(eq=False)
class ModScope:
    """The top-level names of one module (8)."""
    mod: Module
    functions: dict[str, T.FuncSym | GenericFunc] = field(default_factory=dict)
    classes: dict[str, ClassDecl] = field(default_factory=dict)
    aliases: dict[str, A.TypeAlias] = field(default_factory=dict)
    operators: list[tuple[str, T.FuncSym | GenericFunc]] = field(default_factory=list)
    gpu_operators: list = field(default_factory=list)   # (symbol, FuncDef, then FuncSym)
    imports: dict[str, "ModScope"] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    from_names: dict[str, tuple["ModScope", str]] = field(default_factory=dict)
    visible: list["ModScope"] = field(default_factory=list)   # itself + transitive imports
    alias_cache: dict[str, Type] = field(default_factory=dict)
    main: A.MainDef | None = None
    std: "ModScope | None" = None      # the standard library's scope (None inside std)
    foreign: dict[str, Type] = field(default_factory=dict)       # opaque C types (11.2)
    foreign_create: dict[Type, T.FuncSym] = field(default_factory=dict)   # T_create
    foreign_destroy: dict[Type, T.FuncSym] = field(default_factory=dict)  # T_destroy
    foreign_init: T.FuncSym | None = None                        # initialize__pkg
    foreign_layout: dict[Type, object] = field(default_factory=dict)  # proto struct (cstructs)
    constants: dict[str, object] = field(default_factory=dict)   # proto T NAME = VALUE

    @property
    def key(self) -> str:
        return self.mod.key

    @property
    def path(self) -> str:
        return self.mod.path
