"""Intrinsics of the standard library and of kernels (LANGUAGE.md 12, 14): their names,
signatures and categories. Checking a call to one is compiler/check/call.py's."""
from __future__ import annotations

from .types import ArrayT, ClassT, Type, INT, FLOAT, F64, BOOL, CHAR, STR, VOID, U8, BF16

MATH1 = ("sqrt", "exp", "log", "log2", "sin", "cos", "tanh", "erf", "floor", "ceil", "round")

# name -> (parameter types, defaults (ast-free constants), result, raises)
FIXED: dict[str, tuple[tuple[Type, ...], tuple, Type, bool]] = {
    "flush": ((), (), VOID, False),
    "argv": ((), (), ArrayT(STR), False),
    "getenv": ((STR, STR), (b"",), STR, False),
    "exit": ((INT,), (), VOID, False),
    "start_timer": ((), (), VOID, False),
    "end_timer": ((), (), FLOAT, False),
    "clock": ((), (), F64, False),
    "time": ((), (), F64, False),
    "sleep": ((F64,), (), VOID, False),
    "arange_int": ((INT, INT, INT), (1,), ArrayT(INT), True),
    "arange_float": ((FLOAT, FLOAT, FLOAT), (1.0,), ArrayT(FLOAT), True),
    "to_char": ((INT,), (), CHAR, False),
    "float_to_bf16": ((FLOAT,), (), BF16, False),
    "bf16_to_float": ((BF16,), (), FLOAT, False),
    "seed": ((INT,), (), VOID, False),
    "randint": ((INT, INT), (), INT, True),
    "randu": ((FLOAT, FLOAT), (0.0, 1.0), FLOAT, False),
    "randn": ((FLOAT, FLOAT), (0.0, 1.0), FLOAT, False),
    "thread_slot_get": ((INT,), (), INT, True),
    "thread_slot_set": ((INT, INT), (), VOID, True),
    "read_file": ((STR,), (), STR, True),
    "read_lines": ((STR,), (), ArrayT(STR), True),
    "read_bytes": ((STR,), (), ArrayT(U8), True),
    "write_file": ((STR, STR), (), VOID, True),
    "file_exists": ((STR,), (), BOOL, False),
    "dir_exists": ((STR,), (), BOOL, False),
    "glob": ((STR,), (), ArrayT(STR), False),
    "remove_file": ((STR,), (), VOID, True),
    "rename": ((STR, STR), (), VOID, True),
    "make_dir": ((STR, BOOL), (False,), VOID, True),
    "remove_dir": ((STR,), (), VOID, True),
    "list_dir": ((STR,), (), ArrayT(STR), True),
    "temp_dir": ((), (), STR, True),
    "gpu_available": ((), (), BOOL, False),      # 14.8
    "gpu_sync": ((), (), VOID, True),
    "gpu_stream": ((), (), ClassT("std", "gpu_stream"), True),    # docs/phase2.md
}
# parameter names of the intrinsics that may be called with keyword arguments
FIXED_PARAM_NAMES = {"make_dir": ("path", "parents"), "getenv": ("name", "default"),
                     "randu": ("lo", "hi"), "randn": ("mean", "std")}
GENERIC_BUILTINS = ("zeros", "ones", "isa")
MAP_METHODS = ("size", "has", "get", "remove", "keys", "values", "clear", "print")
FILE_METHODS = {"opened": ((), BOOL), "readline": ((), STR), "read": ((), STR),
                "eof": ((), BOOL), "read_all": ((), STR), "write": ((STR,), VOID),
                "close": ((), VOID)}
FILE_T = ClassT("std", "File")
SB_T = ClassT("std", "StrBuilder")      # 14.5
STREAM_T = ClassT("std", "gpu_stream")  # a launch stream (docs/phase2.md)
BUILTIN_NAMES = set(FIXED) | {"print", "printl", "eprint", "len", "min", "max", "abs", "pow",
                              "isnan", "isinf", "to_int", "to_float", "to_f64", "assert",
                              "pi", "inf", "nan", "sorted"} | set(MATH1)

# methods of built-in types
ARRAY_METHODS = ("size", "append", "extend", "insert", "pop", "remove_at", "clear", "clone",
                 "contains", "index", "reverse", "sort", "sum", "prod", "min", "max", "print",
                 "shuffle")
STR_METHODS = ("size", "split", "strip", "lstrip", "rstrip", "startswith", "endswith", "find",
               "contains", "count", "replace", "lower", "upper", "join", "print")
CHANNEL_METHODS = ("send", "close", "terminate", "alive", "size", "sum", "print")

# kernel intrinsics (12.2) and the host side of GPU buffers (14.8)
KERNEL_ONLY = ("syncthreads", "shfl_xor", "shfl_sync", "shfl_down", "shared")
HOST_ONLY = ("buffer", "device_buffer", "copy", "to_buffer", "to_device", "to_array")
PHASE2_INTRINSICS = ("cp_async16", "cp_commit_group", "cp_wait_group", "ldmatrix_x4",
                     "ldmatrix_x2", "mma_16x8x16")
KERNEL_CALLS = set(KERNEL_ONLY) | set(HOST_ONLY) | {"atomic_add", "size_of"}
# math kernel code may call (12.2): the CPU target inlines it, the GPU target uses libdevice
KERNEL_MATH = {"sqrt", "exp", "log", "tanh", "erf", "floor", "ceil", "pow", "min", "max", "abs",
               "isnan", "isinf"}
