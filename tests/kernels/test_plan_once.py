"""The kernel region plan (compiler/lower/regions.py) is a pass over the checked IR: one compile
makes one plan per kernel, which the CPU lowering reads (whole-program and separate builds)."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.lower import regions

HERE = Path(__file__).parent
# reduce.nv: three kernels, barriers and shared memory; shuffles.nv: split shuffles
PROGRAMS = [HERE / "cpu" / "reduce.nv", HERE / "cpu" / "shuffles.nv",
            HERE / "programs" / "ids.nv"]


def kernels_in(path: Path) -> int:
    return sum(1 for ln in path.read_text().splitlines() if ln.startswith("kernel "))


@pytest.fixture
def plans(monkeypatch) -> list:
    """Every Plan made, whoever calls plan_kernel and however it was imported."""
    made, real = [], regions.Plan

    def counting(*args, **kw):
        made.append(real(*args, **kw))
        return made[-1]
    monkeypatch.setattr(regions, "Plan", counting)
    return made


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_one_plan_per_kernel_in_a_whole_program_compile(path, plans):
    from nsm.build.orchestrate import whole_program as compile_file
    res = compile_file(str(path))
    assert res.ok, res.diags.render_all()
    assert res.units and len(plans) == kernels_in(path)


def test_one_plan_per_kernel_in_a_unit_compile(tmp_path, plans):
    from tests.unit_compile.harness import compile_program
    src = HERE / "cpu" / "reduce.nv"
    assert compile_program(src, tmp_path)        # std's units first, then the program's
    assert len(plans) == kernels_in(src) == 3
