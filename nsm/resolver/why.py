"""From PubGrub's root cause to the two-chain wording: the external facts its derivation
rests on, the package they close in on (required, but requiring nothing in the conflict),
and for each requirement of it the chain of requirers from the root."""
from __future__ import annotations

import dataclasses

from .pubgrub import ROOT, Incompatibility
from .types import Candidate, Requirement
from .version import show


def _leaves(root_cause: Incompatibility) -> list[Incompatibility]:
    out, seen, todo = [], set(), [root_cause]
    while todo:
        inc = todo.pop()
        if id(inc) in seen:
            continue
        seen.add(id(inc))
        if isinstance(inc.cause, tuple):
            todo += [inc.cause[1], inc.cause[0]]        # left first
        else:
            out.append(inc)
    return out


def explain(root_cause: Incompatibility, roots: list[Requirement]
            ) -> tuple[str, list[Requirement]]:
    """The package no version of which satisfies every requirement, and those requirements
    (each `via` its chain of requirers)."""
    deps = [i for i in _leaves(root_cause) if i.cause == "dependency"]
    deps.sort(key=lambda i: () if i.parent.version is None else tuple(
        -x for x in i.parent.version.release))          # newest requirer first (stable)
    parents = {i.parent.name for i in deps}
    count: dict[str, int] = {}
    for i in deps:
        count[i.requirement.name] = count.get(i.requirement.name, 0) + 1
    sinks = [n for n in count if n not in parents] or list(count)
    if not sinks:
        none = [i.terms[0].name for i in _leaves(root_cause) if i.cause == "none"]
        return (none[0] if none else "?"), []
    name = max(sinks, key=lambda n: (count[n], n))
    memo: dict[int, tuple[str, ...]] = {}

    def via(c: Candidate, busy: frozenset = frozenset()) -> tuple[str, ...]:
        if c.name == ROOT:
            return ("root",)
        if id(c) not in memo:
            label = f"{c.name} {show(c.version)}"
            froms = [via(i.parent, busy | {c.name}) for i in deps
                     if i.requirement.name == c.name and i.parent.name not in busy | {c.name}]
            memo[id(c)] = (min(froms, key=len) if froms else ("root",)) + (label,)
        return memo[id(c)]

    hop = {r.name: k for k, r in enumerate(roots)}
    lines = [dataclasses.replace(i.requirement, via=via(i.parent))
             for i in deps if i.requirement.name == name]
    lines.sort(key=lambda r: -1 if len(r.via) == 1 else hop.get(r.via[1].split(" ")[0], 0))
    return name, lines
