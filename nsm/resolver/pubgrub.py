"""Conflict-driven resolution as PubGrub does it (Natalie Weizenbaum's algorithm, as in Dart's
pub and uv): unit propagation over incompatibilities, one decision at a time, and on a
conflict a learned incompatibility that backjumps past every choice it does not involve.
A package's versions are its known candidates, so a version set is a bitmask over them."""
from __future__ import annotations

from dataclasses import dataclass, field

from .types import Candidate, Index, Requirement

ROOT = "\0root"


@dataclass(frozen=True)
class Term:
    """`name` is selected at a version in `mask` (positive), or it is not (negative: not
    selected at all, or at a version outside `mask`)."""
    name: str
    mask: int
    positive: bool

    def inverse(self) -> "Term":
        return Term(self.name, self.mask, not self.positive)


def _intersect(a: Term, b: Term) -> Term:
    if a.positive and b.positive:
        return Term(a.name, a.mask & b.mask, True)
    if a.positive:
        return Term(a.name, a.mask & ~b.mask, True)
    if b.positive:
        return Term(a.name, b.mask & ~a.mask, True)
    return Term(a.name, a.mask | b.mask, False)


def _satisfies(state: Term, t: Term) -> bool:
    """Whether every assignment allowed by `state` satisfies `t`."""
    if state.positive:
        return (state.mask & ~t.mask) == 0 if t.positive else (state.mask & t.mask) == 0
    return False if t.positive else (t.mask & ~state.mask) == 0


def _contradicts(state: Term, t: Term) -> bool:
    """Whether no assignment allowed by `state` satisfies `t`."""
    if state.positive:
        return (state.mask & t.mask) == 0 if t.positive else (state.mask & ~t.mask) == 0
    return t.positive and (t.mask & ~state.mask) == 0


@dataclass(eq=False)
class Incompatibility:
    """Terms that may not all hold at once. `cause` is 'root', 'dependency' (of `parent` on
    `requirement`), 'none' (no candidate left) or a pair of incompatibilities it was derived
    from."""
    terms: list[Term]
    cause: object
    parent: Candidate | None = None
    requirement: Requirement | None = None


@dataclass
class _Assignment:
    term: Term
    level: int
    index: int
    cause: Incompatibility | None        # None: a decision
    state: Term = field(default=None)    # the package's accumulated term including this one


class Restart(Exception):
    """A package gained a candidate after its version sets were built: solve again."""


