"""Every kernel of every kernel program has PTX that ptxas assembles for sm_80 and sm_90, with
its `.entry` (issue 7, "Tests").

Programs: the golden kernel programs (tests/programs/s12_kernels/*.nv, and phase2/*.nv of
docs/phase2.md) and one small program per builtin (tests/kernels/programs/: indices in 2-D/3-D
launches, barriers and shared memory at offsets, shuffles of each width, atomics on int/i32/float/f64, math, gpu functions). The PTX is
what `nsm run --emit ptx` prints and what the runtime embeds. With CI=true a missing ptxas
fails these tests (conftest.py).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.backends import ptxas
from nsm.build.orchestrate import whole_program as compile_file

HERE = Path(__file__).parent
REPO = HERE.parents[1]
KERNEL_DEF = re.compile(r"^kernel\s+\w+\s+(\w+)\s*\(", re.M)
CPARAMS = re.compile(r"\)<int ")          # compile-time parameters: one entry per instance


def _compiles_kernels(p: Path) -> bool:
    """Programs that compile and define kernels (not the diagnostics programs)."""
    text = p.read_text()
    return KERNEL_DEF.search(text) is not None and not re.search(r"# error[@:-]", text)


PROGRAMS = [p for p in sorted((HERE / "programs").glob("*.nv")) +
            sorted((REPO / "tests" / "programs" / "s12_kernels").glob("*.nv")) +
            sorted((REPO / "tests" / "programs" / "s12_kernels" / "phase2").glob("*.nv"))
            if _compiles_kernels(p)]
# PTX each of the builtin programs must contain: the builtin really reached the GPU lowering
EXPECT = {
    "ids.nv": ["%tid.z", "%ctaid.z", "%ntid.y", "%nctaid.y"],
    "barrier_shared.nv": ["bar.sync", "st.shared", "ld.shared", ".extern .shared"],
    "shuffles.nv": ["shfl.sync.bfly.b32", "shfl.sync.down.b32"],
    "atomics.nv": ["atom.global.add.u64", "atom.global.add.u32", "atom.global.add.f32",
                   "atom.global.add.f64"],
    "math_gpu.nv": ["sqrt.rn.f32", "sqrt.rn.f64", "ex2.approx", "cvt.rmi.f32.f32"],
    # a barrier inlined from a gpu function defined after its kernel
    "gpu_function_block_reduce.nv": ["bar.sync"],
    # phase 2 (docs/phase2.md): shared layouts in address space 3 and the warp intrinsics
    "layouts.nv": [".shared .align 16 .b8", "st.shared.b32", "ld.shared.b32"],
    "cp_async.nv": ["cp.async.ca.shared.global", "cp.async.commit_group",
                    "cp.async.wait_group \t1;", "cp.async.wait_group \t0;"],
    "ldmatrix.nv": ["ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x2.shared.b16"],
    "mma.nv": ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
               "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
}


def ptx_of(path: Path) -> str:
    res = compile_file(str(path), emit="ptx")
    assert res.ok, res.diags.render_all()
    return res.dump or ""


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kernels_assemble_with_their_entries(path, ptxas_tool):
    kernels = KERNEL_DEF.findall(path.read_text())
    assert kernels, "a kernel program without kernels"
    ptx = ptx_of(path)
    entries = re.findall(r"\.entry\s+(\w+)\s*\(", ptx)
    if not CPARAMS.search(path.read_text()):
        assert len(entries) == len(kernels), (entries, kernels)
    for k in kernels:                  # entry names end with the kernel's name (and its instance's values)
        assert any(re.search(rf"_{k}(_[0-9_]+)?$", e) for e in entries), (k, entries)
    for needle in EXPECT.get(path.name, []):
        assert needle in ptx, needle
    assert ".extern .func" not in ptx          # nothing left for the host runtime to provide
    done = ptxas.assemble(ptx, entries, ptxas=ptxas_tool)
    assert [d.arch for d in done] == ["sm_80", "sm_90"]


def test_modules_without_kernels_import_nothing_gpu_related(tmp_path):
    """The NVPTX back end (and llvmlite's NVPTX target) is only touched for kernels."""
    import subprocess
    import sys
    src = tmp_path / "plain.nv"
    src.write_text("main\n    print(1)\n")
    code = ("import sys\nfrom nsm.build.orchestrate import whole_program as compile_file\n"
            f"r = compile_file({str(src)!r}, emit='llvm')\nassert r.ok\n"
            "print('compiler.backends.nvptx' in sys.modules, 'compiler.lower.kernels_gpu' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert p.stdout.split() == ["False", "False"], p.stderr


def test_emit_ptx_from_the_command_line(tmp_path):
    from click.testing import CliRunner
    from nsm.cli import cli
    res = CliRunner().invoke(cli, ["run", "--emit", "ptx", str(HERE / "programs" / "ids.nv")])
    assert res.exit_code == 0, res.output
    assert res.output.count(".visible .entry") == 2 and ".target sm_80" in res.output


def test_missing_libdevice_leaves_the_reason_for_the_runtime(monkeypatch, tmp_path):
    """No libdevice: kernels using exp/log still compile for the CPU; their descriptor holds
    "" as PTX and the reason as entry; `--emit ptx` reports it as an error."""
    monkeypatch.setenv("NEVE_LIBDEVICE", str(tmp_path / "absent.bc"))
    res = compile_file(str(HERE / "programs" / "math_gpu.nv"), emit="ptx")
    assert not res.ok
    assert any("libdevice.10.bc not found" in d.message for d in res.diags.items)
    res = compile_file(str(HERE / "programs" / "math_gpu.nv"), emit="ir")
    assert res.ok and "libdevice.10.bc not found" in res.dump
