"""The NVPTX back end below the language: NVVM IR built with compiler.lower.kernels_gpu, turned
into PTX by compiler.backends.nvptx, assembled by ptxas for sm_80 and sm_90 with every `.entry`.

These pin each builtin's lowering independently of the front end; test_ptx.py does the same
for Neve programs. ptxas is the judge (it rejects what the driver JIT would reject).
"""
from __future__ import annotations

import llvmlite.ir as ir
import pytest

from compiler.backends import nvptx, ptxas
from compiler.lower.kernels_gpu import F32, F64, I8, I32, I64, NvvmBuiltins, mark_kernel

PARAM_TYPES = {"f32": F32.as_pointer(), "f64": F64.as_pointer(), "i32": I32.as_pointer(),
               "i64": I64.as_pointer(), "n": I64}


def kernel(build, params=("f32", "f32", "n"), name="k"):
    """A module with one kernel whose body `build(b, nv, args)` writes."""
    m = ir.Module(name)
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [PARAM_TYPES[p] for p in params]), name)
    mark_kernel(fn)
    b = ir.IRBuilder(fn.append_basic_block())
    build(b, NvvmBuiltins(m), fn.args)
    b.ret_void()
    return str(m)


def gid(b, nv):
    return b.add(b.mul(nv.special(b, "bx"), nv.special(b, "bdx")), nv.special(b, "tx"))


def _ids(b, nv, a):
    total = I64(0)
    for n in ("tx", "ty", "tz", "bx", "by", "bz", "bdx", "bdy", "bdz", "gdx", "gdy", "gdz",
              "warp", "lane"):
        total = b.add(total, nv.special(b, n))
    b.store(b.sitofp(total, F32), b.gep(a[0], [gid(b, nv)]))


def _shuffles(b, nv, a):
    i = gid(b, nv)
    x = b.load(b.gep(a[1], [i]))
    for mode in ("bfly", "down"):
        x = b.fadd(x, nv.shuffle(b, mode, x, I64(16)))
        as_i64 = nv.shuffle(b, mode, b.fptosi(x, I64), I64(1))
        as_f64 = nv.shuffle(b, mode, b.fpext(x, F64), I64(2))
        as_i8 = nv.shuffle(b, mode, b.fptosi(x, I8), I64(4))
        as_half = nv.shuffle(b, mode, b.fptrunc(x, ir.HalfType()), I64(8))
        x = b.fadd(x, b.fadd(b.sitofp(as_i64, F32), b.fptrunc(as_f64, F32)))
        x = b.fadd(x, b.fadd(b.sitofp(as_i8, F32), b.fpext(as_half, F32)))
    b.store(x, b.gep(a[0], [i]))


def _atomics(b, nv, a):
    i = gid(b, nv)
    nv.atomic_add(b, b.gep(a[0], [I64(0)]), F32(1.0))
    nv.atomic_add(b, b.gep(a[1], [I64(0)]), F64(1.0))
    nv.atomic_add(b, b.gep(a[2], [I64(0)]), I32(1))
    old = nv.atomic_add(b, b.gep(a[3], [I64(0)]), i)
    b.store(old, b.gep(a[3], [i]))


def _shared(b, nv, a):
    tx = nv.special(b, "tx")
    s = nv.shared(b, F32, I64(0))
    t = nv.shared(b, F64, I64(1024))             # a second array at a byte offset
    b.store(b.load(b.gep(a[1], [gid(b, nv)])), b.gep(s, [tx]))
    b.store(F64(2.0), b.gep(t, [tx]))
    nv.syncthreads(b)
    v = b.load(b.gep(s, [b.xor(tx, I64(1))]))
    w = b.fptrunc(b.load(b.gep(t, [tx])), F32)
    b.store(b.fadd(v, w), b.gep(a[0], [gid(b, nv)]))


def _math(b, nv, a):
    i = gid(b, nv)
    x = b.load(b.gep(a[1], [i]))
    d = b.fpext(x, F64)
    for name in ("sqrt", "exp", "log", "tanh", "floor", "ceil", "abs"):
        x = nv.math(b, name, [x])
        d = nv.math(b, name, [d])
    for name in ("pow", "min", "max"):
        x = nv.math(b, name, [x, x])
        d = nv.math(b, name, [d, d])
    b.store(b.fadd(x, b.fptrunc(d, F32)), b.gep(a[0], [i]))


