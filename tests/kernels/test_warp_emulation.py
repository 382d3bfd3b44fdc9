"""The CPU emulation of ldmatrix, mma.m16n8k16 and cp.async (runtime_cpp/kernel/warp.cpp)
against NumPy, every lane, on random inputs (issue 20; docs/phase2-numerics.md).

warp.cpp is built into a small shared library with the runtime's own flags (warp_lib.py) and
called through ctypes. The fragment maps below are written per element from the PTX ISA's
tables ("Matrix fragments for mma.m16n8k16 with floating point type", "ldmatrix"), not per
register as the C++ has them, so that one mistake in both is unlikely.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from .warp_lib import F32P, U32P, build


@pytest.fixture(scope="module")
def warp(tmp_path_factory):
    return build(tmp_path_factory.mktemp("warp"))


def ptr(a: np.ndarray, t=U32P):
    return a.ctypes.data_as(t)


# ---- fragment maps (lane, element index) -> (row, col); groupID = lane//4, tig = lane%4

def a_coord(lane: int, i: int) -> tuple[int, int]:
    """A (16x16, row): a0..a7, two per 32-bit register."""
    g, t = lane // 4, lane % 4
    row = g if i in (0, 1, 4, 5) else g + 8
    col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def b_coord(lane: int, i: int) -> tuple[int, int]:
    """B (16x8, col): b0..b3 as (k, n)."""
    g, t = lane // 4, lane % 4
    return t * 2 + (i & 1) + (8 if i >= 2 else 0), g


def c_coord(lane: int, i: int) -> tuple[int, int]:
    """C and D (16x8 f32): c0..c3."""
    g, t = lane // 4, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def pack(bits: np.ndarray, coord, nelem: int) -> np.ndarray:
    """16-bit matrix -> [32][nelem/2] uint32 fragment, element 2r in the low half of word r."""
    out = np.zeros((32, nelem // 2), np.uint32)
    for lane in range(32):
        for i in range(nelem):
            out[lane, i // 2] |= np.uint32(bits[coord(lane, i)]) << np.uint32(16 * (i & 1))
    return out


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bits, rounded to nearest even (no NaNs in these inputs)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def inputs(kind: int, rng):
    """Random A, B as (bits, float32 values) and C, over several binades and both signs."""
    def draw(shape):
        x = (rng.standard_normal(shape) * 2.0 ** rng.integers(-6, 7, shape)).astype(np.float32)
        if kind == 0:
            bits = to_bf16(x)
            return bits, bf16_value(bits)
        h = x.astype(np.float16)
        return h.view(np.uint16), h.astype(np.float32)
    (abits, a), (bbits, b) = draw((16, 16)), draw((16, 8))
    c = (rng.standard_normal((16, 8)) * 4).astype(np.float32)
    return abits, a, bbits, b, c


def mma(warp, kind, abits, bbits, c, in_place=False):
    fa, fb = pack(abits, a_coord, 8), pack(bbits, b_coord, 4)
    fc = np.zeros((32, 4), np.float32)
    for lane in range(32):
        for i in range(4):
            fc[lane, i] = c[c_coord(lane, i)]
    fd = fc if in_place else np.full((32, 4), np.nan, np.float32)
    warp.nv_warp_mma_16x8x16(kind, ptr(fa), ptr(fb), ptr(fc, F32P), ptr(fd, F32P))
    d = np.full((16, 8), np.nan, np.float32)
    for lane in range(32):
        for i in range(4):
            d[c_coord(lane, i)] = fd[lane, i]
    return d


def sequential_f32(a, b, c):
    """D = C + sum_k A[:,k] B[k,:], k = 0..15, every add rounded to float32."""
    acc = c.copy()
    for k in range(16):
        acc = (acc + a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)
    return acc


@pytest.mark.parametrize("kind", [0, 1], ids=["bf16", "f16"])
def test_mma_matches_numpy_every_lane(warp, kind):
    rng = np.random.default_rng(20 + kind)
    for _ in range(20):
        abits, a, bbits, b, c = inputs(kind, rng)
        d = mma(warp, kind, abits, bbits, c)
        # the documented order, bit for bit
        np.testing.assert_array_equal(d, sequential_f32(a, b, c))
        # and the documented bound against the exact result (any order of f32 adds meets it)
        exact = a.astype(np.float64) @ b.astype(np.float64) + c
        bound = 17 * 2.0 ** -24 * (np.abs(a).astype(np.float64) @ np.abs(b) + np.abs(c))
        assert np.all(np.abs(d - exact) <= bound)


def test_mma_in_place_accumulates(warp):
    rng = np.random.default_rng(7)
    abits, a, bbits, b, c = inputs(0, rng)
    d = mma(warp, 0, abits, bbits, c, in_place=True)
    np.testing.assert_array_equal(d, sequential_f32(a, b, c))


def test_mma_places_each_product_in_its_lane(warp):
    """A = one-hot rows, B = distinct small integers: D[m, n] = B[k(m), n] + C exactly, so a
    swapped lane or half-word shows as a wrong value at a known place."""
    a = np.zeros((16, 16), np.float32)
    perm = np.random.default_rng(3).permutation(16)
    a[np.arange(16), perm] = 1.0
    b = np.arange(128, dtype=np.float32).reshape(16, 8) - 64
    c = np.arange(128, dtype=np.float32).reshape(16, 8) * 1000
    for kind, enc in ((0, to_bf16), (1, lambda x: x.astype(np.float16).view(np.uint16))):
        d = mma(warp, kind, enc(a), enc(b), c)
        np.testing.assert_array_equal(d, b[perm] + c)


@pytest.mark.parametrize("nmat", [1, 2, 4])
def test_ldmatrix_lanes(warp, nmat):
    rng = np.random.default_rng(nmat)
    # rows of the matrices scattered over shared memory: 16-byte rows at shuffled slots with gaps
    smem = rng.integers(0, 1 << 16, (64, 8), dtype=np.uint16)
    slots = rng.permutation(64)[:8 * nmat]
    addr = (ctypes.c_void_p * 32)()
    for lane in range(8 * nmat):          # lanes past 8*nmat give no address (NULL): not read
        addr[lane] = smem.ctypes.data + 16 * int(slots[lane])
    out = np.zeros((32, nmat), np.uint32)
    warp.nv_warp_ldmatrix(nmat, addr, ptr(out))
    for i in range(nmat):
        mat = smem[slots[8 * i:8 * i + 8]]          # matrix i: row r from lane 8i+r's address
        for lane in range(32):
            lo, hi = mat[lane // 4, 2 * (lane % 4)], mat[lane // 4, 2 * (lane % 4) + 1]
            assert out[lane, i] == (int(hi) << 16 | int(lo)), (i, lane)


def test_ldmatrix_x4_feeds_mma_a(warp):
    """The seed's use: ldmatrix_x4 of a row-major 16x16 tile (lane l gives row l%16, column
    (l//16)*8) yields exactly mma's A fragment."""
    rng = np.random.default_rng(11)
    tile = rng.integers(0, 1 << 16, (16, 16), dtype=np.uint16)
    addr = (ctypes.c_void_p * 32)()
    for lane in range(32):
        addr[lane] = tile.ctypes.data + 2 * (16 * (lane % 16) + 8 * (lane // 16))
    out = np.zeros((32, 4), np.uint32)
    warp.nv_warp_ldmatrix(4, addr, ptr(out))
    np.testing.assert_array_equal(out, pack(tile, a_coord, 8))


def test_cp_async16_copies_sixteen_bytes(warp):
    src = np.arange(64, dtype=np.uint8)
    dst = np.full(48, 0xEE, np.uint8)
    warp.nv_cp_async16(dst.ctypes.data + 16, src.ctypes.data + 32)
    np.testing.assert_array_equal(dst[16:32], src[32:48])
    assert (dst[:16] == 0xEE).all() and (dst[32:] == 0xEE).all()