class Solver:
    """One resolution over `index`; `prefer` maps a name to its locked commit."""

    def __init__(self, index: Index, prefer: dict[str, str], extra: dict[str, list[Candidate]],
                 refs: dict[tuple[str, str, str], Candidate]):
        self.index = index
        self.prefer = prefer
        self.extra = extra                      # candidates known from an earlier attempt
        self.refs = refs                        # (name, source, ref) -> its candidate
        self.universe: dict[str, list[Candidate]] = {ROOT: [Candidate(ROOT, None, "", "")]}
        self.sources: dict[str, set[str]] = {}
        self.order: dict[str, list[int]] = {}
        self.incompat: dict[str, list[Incompatibility]] = {}
        self.assignments: list[_Assignment] = []
        self.by_name: dict[str, list[_Assignment]] = {}
        self.decided: dict[str, Candidate] = {}
        self.level = 0
        self.deps: dict[Candidate, list[Requirement]] = {}
        self.dep_incs: dict[Candidate, list[Incompatibility]] = {}

    # ---- version sets

    def _ensure(self, req: Requirement) -> None:
        """Make `req`'s package know the candidates `req` may pick (Restart if it had to
        learn new ones after its sets were built)."""
        name = req.name
        new = []
        if req.source not in self.sources.get(name, set()):
            new += self.index.candidates(name, req.source)
        if req.ref:
            key = (name, req.source, req.ref)
            if key not in self.refs:
                self.refs[key] = self.index.ref_candidate(*key)
            new.append(self.refs[key])
        pool = self.universe.get(name)
        fresh = [c for c in new if pool is None or c not in pool]
        self.sources.setdefault(name, set()).add(req.source)
        if pool is None:
            pool = list(self.extra.get(name, ()))
            pool += [c for c in fresh if c not in pool]
            self.universe[name] = pool
            self._order(name)
        elif fresh:
            self.extra[name] = pool + [c for c in fresh if c not in pool]
            raise Restart()

    def _order(self, name: str) -> None:
        pool = self.universe[name]
        ranked = sorted(range(len(pool)), key=lambda i: pool[i].version, reverse=True)
        locked = self.prefer.get(name)
        if locked:
            ranked.sort(key=lambda i: pool[i].commit != locked)
        self.order[name] = ranked

    def _mask(self, req: Requirement) -> int:
        m = 0
        for i, c in enumerate(self.universe[req.name]):
            if _allows(req, c):
                m |= 1 << i
        return m

    # ---- the partial solution

    def _state(self, name: str) -> Term | None:
        got = self.by_name.get(name)
        return got[-1].state if got else None

    def _assign(self, term: Term, cause: Incompatibility | None) -> None:
        prev = self._state(term.name)
        a = _Assignment(term, self.level, len(self.assignments), cause,
                        term if prev is None else _intersect(prev, term))
        self.assignments.append(a)
        self.by_name.setdefault(term.name, []).append(a)

    def _backtrack(self, level: int) -> None:
        while self.assignments and self.assignments[-1].level > level:
            a = self.assignments.pop()
            self.by_name[a.term.name].pop()
            if a.cause is None:
                del self.decided[a.term.name]
        self.level = level

    def _satisfier(self, t: Term) -> _Assignment:
        for a in self.by_name[t.name]:
            if _satisfies(a.state, t):
                return a
        raise AssertionError(f"no satisfier for {t}")

    # ---- the algorithm

    def _add(self, inc: Incompatibility) -> None:
        for t in inc.terms:
            self.incompat.setdefault(t.name, []).append(inc)

    def solve(self, roots: list[Requirement]) -> dict[str, Candidate]:
        self.level = 1
        self._assign(Term(ROOT, 1, True), None)
        self.decided[ROOT] = self.universe[ROOT][0]
        root = self.universe[ROOT][0]
        for r in roots:
            self._add(self._dependency(root, r))
        nxt = ROOT
        while nxt is not None:
            self._propagate(nxt)
            nxt = self._decide()
        return {n: c for n, c in self.decided.items() if n != ROOT}

    def _dependency(self, parent: Candidate, req: Requirement) -> Incompatibility:
        self._ensure(req)
        bit = 1 << self.universe[parent.name].index(parent)
        mask = self._mask(req)
        terms = [Term(parent.name, bit, True)]
        if mask:            # else no candidate fits: the parent itself is ruled out
            terms.append(Term(req.name, mask, False))
        return Incompatibility(terms, "dependency", parent, req)

    def _propagate(self, start: str) -> None:
        changed = [start]
        while changed:
            name = changed.pop()
            for inc in reversed(self.incompat.get(name, [])):
                rel = self._relation(inc)
                if rel is True:
                    learned = self._resolve_conflict(inc)
                    rel = self._relation(learned)
                    assert isinstance(rel, Term)
                    self._assign(rel.inverse(), learned)
                    changed = [rel.name]
                    break
                if isinstance(rel, Term):
                    self._assign(rel.inverse(), inc)
                    changed.append(rel.name)

    def _relation(self, inc: Incompatibility):
        """True if the partial solution satisfies every term, the one term left undecided
        when all others are satisfied, else None."""
        left = None
        for t in inc.terms:
            state = self._state(t.name) or Term(t.name, 0, False)    # nothing known yet
            if _satisfies(state, t):
                continue
            if _contradicts(state, t) or left is not None:
                return None
            left = t
        return True if left is None else left

    def _resolve_conflict(self, inc: Incompatibility) -> Incompatibility:
        new = False
        while not _terminal(inc):
            recent = recent_term = difference = None
            prev_level = 1
            for t in inc.terms:
                sat = self._satisfier(t)
                if recent is None or recent.index < sat.index:
                    if recent is not None:
                        prev_level = max(prev_level, recent.level)
                    recent, recent_term, difference = sat, t, None
                else:
                    prev_level = max(prev_level, sat.level)
                if recent_term is t:
                    d = _intersect(recent.term, t.inverse())
                    difference = None if _empty(d) else d
                    if difference is not None:
                        prev_level = max(prev_level, self._satisfier(difference.inverse()).level)
            if prev_level < recent.level or recent.cause is None:
                self._backtrack(prev_level)
                if new:
                    self._add(inc)
                return inc
            terms = [t for t in inc.terms if t is not recent_term]
            terms += [t for t in recent.cause.terms if t.name != recent.term.name]
            if difference is not None:
                terms.append(difference.inverse())
            inc = Incompatibility(_merge(terms), (inc, recent.cause))
            new = True
        raise Unsolvable(inc)

    def _decide(self) -> str | None:
        """Choose a version of the undecided package with the fewest left (None when every
        required package is decided)."""
        best = None
        for name, got in self.by_name.items():
            if not got or name in self.decided or not got[-1].state.positive:
                continue
            state = got[-1].state
            n = state.mask.bit_count()
            if best is None or (n, name) < best[:2]:
                best = (n, name, state)
                if n == 0:
                    break
        if best is None:
            return None
        _, name, state = best
        if state.mask == 0:
            self._add(Incompatibility([Term(name, 0, True)], "none"))
            return name
        pool = self.universe[name]
        i = next(i for i in self.order[name] if state.mask >> i & 1)
        cand = pool[i]
        if cand not in self.deps:          # its incompatibilities are facts: added once
            self.deps[cand] = self.index.dependencies(cand)
            self.dep_incs[cand] = [self._dependency(cand, r) for r in self.deps[cand]]
            for inc in self.dep_incs[cand]:
                self._add(inc)
        conflict = False
        for inc in self.dep_incs[cand]:
            if len(inc.terms) == 1:
                conflict = True
                continue
            dep = inc.terms[1]
            s = self._state(dep.name)
            conflict = conflict or (s is not None and _satisfies(s, dep))
        if not conflict:
            self.level += 1
            self._assign(Term(name, 1 << i, True), None)
            self.decided[name] = cand
        return name


