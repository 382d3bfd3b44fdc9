"""runtime_cpp/kernel/warp.cpp built into a small shared library for ctypes (the warp tests)."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

from nsm.build.runtime import CXX, CXX_FLAGS

RT = Path(__file__).resolve().parents[2] / "runtime_cpp"
U32P = ctypes.POINTER(ctypes.c_uint32)
F32P = ctypes.POINTER(ctypes.c_float)


def build(folder: Path) -> ctypes.CDLL:
    """Compile warp.cpp (with the bf16/half conversions it calls) under the runtime's flags."""
    lib = folder / "libwarp.so"
    cmd = [CXX, *CXX_FLAGS, "-shared", f"-I{RT / 'include'}", "-iquote", str(RT), "-o", str(lib),
           str(RT / "kernel" / "warp.cpp"), str(RT / "num" / "convert.cpp")]
    subprocess.run(cmd, check=True, capture_output=True)
    so = ctypes.CDLL(str(lib))
    so.nv_warp_ldmatrix.argtypes = [ctypes.c_int64, ctypes.c_void_p * 32, U32P]
    so.nv_warp_mma_16x8x16.argtypes = [ctypes.c_int64, U32P, U32P, F32P, F32P]
    so.nv_cp_async16.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return so
