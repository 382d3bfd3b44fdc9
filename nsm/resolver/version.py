"""Versions (git tags in semver form: v1.2.0, 1.2, 0.15) and cargo-style constraints
(^1.2, ~1.2, >=, <, ==, *, comma-joined). Versions compare numerically (packaging), so
0.9 < 0.15; pre-releases match only a constraint that names a pre-release."""
from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from ..errors import NsmError

_TAG = re.compile(r"v?(\d+(\.\d+){0,2}([-.]?(alpha|beta|rc|a|b|pre)[.-]?\d*)?)\Z")


def parse_tag(tag: str) -> Version | None:
    """The version a tag names (`v1.2.0`, `1.2`, `1.0.0-rc.1`), or None for other tags."""
    if not _TAG.match(tag):
        return None
    try:
        return Version(tag[1:] if tag.startswith("v") else tag)
    except InvalidVersion:
        return None


def parse_version(text: str) -> Version:
    """A manifest's version string as a Version; NsmError if it is not semver-like."""
    v = parse_tag(text)
    if v is None:
        raise NsmError(f"invalid version '{text}'", "write a version as 1.2.0")
    return v


def show(v: Version) -> str:
    """A version as shown and as used in folder names: at least three numbers (0.15 -> 0.15.0)."""
    rel = list(v.release) + [0] * (3 - len(v.release))
    text = ".".join(map(str, rel))
    if v.pre:
        text += "-" + {"a": "alpha", "b": "beta", "rc": "rc"}[v.pre[0]] + f".{v.pre[1]}"
    return text


def _upper(release: tuple[int, ...], caret: bool) -> Version:
    rel = list(release) + [0] * (3 - len(release))
    n = len(release)
    if not caret:                           # ~: bump the minor, or the major for ~1
        return Version(f"{rel[0] + 1}.0.0") if n == 1 else Version(f"{rel[0]}.{rel[1] + 1}.0")
    if rel[0] > 0 or n == 1:
        return Version(f"{rel[0] + 1}.0.0")
    if rel[1] > 0 or n == 2:
        return Version(f"0.{rel[1] + 1}.0")
    return Version(f"0.0.{rel[2] + 1}")


@dataclass(frozen=True)
class Constraint:
    """A set of versions: every (op, version) comparator must hold. `text` is what the user
    wrote; `pre` is true when a comparator names a pre-release (then pre-releases match)."""
    text: str
    comparators: tuple[tuple[str, Version], ...]
    pre: bool = False

    def allows(self, v: Version) -> bool:
        """Whether version `v` satisfies the constraint."""
        if v.is_prerelease and not self.pre:
            return False
        for op, b in self.comparators:
            if not _CMP[op](v, b):
                return False
        return True

    def __str__(self) -> str:
        return self.text


_CMP = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}
_PART = re.compile(r"\s*(\^|~|>=|<=|>|<|==|=|!=)?\s*v?([0-9][0-9A-Za-z.+-]*)\s*\Z")

ANY = Constraint("*", ())


def parse_constraint(text: str) -> Constraint:
    """Parse a cargo-style constraint: `^1.2` = >=1.2.0,<2.0.0, `^0.15` = >=0.15.0,<0.16.0,
    `~1.2` = >=1.2.0,<1.3.0, a bare `1.2` = `^1.2`, `==1.2.0`, `*`; comma-joined parts all
    hold. NsmError on anything else."""
    text = text.strip()
    if text in ("*", ""):
        return ANY
    comps: list[tuple[str, Version]] = []
    pre = False
    for part in text.split(","):
        m = _PART.match(part)
        v = parse_tag(m.group(2)) if m else None
        if v is None:
            raise NsmError(f"invalid version constraint '{text}'",
                           "write ^1.2, ~1.2, >=1.0, <2.0, ==1.2.0 or *, joined by ','")
        op = m.group(1) or "^"
        pre = pre or v.is_prerelease
        if op in ("^", "~"):
            comps += [(">=", v), ("<", _upper(v.release, op == "^"))]
        else:
            comps.append(("==" if op == "=" else op, v))
    return Constraint(text, tuple(comps), pre)


def exact(v: Version) -> Constraint:
    """The constraint matching exactly `v` (pre-release or not)."""
    return Constraint(f"=={show(v)}", (("==", v),), True)