def _fma(b, nv, a):
    i = gid(b, nv)
    x = b.load(b.gep(a[1], [i]))
    b.store(b.fadd(b.fmul(x, F32(2.0)), x), b.gep(a[0], [i]))


CASES = {
    "ids": (_ids, ("f32", "f32", "n")),
    "shuffles": (_shuffles, ("f32", "f32", "n")),
    "atomics": (_atomics, ("f32", "f64", "i32", "i64")),
    "shared": (_shared, ("f32", "f32", "n")),
    "math": (_math, ("f32", "f32", "n")),
    "fma": (_fma, ("f32", "f32", "n")),
}
EXPECT = {    # PTX each builtin must produce
    "ids": ["%tid.z", "%ctaid.y", "%ntid.x", "%nctaid.z"],
    "shuffles": ["shfl.sync.bfly.b32", "shfl.sync.down.b32"],
    "atomics": ["atom.global.add.f32", "atom.global.add.f64", "atom.global.add.u32",
                "atom.global.add.u64"],
    "shared": [".extern .shared .align 16 .b8 __neve_smem[]", "st.shared", "ld.shared",
               "bar.sync"],
    "math": ["sqrt.rn.f32", "sqrt.rn.f64", "ex2.approx", "cvt.rmi.f32.f32", "cvt.rmi.f64.f64"],
    "fma": ["fma.rn.f32"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_builtin_ptx_assembles(case, ptxas_tool):
    build, params = CASES[case]
    ptx = nvptx.compile_ptx(kernel(build, params), ["k"])
    assert nvptx.has_entry(ptx, "k")
    for needle in EXPECT[case]:
        assert needle in ptx, needle
    done = ptxas.assemble(ptx, ["k"], ptxas=ptxas_tool)
    assert [d.arch for d in done] == ["sm_80", "sm_90"]


def test_device_functions_are_internalized_and_inlined(ptxas_tool):
    m = ir.Module("m")
    helper = ir.Function(m, ir.FunctionType(F32, [F32]), "neve_gpu_twice")
    hb = ir.IRBuilder(helper.append_basic_block())
    hb.ret(hb.fmul(helper.args[0], F32(2.0)))
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [F32.as_pointer()]), "k")
    mark_kernel(fn)
    b = ir.IRBuilder(fn.append_basic_block())
    p = b.gep(fn.args[0], [NvvmBuiltins(m).special(b, "tx")])
    b.store(b.call(helper, [b.load(p)]), p)
    b.ret_void()
    ptx = nvptx.compile_ptx(str(m), ["k"])
    assert ".entry k(" in ptx and "neve_gpu_twice" not in ptx
    ptxas.assemble(ptx, ["k"], ptxas=ptxas_tool)


def test_unmarked_kernel_is_caught():
    m = ir.Module("m")
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "k")
    ir.IRBuilder(fn.append_basic_block()).ret_void()
    with pytest.raises(nvptx.NvptxError, match="no .entry for k"):
        nvptx.compile_ptx(str(m), ["k"])


def test_missing_libdevice_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("NEVE_LIBDEVICE", str(tmp_path / "nope.bc"))
    with pytest.raises(nvptx.NvptxError, match="libdevice.10.bc not found"):
        nvptx.compile_ptx(kernel(_math), ["k"])
    # modules without libdevice calls do not need it
    assert ".entry k(" in nvptx.compile_ptx(kernel(_fma), ["k"])


def test_ptxas_rejects_bad_ptx(ptxas_tool):
    ptx = nvptx.compile_ptx(kernel(_fma), ["k"]).replace("fma.rn.f32", "fma.rn.f32.bogus")
    with pytest.raises(ptxas.PtxasError, match="sm_80"):
        ptxas.assemble(ptx, ["k"], ptxas=ptxas_tool)
    with pytest.raises(ptxas.PtxasError, match="no .entry for other"):
        ptxas.assemble(ptx, ["other"], ptxas=ptxas_tool)


def test_data_layout_and_version():
    ptx = nvptx.compile_ptx(kernel(_fma), ["k"], arch="sm_90")
    assert ".target sm_90" in ptx and ".address_size 64" in ptx
    assert nvptx.data_layout().startswith("e-")
    # PTX ISA version must stay within what a CUDA 13.0 driver loads (ISA 9.0)
    major, minor = map(int, ptx.split(".version ", 1)[1].split()[0].split("."))
    assert (major, minor) <= (9, 0)
