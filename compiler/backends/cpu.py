"""CPU back end: LLVM IR (llvmlite) -> optimised native object code for the host."""
from __future__ import annotations

import functools

import llvmlite.binding as llvm


@functools.cache
def target_machine(opt: int = 2):
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(opt=opt, reloc="pic", codemodel="default",
                                        cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten())


def triple() -> str:
    return llvm.get_default_triple()


def parse(ir_text: str):
    mod = llvm.parse_assembly(ir_text)
    mod.verify()
    return mod


def optimize(mod, tm, level: int) -> None:
    """Run LLVM's new-pass-manager pipeline at `level` (0-3) over mod, in place."""
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def emit_object(mod, tm) -> bytes:
    return tm.emit_object(mod)


def emit_assembly(mod, tm) -> str:
    return tm.emit_assembly(mod)
