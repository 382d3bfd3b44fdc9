"""Compiler plug-ins of `nsm build`: the interface and the registry.

A plug-in turns the source files of a package that it claims (by suffix) into build units:
ninja edges with their outputs. It registers under the Python entry-point group
`nsm.compilers` (pyproject.toml: `[project.entry-points."nsm.compilers"] name = "mod:Class"`),
so a third party adds a language by installing a distribution. The built-ins are `neve`
(.nv -> object + interface) and `cxx` (C/C++ -> shared library).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

GROUP = "nsm.compilers"


@dataclass(frozen=True)
class Rule:
    """A ninja rule. `restat` with write-if-changed outputs gives early cut-off."""
    name: str
    command: str
    description: str = ""
    depfile: str | None = None
    deps: str | None = None          # "gcc" when the depfile is make-style
    restat: bool = False
    pool: str | None = None


@dataclass
class Edge:
    """One ninja build statement."""
    outputs: list[str]
    rule: str
    inputs: list[str] = field(default_factory=list)
    implicit: list[str] = field(default_factory=list)
    order_only: list[str] = field(default_factory=list)
    implicit_outputs: list[str] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)


@dataclass
class Products:
    """What a plug-in's units give the link step of an executable."""
    objects: list[str] = field(default_factory=list)
    link_args: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)   # shared libraries (link inputs)
    outputs: list[str] = field(default_factory=list)     # other files a build makes (default targets)


class CompilerPlugin(Protocol):
    """The interface a compiler plug-in implements.

    `name` identifies it; `suffixes` are the source suffixes it takes; `version()` enters every
    content key and rule of the plug-in, so upgrading it rebuilds its outputs; `rules(ctx)`
    returns its ninja rules; `edges(ctx, package)` returns the build statements for the files
    of one package it takes, and the products the link step uses."""
    name: str
    suffixes: tuple[str, ...]

    def version(self) -> str: ...

    def rules(self, ctx) -> list[Rule]: ...

    def edges(self, ctx, package) -> tuple[list[Edge], Products]: ...


def load_plugins() -> dict[str, CompilerPlugin]:
    """Every registered plug-in by name; the built-ins also when metadata is unavailable (a
    source checkout that was not pip-installed)."""
    from importlib.metadata import entry_points
    found: dict[str, CompilerPlugin] = {}
    for ep in entry_points(group=GROUP):
        try:
            cls = ep.load()
        except Exception as e:  # noqa: BLE001 - a broken third-party plug-in must not stop nsm
            from ...errors import NsmError
            raise NsmError(f"cannot load compiler plug-in '{ep.name}' ({ep.value}): {e}")
        found[ep.name] = cls()
    if "neve" not in found:
        from .neve import NevePlugin
        found["neve"] = NevePlugin()
    if "cxx" not in found:
        from .cxx import CxxPlugin
        found["cxx"] = CxxPlugin()
    return found

