"""Version constraints -> one consistent set of exact commits, one version per package name
(PubGrub-style conflict-driven solving, pubgrub.py; conflicts and cycles explained in the
two-chain wording of explain.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import NsmError
from .explain import conflict_message, cycle_message
from .types import Candidate, Index, Requirement
from .version import show

__all__ = ["Candidate", "Index", "Requirement", "Resolution", "resolve"]


@dataclass
class Resolution:
    """The chosen candidate per package name, and each one's dependency names."""
    packages: dict[str, Candidate]
    dependencies: dict[str, tuple[str, ...]]


def find_cycle(deps: dict[str, tuple[str, ...]], versions: dict[str, str]) -> list[str] | None:
    """A dependency cycle among the chosen packages (`a 1.0.0`, ..., `a 1.0.0`), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in deps.get(n, ()):
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m]
                return [f"{x} {versions[x]}" for x in cyc]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(deps):
        if n not in state and (found := visit(n)):
            return found
    return None


def resolve(roots: list[Requirement], index: Index, prefer: dict[str, str] | None = None
            ) -> Resolution:
    """Choose one candidate per package so every requirement reachable from `roots` holds,
    newest versions first (except a `prefer`red locked commit). NsmError with an explanation
    when none exists, or when the chosen packages depend on each other in a cycle."""
    from .pubgrub import Unsolvable, solve
    from .why import explain
    try:
        packages, reqs = solve(roots, index, prefer)
    except Unsolvable as e:
        name, lines = explain(e.incompatibility, roots)
        raise NsmError(conflict_message(name, [lines])) from None
    deps = {n: tuple(sorted({r.name for r in reqs.get(c, ())})) for n, c in packages.items()}
    cycle = find_cycle(deps, {n: show(c.version) for n, c in packages.items()})
    if cycle:
        raise NsmError(cycle_message(cycle), "packages may not depend on each other in a cycle")
    return Resolution(packages, deps)
