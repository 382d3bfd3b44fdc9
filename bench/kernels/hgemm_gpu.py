"""HGEMM on a GPU (issue 20): Neve's bench/kernels/hgemm.nv against the nvcc-built mma.sync kernel of the same tiling (gate >= 0.60) and cuBLAS (reported).

    .venv/bin/python bench/kernels/hgemm_gpu.py [--size 4096] [--reps 20] [--json out.json]

C = A x B^T with A M x K and B N x K bf16 row-major, C M x N f32 (the seed's z = x * y^T),
M = N = K = --size. The reference (bench/kernels/hgemm_ref.cu) is built with `nvcc -ptx
-arch=compute_80` and loaded like Neve's PTX, so both are JIT-compiled by the driver from sm_80
PTX; cuBLAS runs cublasGemmEx (bf16 in, f32 out, f32 compute), loaded with ctypes from the
nvidia-cublas wheel, torch or the system. Each kernel is timed by CUDA events over --reps runs
after a warm-up and checked on sampled rows against NumPy's float32 matmul of the same bf16
values. Exit status 1 without a GPU, on a wrong result, or when Neve's HGEMM is below 0.60 of
the reference; a missing hgemm.nv or cuBLAS is reported and does not fail.
"""
from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from compiler.backends.nvptx import _wheel_dirs  # noqa: E402
from compiler.backends.ptxas import find_ptxas  # noqa: E402

REF_SRC = HERE / "hgemm_ref.cu"
NEVE_SRC = HERE / "hgemm.nv"
TILE, THREADS = 128, 256          # both kernels: 128 x 128 block tiles of 8 warps
GATE = 0.60


def find_nvcc() -> Path | None:
    """nvcc: $NVCC, PATH, beside ptxas (the nvidia-cuda-nvcc wheel), $CUDA_HOME, /usr/local/cuda."""
    if os.environ.get("NVCC"):
        return Path(os.environ["NVCC"])
    cands = [shutil.which("nvcc")]
    ptxas = find_ptxas()
    if ptxas:
        cands.append(str(ptxas.parent / "nvcc"))
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            cands.append(str(Path(root) / "bin" / "nvcc"))
    return next((Path(c) for c in cands if c and Path(c).is_file()), None)


