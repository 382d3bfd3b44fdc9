"""Versions, cargo-style constraints and the resolver over in-memory metadata: ordering,
0.x carets, pre-releases, conflicts and cycles with their exact messages, the 40-version trap."""
from __future__ import annotations

import time

import pytest

from nsm.errors import NsmError
from nsm.resolver import Requirement, resolve
from nsm.resolver.memory import MemoryIndex
from nsm.resolver.version import parse_constraint, parse_tag, show


def req(name, c="*"):
    return Requirement(name, name, parse_constraint(c))


@pytest.mark.parametrize("constraint,version,ok", [
    ("^1.2", "1.2.0", True), ("^1.2", "1.99.3", True), ("^1.2", "2.0.0", False),
    ("^1.2", "1.1.9", False), ("^0.15", "0.15.7", True), ("^0.15", "0.16.0", False),
    ("^0.0.3", "0.0.3", True), ("^0.0.3", "0.0.4", False), ("^0", "0.99.0", True),
    ("~1.2", "1.2.9", True), ("~1.2", "1.3.0", False), ("~1", "1.9.0", True),
    (">=1.0, <2", "1.5.0", True), (">=1.0, <2", "2.0.0", False), ("==1.2.0", "1.2", True),
    ("1.2", "1.5.0", True), ("*", "0.0.1", True),
    ("^1.0", "1.1.0-rc.1", False), (">=1.0.0-rc.1", "1.0.0-rc.2", True), ("*", "2.0.0-alpha.1", False),
])
def test_constraints(constraint, version, ok):
    assert parse_constraint(constraint).allows(parse_tag(version)) is ok


def test_versions_order_numerically_and_show_three_numbers():
    assert parse_tag("0.9") < parse_tag("0.15") < parse_tag("v1.2") == parse_tag("1.2.0")
    assert parse_tag("1.0.0-rc.1") < parse_tag("1.0.0")
    assert show(parse_tag("0.15")) == "0.15.0" and show(parse_tag("v2.0.0-rc.1")) == "2.0.0-rc.1"
    assert parse_tag("latest") is None and parse_tag("v1.2.3.4") is None


@pytest.mark.parametrize("bad", ["^x", "1.2; rm -rf /", ">>1", "^1.2,", "--upload-pack=x"])
def test_bad_constraints_are_errors(bad):
    with pytest.raises(NsmError, match="invalid version constraint"):
        parse_constraint(bad)


def test_newest_compatible_and_prereleases_only_when_asked():
    idx = MemoryIndex({"a": {"0.9.0": [], "0.15.0": [], "0.15.2": [], "0.16.0-rc.1": []}})
    assert show(resolve([req("a", "^0.15")], idx).packages["a"].version) == "0.15.2"
    assert show(resolve([req("a", "*")], idx).packages["a"].version) == "0.15.2"
    assert show(resolve([req("a", ">=0.16.0-rc.1")], idx).packages["a"].version) == "0.16.0-rc.1"


def test_backtracks_to_a_compatible_version():
    idx = MemoryIndex({"a": {"1.0.0": [req("c", "^1")], "2.0.0": [req("c", "^2")]},
                       "b": {"1.0.0": [req("c", "^1")]},
                       "c": {"1.0.0": [], "1.4.0": [], "2.0.0": []}})
    res = resolve([req("a"), req("b")], idx)
    assert {n: show(c.version) for n, c in res.packages.items()} == \
        {"a": "1.0.0", "b": "1.0.0", "c": "1.4.0"}
    assert res.dependencies["a"] == ("c",)


def test_conflict_names_both_chains():
    idx = MemoryIndex({"a": {"1.0.0": [req("b", "^1")]}, "b": {"1.0.0": [req("d", "^1")]},
                       "c": {"2.0.0": [req("d", "^2")]},
                       "d": {"1.0.0": [], "2.0.0": []}})
    with pytest.raises(NsmError) as e:
        resolve([req("a", "^1"), req("c", "^2")], idx)
    assert e.value.message == ("no version of d satisfies every requirement:\n"
                               "  root -> a 1.0.0 -> b 1.0.0 requires d ^1\n"
                               "  root -> c 2.0.0 requires d ^2")


def test_cycle_is_reported_and_terminates():
    idx = MemoryIndex({"a": {"1.0.0": [req("b")]}, "b": {"1.0.0": [req("c")]},
                       "c": {"1.0.0": [req("a", "^1")]}})
    with pytest.raises(NsmError) as e:
        resolve([req("a")], idx)
    assert e.value.message == "dependency cycle: a 1.0.0 -> b 1.0.0 -> c 1.0.0 -> a 1.0.0"


