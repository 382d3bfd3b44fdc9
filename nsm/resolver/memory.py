"""An in-memory Index: metadata already fetched (benchmarks, tests, and a cache of git reads)."""
from __future__ import annotations

from ..errors import NsmError
from .types import Candidate, Requirement
from .version import parse_tag


class MemoryIndex:
    """Packages given as {name: {version_text: [Requirement...]}}, all from source `name`."""

    def __init__(self, packages: dict[str, dict[str, list[Requirement]]]) -> None:
        self.packages = packages
        self._cands = {n: [Candidate(n, parse_tag(v), n, f"{n}-{v}", f"v{v}") for v in vs]
                       for n, vs in packages.items()}

    def candidates(self, name: str, source: str) -> list[Candidate]:
        """Every version of `name`."""
        return self._cands.get(name, [])

    def ref_candidate(self, name: str, source: str, ref: str) -> Candidate:
        """The candidate tagged `ref` (v1.0.0)."""
        for c in self._cands.get(name, []):
            if ref in (c.ref, c.commit):
                return c
        raise NsmError(f"{name} has no ref '{ref}'")

    def dependencies(self, cand: Candidate) -> list[Requirement]:
        """The requirements listed for `cand`."""
        for text, reqs in self.packages[cand.name].items():
            if parse_tag(text) == cand.version:
                return reqs
        return []
