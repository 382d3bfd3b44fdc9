"""NVPTX back end: LLVM IR of kernels and `gpu` functions -> PTX text for NVIDIA GPUs.

Sources: LLVM "User Guide for NVPTX Back-end" (triple, address spaces, `ptx_kernel`, the
`llvm.nvvm.*` intrinsics); NVVM IR specification and the libdevice user's guide (linking
libdevice.10.bc, `__nvvm_reflect`); PTX ISA 8.x/9.0 (`.entry`, `.visible .func`, `.shared`).
Facts checked on these machines are in TOOLCHAIN-NOTES.md ("NVPTX").

The PTX is generated for ``ARCH`` (sm_80): the driver JIT-compiles it for any newer device
(sm_90 included), so one PTX text serves A100, H100 and H200; ptxas checks it for both.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import llvmlite.binding as llvm

TRIPLE = "nvptx64-nvidia-cuda"
ARCH = "sm_80"
ARCHES = ("sm_80", "sm_90")
# NVPTX address spaces (LLVM NVPTX user guide, "Address Spaces")
GENERIC, GLOBAL, SHARED, CONSTANT, LOCAL = 0, 1, 3, 4, 5


class NvptxError(Exception):
    """NVPTX code generation failed; the message says why in one line."""


@functools.cache
def target_machine(arch: str = ARCH):
    """The NVPTX target machine for `arch` (sm_80, sm_90), at O3."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, opt=3)


def data_layout(arch: str = ARCH) -> str:
    """The data layout string of the target machine (older NVVM strings are out of date)."""
    return str(target_machine(arch).target_data)


def _wheel_dirs() -> list[Path]:
    """Folders of the `nvidia` namespace package (the nvidia-* wheels), without importing CUDA."""
    import importlib.util
    spec = importlib.util.find_spec("nvidia")
    return [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []


def find_libdevice() -> Path | None:
    """libdevice.10.bc: $NEVE_LIBDEVICE, the nvidia-nvvm wheel, $CUDA_HOME, /usr/local/cuda."""
    env = os.environ.get("NEVE_LIBDEVICE")
    if env:
        return Path(env) if Path(env).is_file() else None
    cands = []
    for d in _wheel_dirs():
        cands += sorted(d.glob("cu*/nvvm/libdevice/libdevice.10.bc"), reverse=True)
        cands.append(d / "cuda_nvcc" / "nvvm" / "libdevice" / "libdevice.10.bc")
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            cands.append(Path(root) / "nvvm" / "libdevice" / "libdevice.10.bc")
    return next((c for c in cands if c.is_file()), None)


@functools.cache
def _libdevice_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def uses_libdevice(ir_text: str) -> bool:
    """Whether the module calls libdevice (`__nv_*` functions)."""
    return "@__nv_" in ir_text or '@"__nv_' in ir_text


_FP_OP = re.compile(r"= (fadd|fsub|fmul) (?!contract)")


def contract(ir_text: str) -> str:
    """Mark every fadd/fsub/fmul `contract`, so that a*b+c becomes one FMA (as nvcc's default
    --fmad=true does)."""
    return _FP_OP.sub(r"= \1 contract ", ir_text)


def compile_ptx(ir_text: str, kernels: list[str], arch: str = ARCH,
                libdevice: Path | None = None) -> str:
    """PTX text for a module of kernels (marked `ptx_kernel`) and device functions.

    `kernels`: the entry names to keep; every other definition gets internal linkage so O3
    inlines it or drops it (llvmlite's internalize pass has no keep-list and would delete the
    kernels too). libdevice is linked when the module calls `__nv_*` functions; O3 then
    resolves `__nvvm_reflect` and drops the unused ones. Raises NvptxError when libdevice is
    needed but missing, or LLVM rejects the module; the PTX is checked to hold every `.entry`.
    """
    tm = target_machine(arch)
    try:
        mod = llvm.parse_assembly(contract(ir_text))
        mod.triple = TRIPLE
        mod.data_layout = str(tm.target_data)
        if uses_libdevice(ir_text):
            lib = libdevice or find_libdevice()
            if lib is None:
                raise NvptxError("libdevice.10.bc not found (install nvidia-nvvm==13.0.*, "
                                 "or set NEVE_LIBDEVICE)")
            dev = llvm.parse_bitcode(_libdevice_bytes(str(lib)))
            dev.triple = TRIPLE
            dev.data_layout = mod.data_layout
            mod.link_in(dev)
        keep = set(kernels)
        for fn in mod.functions:
            if not fn.is_declaration and fn.name not in keep:
                fn.linkage = llvm.Linkage.internal
        mod.verify()
        if uses_libdevice(ir_text):      # drop the unused libdevice functions before O3
            dce = llvm.create_new_module_pass_manager()
            dce.add_global_dead_code_eliminate_pass()
            o0 = llvm.create_pipeline_tuning_options(speed_level=0)
            dce.run(mod, llvm.create_pass_builder(tm, o0))
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        ptx = tm.emit_assembly(mod)
    except NvptxError:
        raise
    except RuntimeError as e:          # llvmlite reports parse and verify failures so
        raise NvptxError(f"LLVM rejected the kernel module: {str(e).strip().splitlines()[0]}")
    missing = [k for k in kernels if not has_entry(ptx, k)]
    if missing:
        raise NvptxError(f"no .entry for {', '.join(missing)} in the PTX")
    return ptx


def has_entry(ptx: str, name: str) -> bool:
    """Whether `.entry NAME(` is in the PTX (an unmarked kernel becomes a `.func`)."""
    return re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx) is not None
