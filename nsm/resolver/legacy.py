"""The resolver before issue 14: resolvelib's backtracking solver (no learning from
conflicts), kept for bench/packages/run.py to compare against."""
from __future__ import annotations

import gc

from resolvelib import BaseReporter, ResolutionImpossible, ResolutionTooDeep, Resolver

from ..errors import NsmError
from .explain import conflict_message, cycle_message
from .provider import Provider
from . import Resolution, find_cycle
from .types import Index, Requirement
from .version import show


def resolve(roots: list[Requirement], index: Index, prefer: dict[str, str] | None = None,
            max_rounds: int = 200_000) -> Resolution:
    """Choose one candidate per package so every requirement reachable from `roots` holds,
    newest versions first (except a `prefer`red locked commit). NsmError with an explanation
    when none exists, or when the chosen packages depend on each other in a cycle."""
    provider = Provider(index, prefer)
    gc_was_on = gc.isenabled()
    gc.disable()            # the solver allocates many small objects and frees few
    try:
        result = Resolver(provider, BaseReporter()).resolve(roots, max_rounds=max_rounds)
    except ResolutionImpossible as e:
        names = [c.requirement.name for c in e.causes]
        name = max(set(names), key=lambda n: (len(provider.dead_ends.get(n, ())), n)) if names \
            else "?"
        if name in provider.dead_ends:
            raise NsmError(conflict_message(name, provider.dead_ends[name])) from None
        raise NsmError(conflict_message(name, [[c.requirement for c in e.causes]])) from None
    except ResolutionTooDeep:
        raise NsmError("dependency resolution gave up after too many steps") from None
    finally:
        if gc_was_on:
            gc.enable()
    packages = dict(result.mapping)
    deps = {n: tuple(sorted({r.name for r in provider.get_dependencies(c)}))
            for n, c in packages.items()}
    cycle = find_cycle(deps, {n: show(c.version) for n, c in packages.items()})
    if cycle:
        raise NsmError(cycle_message(cycle), "packages may not depend on each other in a cycle")
    return Resolution(packages, deps)