def ref_ptx() -> str:
    """The reference kernel's PTX (entry `hgemm_ref`), built by nvcc for compute_80."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise SystemExit("hgemm_gpu: nvcc not found (pip install nvidia-cuda-nvcc==13.0.*, "
                         "or set NVCC)")
    with tempfile.TemporaryDirectory(prefix="hgemm-") as tmp:
        out = Path(tmp) / "hgemm_ref.ptx"
        p = subprocess.run([str(nvcc), "-ptx", "-arch=compute_80", "-o", str(out), str(REF_SRC)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"hgemm_gpu: nvcc failed on {REF_SRC.name}:\n{p.stderr.strip()}")
        return out.read_text()


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bits (uint16), rounded to nearest even."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ---------------------------------------------------------------- cuBLAS through ctypes
OP_N, OP_T = 0, 1                                # cublasOperation_t
R_16BF, R_32F = 14, 0                            # cudaDataType (library_types.h)
COMPUTE_32F, GEMM_DEFAULT = 68, -1               # cublasComputeType_t, cublasGemmAlgo_t


def load_cublas() -> tuple[ctypes.CDLL | None, str]:
    """libcublas from the nvidia-cublas wheel, torch, the loader path or /usr/local/cuda."""
    cands = []
    for d in _wheel_dirs():
        cands += sorted(d.glob("cu*/lib/libcublas.so*"), reverse=True)
        cands += sorted(d.glob("cublas/lib/libcublas.so*"), reverse=True)
    try:
        import torch
        cands += sorted((Path(torch.__file__).parent / "lib").glob("libcublas.so*"))
    except ImportError:
        pass
    found = ctypes.util.find_library("cublas")
    if found:
        cands.append(Path(found))
    cands += sorted(Path("/usr/local/cuda/lib64").glob("libcublas.so*"))
    errors = []
    for c in cands:
        try:
            return ctypes.CDLL(str(c)), str(c)
        except OSError as e:
            errors.append(str(e))
    return None, "libcublas not found" + (f" ({errors[-1]})" if errors else "")


def cublas_gemm(lib, m: int, n: int, k: int, a_ptr: int, b_ptr: int, c_ptr: int):
    """A callable running C = A x B^T (row-major) as cublasGemmEx: column-major C^T = B A^T."""
    handle = ctypes.c_void_p()
    st = lib.cublasCreate_v2(ctypes.byref(handle))
    if st != 0:
        raise RuntimeError(f"cublasCreate failed ({st})")
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    vp, i = ctypes.c_void_p, ctypes.c_int

    def run():
        st = lib.cublasGemmEx(handle, i(OP_T), i(OP_N), i(n), i(m), i(k), ctypes.byref(alpha),
                              vp(b_ptr), i(R_16BF), i(k), vp(a_ptr), i(R_16BF), i(k),
                              ctypes.byref(beta), vp(c_ptr), i(R_32F), i(n), i(COMPUTE_32F),
                              i(GEMM_DEFAULT))
        if st != 0:
            raise RuntimeError(f"cublasGemmEx failed ({st})")
    return run


# ---------------------------------------------------------------- timing and checks

def _load(path: Path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(c_dev, a: np.ndarray, b: np.ndarray, n: int, rows: np.ndarray) -> float:
    """Largest error on `rows` of C over the bound 1e-3 * (|A| |B|^T) (<= 1 passes)."""
    c = c_dev.get(np.float32, a.shape[0] * n).reshape(-1, n)[rows]
    want = a[rows] @ b.T
    scale = np.abs(a[rows]) @ np.abs(b).T + 1e-30
    return float((np.abs(c - want) / (1e-3 * scale)).max())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    s = args.size
    if s % TILE or s % 32:
        raise SystemExit(f"hgemm_gpu: --size must be a multiple of {TILE}")
    from kernels.gpu_harness import Gpu
    gpu_bench = _load(ROOT / "bench" / "gpu_bench.py")   # tests/bench shadows bench/
    timed = gpu_bench.timed
    gpu = Gpu.open()
    if gpu is None:
        print(f"hgemm_gpu: no usable GPU ({Gpu.why})", file=sys.stderr)
        return 1
    rng = np.random.default_rng(0)
    a_bits = to_bf16(rng.standard_normal((s, s), dtype=np.float32))
    b_bits = to_bf16(rng.standard_normal((s, s), dtype=np.float32))
    a, b = bf16_values(a_bits), bf16_values(b_bits)
    da, db, dc = gpu.to_device(a_bits), gpu.to_device(b_bits), gpu.alloc(4 * s * s)
    rows = np.concatenate([np.arange(64), rng.choice(s, 64, replace=False)])
    flops = 2.0 * s * s * s
    res: dict = {"device": gpu.name(), "size": s, "reps": args.reps}

    ref = gpu.load(ref_ptx()).function("hgemm_ref")
    grid = (s // TILE, s // TILE)
    res["ref_s"] = timed(gpu, args.reps, lambda: ref(grid, (THREADS,), da, db, dc, np.int32(s),
                                                     np.int32(s), np.int32(s)))
    res["ref_err"] = check(dc, a, b, s, rows)

    lib, where = load_cublas()
    if lib is not None:
        dc.zero()
        gemm = cublas_gemm(lib, s, s, s, int(da.ptr), int(db.ptr), int(dc.ptr))
        res["cublas_s"] = timed(gpu, args.reps, gemm)
        res["cublas_err"] = check(dc, a, b, s, rows)
        res["cublas_lib"] = where
    else:
        res["cublas_why"] = where

    if NEVE_SRC.is_file():
        entry, neve_ptx = gpu_bench.entry, gpu_bench.neve_ptx
        ptx = neve_ptx(NEVE_SRC)
        neve = gpu.load(ptx).function(entry(ptx, "hgemm"))
        dc.zero()
        res["neve_s"] = timed(gpu, args.reps, lambda: neve(grid, (THREADS,), da, db, dc,
                                                           np.int64(s), np.int64(s), np.int64(s)))
        res["neve_err"] = check(dc, a, b, s, rows)
    else:
        res["neve_why"] = f"{NEVE_SRC.relative_to(ROOT)} not there yet"

    ok = True
    print(f"device: {res['device']}   C = A x B^T, {s}^3, bf16 in, f32 out   reps = {args.reps}")
    for key, label in (("ref", "nvcc mma.sync (hgemm_ref.cu)"), ("cublas", "cuBLAS cublasGemmEx bf16"),
                       ("neve", "Neve hgemm.nv")):
        if f"{key}_s" not in res:
            print(f"{label:>30}: not run: {res[f'{key}_why']}")
            continue
        t, err = res[f"{key}_s"], res[f"{key}_err"]
        res[f"{key}_tflops"] = flops / t / 1e12
        good = err <= 1.0
        ok &= good
        print(f"{label:>30}: {t * 1e3:8.3f} ms  {res[f'{key}_tflops']:7.1f} TFLOP/s  "
              f"check {'ok' if good else 'WRONG'} ({err:.3g} of the bound)")
    if "neve_s" in res:
        res["neve_of_ref"] = res["ref_s"] / res["neve_s"]
        passed = res["neve_of_ref"] >= GATE
        ok &= passed
        line = f"Neve / nvcc reference: {res['neve_of_ref']:.2f} (goal >= {GATE:.2f}: " \
               f"{'met' if passed else 'NOT MET'})"
        if "cublas_s" in res:
            res["neve_of_cublas"] = res["cublas_s"] / res["neve_s"]
            line += f"   Neve / cuBLAS: {res['neve_of_cublas']:.2f}"
        print(line)
    if "cublas_s" in res:
        print(f"nvcc reference / cuBLAS: {res['cublas_s'] / res['ref_s']:.2f}")
    res["ok"] = ok
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
