"""Lowering core: typed IR program -> llvmlite module; types, descriptors, frames, functions."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import (ArrayT, BufferT, ChannelT, FixedT, ForeignT, FuncT, MapT, Prim, TupleT, Type, ClassT,
                     has_pointers)
from . import runtime_abi as R
from .str_hash import str_hash
from .exprs import ExprLowering
from .stmts import StmtLowering
from .intrinsics import IntrinsicLowering
from .sorting import SortLowering
from .strbuilder import StrBuilderLowering
from .objects import ObjectLowering
from .vtables import VtableLowering
from .maps import MapLowering
from .threads import ThreadLowering
from .foreign import ForeignLowering
from .cstructs import CStructLowering
from .kernels import KernelLowering
from .warp_ops import WarpLowering
from .mangle import type_key
from .state import FuncState
from .unroll import unroll_levels

PRIM_LL = {"int": R.I64, "i8": R.I8, "i16": R.I16, "i32": R.I32, "u8": R.I8, "u16": R.I16,
           "u32": R.I32, "u64": R.I64, "float": R.F32,
           "f64": R.F64, "bf16": R.I16, "half": R.HALF, "bool": R.I1, "char": R.I8,
           "str": R.PTR, "any": R.ANY, "nil": R.PTR, "void": R.VOID}


class Lowerer(KernelLowering, WarpLowering, ForeignLowering, CStructLowering, ThreadLowering, ObjectLowering, VtableLowering, MapLowering, ExprLowering,
              StmtLowering, IntrinsicLowering, SortLowering, StrBuilderLowering):
    def __init__(self, program: T.Program, target_data, triple: str, *, release: bool = False,
                 module_name: str = "neve", ptx=None) -> None:
        self.program = program
        self.ptx = ptx          # codegen.Ptx of this module's kernels (the PTX stage), or None
        self.td = target_data
        self.release = release
        self.module = ir.Module(name=module_name)
        self.module.triple = triple
        self.module.data_layout = str(target_data)
        self.funcs: dict[T.FuncSym, ir.Function] = {}
        self.descs: dict[Type, ir.GlobalVariable] = {}
        self.cstrs: dict[bytes, ir.Value] = {}
        self.strs: dict[bytes, ir.Value] = {}
        self.fs: FuncState | None = None
        self.tbaa_ptrs: dict[int, tuple[ir.Value, str]] = {}   # pointer -> (pointer, TBAA type)
        self.b: ir.IRBuilder | None = None
        self._n = 0
        tls = ir.GlobalVariable(self.module, R.PTR, "nv_top_frame")
        tls.linkage = "external"
        tls.storage_class = "thread_local(initialexec)"
        self.tls_top = tls
        lim = ir.GlobalVariable(self.module, R.I64, "nv_stack_limit")
        lim.linkage = "external"
        lim.storage_class = "thread_local(initialexec)"
        self.stack_limit = lim

    # ------------------------------------------------------------ entry
    def lower(self, owns=None, is_root: bool = True, linkage=None) -> ir.Module:
        """Define the functions `owns` selects (all by default) and, in the root module, the
        C `main`; everything else referenced is declared and resolved by the linker.
        `linkage(f)`, when given, names the LLVM linkage of f's definition (separate
        compilation defines generic instances as linkonce_odr in every unit using them)."""
        mine = [f for f in self.program.functions if owns is None or owns(f)]
        for f in mine:
            if f.kind != "def":
                continue
            fn = self.declare_func(f)
            if linkage is not None and linkage(f):
                fn.linkage = linkage(f)
        for f in mine:
            if f.kind != "def":
                self.lower_kernel_function(f)
                fn = self.module.globals.get(f.symbol)
                if fn is not None and linkage is not None and linkage(f) and fn.blocks:
                    fn.linkage = linkage(f)   # e.g. another unit's gpu function, copied here
            else:
                self.lower_unrolled(f)
        if is_root and self.program.main is not None:
            self.emit_c_main()
        self.tag_array_accesses()
        return self.module

    def tag_array_accesses(self) -> None:
        """Type-based alias metadata: an array's header (len, cap, data) never aliases its
        elements, so LLVM may keep the header in registers across element stores (hoisting
        bounds checks and the data pointer out of loops)."""
        root = self.module.add_metadata([ir.MetaDataString(self.module, "neve tbaa")])
        tags: dict[str, ir.Value] = {}

        def tag(name: str):
            if name not in tags:
                node = self.module.add_metadata([ir.MetaDataString(self.module, name), root,
                                                 ir.Constant(R.I64, 0)])
                tags[name] = self.module.add_metadata([node, node, ir.Constant(R.I64, 0)])
            return tags[name]

        for fn in self.module.functions:
            for bb in fn.blocks:
                for ins in bb.instructions:
                    if isinstance(ins, ir.LoadInstr):
                        ptr = ins.operands[0]
                    elif isinstance(ins, ir.StoreInstr):
                        ptr = ins.operands[1]
                    else:
                        continue
                    hit = self.tbaa_ptrs.get(id(ptr))
                    if hit is not None and hit[0] is ptr:
                        ins.set_metadata("tbaa", tag(hit[1]))

    def declare_func(self, f: T.FuncSym) -> ir.Function:
        if f in self.funcs:
            return self.funcs[f]
        params = [self.llty(p.type) for p in f.params]
        fnty = ir.FunctionType(self.llty(f.ret), params)
        fn = self.module.globals.get(f.symbol)
        if fn is None:
            fn = ir.Function(self.module, fnty, name=f.symbol)
        self.funcs[f] = fn
        return fn

    def emit_c_main(self) -> None:
        fnty = ir.FunctionType(R.I32, [R.I32, R.PTR.as_pointer()])
        fn = ir.Function(self.module, fnty, name="main")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.call(R.declare(self.module, "nv_init"), list(fn.args))
        self.call_foreign_initializers(b)       # 5.4: before the global instances
        for info in self.program.globals:       # 7.3: created before main, in order
            b.call(self.global_init_fn(info), [])
        b.call(self.declare_func(self.program.main), [])
        b.ret(b.call(R.declare(self.module, "nv_finish"), []))

    # ------------------------------------------------------------ types
    def llty(self, t: Type) -> ir.Type:
        if isinstance(t, Prim):
            return PRIM_LL[t.name]
        if isinstance(t, TupleT):
            return ir.LiteralStructType([self.mem_ty(e) for e in t.elems])
        if isinstance(t, FixedT):
            return ir.ArrayType(self.mem_ty(t.elem), t.n)
        if isinstance(t, BufferT):     # kernel code: the address alone (3.4)
            return R.PTR if self.kt is not None else R.BUFFER
        return R.PTR

    def mem_ty(self, t: Type) -> ir.Type:
        """Type of a value stored in memory (array slots, tuple fields): bool is one byte."""
        if t == Prim("bool"):
            return R.I8
        return self.llty(t)

    def to_mem(self, v: ir.Value, t: Type) -> ir.Value:
        if t == Prim("bool"):
            return self.b.zext(v, R.I8)
        return v

    def from_mem(self, v: ir.Value, t: Type) -> ir.Value:
        if t == Prim("bool"):
            return self.b.icmp_unsigned("!=", v, ir.Constant(R.I8, 0))
        return v

    def size_of(self, t: Type) -> int:
        return self.mem_ty(t).get_abi_size(self.td)

    # ------------------------------------------------------------ constants
    def unique(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}.{self._n}"

    def cstr(self, text: str | bytes) -> ir.Value:
        """A pointer to a NUL-terminated constant."""
        data = text.encode() if isinstance(text, str) else text
        if data in self.cstrs:
            return self.cstrs[data]
        arr = bytearray(data) + b"\0"
        ty = ir.ArrayType(R.I8, len(arr))
        gv = ir.GlobalVariable(self.module, ty, self.unique(".cstr"))
        gv.global_constant = True
        gv.linkage = "internal"
        gv.unnamed_addr = True
        gv.initializer = ir.Constant(ty, arr)
        ptr = gv.bitcast(R.PTR)
        self.cstrs[data] = ptr
        return ptr

    def str_const(self, data: bytes) -> ir.Value:
        """An NvStr constant (pointer); the empty string is NULL."""
        if not data:
            return ir.Constant(R.PTR, None)
        if data in self.strs:
            return self.strs[data]
        chars = self.cstr(data)
        gv = ir.GlobalVariable(self.module, R.NVSTR, self.unique(".str"))
        gv.global_constant = True
        gv.linkage = "private"
        gv.initializer = ir.Constant(R.NVSTR, [ir.Constant(R.I64, len(data)), chars,
                                               ir.Constant(R.I64, str_hash(data))])
        ptr = gv.bitcast(R.PTR)
        self.strs[data] = ptr
        return ptr

    def desc(self, t: Type) -> ir.Value:
        """Pointer to the NvType descriptor of t (8.x: used by generic runtime functions)."""
        if isinstance(t, Prim) and t.name not in ("nil", "void", "any"):
            name = "nv_type_" + ("int" if t.name == "i64" else t.name)
            gv = self.module.globals.get(name)
            if gv is None:
                gv = ir.GlobalVariable(self.module, R.NVTYPE, name)
                gv.linkage = "external"
                gv.global_constant = True
            return gv.bitcast(R.PTR)
        if t in self.descs:
            return self.descs[t].bitcast(R.PTR)
        # one descriptor per type program-wide (casts from any compare their addresses)
        gv = ir.GlobalVariable(self.module, R.NVTYPE, "nvtype." + type_key(t))
        gv.global_constant = True
        gv.linkage = "linkonce_odr"
        self.descs[t] = gv
        null = ir.Constant(R.PTR, None)
        elems, offsets, count = null, null, 0
        if isinstance(t, ArrayT):
            kind, elist = "array", [t.elem]
        elif isinstance(t, FixedT):
            kind, elist, count = "fixed", [t.elem], t.n
        elif isinstance(t, TupleT):
            kind, elist, count = "tuple", list(t.elems), len(t.elems)
            st = self.llty(t)
            offs = [st.get_element_offset(self.td, i) for i in range(len(t.elems))]
            oty = ir.ArrayType(R.I64, len(offs))
            og = ir.GlobalVariable(self.module, oty, self.unique(".offs"))
            og.global_constant = True
            og.linkage = "internal"
            og.initializer = ir.Constant(oty, offs)
            offsets = og.bitcast(R.PTR)
        elif isinstance(t, MapT):
            kind, elist = "map", [t.key, t.val]
        elif isinstance(t, ForeignT):
            kind, elist = "foreign_ref", []
        elif isinstance(t, ClassT):
            kind, elist = ("foreign" if t.module == "std" else "class"), []
        elif isinstance(t, ChannelT):
            kind, elist = "channel", [t.elem]
        elif isinstance(t, FuncT):
            kind, elist = "function", []
        elif isinstance(t, BufferT):
            kind, elist = "buffer", [t.elem]
        else:
            kind, elist = "any", []
        if elist:
            aty = ir.ArrayType(R.PTR, len(elist))
            eg = ir.GlobalVariable(self.module, aty, self.unique(".elems"))
            eg.global_constant = True
            eg.linkage = "internal"
            eg.initializer = ir.Constant(aty, [self.desc(e) for e in elist])
            elems = eg.bitcast(R.PTR)
        gv.initializer = ir.Constant(R.NVTYPE, [
            ir.Constant(R.I32, R.KIND[kind]), ir.Constant(R.I32, self.size_of(t)),
            ir.Constant(R.I32, count), ir.Constant(R.I32, int(has_pointers(t))),
            elems, offsets, self.cstr(str(t)), self.to_str_hook(t), self.base_desc(t)])
        return gv.bitcast(R.PTR)

    # ------------------------------------------------------------ functions and frames
    def lower_unrolled(self, f: T.FuncSym) -> None:
        """f, and for a small self-recursive f its K clones f -> f.u1 -> ... -> f.uK -> f, always
        inlined (unroll.py): one machine frame then runs K+1 levels, probing the stack once."""
        levels = unroll_levels(f, self.is_direct)
        fn = self.funcs[f]
        chain = [fn]
        for k in range(1, levels + 1):
            clone = ir.Function(self.module, fn.function_type, name=f"{fn.name}.u{k}")
            clone.linkage = "internal"
            clone.attributes.add("alwaysinline")
            chain.append(clone)
        for k, level_fn in enumerate(chain):
            self.lower_function(f, level_fn, k, chain[(k + 1) % len(chain)], len(chain))

    def lower_function(self, f: T.FuncSym, fn: ir.Function | None = None, level: int = 0,
                       self_call: ir.Function | None = None, levels: int = 1) -> None:
        """f's body into fn (f's own function by default); `level` of `levels` per machine frame,
        its direct self-calls going to self_call."""
        fn = fn if fn is not None else self.funcs[f]
        fs = FuncState(f, fn)
        fs.self_call, fs.levels = self_call, levels
        self.fs = fs
        entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        fs.entry_builder = ir.IRBuilder(entry)
        self.b = ir.IRBuilder(body)
        fs.exit_block = fn.append_basic_block("exit")
        if f.ret != Prim("void"):
            fs.ret_slot = self.alloca(self.llty(f.ret), "ret")
            fs.entry_builder.store(ir.Constant(self.llty(f.ret), None), fs.ret_slot)
        info = self.func_info(fs) if f.may_raise or f.scc is not None else None
        if f.scc is not None:
            if level == 0:
                self.stack_probe(fs, info)   # the clones run in this machine frame
            if not self.release:
                # Checked builds keep every recursive call a call, so an endless recursion
                # reaches 13.2's `stack overflow` instead of running forever as a loop.
                # (A string attribute: llvmlite's add() knows only enum attributes.)
                set.add(fn.attributes, '"disable-tail-calls"="true"')
        if f.may_raise:
            eb = fs.entry_builder
            frame = self.alloca(R.NVFRAME, "frame")
            prev = eb.load(self.tls_top)
            eb.store(prev, eb.gep(frame, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 0)]))
            eb.store(info.bitcast(R.PTR), eb.gep(frame, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 1)]))
            eb.store(ir.Constant(R.I64, 0), eb.gep(frame, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 2)]))
            eb.store(eb.bitcast(frame, R.PTR), self.tls_top)
            fs.frame = frame
            fs.frame_prev = prev
        for p, arg in zip(f.params, fn.args[:len(f.params)]):
            slot = self.alloca(self.llty(p.type), p.name)
            fs.entry_builder.store(arg, slot)
            fs.vars[p] = slot
        self.lower_block(f.body)
        if not self.b.block.is_terminated:
            self.b.branch(fs.exit_block)
        fs.entry_builder.branch(body)
        xb = ir.IRBuilder(fs.exit_block)
        if fs.frame is not None:
            xb.store(fs.frame_prev, self.tls_top)
        if fs.ret_slot is not None:
            xb.ret(xb.load(fs.ret_slot))
        else:
            xb.ret_void()
        self.fs = None

    def func_info(self, fs: FuncState) -> ir.Value:
        """The NvFuncInfo (name, file) of the function being lowered, made once (its unrolled
        clones share it: the unwinder and traces see one function)."""
        if fs.info is None:
            f = fs.sym
            infos = self.__dict__.setdefault("_func_infos", {})
            info = infos.get(f)
            if info is None:
                info = ir.GlobalVariable(self.module, R.NVFUNCINFO, self.unique(".fn"))
                info.global_constant = True
                info.linkage = "internal"
                info.initializer = ir.Constant(R.NVFUNCINFO, [self.cstr(f.name), self.cstr(R.trace_path(f.span.file))])
                infos[f] = info
            fs.info = info
        return fs.info

    def stack_probe(self, fs: FuncState, info) -> None:
        """A recursive function compares its stack pointer with the thread's limit on entry
        (as Go's prologue does): below it, the recursion is a `stack overflow` (13.2). No
        counter is passed, so LLVM may turn tail recursion into loops and inline through calls."""
        b = self.b
        sp = b.call(self.stack_pointer_fn(), self.stack_pointer_args())
        if sp.type != R.I64:
            sp = b.ptrtoint(sp, R.I64)
        deep = b.icmp_unsigned("<", sp, b.load(self.stack_limit))
        with b.if_then(deep, likely=False):
            site = (fs.sym.span.line << 32) | fs.sym.span.col
            # the function's address and levels let the unwinder count K+1 activations
            # in each of its machine frames (unroll.py)
            self.rt("nv_panic_stack", info.bitcast(R.PTR), ir.Constant(R.I64, site),
                    ir.Constant(R.I32, int(fs.sym.may_raise)), fs.fn.bitcast(R.PTR),
                    ir.Constant(R.I32, fs.levels))
            b.unreachable()

    def stack_pointer_fn(self) -> ir.Function:
        """llvm.read_register of the stack pointer where LLVM knows its name (no frame pointer
        needed), else llvm.frameaddress."""
        if self.sp_register() is not None:
            return self.intrinsic_fn("llvm.read_register.i64", R.I64, [ir.MetaDataType()])
        return self.intrinsic_fn("llvm.frameaddress.p0", R.PTR, [R.I32])

    def stack_pointer_args(self) -> list:
        reg = self.sp_register()
        if reg is None:
            return [ir.Constant(R.I32, 0)]
        md = getattr(self, "_sp_md", None)
        if md is None:
            md = self._sp_md = self.module.add_metadata([ir.MetaDataString(self.module, reg)])
        return [md]

    def sp_register(self) -> str | None:
        arch = self.module.triple.split("-")[0]
        return {"x86_64": "rsp", "aarch64": "sp", "arm64": "sp"}.get(arch)

    def alloca(self, ty: ir.Type, name: str = "") -> ir.Value:
        """An entry-block slot (promoted to a register by mem2reg)."""
        eb = self.fs.entry_builder
        return eb.alloca(ty, name=name)

    def set_site(self, span) -> None:
        """Record the current source position in this function's frame (before calls/checks)."""
        if self.fs.frame is None or span is None:
            return
        site = (span.line << 32) | span.col
        p = self.b.gep(self.fs.frame, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 2)])
        self.b.store(ir.Constant(R.I64, site), p)

    def rt(self, name: str, *args) -> ir.Value:
        return self.b.call(R.declare(self.module, name), list(args))

    def panic_call(self, span, name: str, *args) -> None:
        """Call a noreturn runtime panic at span, then mark the block unreachable."""
        self.set_site(span)
        self.rt(name, *args)
        self.b.unreachable()

    def check(self, cond_ok: ir.Value, span, name: str, *args) -> None:
        """Branch to a cold panic block when cond_ok is false (none in kernel code, 12.1)."""
        if self.kt is not None:
            return
        ok = self.b.append_basic_block("ok")
        bad = self.b.append_basic_block("bad")
        self.b.cbranch(cond_ok, ok, bad)
        self.b.position_at_end(bad)
        self.panic_call(span, name, *args)
        self.b.position_at_end(ok)
