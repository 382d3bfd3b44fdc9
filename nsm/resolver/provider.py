"""The resolvelib provider: candidates newest first (a locked version first), cheap
preferences, and a record of every dead end for the conflict explanation."""
from __future__ import annotations

import dataclasses

from resolvelib import AbstractProvider

from .types import Candidate, Index, Requirement
from .version import show


class Provider(AbstractProvider):
    """Adapts an Index to resolvelib; `prefer` maps a name to its locked commit."""

    def __init__(self, index: Index, prefer: dict[str, str] | None = None) -> None:
        self.index = index
        self.prefer = prefer or {}
        self.pools: dict[tuple[str, str], list[Candidate]] = {}
        self.via: dict[str, tuple[str, ...]] = {}
        self.dead_ends: dict[str, list[list[Requirement]]] = {}
        self.deps: dict[Candidate, list[Requirement]] = {}
        self.refs: dict[tuple[str, str, str], Candidate] = {}
        self._sat: dict[tuple[Requirement, Candidate], bool] = {}

    def identify(self, requirement_or_candidate):
        return requirement_or_candidate.name

    def get_preference(self, identifier, resolutions, candidates, information, backtrack_causes):
        refd = any(i.requirement.ref for i in information[identifier])
        causes = any(c.requirement.name == identifier for c in backtrack_causes)
        return (not refd, not causes, identifier)

    def _pool(self, name: str, source: str) -> list[Candidate]:
        key = (name, source)
        if key not in self.pools:
            pool = sorted(self.index.candidates(name, source), key=lambda c: c.version, reverse=True)
            locked = self.prefer.get(name)
            if locked:
                pool.sort(key=lambda c: c.commit != locked)
            self.pools[key] = pool
        return self.pools[key]

    def find_matches(self, identifier, requirements, incompatibilities):
        reqs = list(requirements[identifier])
        bad = set(incompatibilities[identifier])
        vias = [r.via for r in reqs]
        if vias:
            self.via[identifier] = min(vias, key=len)
        refd = next((r for r in reqs if r.ref), None)
        if refd is not None:
            key = (identifier, refd.source, refd.ref)
            if key not in self.refs:
                self.refs[key] = self.index.ref_candidate(*key)
            pool = [self.refs[key]]
        else:
            pool = self._pool(identifier, reqs[0].source)
        found = [c for c in pool if c not in bad and all(self.is_satisfied_by(r, c) for r in reqs)]
        if not found:
            self.dead_ends.setdefault(identifier, []).append(reqs)
        return found

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        # resolvelib re-checks every pin each round: memoised (both types hash by identity).
        key = (requirement, candidate)
        try:
            return self._sat[key]
        except KeyError:
            hit = self._sat[key] = self._satisfied(requirement, candidate)
            return hit

    def _satisfied(self, requirement: Requirement, candidate: Candidate) -> bool:
        if requirement.source != candidate.source:
            return False
        if requirement.ref:
            return requirement.ref in (candidate.ref, candidate.commit) and (
                not requirement.constraint.comparators or
                requirement.constraint.allows(candidate.version))
        return requirement.constraint.allows(candidate.version)

    def get_dependencies(self, candidate: Candidate):
        if candidate not in self.deps:
            chain = self.via.get(candidate.name, ("root",)) + (
                f"{candidate.name} {show(candidate.version)}",)
            self.deps[candidate] = [dataclasses.replace(r, via=chain)
                                    for r in self.index.dependencies(candidate)]
        return self.deps[candidate]
