"""LLVM declarations of the runtime's C ABI (runtime_cpp/include/neve_rt.h)."""
from __future__ import annotations

from llvmlite import ir

I1, I8, I16, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
F32, F64 = ir.FloatType(), ir.DoubleType()
HALF = ir.HalfType()
PTR = I8.as_pointer()
VOID = ir.VoidType()

# NvType {i32 kind, i32 size, i32 count, i32 has_ptrs, ptr elems, ptr offsets, ptr name,
#         ptr to_str, ptr base}
NVTYPE = ir.LiteralStructType([I32, I32, I32, I32, PTR, PTR, PTR, PTR, PTR])
# NvArray {i64 len, i64 cap, ptr data, ptr elem}
NVARRAY = ir.LiteralStructType([I64, I64, PTR, PTR])
# NvStr {i64 len, ptr data, i64 hash (0 until computed; literals carry theirs: str_hash.py)}
NVSTR = ir.LiteralStructType([I64, PTR, I64])
# NvFrame {ptr prev, ptr fn, i64 site}
NVFRAME = ir.LiteralStructType([PTR, PTR, I64])
NVFUNCINFO = ir.LiteralStructType([PTR, PTR])
NVFOREIGNSITE = ir.LiteralStructType([PTR, PTR, I64])    # name, caller's NvFuncInfo, site
# T[] in host code: {element address, owning storage object or NULL} (LANGUAGE.md 3.4)
BUFFER = ir.LiteralStructType([PTR, PTR])
# any: {value, dynamic type descriptor} (NvAny)
ANY = ir.LiteralStructType([PTR, PTR])
BUF_SIZE = 256

KIND = {"int": 1, "i8": 2, "i16": 3, "i32": 4, "u8": 5, "float": 6, "f64": 7, "bf16": 8,
        "half": 9, "bool": 10, "char": 11, "str": 12, "array": 13, "tuple": 14, "fixed": 15,
        "map": 16, "class": 17, "channel": 18, "function": 19, "buffer": 20, "any": 21,
        "foreign": 22, "foreign_ref": 23, "u16": 24, "u32": 25, "u64": 26}

NORETURN = {"nv_panic", "nv_panic_str", "nv_panic_index", "nv_panic_divzero",
            "nv_panic_nil_call", "nv_assert_fail", "nv_exit", "nv_panic_stack",
            "nv_panic_cast", "nv_global_cycle", "nv_panic_class_cast"}