def test_trap_fails_fast_with_a_short_explanation():
    idx = MemoryIndex({"x": {f"{v}.0.0": [req("y", "<1")] for v in range(1, 41)},
                       "y": {"0.1.0": [], "1.0.0": [], "1.1.0": []}})
    t = time.perf_counter()
    with pytest.raises(NsmError) as e:
        resolve([req("x"), req("y", ">=1")], idx)
    assert time.perf_counter() - t < 2
    assert e.value.message == ("no version of y satisfies every requirement:\n"
                               "  root requires y >=1\n"
                               "  root -> x (40 versions, 1.0.0 ... 40.0.0) requires y <1")


def test_locked_commit_is_preferred():
    idx = MemoryIndex({"a": {"1.0.0": [], "1.1.0": []}})
    res = resolve([req("a", "^1")], idx, prefer={"a": "a-1.0.0"})
    assert show(res.packages["a"].version) == "1.0.0"


def _nested(n, levels=2):
    names = ["xb", "w", "v"][:levels]
    pkgs = {name: {f"{v}.0.0": [req(names[k + 1]) if k + 1 < levels else req("y", "<1")]
                   for v in range(1, n + 1)} for k, name in enumerate(names)}
    pkgs["y"] = {"0.1.0": [], "1.0.0": [], "1.1.0": []}
    return MemoryIndex(pkgs)


@pytest.mark.parametrize("n", [60, 80])
def test_nested_trap_fails_fast_with_the_two_chains(n):
    t = time.perf_counter()
    with pytest.raises(NsmError) as e:
        resolve([req("xb"), req("y", ">=1")], _nested(n))
    assert time.perf_counter() - t < 1
    assert e.value.message == ("no version of y satisfies every requirement:\n"
                               "  root requires y >=1\n"
                               f"  root -> xb {n}.0.0 -> w ({n} versions, 1.0.0 ... {n}.0.0) "
                               "requires y <1")


def test_three_level_trap_learns_instead_of_backtracking():
    t = time.perf_counter()
    with pytest.raises(NsmError, match="root -> xb 40.0.0 -> w 40.0.0 -> v \\(40 versions"):
        resolve([req("xb"), req("y", ">=1")], _nested(40, 3))
    assert time.perf_counter() - t < 1


def test_thousand_packages_resolve_fast():
    import random
    rnd = random.Random(1)
    pkgs = {f"p{i}": {f"1.{v}.0": ([req(f"p{j}", f"^1.{rnd.randrange(10)}")
                                    for j in rnd.sample(range(i), 3)] if i >= 3 else [])
                      for v in range(10)} for i in range(1000)}
    idx = MemoryIndex(pkgs)
    t = time.perf_counter()
    res = resolve([req(f"p{i}", "^1.0") for i in range(980, 1000)], idx)
    assert time.perf_counter() - t < 1
    for name, c in res.packages.items():        # every requirement of the choice holds
        for r in idx.dependencies(c):
            assert r.constraint.allows(res.packages[r.name].version), (name, r.name)


def test_ref_requirement_and_version_constraint_together():
    idx = MemoryIndex({"a": {"1.0.0": [req("c", "^1")]}, "c": {"1.0.0": [], "1.5.0": [],
                                                                "2.0.0": []}})
    pin = Requirement("c", "c", parse_constraint("*"), "v1.0.0")
    res = resolve([req("a"), pin], idx)
    assert show(res.packages["c"].version) == "1.0.0"
    bad = Requirement("c", "c", parse_constraint("*"), "v2.0.0")
    with pytest.raises(NsmError) as e:
        resolve([req("a"), bad], idx)
    assert e.value.message == ("no version of c satisfies every requirement:\n"
                               "  root requires c @v2.0.0\n"
                               "  root -> a 1.0.0 requires c ^1")


def test_branch_candidate_learned_late_restarts_and_satisfies_both():
    from nsm.resolver.types import Candidate

    class BranchIndex(MemoryIndex):
        main = Candidate("c", parse_tag("3.0.0"), "c", "c-main", "main")

        def ref_candidate(self, name, source, ref):
            return self.main if ref == "main" else super().ref_candidate(name, source, ref)

    idx = BranchIndex({"c": {"1.0.0": [], "2.0.0": []}})
    branch = Requirement("c", "c", parse_constraint("*"), "main")
    res = resolve([req("c", "^3"), branch], idx)
    assert res.packages["c"] is BranchIndex.main
    with pytest.raises(NsmError, match="no version of c"):
        resolve([req("c", "^2"), branch], idx)
