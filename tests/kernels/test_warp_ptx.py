"""The phase-2 warp intrinsics on NVPTX (compiler/lower/warp_ptx.py): one kernel per intrinsic,
shared memory in addrspace(3), through compiler/backends/nvptx.py to PTX that ptxas assembles
for sm_80 and sm_90, with the instructions of issue 20 in each kernel's body. On a machine with
a GPU the same kernels run and must give what the CPU emulation (kernel/warp.cpp) gives, bit
for bit; elsewhere that test skips.
"""
from __future__ import annotations

import ctypes
import re

import llvmlite.ir as ir
import numpy as np
import pytest

from compiler.backends import nvptx, ptxas
from compiler.backends.nvptx import SHARED
from compiler.lower import warp_ptx
from compiler.lower.kernels_gpu import F32, I8, I32, I64, NvvmBuiltins, mark_kernel
from .gpu_harness import Gpu
from .warp_lib import F32P, U32P, build

SMEM_BYTES = 512
# kernel -> instructions its body must hold (PTX ISA spellings)
EXPECT = {
    "k_cp_async": ["cp.async.ca.shared.global", "cp.async.commit_group", "cp.async.wait_group 0"],
    "k_ldmatrix_x1": ["ldmatrix.sync.aligned.m8n8.x1.shared.b16"],
    "k_ldmatrix_x2": ["ldmatrix.sync.aligned.m8n8.x2.shared.b16"],
    "k_ldmatrix_x4": ["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
    "k_mma_bf16": ["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"],
    "k_mma_f16": ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
}


def _row_slot(lane: int) -> int:
    """The 16-byte shared slot whose address lane `lane` gives to ldmatrix (a permutation)."""
    return (lane * 5) % 32


def module() -> str:
    """One NVPTX module with the six kernels of EXPECT, each run by one warp of 32 threads:
    k_cp_async(src, out): 16 bytes per thread through shared memory; k_ldmatrix_xN(src, out):
    src (512 bytes) to shared memory, then ldmatrix with lane l giving slot _row_slot(l);
    k_mma_*(in, out): per lane 4 A words, 2 B words, 4 C floats in, 4 D floats out."""
    m = ir.Module("warp")
    smem = ir.GlobalVariable(m, ir.ArrayType(I8, SMEM_BYTES), "tile", addrspace=SHARED)
    smem.linkage, smem.align = "internal", 16
    smem.initializer = ir.Constant(ir.ArrayType(I8, SMEM_BYTES), None)
    i32p = I32.as_pointer()

    def kern(name, body):
        fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [i32p, i32p]), name)
        mark_kernel(fn)
        b = ir.IRBuilder(fn.append_basic_block())
        nv = NvvmBuiltins(m)
        body(b, nv, nv.special(b, "lane"), *fn.args)
        b.ret_void()

    def shared_at(b, byte_off):
        return b.gep(smem, [I32(0), b.trunc(byte_off, I32)])

    def copy_words(b, src, dst, lane, words, dst_shared=None):
        for w in range(words):
            v = b.load(b.gep(src, [b.add(b.mul(lane, I64(words)), I64(w))]))
            if dst_shared is None:
                b.store(v, b.gep(dst, [b.add(b.mul(lane, I64(words)), I64(w))]))
            else:
                p = b.bitcast(shared_at(b, b.add(b.mul(lane, I64(16)), I64(4 * w))),
                              I32.as_pointer(SHARED))
                b.store(v, p)

    def cp_async(b, nv, lane, src, out):
        off = b.mul(lane, I64(16))
        warp_ptx.cp_async16(b, shared_at(b, off), b.gep(b.bitcast(src, I8.as_pointer()), [off]))
        warp_ptx.cp_commit_group(b)
        warp_ptx.cp_wait_group(b, 0)
        nv.syncthreads(b)
        for w in range(4):
            p = b.bitcast(shared_at(b, b.add(off, I64(4 * w))), I32.as_pointer(SHARED))
            b.store(b.load(p), b.gep(out, [b.add(b.mul(lane, I64(4)), I64(w))]))

    def ldm(nmat):
        def body(b, nv, lane, src, out):
            copy_words(b, src, None, lane, 4, dst_shared=True)
            nv.syncthreads(b)
            slot = b.urem(b.mul(lane, I64(5)), I64(32))
            words = warp_ptx.ldmatrix(b, nmat, shared_at(b, b.mul(slot, I64(16))))
            for i, w in enumerate(words):
                b.store(w, b.gep(out, [b.add(b.mul(lane, I64(nmat)), I64(i))]))
        return body

    def mma(kind):
        def body(b, nv, lane, src, out):
            base = b.mul(lane, I64(10))
            word = [b.load(b.gep(src, [b.add(base, I64(i))])) for i in range(10)]
            c = [b.bitcast(w, F32) for w in word[6:]]
            d = warp_ptx.mma_16x8x16(b, kind, word[:4], word[4:6], c)
            for i, v in enumerate(d):
                b.store(b.bitcast(v, I32), b.gep(out, [b.add(b.mul(lane, I64(4)), I64(i))]))
        return body

    kern("k_cp_async", cp_async)
    for n in warp_ptx.NMATS:
        kern(f"k_ldmatrix_x{n}", ldm(n))
    kern("k_mma_bf16", mma(warp_ptx.BF16))
    kern("k_mma_f16", mma(warp_ptx.F16))
    return str(m)