SIGNATURES: dict[str, tuple] = {
    "nv_panic": (VOID, [PTR]),
    "nv_panic_str": (VOID, [PTR]),
    "nv_panic_index": (VOID, [I64, I64, I32]),
    "nv_panic_divzero": (VOID, [I32]),
    "nv_panic_nil_call": (VOID, [PTR, PTR]),
    "nv_assert_fail": (VOID, [PTR]),
    "nv_panic_stack": (VOID, [PTR, I64, I32, PTR, I32]),
    "nv_init": (VOID, [I32, PTR.as_pointer()]),
    "nv_finish": (I32, []),
    "nv_exit": (VOID, [I64]),
    "nv_flush": (VOID, []),
    "nv_argv": (PTR, []),
    "nv_getenv": (PTR, [PTR, PTR]),
    "nv_alloc": (PTR, [I64]),
    "nv_alloc_atomic": (PTR, [I64]),
    "nv_gc_alloc_slow": (PTR, [I64]),
    "nv_buf_init": (VOID, [PTR]),
    "nv_fmt_i64": (VOID, [PTR, I64]),
    "nv_fmt_u64": (VOID, [PTR, I64]),
    "nv_fmt_f32": (VOID, [PTR, F32]),
    "nv_fmt_f64": (VOID, [PTR, F64]),
    "nv_fmt_bool": (VOID, [PTR, I32]),
    "nv_fmt_bf16": (VOID, [PTR, I32]),
    "nv_fmt_half": (VOID, [PTR, I32]),
    "nv_fmt_char": (VOID, [PTR, I32]),
    "nv_fmt_str": (VOID, [PTR, PTR]),
    "nv_fmt_cstr": (VOID, [PTR, PTR]),
    "nv_fmt_value": (VOID, [PTR, PTR, PTR]),
    "nv_buf_write": (VOID, [PTR, I32, I32]),
    "nv_buf_to_str": (PTR, [PTR]),
    "nv_str_new": (PTR, [PTR, I64]),
    "nv_str_concat": (PTR, [PTR, PTR]),
    "nv_str_eq": (I32, [PTR, PTR]),
    "nv_str_cmp": (I32, [PTR, PTR]),
    "nv_str_at": (I32, [PTR, I64]),
    "nv_str_slice": (PTR, [PTR, I64, I64]),
    "nv_str_split": (PTR, [PTR, PTR]),
    "nv_str_split_ws": (PTR, [PTR]),
    "nv_str_strip": (PTR, [PTR]),
    "nv_str_lstrip": (PTR, [PTR]),
    "nv_str_rstrip": (PTR, [PTR]),
    "nv_str_startswith": (I32, [PTR, PTR]),
    "nv_str_endswith": (I32, [PTR, PTR]),
    "nv_str_find": (I64, [PTR, PTR, I64]),
    "nv_str_count": (I64, [PTR, PTR]),
    "nv_str_replace": (PTR, [PTR, PTR, PTR]),
    "nv_str_lower": (PTR, [PTR]),
    "nv_str_upper": (PTR, [PTR]),
    "nv_str_repeat": (PTR, [PTR, I64]),
    "nv_remove_file": (VOID, [PTR]),
    "nv_rename": (VOID, [PTR, PTR]),
    "nv_make_dir": (VOID, [PTR, I32]),
    "nv_remove_dir": (VOID, [PTR]),
    "nv_list_dir": (PTR, [PTR]),
    "nv_temp_dir": (PTR, []),
    "nv_sb_new": (PTR, []),
    "nv_sb_add": (VOID, [PTR, PTR]),
    "nv_sb_size": (I64, [PTR]),
    "nv_sb_str": (PTR, [PTR]),
    "nv_sb_clear": (VOID, [PTR]),
    "nv_str_join": (PTR, [PTR, PTR]),
    "nv_to_int": (I64, [PTR]),
    "nv_to_float": (F32, [PTR]),
    "nv_to_f64": (F64, [PTR]),
    "nv_array_new": (PTR, [PTR, I64]),
    "nv_array_push": (PTR, [PTR]),
    "nv_array_grow": (VOID, [PTR]),
    "nv_array_insert": (PTR, [PTR, I64]),
    "nv_array_extend": (VOID, [PTR, PTR]),
    "nv_array_pop": (VOID, [PTR, PTR]),
    "nv_array_remove_at": (VOID, [PTR, I64, PTR]),
    "nv_array_clear": (VOID, [PTR]),
    "nv_array_clone": (PTR, [PTR]),
    "nv_array_slice": (PTR, [PTR, I64, I64]),
    "nv_array_index": (I64, [PTR, PTR]),
    "nv_array_reverse": (VOID, [PTR]),
    "nv_array_sort": (VOID, [PTR]),
    "nv_array_sort_key": (VOID, [PTR, PTR, PTR, PTR, I32]),
    "nv_array_sort_less": (VOID, [PTR, PTR, PTR, I32]),
    "nv_array_reduce": (VOID, [PTR, I32, PTR]),
    "nv_array_scan": (PTR, [PTR, I32]),
    "nv_value_eq": (I32, [PTR, PTR, PTR]),
    "nv_arange_int": (PTR, [I64, I64, I64]),
    "nv_arange_float": (PTR, [F32, F32, F32]),
    "nv_fill_int": (PTR, [I64, I64]),
    "nv_fill_float": (PTR, [I64, F32]),
    "nv_pow_i64": (I64, [I64, I64]),
    "nv_bf16_to_f32": (F32, [I32]),
    "nv_f32_to_bf16": (I32, [F32]),
    "nv_start_timer": (VOID, []),
    "nv_end_timer": (F32, []),
    "nv_clock": (F64, []),
    "nv_time": (F64, []),
    "nv_sleep": (VOID, [F64]),
    "nv_array_shuffle": (VOID, [PTR]),
    "nv_map_new": (PTR, [PTR, PTR]),
    "nv_map_find": (PTR, [PTR, PTR]),
    "nv_map_get": (PTR, [PTR, PTR]),
    "nv_map_slot": (PTR, [PTR, PTR]),
    "nv_map_upsert": (PTR, [PTR, PTR, PTR]),
    "nv_map_remove": (I32, [PTR, PTR]),
    "nv_map_size": (I64, [PTR]),
    "nv_map_keys": (PTR, [PTR]),
    "nv_map_values": (PTR, [PTR]),
    "nv_map_clear": (VOID, [PTR]),
    "nv_map_mod": (I64, [PTR]),
    "nv_map_next": (I64, [PTR, I64, I64, PTR]),
    "nv_fmt_int_spec": (VOID, [PTR, I64, I32, I32, I32, I32, I32]),
    "nv_fmt_float_spec": (VOID, [PTR, F64, I32, I32, I32, I32, I32]),
    "nv_fmt_pad": (VOID, [PTR, I64, I32, I32]),
    "nv_buf_len": (I64, [PTR]),
    "nv_fmt_pad_num": (VOID, [PTR, I64, I32, I32, I32]),
    "nv_seed": (VOID, [I64]),
    "nv_randint": (I64, [I64, I64]),
    "nv_randu": (F32, [F32, F32]),
    "nv_randn": (F32, [F32, F32]),
    "nv_randint_array": (PTR, [I64, I64, I64]),
    "nv_thread_slot_get": (I64, [I64]),
    "nv_thread_slot_set": (VOID, [I64, I64]),
    "nv_randfloat_array": (PTR, [I64, F32, F32]),
    "nv_file_open": (PTR, [PTR, PTR]),
    "nv_file_readline": (PTR, [PTR]),
    "nv_file_eof": (I32, [PTR]),
    "nv_file_read_all": (PTR, [PTR]),
    "nv_file_write": (VOID, [PTR, PTR]),
    "nv_file_close": (VOID, [PTR]),
    "nv_read_file": (PTR, [PTR]),
    "nv_read_lines": (PTR, [PTR]),
    "nv_read_bytes": (PTR, [PTR]),
    "nv_write_file": (VOID, [PTR, PTR]),
    "nv_file_exists": (I32, [PTR]),
    "nv_dir_exists": (I32, [PTR]),
    "nv_glob": (PTR, [PTR]),
    "nv_panic_cast": (VOID, [PTR, PTR]),
    "nv_panic_class_cast": (VOID, [PTR, PTR, PTR]),
    "nv_type_extends": (I32, [PTR, PTR]),
    "nv_global_push": (VOID, [PTR]),
    "nv_global_pop": (VOID, []),
    "nv_global_cycle": (VOID, [PTR]),
    "nv_gc_root": (VOID, [PTR]),
    "nv_thw": (I64, []),
    "nv_finish_begin": (VOID, [PTR]),
    "nv_finish_end": (VOID, [PTR]),
    "nv_spawn": (VOID, [PTR, PTR, I64, I64, I32, PTR, PTR]),
    "nv_check_thread_count": (VOID, [I64]),
    "nv_split_chunk_elem": (PTR, [PTR, I64, I64, I32, PTR]),
    "nv_lock_name": (VOID, [PTR]),
    "nv_unlock_name": (VOID, [PTR]),
    "nv_lock_obj": (VOID, [PTR]),
    "nv_unlock_obj": (VOID, [PTR]),
    "nv_chan_new": (PTR, [PTR, I64]),
    "nv_chan_send": (VOID, [PTR, PTR]),
    "nv_chan_try_send": (I32, [PTR, PTR]),
    "nv_chan_recv": (I32, [PTR, PTR]),
    "nv_chan_close": (VOID, [PTR]),
    "nv_chan_alive": (I32, [PTR]),
    "nv_chan_size": (I64, [PTR]),
    "nv_chan_sum": (VOID, [PTR, PTR]),
    # foreign calls (11.3)
    "nv_str_cstr": (PTR, [PTR]),
    "nv_str_from_cstr": (PTR, [PTR]),
    "nv_foreign_wrap": (PTR, [PTR, PTR]),
    "nv_cstruct_new": (PTR, [I64]),
    "nv_any_to_c": (PTR, [PTR, PTR]),
    "nv_foreign_enter": (VOID, []),
    "nv_any_to_foreign": (PTR, [PTR, PTR]),
    # kernels and buffers (12.3, 14.8)
    "nv_launch": (VOID, [PTR, PTR, PTR, PTR, I64, PTR]),
    "nv_buffer_new": (PTR, [I64, I64, I32]),
    "nv_buffer_from_array": (PTR, [PTR, PTR, I32]),
    "nv_buffer_to_array": (PTR, [PTR, I64, PTR]),
    "nv_buffer_copy": (VOID, [PTR, PTR, I64, I64]),
    "nv_gpu_available": (I32, []),
    "nv_gpu_sync": (VOID, []),
    "nv_launch_on": (VOID, [PTR, PTR, PTR, PTR, I64, PTR, PTR]),
    "nv_gpu_stream": (PTR, []),
    "nv_gpu_stream_sync": (VOID, [PTR]),
    # warp intrinsics on the CPU back end (runtime_cpp/kernel/warp.h, docs/phase2.md)
    "nv_warp_ldmatrix": (VOID, [I64, PTR, PTR]),
    "nv_warp_mma_16x8x16": (VOID, [I64, PTR, PTR, PTR, PTR]),
    "nv_cp_async16": (VOID, [PTR, PTR]),
    # C library
    "fmodf": (F32, [F32, F32]),
    "fmod": (F64, [F64, F64]),
    "powf": (F32, [F32, F32]),
    "pow": (F64, [F64, F64]),
    "expf": (F32, [F32]), "exp": (F64, [F64]),
    "logf": (F32, [F32]), "log": (F64, [F64]),
    "log2f": (F32, [F32]), "log2": (F64, [F64]),
    "sinf": (F32, [F32]), "sin": (F64, [F64]),
    "cosf": (F32, [F32]), "cos": (F64, [F64]),
    "tanhf": (F32, [F32]), "tanh": (F64, [F64]),
    "erff": (F32, [F32]), "erf": (F64, [F64]),
}


def declare(module: ir.Module, name: str) -> ir.Function:
    """The module's declaration of runtime function `name` (created on first use)."""
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    ret, args = SIGNATURES[name]
    fn = ir.Function(module, ir.FunctionType(ret, args), name=name)
    if name in NORETURN:
        fn.attributes.add("noreturn")
        fn.attributes.add("cold")
    return fn


def trace_path(shown: str) -> str:
    """The file name a program carries for its traces (13.2): the real absolute path, so an
    object does not depend on the working directory it was compiled in; the runtime shows it
    relative to the program's working directory (rt_shown_path)."""
    import os
    return os.path.realpath(shown) if shown and not shown.startswith("<") else shown
