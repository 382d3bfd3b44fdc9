"""A compound assignment to an array element finds the element again after a right side that may
grow the array (growth moves its storage), and keeps its one address otherwise: read
from the LLVM IR before optimisation. What the forms compute is in s14_stdlib/array_growth.nv."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

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

main
    print(1)
"""


@pytest.fixture(scope="module")
def bodies(tmp_path_factory) -> dict[str, str]:
    """LLVM IR of each function of PROGRAM, by its source name."""
    p = tmp_path_factory.mktemp("grow") / "grow.nv"
    p.write_text(PROGRAM)
    r = subprocess.run([str(BIN / "nsm"), "run", "--emit", "ir", str(p)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = {}
    for m in re.finditer(r"^define [^@]*@\"?nv\.grow_\w+\.([\w.]+)\"?\(.*?^}", r.stdout, re.S | re.M):
        out[m.group(1)] = m.group(0)
    return out


# rebased(): the element's offset in the storage, from its address (an i64*) and the storage's
OFFSET = re.compile(r"ptrtoint i64\* %\S+ to i64")


def test_a_call_on_the_right_rederives_the_element_address(bodies):
    body = bodies["calls"]
    call = re.search(r"call i64 @\"?nv\.grow_\w+\.grow\"?", body)
    assert call
    assert OFFSET.search(body, call.end())    # again after the call, from the storage read then


@pytest.mark.parametrize("fn", ["plain", "nested"])
def test_without_calls_the_address_is_computed_once(bodies, fn):
    assert not OFFSET.search(bodies[fn])