@pytest.fixture(scope="module")
def ptx() -> str:
    return nvptx.compile_ptx(module(), list(EXPECT))


def entry_body(ptx_text: str, name: str) -> str:
    start = re.search(r"\.entry\s+" + name + r"\s*\(", ptx_text).start()
    nxt = re.search(r"\.entry\s+\w+\s*\(", ptx_text[start + 1:])
    return ptx_text[start:start + 1 + nxt.start()] if nxt else ptx_text[start:]


def test_each_kernel_holds_its_instructions(ptx):
    for name, instrs in EXPECT.items():
        body = re.sub(r"[ \t]+", " ", entry_body(ptx, name))
        for ins in instrs:
            assert ins in body, f"{name}: no {ins}"
    assert ".shared .align 16 .b8 tile[512]" in ptx


def test_ptxas_assembles_for_sm80_and_sm90(ptx, ptxas_tool):
    done = ptxas.assemble(ptx, list(EXPECT), ptxas=ptxas_tool)
    assert [d.arch for d in done] == ["sm_80", "sm_90"]


def test_emitters_reject_bad_operands():
    b = ir.IRBuilder(ir.Function(ir.Module(), ir.FunctionType(ir.VoidType(), []), "f")
                     .append_basic_block())
    with pytest.raises(ValueError, match="1, 2 or 4 matrices, not 3"):
        warp_ptx.ldmatrix(b, 3, ir.Constant(I8.as_pointer(SHARED), None))
    with pytest.raises(ValueError, match="kind is 0 .bf16. or 1 .f16., not 2"):
        warp_ptx.mma_16x8x16(b, 2, [], [], [])
    with pytest.raises(ValueError, match="non-negative constant"):
        warp_ptx.cp_wait_group(b, -1)


# ---------------------------------------------------------------- on a GPU: same as the CPU

@pytest.fixture(scope="module")
def gpu():
    g = Gpu.open()
    if g is None:
        pytest.skip(f"no GPU: {Gpu.why}")
    return g


def test_gpu_matches_cpu_emulation(gpu, ptx, tmp_path_factory):
    emu = build(tmp_path_factory.mktemp("warp"))
    mod = gpu.load(ptx)
    rng = np.random.default_rng(20)

    def run(name, src: np.ndarray, out_words: int) -> np.ndarray:
        d_src, d_out = gpu.to_device(src), gpu.alloc(4 * out_words)
        mod.function(name)((1,), (32,), d_src, d_out)
        gpu.sync()
        return d_out.get(np.uint32, out_words)

    src = rng.integers(0, 1 << 32, 128, dtype=np.uint32)
    np.testing.assert_array_equal(run("k_cp_async", src, 128), src)

    rows = src.view(np.uint16).reshape(32, 8)          # slot s of shared memory = row s
    for n in warp_ptx.NMATS:
        addr = (ctypes.c_void_p * 32)()
        for lane in range(32):
            addr[lane] = rows.ctypes.data + 16 * _row_slot(lane)
        want = np.zeros((32, n), np.uint32)
        emu.nv_warp_ldmatrix(n, addr, want.ctypes.data_as(U32P))
        np.testing.assert_array_equal(run(f"k_ldmatrix_x{n}", src, 32 * n), want.ravel())

    for kind, enc in ((warp_ptx.BF16, lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)),
                      (warp_ptx.F16, lambda x: x.astype(np.float16).view(np.uint16))):
        # multiples of 1/8 and 1/64: every product and partial sum is exact in f32, so any
        # order of the hardware's adds gives these bits, and a misplaced element shows
        vals = (rng.integers(-64, 65, (32, 12)) / 8.0).astype(np.float32)
        ab = enc(vals).reshape(32, 6, 2)
        words = (ab[..., 0].astype(np.uint32) | ab[..., 1].astype(np.uint32) << 16)
        c = (rng.integers(-512, 513, (32, 4)) / 64.0).astype(np.float32)
        lane_in = np.concatenate([words, c.view(np.uint32)], axis=1).astype(np.uint32)
        want = np.zeros((32, 4), np.float32)
        a, b = np.ascontiguousarray(words[:, :4]), np.ascontiguousarray(words[:, 4:])
        emu.nv_warp_mma_16x8x16(kind, a.ctypes.data_as(U32P), b.ctypes.data_as(U32P),
                                c.ctypes.data_as(F32P), want.ctypes.data_as(F32P))
        got = run(f"k_mma_{'bf16' if kind == warp_ptx.BF16 else 'f16'}", lane_in.ravel(), 128)
        np.testing.assert_array_equal(got.view(np.float32).reshape(32, 4), want)
