"""Lowering of typed expressions: constants, locals, operators, casts, indexing, literals."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..types import (ANY, ArrayT, BufferT, FixedT, ForeignT, MapT, Prim, TupleT, Type, FLOAT, F64, BOOL, CHAR, STR, NIL, BF16,
                     HALF, is_int, is_float, is_signed, is_unsigned, INT_BITS)
from . import runtime_abi as R


def flatten_strcat(e: T.StrCat) -> list:
    """The texts of nested concatenations and str(x) conversions, in order."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, T.StrCat):
            stack.extend(reversed(x.parts))
        else:
            out.append(x)
    return out


def ll_float_name(t: ir.Type) -> str:
    return {"float": "f32", "double": "f64", "half": "f16"}[str(t)]


CONST_ARRAY_MIN = 8      # shorter literals stay per-element stores (LLVM folds them)


class ExprLowering:
    # ------------------------------------------------------------ dispatch
    def expr(self, e: T.Expr) -> ir.Value:
        return getattr(self, "ex_" + type(e).__name__)(e)

    def ex_Const(self, e: T.Const) -> ir.Value:
        t = e.type
        ty = self.llty(t)
        if e.value is None:
            return ir.Constant(ty, None)
        if t == STR:
            return self.str_const(e.value)
        if t == BOOL:
            return ir.Constant(R.I1, int(bool(e.value)))
        if t == BF16:
            return self.rt_trunc_bf16(ir.Constant(R.F32, float(e.value)))
        if is_float(t):
            return ir.Constant(ty, float(e.value))
        v = int(e.value)
        bits = INT_BITS[t.name]
        v &= (1 << bits) - 1
        return ir.Constant(ty, v)

    def ex_Zero(self, e: T.Zero) -> ir.Value:
        if e.fresh and isinstance(e.type, ArrayT):
            return self.rt("nv_array_new", self.desc(e.type.elem), ir.Constant(R.I64, 0))
        if e.fresh and isinstance(e.type, MapT):
            return self.new_map(e.type)
        return ir.Constant(self.llty(e.type), None)

    def ex_Local(self, e: T.Local) -> ir.Value:
        return self.b.load(self.fs.vars[e.var])

    def ex_Placeholder(self, e: T.Placeholder) -> ir.Value:
        return self.fs.placeholder

    def ex_CallFn(self, e: T.CallFn) -> ir.Value:
        if e.func.foreign is not None:
            return self.foreign_call(e)
        args = [self.expr(a) for a in e.args]
        if e.func.kind == "gpu":
            return self.kernel_call(e, args)
        if e.recv_check is not None:
            self.recv_check(args[0], e.span, *e.recv_check)
        if e.virtual is not None and not self.is_direct(e):
            return self.virtual_call(e, args)
        # debug: every call, so a fault in C below a function that cannot raise shows this line
        if e.func.may_raise or e.func.scc is not None or not self.release:
            self.set_site(e.span)
        if e.func is self.fs.sym and self.fs.self_call is not None:
            return self.b.call(self.fs.self_call, args)    # the next unrolled level
        return self.b.call(self.declare_func(e.func), args)

    def ex_Seq(self, e: T.Seq) -> ir.Value:
        for s in e.stmts:
            self.stmt(s)
        return self.expr(e.value)

    # ------------------------------------------------------------ operators
    def ex_Unop(self, e: T.Unop) -> ir.Value:
        x = self.expr(e.operand)
        if e.op == "not":
            return self.b.not_(x)
        if is_float(e.type):
            return self.b.fneg(x)
        return self.b.neg(x)

    def ex_Logic(self, e: T.Logic) -> ir.Value:
        left = self.expr(e.left)
        lblock = self.b.block
        rhs = self.b.append_basic_block("logic.rhs")
        done = self.b.append_basic_block("logic.end")
        if e.op == "and":
            self.b.cbranch(left, rhs, done)
        else:
            self.b.cbranch(left, done, rhs)
        self.b.position_at_end(rhs)
        right = self.expr(e.right)
        rblock = self.b.block
        self.b.branch(done)
        self.b.position_at_end(done)
        phi = self.b.phi(R.I1)
        phi.add_incoming(ir.Constant(R.I1, 0 if e.op == "and" else 1), lblock)
        phi.add_incoming(right, rblock)
        return phi

    def ex_Binop(self, e: T.Binop) -> ir.Value:
        l = self.expr(e.left)
        r = self.expr(e.right)
        return self.binop(e.op, l, r, e.type, e.span)

    def binop(self, op: str, l, r, t: Type, span) -> ir.Value:
        b = self.b
        if t == BOOL:
            return {"and": b.and_, "or": b.or_, "xor": b.xor}[op](l, r)
        if is_float(t):
            if op == "add":
                return b.fadd(l, r)
            if op == "sub":
                return b.fsub(l, r)
            if op == "mul":
                return b.fmul(l, r)
            if op == "div":
                return b.fdiv(l, r)
            if op == "floordiv":
                return self.intrinsic1("llvm.floor", b.fdiv(l, r))
            if op == "mod":
                m = b.frem(l, r)
                # add r when m != 0 and sign(m) != sign(r)
                zero = ir.Constant(m.type, 0.0)
                nz = b.fcmp_ordered("!=", m, zero)
                diff = b.xor(b.fcmp_ordered("<", m, zero), b.fcmp_ordered("<", r, zero))
                return b.select(b.and_(nz, diff), b.fadd(m, r), m)
            raise AssertionError(op)
        unsigned = is_unsigned(t)
        if op == "add":
            return b.add(l, r)
        if op == "sub":
            return b.sub(l, r)
        if op == "mul":
            return b.mul(l, r)
        if op == "and":
            return b.and_(l, r)
        if op == "or":
            return b.or_(l, r)
        if op == "xor":
            return b.xor(l, r)
        if op in ("shl", "shr"):
            w = l.type.width
            k = b.and_(r, ir.Constant(l.type, w - 1))
            if op == "shl":
                return b.shl(l, k)
            return b.lshr(l, k) if unsigned else b.ashr(l, k)
        if op in ("floordiv", "mod", "ceildiv"):
            return self.int_division(op, l, r, unsigned, span)
        raise AssertionError(op)

    def int_division(self, op: str, a, d, unsigned: bool, span) -> ir.Value:
        b = self.b
        ty = a.type
        zero = ir.Constant(ty, 0)
        self.check(b.icmp_signed("!=", d, zero), span, "nv_panic_divzero",
                   ir.Constant(R.I32, 1 if op == "mod" else 0))
        if unsigned:
            if op == "floordiv":
                return b.udiv(a, d)
            if op == "mod":
                return b.urem(a, d)
            q = b.udiv(a, d)
            rem = b.urem(a, d)
            return b.select(b.icmp_unsigned("!=", rem, zero), b.add(q, ir.Constant(ty, 1)), q)
        minus1 = ir.Constant(ty, -1)
        is_m1 = b.icmp_signed("==", d, minus1)
        safe = b.select(is_m1, ir.Constant(ty, 1), d)
        q = b.sdiv(a, safe)
        q = b.select(is_m1, b.neg(a), q)
        rem = b.srem(a, safe)              # 0 when d == -1
        rem_nz = b.icmp_signed("!=", rem, zero)
        signs_differ = b.icmp_signed("<", b.xor(rem, d), zero)
        if op == "floordiv":
            return b.select(b.and_(rem_nz, signs_differ), b.sub(q, ir.Constant(ty, 1)), q)
        if op == "mod":
            return b.select(b.and_(rem_nz, signs_differ), b.add(rem, d), rem)
        same = b.icmp_signed(">=", b.xor(a, d), zero)
        return b.select(b.and_(rem_nz, same), b.add(q, ir.Constant(ty, 1)), q)

    def intrinsic_fn(self, name: str, ret: ir.Type, args: list) -> ir.Function:
        """An LLVM intrinsic declared by its full (mangled) name."""
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name=name)
        return fn

    def intrinsic1(self, name: str, x: ir.Value) -> ir.Value:
        """A unary floating-point intrinsic (llvm.floor, llvm.sqrt, ...) on x's type."""
        fn = self.intrinsic_fn(f"{name}.{ll_float_name(x.type)}", x.type, [x.type])
        return self.b.call(fn, [x])

    def ex_Cmp(self, e: T.Cmp) -> ir.Value:
        l = self.expr(e.left)
        r = self.expr(e.right)
        return self.compare(e.op, l, r, e.operand_type, e.span)

    def compare(self, op: str, l, r, t: Type, span) -> ir.Value:
        b = self.b
        if t == STR:
            if op in ("==", "!="):
                eq = b.icmp_signed("!=", self.rt("nv_str_eq", l, r), ir.Constant(R.I32, 0))
                return eq if op == "==" else b.not_(eq)
            c = self.rt("nv_str_cmp", l, r)
            return b.icmp_signed(op, c, ir.Constant(R.I32, 0))
        if is_float(t):
            if op == "!=":
                return b.fcmp_unordered("!=", l, r)
            return b.fcmp_ordered(op, l, r)
        if isinstance(t, (ArrayT, TupleT, FixedT)):
            if isinstance(t, ArrayT):
                pl, pr = self.spill(l), self.spill(r)
            else:
                pl, pr = self.spill(l), self.spill(r)
            eq = b.icmp_signed("!=", self.rt("nv_value_eq", b.bitcast(pl, R.PTR),
                                             b.bitcast(pr, R.PTR), self.desc(t)),
                               ir.Constant(R.I32, 0))
            return eq if op == "==" else b.not_(eq)
        if (isinstance(t, BufferT) and self.kt is None) or t == ANY:
            l, r = b.extract_value(l, 0), b.extract_value(r, 0)
        if isinstance(t, ForeignT):              # by C address: wrappers of one pointer (11.2)
            l, r = self.foreign_addr(l), self.foreign_addr(r)
        if isinstance(l.type, ir.PointerType):
            return b.icmp_unsigned(op, b.ptrtoint(l, R.I64), b.ptrtoint(r, R.I64))
        if t == BOOL or is_unsigned(t):
            return b.icmp_unsigned(op, l, r)
        return b.icmp_signed(op, l, r)

    def spill(self, v: ir.Value) -> ir.Value:
        """Store a value in a fresh stack slot; returns the slot's address."""
        slot = self.alloca(v.type)
        self.b.store(v, slot)
        return slot

    # ------------------------------------------------------------ conversions
    def ex_Cast(self, e: T.Cast) -> ir.Value:
        return self.convert(self.expr(e.operand), e.operand.type, e.type, e.span)

    def convert(self, v: ir.Value, src: Type, dst: Type, span=None) -> ir.Value:
        b = self.b
        if src == dst:
            return v
        if dst == ANY:
            return self.box_buffer(v, src) if isinstance(src, BufferT) else self.box_any(v, src)
        if src == ANY and isinstance(dst, (BufferT, ForeignT)):
            return self.any_to_unchecked(v, dst)
        if src == ANY and dst.is_ref:
            return self.unbox_any(v, dst, span)
        if src == NIL or (not isinstance(dst, Prim) and src.is_ref):
            return v
        if dst == BOOL:
            if is_float(src):
                return b.fcmp_unordered("!=", v, ir.Constant(v.type, 0.0))
            return b.icmp_unsigned("!=", v, ir.Constant(v.type, None))
        if src == BF16:
            v, src = self.rt_bf16_to_f32(v), FLOAT
            if dst == FLOAT:
                return v
        if src == HALF:
            v, src = b.fpext(v, R.F32), FLOAT
            if dst == FLOAT:
                return v
        if dst == BF16:
            return self.rt_trunc_bf16(self.convert(v, src, FLOAT))
        if dst == HALF:
            f = self.convert(v, src, F64) if src == F64 else self.convert(v, src, FLOAT)
            return b.fptrunc(f, R.HALF)
        dty = self.llty(dst)
        if src == BOOL:
            v = b.zext(v, R.I8)
            src = Prim("u8")
        s_int, d_int = is_int(src) or src == CHAR, is_int(dst) or dst == CHAR
        if s_int and d_int:
            sw, dw = v.type.width, dty.width
            if sw == dw:
                return v
            if sw > dw:
                return b.trunc(v, dty)
            return b.sext(v, dty) if is_signed(src) else b.zext(v, dty)
        if s_int and is_float(dst):
            return b.sitofp(v, dty) if is_signed(src) else b.uitofp(v, dty)
        if is_float(src) and d_int:
            name = "llvm.fptosi.sat" if is_signed(dst) else "llvm.fptoui.sat"
            return b.call(self.intrinsic_fn(f"{name}.i{dty.width}.{ll_float_name(v.type)}",
                                            dty, [v.type]), [v])
        if is_float(src) and is_float(dst):
            if dst == F64:
                return b.fpext(v, R.F64)
            return b.fptrunc(v, R.F32)
        raise AssertionError(f"cast {src} -> {dst}")

    def rt_bf16_to_f32(self, v: ir.Value) -> ir.Value:
        bits = self.b.shl(self.b.zext(v, R.I32), ir.Constant(R.I32, 16))
        return self.b.bitcast(bits, R.F32)

    def rt_trunc_bf16(self, f: ir.Value) -> ir.Value:
        if isinstance(f, ir.Constant):
            import struct
            bits = struct.unpack("<I", struct.pack("<f", f.constant))[0]
            if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
                out = (bits >> 16) | 0x40
            else:
                out = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
            return ir.Constant(R.I16, out & 0xFFFF)
        return self.b.trunc(self.rt("nv_f32_to_bf16", f), R.I16)

    # ------------------------------------------------------------ strings
    def ex_StrCat(self, e: T.StrCat) -> ir.Value:
        parts = flatten_strcat(e)
        if len(parts) == 2 and all(p.type == STR for p in parts):
            return self.rt("nv_str_concat", self.expr(parts[0]), self.expr(parts[1]))
        if len(parts) == 1 and parts[0].type == STR:
            return self.expr(parts[0])
        buf = self.new_buf()              # one buffer and one allocation for the whole text
        for p in parts:
            self.fmt(buf, self.expr(p), p.type)
        return self.rt("nv_buf_to_str", buf)

    def new_buf(self) -> ir.Value:
        slot = self.alloca(ir.ArrayType(R.I64, R.BUF_SIZE // 8), "buf")
        buf = self.b.bitcast(slot, R.PTR)
        self.rt("nv_buf_init", buf)
        return buf

    def fmt(self, buf, v: ir.Value, t: Type) -> None:
        b = self.b
        if isinstance(t, Prim):
            n = t.name
            if n in ("int", "i8", "i16", "i32"):
                self.rt("nv_fmt_i64", buf, b.sext(v, R.I64) if n != "int" else v)
            elif n in ("u8", "u16", "u32"):
                self.rt("nv_fmt_i64", buf, b.zext(v, R.I64))
            elif n == "u64":
                self.rt("nv_fmt_u64", buf, v)
            elif n == "float":
                self.rt("nv_fmt_f32", buf, v)
            elif n == "f64":
                self.rt("nv_fmt_f64", buf, v)
            elif n == "bf16":
                self.rt("nv_fmt_bf16", buf, b.zext(v, R.I32))
            elif n == "half":
                self.rt("nv_fmt_half", buf, b.zext(b.bitcast(v, R.I16), R.I32))
            elif n == "bool":
                self.rt("nv_fmt_bool", buf, b.zext(v, R.I32))
            elif n == "char":
                self.rt("nv_fmt_char", buf, b.zext(v, R.I32))
            elif n == "str":
                self.rt("nv_fmt_str", buf, v)
            elif n == "nil":
                self.rt("nv_fmt_cstr", buf, self.cstr("nil"))
            else:
                self.fmt_value(buf, v, t)
            return
        self.fmt_value(buf, v, t)

    def fmt_value(self, buf, v: ir.Value, t: Type) -> None:
        slot = self.spill(self.to_mem(v, t) if t == BOOL else v)
        self.rt("nv_fmt_value", buf, self.b.bitcast(slot, R.PTR), self.desc(t))

    # ------------------------------------------------------------ indexing
    def array_len(self, arr: ir.Value) -> ir.Value:
        """Length of an array or a str (both begin with it), 0 for nil."""
        b = self.b
        isnil = b.icmp_unsigned("==", b.ptrtoint(arr, R.I64), ir.Constant(R.I64, 0))
        cur = b.block
        load = b.append_basic_block("len.load")
        done = b.append_basic_block("len.done")
        b.cbranch(isnil, done, load)
        b.position_at_end(load)
        n = b.load(self.array_field(arr, 0))
        b.branch(done)
        b.position_at_end(done)
        phi = b.phi(R.I64)
        phi.add_incoming(ir.Constant(R.I64, 0), cur)
        phi.add_incoming(n, load)
        return phi

    def array_field(self, arr: ir.Value, i: int) -> ir.Value:
        p = self.b.bitcast(arr, R.NVARRAY.as_pointer())
        g = self.b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, i)])
        self.tbaa_ptrs[id(g)] = (g, "nvarray.header")
        return g

    def norm_index(self, idx: ir.Value, n: ir.Value, span, what: int) -> ir.Value:
        """Negative indices count from the end; out of range panics (unless --release)."""
        b = self.b
        neg = b.icmp_signed("<", idx, ir.Constant(R.I64, 0))
        i = b.select(neg, b.add(idx, n), idx)
        if not self.release:
            self.check(b.icmp_unsigned("<", i, n), span, "nv_panic_index", idx, n,
                       ir.Constant(R.I32, what))
        return i

    def elem_ptr(self, arr: ir.Value, i: ir.Value, et: Type) -> ir.Value:
        data = self.b.load(self.array_field(arr, 2))
        typed = self.b.bitcast(data, self.mem_ty(et).as_pointer())
        g = self.b.gep(typed, [i])
        self.tbaa_ptrs[id(g)] = (g, f"nvarray.elem.{self.mem_ty(et)}")
        return g

    def address(self, e: T.Expr, write: bool = True, base: list | None = None) -> ir.Value:
        """Address of an lvalue expression (evaluating its sub-expressions once); `write`
        says which nil-object message applies (a compound assignment reads first). An address
        inside array storage appends (array, typed storage pointer) to `base`: growing the
        array moves its storage, and rebased() finds the address again."""
        if isinstance(e, T.Local):
            return self.fs.vars[e.var]
        if isinstance(e, T.Builtin) and e.name == "field":
            return self.field_ptr(e, write=write)
        if isinstance(e, T.IndexGet) and isinstance(e.obj.type, MapT):
            return self.map_slot_for_store(e, read=not write)
        if isinstance(e, T.IndexGet):
            ot = e.obj.type
            if isinstance(ot, ArrayT):
                arr = self.expr(e.obj)
                idx = self.expr(e.index)
                if id(e) not in self.fs.unchecked:      # else in range: proven before the loop
                    idx = self.norm_index(idx, self.array_len(arr), e.span, 0)
                p = self.elem_ptr(arr, idx, ot.elem)
                if base is not None:
                    base.append((arr, p.pointer))
                return p
            if isinstance(ot, FixedT):
                at = self.address(e.obj, base=base) if self.is_lvalue(e.obj) else self.spill(self.expr(e.obj))
                idx = self.expr(e.index)
                i = self.norm_index(idx, ir.Constant(R.I64, ot.n), e.span, 2)
                return self.b.gep(at, [ir.Constant(R.I32, 0), i])
            if isinstance(ot, TupleT):
                at = self.address(e.obj, base=base) if self.is_lvalue(e.obj) else self.spill(self.expr(e.obj))
                return self.b.gep(at, [ir.Constant(R.I32, 0), ir.Constant(R.I32, e.index.value)])
            if isinstance(ot, BufferT):
                data = self.buffer_data(self.expr(e.obj), e.span, f"indexed nil buffer {ot}")
                # a buffer of buffers holds addresses alone (3.4)
                et = R.PTR if isinstance(ot.elem, BufferT) else self.mem_ty(ot.elem)
                typed = self.b.bitcast(data, et.as_pointer())
                return self.b.gep(typed, [self.expr(e.index)])
        raise AssertionError(f"not an lvalue: {type(e).__name__}")

    def rebased(self, addr: ir.Value, base: tuple) -> ir.Value:
        """addr (from address() with `base`) in the array's current storage: the same byte offset
        from its start. Where no call came between, LLVM folds it back to addr."""
        arr, typed = base
        b = self.b
        now = b.bitcast(b.load(self.array_field(arr, 2)), R.PTR)
        off = b.sub(b.ptrtoint(addr, R.I64), b.ptrtoint(typed, R.I64))
        p = b.bitcast(b.gep(now, [off]), addr.type)
        if id(addr) in self.tbaa_ptrs:
            self.tbaa_ptrs[id(p)] = (p, self.tbaa_ptrs[id(addr)][1])
        return p

    def buffer_data(self, buf: ir.Value, span, nil_message: str) -> ir.Value:
        """The element address of a buffer, with the CPU back end's nil check (3.4)."""
        if self.kt is not None:
            return buf
        data = self.b.extract_value(buf, 0)
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(data, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, span, "nv_panic", self.cstr(nil_message))
        return data

    def is_lvalue(self, e: T.Expr) -> bool:
        if isinstance(e, T.Local) or (isinstance(e, T.Builtin) and e.name == "field"):
            return True
        if isinstance(e, T.IndexGet):
            ot = e.obj.type
            return isinstance(ot, (ArrayT, BufferT)) or (
                isinstance(ot, (FixedT, TupleT)) and self.is_lvalue(e.obj))
        return False

    def ex_IndexGet(self, e: T.IndexGet) -> ir.Value:
        ot = e.obj.type
        if isinstance(ot, MapT):
            return self.map_get(e)
        if isinstance(ot, TupleT):
            if self.is_lvalue(e.obj):
                return self.from_mem(self.b.load(self.address(e)), e.type)
            return self.from_mem(self.b.extract_value(self.expr(e.obj), e.index.value), e.type)
        if ot == STR:
            s = self.expr(e.obj)
            idx = self.expr(e.index)
            self.set_site(e.span)
            if self.release:
                return self.str_at_unchecked(s, idx)
            return self.b.trunc(self.rt("nv_str_at", s, idx), R.I8)
        v = self.b.load(self.address(e))
        if isinstance(e.type, BufferT) and self.kt is None and v.type == R.PTR:
            return self.b.insert_value(ir.Constant(R.BUFFER, None), v, 0)   # owner nil
        return self.from_mem(v, e.type)

    def str_at_unchecked(self, s, idx) -> ir.Value:
        b = self.b
        p = b.bitcast(s, R.NVSTR.as_pointer())
        n = b.load(b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 0)]))
        data = b.load(b.gep(p, [ir.Constant(R.I32, 0), ir.Constant(R.I32, 1)]))
        neg = b.icmp_signed("<", idx, ir.Constant(R.I64, 0))
        i = b.select(neg, b.add(idx, n), idx)
        return b.load(b.gep(data, [i]))

    def ex_SliceGet(self, e: T.SliceGet) -> ir.Value:
        obj = self.expr(e.obj)
        lo = self.expr(e.lo) if e.lo is not None else ir.Constant(R.I64, 0)
        hi = self.expr(e.hi) if e.hi is not None else ir.Constant(R.I64, (1 << 63) - 1)
        if e.obj.type == STR:
            return self.rt("nv_str_slice", obj, lo, hi)
        self.nil_check(obj, e.span, "slice", e.obj.type)
        return self.rt("nv_array_slice", obj, lo, hi)

    def nil_check(self, obj: ir.Value, span, method: str, t: Type) -> None:
        ok = self.b.icmp_unsigned("!=", self.b.ptrtoint(obj, R.I64), ir.Constant(R.I64, 0))
        self.check(ok, span, "nv_panic_nil_call", self.cstr(method), self.cstr(str(t)))

    # ------------------------------------------------------------ literals
    def ex_ArrayNew(self, e: T.ArrayNew) -> ir.Value:
        et = e.type.elem
        plain = et not in (BF16, HALF) and (is_int(et) or is_float(et) or et in (BOOL, CHAR))
        if plain and len(e.elems) >= CONST_ARRAY_MIN and \
                all(isinstance(x, T.Const) and x.value is not None for x in e.elems):
            return self.const_array(e)
        vals = [self.expr(x) for x in e.elems]
        arr = self.rt("nv_array_new", self.desc(et), ir.Constant(R.I64, len(vals)))
        if vals:
            data = self.b.bitcast(self.b.load(self.array_field(arr, 2)), self.mem_ty(et).as_pointer())
            for i, v in enumerate(vals):
                self.b.store(self.to_mem(v, et), self.b.gep(data, [ir.Constant(R.I64, i)]))
        return arr

    def const_array(self, e: T.ArrayNew) -> ir.Value:
        """A literal of number constants: its elements are one constant global, copied into the
        new array with one memcpy (per-element stores make large literals slow to compile)."""
        et = e.type.elem
        mt = self.mem_ty(et)
        consts = [ir.Constant(R.I8, int(bool(x.value))) if et == BOOL else self.expr(x)
                  for x in e.elems]
        aty = ir.ArrayType(mt, len(consts))
        gv = ir.GlobalVariable(self.module, aty, self.unique(".arr"))
        gv.global_constant = True
        gv.linkage = "private"
        gv.unnamed_addr = True
        gv.initializer = ir.Constant(aty, consts)
        n = len(consts)
        arr = self.rt("nv_array_new", self.desc(et), ir.Constant(R.I64, n))
        data = self.b.load(self.array_field(arr, 2))
        memcpy = self.intrinsic_fn("llvm.memcpy.p0.p0.i64", ir.VoidType(), [R.PTR, R.PTR, R.I64, R.I1])
        self.b.call(memcpy, [self.b.bitcast(data, R.PTR), gv.bitcast(R.PTR),
                             ir.Constant(R.I64, n * self.size_of(et)), ir.Constant(R.I1, 0)])
        return arr

    def ex_TupleNew(self, e: T.TupleNew) -> ir.Value:
        agg = ir.Constant(self.llty(e.type), None)
        for i, (x, t) in enumerate(zip(e.elems, e.type.elems)):
            agg = self.b.insert_value(agg, self.to_mem(self.expr(x), t), i)
        return agg

    def ex_FixedNew(self, e: T.FixedNew) -> ir.Value:
        agg = ir.Constant(self.llty(e.type), None)
        for i, x in enumerate(e.elems):
            agg = self.b.insert_value(agg, self.to_mem(self.expr(x), e.type.elem), i)
        return agg
