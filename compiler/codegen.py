"""The back half of the pipeline for one module, each stage returning its product: typed IR ->
GPU module (its kernels and the gpu functions they reach, lowered for NVPTX) -> PTX (checked
by ptxas when asked and present) -> host LLVM module embedding that PTX -> optimised module ->
object. Whole-program (driver.py) and separate compilation (unit.py) both run `compile_module`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import tir as T

ORDER = ("ptx", "ir", "llvm", "asm", "obj")     # where compile_module may stop


@dataclass
class Ptx:
    """The PTX of one module's kernels, or why none could be made (the kernels then run on
    the CPU back end only; a launch that needs the GPU reports `why`, neve_rt.h nv_kernel)."""
    text: str                                  # "" when none could be made
    why: str = ""
    entries: dict[T.FuncSym, str] = field(default_factory=dict)   # kernel -> its .entry

    def file_text(self, module: str) -> str:
        """What `ptx/<key>.ptx` holds: the PTX, or a PTX comment saying why there is none."""
        return self.text or f"// no PTX for the kernels of {module}: {self.why}\n"


@dataclass
class ModuleOutput:
    """The products of compile_module, up to the stage it stopped after."""
    ptx: Ptx | None = None                     # None: the module defines no kernel
    ir: str | None = None                      # host LLVM IR as lowered
    llvm: object = None                        # verified and optimised llvmlite module
    asm: str | None = None
    obj: bytes | None = None


def module_kernels(program: T.Program, owns) -> list[T.FuncSym]:
    """The kernels the host lowering of one module defines (their descriptors need PTX)."""
    return [f for f in program.functions if f.kind == "kernel" and owns(f)]


def gpu_module(program: T.Program, kernels: list[T.FuncSym], name: str, release: bool):
    """The GPU module stage: an NVPTX llvmlite module of `kernels` and the gpu functions they
    reach. Raises NvptxError for what the NVPTX lowering cannot take."""
    from .lower.kernels_gpu import lower_module
    return lower_module(program, kernels, f"{name}.nvptx", release=release)


def ptx_of(program: T.Program, kernels: list[T.FuncSym], name: str, release: bool,
           check: bool) -> Ptx | None:
    """The PTX stage: one PTX text for all of `kernels` (None when there are none). With
    `check`, ptxas assembles it for sm_80 and sm_90 when ptxas is installed; a rejection is an
    internal compiler error (the NVPTX back end made PTX the driver would refuse)."""
    if not kernels:
        return None
    from .backends import nvptx
    from .lower.kernels_gpu import entry_name
    entries = {k: entry_name(k.symbol) for k in kernels}
    try:
        text = nvptx.compile_ptx(str(gpu_module(program, kernels, name, release)),
                                 list(entries.values()))
    except nvptx.NvptxError as e:
        return Ptx("", str(e))
    except Exception as e:  # noqa: BLE001 - the CPU back end still runs the kernels
        return Ptx("", f"NVPTX lowering failed: {type(e).__name__}: {e}")
    if check:
        from .backends import ptxas
        from .diagnostics import InternalError
        try:
            ptxas.assemble(text, list(entries.values()))
        except FileNotFoundError:
            pass                      # checked where ptxas is installed (nsm doctor says so)
        except ptxas.PtxasError as e:
            raise InternalError(f"PTX of module {name}: {e}") from None
    return Ptx(text, "", entries)


def compile_module(program: T.Program, name: str, res, *, release: bool, owns, is_root: bool,
                   linkage=None, until: str = "obj", check_ptx: bool = False) -> ModuleOutput:
    """Run the stages for the module named `name` (its functions are those `owns` selects),
    stopping after `until` (one of ORDER); each stage's time goes to `res.timings`."""
    from .backends import cpu
    from .stages import timed as _timed
    from .lower.core import Lowerer
    out = ModuleOutput()
    kernels = module_kernels(program, owns)
    if kernels:
        out.ptx = _timed(res, "ptx", ptx_of, program, kernels, name, release, check_ptx)
    if until == "ptx":
        return out
    tm = cpu.target_machine()
    # the LLVM module is named by the real path: an object must not depend on the directory
    # the compile ran in (nsm run and nsm build share units)
    lowerer = Lowerer(program, tm.target_data, cpu.triple(), release=release,
                      module_name=os.path.realpath(name), ptx=out.ptx)
    out.ir = str(_timed(res, "lower", lowerer.lower, owns=owns, is_root=is_root,
                        linkage=linkage))
    if until == "ir":
        return out
    out.llvm = _timed(res, "verify", cpu.parse, out.ir)
    _timed(res, "optimise", cpu.optimize, out.llvm, tm, 3 if release else 2)
    if until == "asm":
        out.asm = cpu.emit_assembly(out.llvm, tm)
    elif until == "obj":
        out.obj = _timed(res, "codegen", cpu.emit_object, out.llvm, tm)
    return out
