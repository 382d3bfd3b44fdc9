"""Explanations of a failed resolution, PubGrub-style: for the package no version could
satisfy, each chain of requirers from the root and what it asks for, with the versions of
one requirer that all ask the same thing folded into one line."""
from __future__ import annotations

from .types import Requirement


def _fold(reqs: list[Requirement]) -> list[str]:
    """Requirement lines; requirements differing only in the requirer's version are folded."""
    groups: dict[tuple, list[str]] = {}
    for r in reqs:
        head, last = r.via[:-1], r.via[-1]
        parent, _, version = last.partition(" ")
        what = f"@{r.ref}" if r.ref else str(r.constraint)
        groups.setdefault((head, parent, r.name, what), [])
        if version and version not in groups[(head, parent, r.name, what)]:
            groups[(head, parent, r.name, what)].append(version)
    lines = []
    for (head, parent, name, what), versions in groups.items():
        if len(versions) > 2:
            who = f"{parent} ({len(versions)} versions, {versions[-1]} ... {versions[0]})"
        elif versions:
            who = f"{parent} {' or '.join(versions)}"
        else:
            who = parent
        lines.append(f"  {' -> '.join((*head, who))} requires {name} {what}")
    return sorted(set(lines), key=lines.index)


def conflict_message(name: str, dead_ends: list[list[Requirement]]) -> str:
    """The message for `name`, which had no acceptable version under the requirement sets
    of `dead_ends` (each a list tried together)."""
    reqs: list[Requirement] = []
    for group in dead_ends:
        for r in group:
            if r not in reqs:
                reqs.append(r)
    return (f"no version of {name} satisfies every requirement:\n" + "\n".join(_fold(reqs)))


def cycle_message(cycle: list[str]) -> str:
    """The message for a dependency cycle `a -> b -> a`."""
    return "dependency cycle: " + " -> ".join(cycle)