class Unsolvable(Exception):
    """No solution: `incompatibility` is the root cause, with its derivation."""

    def __init__(self, incompatibility: Incompatibility) -> None:
        super().__init__("no solution")
        self.incompatibility = incompatibility


def _empty(t: Term) -> bool:
    return t.positive and t.mask == 0


def _terminal(inc: Incompatibility) -> bool:
    return not inc.terms or (len(inc.terms) == 1 and inc.terms[0].name == ROOT and
                             inc.terms[0].positive)


def _merge(terms: list[Term]) -> list[Term]:
    """One term per package (their intersection); the root's positive term dropped unless
    it is all that is left."""
    by: dict[str, Term] = {}
    for t in terms:
        by[t.name] = _intersect(by[t.name], t) if t.name in by else t
    out = [t for t in by.values() if not (t.name == ROOT and t.positive)]
    return out if out or ROOT not in by else [by[ROOT]]


def _allows(req: Requirement, c: Candidate) -> bool:
    if req.source != c.source:
        return False
    if req.ref:
        return req.ref in (c.ref, c.commit) and (
            not req.constraint.comparators or req.constraint.allows(c.version))
    return req.constraint.allows(c.version)


def solve(roots: list[Requirement], index: Index, prefer: dict[str, str] | None = None
          ) -> tuple[dict[str, Candidate], dict[Candidate, list[Requirement]]]:
    """The chosen candidate per package name and each chosen candidate's requirements;
    Unsolvable (with the root cause) when there is none."""
    extra: dict[str, list[Candidate]] = {}
    refs: dict[tuple[str, str, str], Candidate] = {}
    while True:
        s = Solver(index, prefer or {}, extra, refs)
        try:
            chosen = s.solve(roots)
        except Restart:
            continue
        return chosen, s.deps
