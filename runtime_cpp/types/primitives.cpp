// Descriptors of the primitive types; the compiler emits those of composite types itself.
#include "neve_rt.h"

#define NV_PRIM(var, kind, size, ptrs, name) \
    extern "C" const NvType var = {kind, size, 0, ptrs, nullptr, nullptr, name, nullptr};

NV_PRIM(nv_type_int, NV_INT, 8, 0, "int")
NV_PRIM(nv_type_i8, NV_I8, 1, 0, "i8")
NV_PRIM(nv_type_i16, NV_I16, 2, 0, "i16")
NV_PRIM(nv_type_i32, NV_I32, 4, 0, "i32")
NV_PRIM(nv_type_u8, NV_U8, 1, 0, "u8")
NV_PRIM(nv_type_u16, NV_U16, 2, 0, "u16")
NV_PRIM(nv_type_u32, NV_U32, 4, 0, "u32")
NV_PRIM(nv_type_u64, NV_U64, 8, 0, "u64")
NV_PRIM(nv_type_float, NV_FLOAT, 4, 0, "float")
NV_PRIM(nv_type_f64, NV_F64, 8, 0, "f64")
NV_PRIM(nv_type_bf16, NV_BF16, 2, 0, "bf16")
NV_PRIM(nv_type_half, NV_HALF, 2, 0, "half")
NV_PRIM(nv_type_bool, NV_BOOL, 1, 0, "bool")
NV_PRIM(nv_type_char, NV_CHAR, 1, 0, "char")
NV_PRIM(nv_type_str, NV_STR, 8, 1, "str")   // an NvStr* (a GC pointer)
