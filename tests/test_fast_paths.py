"""The code chosen for allocation and map updates (issue 23): which runtime entry each form reaches,
read from the LLVM IR. What the forms compute is in the golden programs
(s03_types/map_update_one_probe.nv, s07_classes/gc_objects_reachable.nv,
s09_concurrency/gc_threads_alloc.nv)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from ir_helpers import function_bodies  # noqa: E402


PROGRAM = """\
class Cell
    int v
    Cell next

class Plain
    int a
    f64 b

class Big
    int[60] pad
    Cell c

def int bump(int x)
    return x + 1

def void fused(map<str, int> m, str w)
    m[w] = m.get(w, 0) + 1

def void fused_field(Box b, str w)
    b.m[w] = b.m.get(w, 7) * 2 - 1

def void other_map(map<str, int> m, map<str, int> a, str w)
    m[w] = a.get(w, 0) + 1

def void other_key(map<str, int> m, str w, str v)
    m[w] = m.get(v, 0) + 1

def void rereads(map<str, int> m, str w)
    m[w] = m.get(w, 0) + m.size()

def void calls(map<str, int> m, str w)
    m[w] = bump(m.get(w, 0))

def void twice(map<str, int> m, str w)
    m[w] = m.get(w, 0) + m.get(w, 1)

class Box
    map<str, int> m

def Cell cell()
    return new Cell()

def Plain plain()
    return new Plain()

def Big big()
    return new Big()

main
    print(1)
"""


@pytest.fixture(scope="module")
def bodies(tmp_path_factory) -> dict[str, str]:
    """LLVM IR of each function of PROGRAM, by its source name."""
    return function_bodies(tmp_path_factory.mktemp("fast"), "fast", PROGRAM, "llvm")


def calls(body: str) -> list[str]:
    return sorted(set(re.findall(r"call \w+ @(nv_\w+)", body)))


@pytest.mark.parametrize("fn", ["fused", "fused_field"])
def test_get_then_store_is_one_probe(bodies, fn):
    assert [c for c in calls(bodies[fn]) if c.startswith("nv_map")] == ["nv_map_upsert"]


@pytest.mark.parametrize("fn", ["other_map", "other_key", "rereads", "calls", "twice"])
def test_other_forms_keep_the_read_and_the_store(bodies, fn):
    found = calls(bodies[fn])
    assert "nv_map_upsert" not in found
    assert {"nv_map_find", "nv_map_slot"} <= set(found)


def test_objects_with_pointers_pop_the_thread_free_list(bodies):
    body = bodies["cell"]
    assert "@nv_gc_fl" in body
    assert calls(body) == ["nv_gc_alloc_slow"]


def test_pointer_free_objects_are_atomic(bodies):
    assert calls(bodies["plain"]) == ["nv_alloc_atomic"]


def test_objects_too_large_for_the_free_lists_use_the_collector(bodies):
    assert calls(bodies["big"]) == ["nv_alloc"]
    assert "@nv_gc_fl" not in bodies["big"]
