"""Lowering of tir.Builtin intrinsics to runtime calls and LLVM intrinsics."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T
from ..builtins import KERNEL_MATH
from ..types import ArrayT, Prim, INT, F64, is_int, is_float, is_signed, is_unsigned
from . import runtime_abi as R
from .exprs import ll_float_name

# Builtins that lower to one runtime call with the same arguments.
DIRECT = {
    "flush": "nv_flush", "argv": "nv_argv", "getenv": "nv_getenv",
    "start_timer": "nv_start_timer", "end_timer": "nv_end_timer", "clock": "nv_clock",
    "time": "nv_time", "sleep": "nv_sleep", "arange_int": "nv_arange_int",
    "arange_float": "nv_arange_float", "to_int": "nv_to_int", "to_float": "nv_to_float",
    "to_f64": "nv_to_f64", "pow_int": "nv_pow_i64",
    "str.strip": "nv_str_strip", "str.lstrip": "nv_str_lstrip", "str.rstrip": "nv_str_rstrip",
    "str.lower": "nv_str_lower", "str.upper": "nv_str_upper", "str.split": "nv_str_split",
    "str.split_ws": "nv_str_split_ws", "str.find": "nv_str_find", "str.count": "nv_str_count",
    "str.replace": "nv_str_replace", "str.join": "nv_str_join", "str.repeat": "nv_str_repeat",
    "seed": "nv_seed", "randint": "nv_randint", "randu": "nv_randu", "randn": "nv_randn",
    "read_file": "nv_read_file", "read_lines": "nv_read_lines", "read_bytes": "nv_read_bytes",
    "write_file": "nv_write_file", "glob": "nv_glob",
    "remove_file": "nv_remove_file", "rename": "nv_rename", "remove_dir": "nv_remove_dir",
    "list_dir": "nv_list_dir", "temp_dir": "nv_temp_dir",
    "thread_slot_get": "nv_thread_slot_get", "thread_slot_set": "nv_thread_slot_set",
}
RAISING = {"arange_int", "arange_float", "to_int", "to_float", "to_f64", "pow_int", "str.split", "str.repeat",
           "str.join", "randint", "read_file", "read_lines", "read_bytes",
           "write_file", "remove_file", "rename", "remove_dir", "list_dir", "temp_dir",
           "thread_slot_get", "thread_slot_set"}
BOOL_RESULT = {"str.startswith": "nv_str_startswith", "str.endswith": "nv_str_endswith",
               "file_exists": "nv_file_exists", "dir_exists": "nv_dir_exists"}
MATH_F32 = {"exp": "expf", "log": "logf", "log2": "log2f", "sin": "sinf", "cos": "cosf",
            "tanh": "tanhf", "erf": "erff", "pow": "powf"}
MATH_F64 = {"exp": "exp", "log": "log", "log2": "log2", "sin": "sin", "cos": "cos",
            "tanh": "tanh", "erf": "erf", "pow": "pow"}
LLVM_MATH = {"sqrt": "llvm.sqrt", "floor": "llvm.floor", "ceil": "llvm.ceil",
             "round": "llvm.roundeven"}


class IntrinsicLowering:
    def ex_Builtin(self, e: T.Builtin) -> ir.Value:
        name = e.name
        if self.kt is not None and name in KERNEL_MATH:
            return self.kt.math(self, name, [self.expr(a) for a in e.args], e.type)
        if name in DIRECT:
            args = [self.expr(a) for a in e.args]
            if name in RAISING:
                self.set_site(e.span)
            if name.startswith("str.join"):
                self.nil_check(args[1], e.span, "join", ArrayT(Prim("str")))
            return self.rt(DIRECT[name], *args)
        if name in BOOL_RESULT:
            args = [self.expr(a) for a in e.args]
            r = self.rt(BOOL_RESULT[name], *args)
            return self.b.icmp_signed("!=", r, ir.Constant(R.I32, 0))
        meth = getattr(self, "bi_" + name.replace(".", "_"), None)
        if meth is None:
            raise AssertionError(f"no lowering for builtin {name}")
        return meth(e)

    # ------------------------------------------------------------ process / printing
    def bi_print(self, e: T.Builtin):
        newline, fd = e.extra
        buf = self.new_buf()
        for a in e.args:
            self.fmt(buf, self.expr(a), a.type)
        self.rt("nv_buf_write", buf, ir.Constant(R.I32, int(newline)), ir.Constant(R.I32, fd))

    def bi_fstring(self, e: T.Builtin):
        buf = self.new_buf()
        args = iter(e.args)
        for part in e.extra:
            if isinstance(part, bytes):
                if part:
                    self.rt("nv_fmt_str", buf, self.str_const(part))
                continue
            a = next(args)
            v = self.expr(a)
            if part is None:
                self.fmt(buf, v, a.type)
                continue
            self.fmt_spec(buf, v, a.type, part)
        return self.rt("nv_buf_to_str", buf)

    def fmt_spec(self, buf, v, t, spec) -> None:
        align, zero, width, prec, kind = spec
        i32 = lambda x: ir.Constant(R.I32, x)
        al = i32(ord(align) if align else 0)
        if kind in ("d", "x"):
            unsigned = is_unsigned(t)
            v64 = self.convert(v, t, INT) if t.name != "char" else self.b.zext(v, R.I64)
            self.rt("nv_fmt_int_spec", buf, v64, i32(int(unsigned)), al, i32(int(zero)),
                    i32(width), i32(ord(kind)))
        elif kind in ("f", "e"):
            self.rt("nv_fmt_float_spec", buf, self.convert(v, t, F64), al, i32(int(zero)),
                    i32(width), i32(-1 if prec is None else prec), i32(ord(kind)))
        else:
            start = self.rt("nv_buf_len", buf)
            self.fmt(buf, v, t)
            if is_int(t) or is_float(t):
                self.rt("nv_fmt_pad_num", buf, start, al, i32(int(zero)), i32(width))
            else:
                self.rt("nv_fmt_pad", buf, start, al, i32(width))

    def bi_exit(self, e: T.Builtin):
        self.rt("nv_exit", self.expr(e.args[0]))
        self.b.unreachable()
        self.b.position_at_end(self.b.append_basic_block("after.exit"))

    def bi_assert(self, e: T.Builtin):
        cond = self.expr(e.args[0])
        ok = self.b.append_basic_block("assert.ok")
        bad = self.b.append_basic_block("assert.fail")
        self.b.cbranch(cond, ok, bad)
        self.b.position_at_end(bad)
        msg = self.expr(e.args[1])
        self.panic_call(e.span, "nv_assert_fail", msg)
        self.b.position_at_end(ok)

    # ------------------------------------------------------------ numbers
    def bi_min(self, e: T.Builtin):
        return self.minmax(e, "<")

    def bi_max(self, e: T.Builtin):
        return self.minmax(e, ">")

    def minmax(self, e: T.Builtin, op: str):
        a, b = self.expr(e.args[0]), self.expr(e.args[1])
        t = e.type
        if is_float(t):
            name = "llvm.minnum" if op == "<" else "llvm.maxnum"
            fn = self.intrinsic_fn(f"{name}.{ll_float_name(a.type)}", a.type, [a.type, a.type])
            return self.b.call(fn, [a, b])
        c = self.compare(op, a, b, t, e.span)
        return self.b.select(c, a, b)

    def bi_abs(self, e: T.Builtin):
        x = self.expr(e.args[0])
        if is_float(e.type):
            return self.intrinsic1("llvm.fabs", x)
        if not is_signed(e.type):
            return x
        neg = self.b.icmp_signed("<", x, ir.Constant(x.type, 0))
        return self.b.select(neg, self.b.neg(x), x)

    def bi_pow(self, e: T.Builtin):
        a, b = self.expr(e.args[0]), self.expr(e.args[1])
        fn = (MATH_F64 if e.type == F64 else MATH_F32)["pow"]
        return self.rt(fn, a, b)

    def math1(self, e: T.Builtin):
        x = self.expr(e.args[0])
        if e.name in LLVM_MATH:
            return self.intrinsic1(LLVM_MATH[e.name], x)
        fn = (MATH_F64 if e.type == F64 else MATH_F32)[e.name]
        return self.rt(fn, x)

    bi_sqrt = bi_exp = bi_log = bi_log2 = bi_sin = bi_cos = bi_tanh = bi_erf = math1
    bi_floor = bi_ceil = bi_round = math1

    def bi_isnan(self, e: T.Builtin):
        x = self.expr(e.args[0])
        return self.b.fcmp_unordered("uno", x, x)

    def bi_isinf(self, e: T.Builtin):
        x = self.expr(e.args[0])
        ax = self.intrinsic1("llvm.fabs", x)
        return self.b.fcmp_ordered("==", ax, ir.Constant(x.type, float("inf")))

    def bi_to_char(self, e: T.Builtin):
        return self.b.trunc(self.expr(e.args[0]), R.I8)

    def bi_float_to_bf16(self, e: T.Builtin):
        return self.rt_trunc_bf16(self.expr(e.args[0]))

    def bi_bf16_to_float(self, e: T.Builtin):
        return self.rt_bf16_to_f32(self.expr(e.args[0]))

    # ------------------------------------------------------------ buffers
    def bi_offby_fixed(self, e: T.Builtin):
        base = self.address(e.args[0])
        p = self.b.gep(base, [ir.Constant(R.I32, 0), self.expr(e.args[1])])
        if self.kt is not None:
            return self.b.bitcast(p, R.PTR)
        return self.b.insert_value(ir.Constant(R.BUFFER, None), self.b.bitcast(p, R.PTR), 0)

    def bi_offby_buffer(self, e: T.Builtin):
        buf = self.expr(e.args[0])
        k = self.expr(e.args[1])
        data = self.buffer_data(buf, e.span, f"offby on nil buffer {e.type}")
        typed = self.b.bitcast(data, self.mem_ty(e.type.elem).as_pointer())
        p = self.b.bitcast(self.b.gep(typed, [k]), R.PTR)
        if self.kt is not None:
            return p
        return self.b.insert_value(buf, p, 0)      # keeps the owner (4.6)

    # ------------------------------------------------------------ strings
    def bi_str_size(self, e: T.Builtin):
        return self.array_len(self.expr(e.args[0]))

    def bi_make_dir(self, e: T.Builtin):
        path, parents = (self.expr(a) for a in e.args)
        self.set_site(e.span)
        return self.rt("nv_make_dir", path, self.b.zext(parents, R.I32))

    def bi_str_contains(self, e: T.Builtin):
        s, sub = self.expr(e.args[0]), self.expr(e.args[1])
        r = self.rt("nv_str_find", s, sub, ir.Constant(R.I64, 0))
        return self.b.icmp_signed(">=", r, ir.Constant(R.I64, 0))

    # ------------------------------------------------------------ arrays
    def receiver(self, e: T.Builtin, method: str) -> ir.Value:
        arr = self.expr(e.args[0])
        self.nil_check(arr, e.span, method, e.args[0].type)
        return arr

    def bi_array_len(self, e: T.Builtin):
        return self.array_len(self.expr(e.args[0]))

    def bi_array_size(self, e: T.Builtin):
        arr = self.receiver(e, "size")
        return self.b.load(self.array_field(arr, 0))

    def bi_array_append(self, e: T.Builtin):
        arr = self.receiver(e, "append")
        et = e.args[0].type.elem
        v = self.expr(e.args[1])
        # inline fast path: store in place while len < cap, grow in the runtime otherwise
        b = self.b
        n = b.load(self.array_field(arr, 0))
        full = b.icmp_signed(">=", n, b.load(self.array_field(arr, 1)))
        with b.if_then(full, likely=False):
            self.rt("nv_array_grow", arr)
        b.store(self.to_mem(v, et), self.elem_ptr(arr, n, et))
        b.store(b.add(n, ir.Constant(R.I64, 1)), self.array_field(arr, 0))

    def bi_array_insert(self, e: T.Builtin):
        arr = self.receiver(e, "insert")
        et = e.args[0].type.elem
        i = self.expr(e.args[1])
        v = self.expr(e.args[2])
        self.set_site(e.span)
        slot = self.rt("nv_array_insert", arr, i)
        self.b.store(self.to_mem(v, et), self.b.bitcast(slot, self.mem_ty(et).as_pointer()))

    def bi_array_extend(self, e: T.Builtin):
        arr = self.receiver(e, "extend")
        other = self.expr(e.args[1])
        self.nil_check(other, e.span, "extend", e.args[1].type)
        self.rt("nv_array_extend", arr, other)

    def out_slot_call(self, e: T.Builtin, fn: str, *extra) -> ir.Value:
        et = e.args[0].type.elem
        arr = self.receiver(e, e.name.split(".")[1])
        slot = self.alloca(self.mem_ty(et))
        args = [self.expr(a) for a in extra]
        self.set_site(e.span)
        self.rt(fn, arr, *args, self.b.bitcast(slot, R.PTR))
        return self.from_mem(self.b.load(slot), et)

    def bi_array_pop(self, e: T.Builtin):
        return self.out_slot_call(e, "nv_array_pop")

    def bi_array_remove_at(self, e: T.Builtin):
        return self.out_slot_call(e, "nv_array_remove_at", e.args[1])

    def bi_array_reduce(self, e: T.Builtin):
        et = e.type
        arr = self.receiver(e, {0: "sum", 1: "prod", 2: "min", 3: "max"}[e.extra])
        slot = self.alloca(self.mem_ty(et))
        self.set_site(e.span)
        self.rt("nv_array_reduce", arr, ir.Constant(R.I32, e.extra), self.b.bitcast(slot, R.PTR))
        return self.b.load(slot)

    def bi_array_scan(self, e: T.Builtin):
        arr = self.receiver(e, "scan")
        return self.rt("nv_array_scan", arr, ir.Constant(R.I32, e.extra))

    def simple_array(self, e: T.Builtin):
        arr = self.receiver(e, e.name.split(".")[1])
        return self.rt("nv_" + e.name.replace(".", "_"), arr)

    bi_array_clear = bi_array_clone = bi_array_reverse = bi_array_sort = simple_array
    bi_array_shuffle = simple_array

    def bi_zeros(self, e: T.Builtin):
        return self.rt("nv_array_new", self.desc(e.extra), self.expr(e.args[0]))

    def bi_ones(self, e: T.Builtin):
        t = e.extra
        arr = self.rt("nv_array_new", self.desc(t), self.expr(e.args[0]))
        n = self.b.load(self.array_field(arr, 0))
        one = ir.Constant(self.llty(t), 1.0 if is_float(t) else 1)
        if t == Prim("bf16"):
            one = self.rt_trunc_bf16(ir.Constant(R.F32, 1.0))
        idx = self.alloca(R.I64, "ones.i")
        self.b.store(ir.Constant(R.I64, 0), idx)
        self.loop(lambda: self.b.icmp_signed("<", self.b.load(idx), n),
                  lambda: self.b.store(one, self.elem_ptr(arr, self.b.load(idx), t)),
                  lambda: self.b.store(self.b.add(self.b.load(idx), ir.Constant(R.I64, 1)), idx))
        return arr

    def array_index(self, e: T.Builtin) -> ir.Value:
        arr = self.receiver(e, e.name.split(".")[1])
        et = e.args[0].type.elem
        v = self.expr(e.args[1])
        slot = self.spill(self.to_mem(v, et))
        return self.rt("nv_array_index", arr, self.b.bitcast(slot, R.PTR))

    def bi_array_index(self, e: T.Builtin):
        return self.array_index(e)

    def bi_array_contains(self, e: T.Builtin):
        return self.b.icmp_signed(">=", self.array_index(e), ir.Constant(R.I64, 0))

    def bi_array_mapit(self, e: T.Builtin):
        src_t: ArrayT = e.args[0].type
        out_t: ArrayT = e.type
        var: T.Var = e.extra
        arr = self.receiver(e, "mapit")
        n = self.b.load(self.array_field(arr, 0))
        out = self.rt("nv_array_new", self.desc(out_t.elem), n)
        slot = self.alloca(self.llty(var.type), var.name)
        self.fs.vars[var] = slot
        idx = self.alloca(R.I64, "mapit.i")
        self.b.store(ir.Constant(R.I64, 0), idx)

        def cond():
            return self.b.icmp_signed("<", self.b.load(idx), n)

        def body():
            i = self.b.load(idx)
            self.b.store(self.from_mem(self.b.load(self.elem_ptr(arr, i, src_t.elem)), src_t.elem), slot)
            v = self.expr(e.args[1])
            self.b.store(self.to_mem(v, out_t.elem), self.elem_ptr(out, i, out_t.elem))

        def step():
            self.b.store(self.b.add(self.b.load(idx), ir.Constant(R.I64, 1)), idx)

        self.loop(cond, body, step)
        return out
