"""Loading PTX and launching it with cuda-python, independently of the Neve runtime.

Used by test_gpu.py and bench/gpu_bench.py. Follows the CUDA driver API sequence of
TOOLCHAIN-NOTES.md ("Launching on a GPU"): cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain +
cuCtxSetCurrent, cuModuleLoadData (PTX bytes plus a NUL), cuModuleGetFunction, cuLaunchKernel
with an array of pointers to the argument values, cuCtxSynchronize; every call's error code
is checked. Kernel arguments are given as NumPy scalars (by value) or `DeviceArray`s.
"""
from __future__ import annotations

import numpy as np


class CudaError(RuntimeError):
    pass


class Gpu:
    """One device's primary context. `Gpu.open()` returns None (with `why`) when unusable."""

    why = ""

    def __init__(self, cu, dev):
        self.cu, self.dev = cu, dev
        self.ctx = self.check(cu.cuDevicePrimaryCtxRetain(dev))
        self.check(cu.cuCtxSetCurrent(self.ctx))
        self.modules = []

    @classmethod
    def open(cls):
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            cls.why = "cuda-python not installed"
            return None
        try:
            err, = cu.cuInit(0)
        except RuntimeError as e:          # libcuda.so.1 missing: no driver
            cls.why = f"no NVIDIA driver: {e}"
            return None
        if err != cu.CUresult.CUDA_SUCCESS:
            cls.why = f"cuInit failed: {err.name}"
            return None
        err, n = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or n == 0:
            cls.why = "no CUDA device"
            return None
        err, dev = cu.cuDeviceGet(0)
        return cls(cu, dev)

    def check(self, ret):
        err, *rest = ret if isinstance(ret, tuple) else (ret,)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            _, name = self.cu.cuGetErrorName(err)
            raise CudaError(name.decode() if isinstance(name, bytes) else str(err))
        return rest[0] if len(rest) == 1 else (tuple(rest) if rest else None)

    def name(self) -> str:
        raw = self.check(self.cu.cuDeviceGetName(64, self.dev))
        return raw.split(b"\0", 1)[0].decode()

    def load(self, ptx: str):
        """The module of `ptx`; `.function(name)` gives a kernel."""
        image = np.frombuffer(ptx.encode() + b"\0", dtype=np.uint8)
        mod = self.check(self.cu.cuModuleLoadData(image.ctypes.data))
        self.modules.append(mod)
        return Module(self, mod)

    def alloc(self, nbytes: int) -> "DeviceArray":
        return DeviceArray(self, self.check(self.cu.cuMemAlloc(max(nbytes, 1))), nbytes)

    def to_device(self, a: np.ndarray) -> "DeviceArray":
        d = self.alloc(a.nbytes)
        a = np.ascontiguousarray(a)
        self.check(self.cu.cuMemcpyHtoD(d.ptr, a.ctypes.data, a.nbytes))
        return d

    def sync(self):
        self.check(self.cu.cuCtxSynchronize())

    def event(self):
        return self.check(self.cu.cuEventCreate(0))

    def elapsed_ms(self, start, end) -> float:
        return self.check(self.cu.cuEventElapsedTime(start, end))

    def copy_dtod(self, dst: "DeviceArray", src: "DeviceArray", nbytes: int):
        self.check(self.cu.cuMemcpyDtoD(dst.ptr, src.ptr, nbytes))


class DeviceArray:
    def __init__(self, gpu: Gpu, ptr, nbytes: int):
        self.gpu, self.ptr, self.nbytes = gpu, ptr, nbytes

    def get(self, dtype, n: int) -> np.ndarray:
        out = np.empty(n, dtype=dtype)
        self.gpu.check(self.gpu.cu.cuMemcpyDtoH(out.ctypes.data, self.ptr, out.nbytes))
        return out

    def zero(self):
        self.gpu.check(self.gpu.cu.cuMemsetD8(self.ptr, 0, self.nbytes))

    def free(self):
        self.gpu.check(self.gpu.cu.cuMemFree(self.ptr))


class Module:
    def __init__(self, gpu: Gpu, mod):
        self.gpu, self.mod = gpu, mod

    def function(self, name: str) -> "Kernel":
        return Kernel(self.gpu, self.gpu.check(self.gpu.cu.cuModuleGetFunction(self.mod, name.encode())))


class Kernel:
    def __init__(self, gpu: Gpu, fn):
        self.gpu, self.fn = gpu, fn

    def __call__(self, grid, block, *args, smem: int = 0):
        """Launch asynchronously; args: DeviceArray (its address) or NumPy scalars (by value)."""
        held = [np.array([int(a.ptr)], dtype=np.uint64) if isinstance(a, DeviceArray)
                else np.array([a], dtype=np.asarray(a).dtype) for a in args]
        ptrs = np.array([h.ctypes.data for h in held], dtype=np.uint64)
        g = tuple(grid) + (1,) * (3 - len(grid))
        b = tuple(block) + (1,) * (3 - len(block))
        self.gpu.check(self.gpu.cu.cuLaunchKernel(self.fn, *g, *b, smem, 0, ptrs.ctypes.data, 0))
        self._keep = (held, ptrs)          # alive until the next launch of this kernel
