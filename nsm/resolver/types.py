"""The resolver's values: a Requirement (who asks for what) and a Candidate (one exact
version of one package at one commit), and the Index the resolver reads them from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from packaging.version import Version

from .version import Constraint


@dataclass(frozen=True, eq=False)
class Requirement:
    """`name` from `source` within `constraint`, or at git `ref` when given. `via` is the
    chain of requirers from the root (`("root", "a 1.0.0")`), for error messages."""
    name: str
    source: str
    constraint: Constraint
    ref: str | None = None
    via: tuple[str, ...] = ("root",)

    def describe(self) -> str:
        what = f"{self.name} @{self.ref}" if self.ref else f"{self.name} {self.constraint}"
        return f"{' -> '.join(self.via)} requires {what}"


@dataclass(frozen=True, eq=False)
class Candidate:
    """Version `version` of `name`, from `source` at `commit` (reached through tag/branch `ref`).
    Compared by identity (cheap hashing in the solver's hot loop): an Index returns one object
    per version."""
    name: str
    version: Version
    source: str
    commit: str
    ref: str = ""


class Index(Protocol):
    """Package metadata, already fetched or fetched on demand."""

    def candidates(self, name: str, source: str) -> list[Candidate]:
        """Every released (tagged) version of `name` at `source`."""

    def ref_candidate(self, name: str, source: str, ref: str) -> Candidate:
        """The candidate a tag, branch or commit names."""

    def dependencies(self, cand: Candidate) -> list[Requirement]:
        """What `cand` requires (its `via` is filled in by the resolver)."""
