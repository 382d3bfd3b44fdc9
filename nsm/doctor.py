"""`nsm doctor`: what this machine offers the toolchain (compilers, runtime, CUDA), as report lines.

Each probe returns `Check(name, ok, detail)`; none raises, and a missing optional part (ptxas,
libdevice, cuda-python, a GPU) is reported with why, not treated as a failure. The GPU probe
uses cuda-python (CUDA driver API: cuInit, cuDriverGetVersion, cuDeviceGetName,
cuDeviceGetAttribute for the compute capability, cuDeviceTotalMem).
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def _first_line(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"({e})"
    out = (p.stdout or p.stderr).strip().splitlines()
    return out[0] if out else "?"


def check_gxx() -> Check:
    path = shutil.which("g++")
    if not path:
        return Check("g++", False, "not found on PATH (needed to build the runtime)")
    return Check("g++", True, f"{path}: {_first_line([path, '--version'])}")


def check_ninja() -> Check:
    from nsm.build.runtime import RuntimeBuildError, _ninja_bin
    try:
        path = _ninja_bin()
    except RuntimeBuildError as e:
        return Check("ninja", False, str(e))
    return Check("ninja", True, f"{path}: {_first_line([path, '--version'])}")


def check_runtime() -> Check:
    from nsm.build.runtime import ensure_runtime
    try:
        rt = ensure_runtime()
    except Exception as e:  # noqa: BLE001 - reported, doctor never fails
        return Check("runtime", False, str(e).splitlines()[0])
    return Check("runtime", True, f"{rt.lib} ({'built now' if rt.built else 'cached'})")


def check_ptxas() -> Check:
    from compiler.backends.ptxas import find_ptxas, version
    path = find_ptxas()
    if path is None:
        return Check("ptxas", False, "not found: PTX is not checked offline "
                                     "(pip install nvidia-cuda-nvcc==13.0.*)")
    return Check("ptxas", True, f"{path}: {version(path)}")


def check_libdevice() -> Check:
    from compiler.backends.nvptx import find_libdevice
    path = find_libdevice()
    if path is None:
        return Check("libdevice", False, "not found: kernels calling exp/log/pow/tanh get no GPU "
                                         "code (pip install nvidia-nvvm==13.0.*)")
    return Check("libdevice", True, f"{path}: {_libdevice_version(path)}")


def _libdevice_version(path) -> str:
    """The toolkit that ships it: the nvidia-nvvm wheel's version when it comes from there."""
    if "site-packages" in str(path) or "dist-packages" in str(path):
        try:
            import importlib.metadata as md
            return f"nvidia-nvvm {md.version('nvidia-nvvm')}"
        except Exception:  # noqa: BLE001 - a version is informative only
            pass
    # a toolkit folder laid out from the wheels (/usr/local/cuda here): dist-info/nvidia_nvvm-V.dist-info
    found = sorted(path.parents[2].glob("dist-info/nvidia_nvvm-*.dist-info"))
    return "nvidia-nvvm " + found[-1].name[len("nvidia_nvvm-"):-len(".dist-info")] if found \
        else "version unknown"


def check_gpus() -> list[Check]:
    """One Check per device, or one saying why none is usable."""
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        return [Check("gpu", False, "cuda-python not installed (pip install 'neve[cuda]'); "
                                    "compiled programs still use a GPU through libcuda")]
    try:
        err, = cu.cuInit(0)
    except RuntimeError as e:             # no libcuda.so.1: no NVIDIA driver here
        return [Check("gpu", False, f"no NVIDIA driver ({e}); kernels run on the CPU back end")]
    if err != cu.CUresult.CUDA_SUCCESS:
        return [Check("gpu", False, f"cuInit failed: {err.name}; kernels run on the CPU back end")]
    _, drv = cu.cuDriverGetVersion()
    _, count = cu.cuDeviceGetCount()
    if count == 0:
        return [Check("gpu", False, f"driver {drv // 1000}.{drv % 1000 // 10}, but no device")]
    out = []
    attr = cu.CUdevice_attribute
    for i in range(count):
        _, dev = cu.cuDeviceGet(i)
        _, name = cu.cuDeviceGetName(64, dev)
        _, major = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
        _, minor = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
        _, mem = cu.cuDeviceTotalMem(dev)
        name = name.split(b"\0", 1)[0].decode(errors="replace")
        out.append(Check(f"gpu {i}", True,
                         f"{name}, compute capability {major}.{minor} (sm_{major}{minor}), "
                         f"{mem / 2**30:.1f} GiB, driver CUDA {drv // 1000}.{drv % 1000 // 10}"))
    return out


def report() -> list[Check]:
    """Every check, in the order shown."""
    return [check_gxx(), check_ninja(), check_runtime(), check_ptxas(), check_libdevice(),
            *check_gpus()]
