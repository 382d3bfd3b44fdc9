"""A compound assignment to an array element finds the element again after a right side that may
grow the array (growth moves its storage), and keeps its one address otherwise: read
from the LLVM IR before optimisation. What the forms compute is in s14_stdlib/array_growth.nv."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from ir_helpers import function_bodies  # noqa: E402


PROGRAM = """\
def int grow(array<int> a)
    a.append(1)
    return 1

def void calls(array<int> a)
    a[0] += grow(a)

def void plain(array<int> a, int k)
    a[k] += k * 2 - a[0]

def void nested(array<int[2]> a)
    a[0][1] *= 3

def int grow_pairs(array<int[2]> a)
    a.append([0, 0])
    return 1

def void nested_calls(array<int[2]> a)
    a[0][1] += grow_pairs(a)

main
    print(1)
"""


@pytest.fixture(scope="module")
def bodies(tmp_path_factory) -> dict[str, str]:
    """LLVM IR of each function of PROGRAM, by its source name."""
    return function_bodies(tmp_path_factory.mktemp("grow"), "grow", PROGRAM, "ir")


# rebased(): the element's offset in the storage, from its address (an i64*) and the storage's
OFFSET = re.compile(r"ptrtoint i64\* %\S+ to i64")


def test_a_call_on_the_right_looks_the_element_up_again(bodies):
    body = bodies["calls"]
    call = re.search(r"call i64 @\"?nv\.grow_\w+\.grow\"?", body)
    assert call
    assert "nv_panic_index" in body[call.end():]    # bounds checked again after the call


def test_a_call_on_the_right_rebases_a_part_of_an_element(bodies):
    body = bodies["nested_calls"]
    call = re.search(r"call i64 @\"?nv\.grow_\w+\.grow_pairs\"?", body)
    assert call
    assert OFFSET.search(body, call.end())    # again after the call, from the storage read then


@pytest.mark.parametrize("fn", ["plain", "nested"])
def test_without_calls_the_address_is_computed_once(bodies, fn):
    assert not OFFSET.search(bodies[fn])
