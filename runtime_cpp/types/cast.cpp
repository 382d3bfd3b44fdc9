// Objects and dynamic types (3.4 any, 7.5, 13.2): the failed-cast errors and the walk up a
// class's base chain. Exact casts are compiled inline: descriptors are unique per type, so
// `any` holds C is a pointer comparison; a subclass is found by walking `base`.
#include "neve_rt.h"
#include "error/panic.h"

extern "C" void nv_panic_cast(const NvType* held, const NvType* want) {
    const char* x = !held ? "nil"
                    : held->kind == NV_FOREIGN ? "foreign pointer"
                    : held->name ? held->name : "?";
    const char* y = want && want->name ? want->name : "?";
    rt_panicf("failed cast: any holds %s, not %s", x, y);
}

extern "C" const NvType* nv_dyn_type(const void* obj) {
    return **static_cast<const NvType* const* const*>(obj);
}

extern "C" int32_t nv_type_extends(const NvType* t, const NvType* want) {
    for (; t; t = t->base)
        if (t == want)
            return 1;
    return 0;
}

extern "C" void nv_panic_class_cast(const NvType* stat, const void* obj, const NvType* want) {
    const char* x = stat && stat->name ? stat->name : "any";
    const NvType* held = nv_dyn_type(obj);
    rt_panicf("failed cast: %s holds %s, not %s", x, held->name ? held->name : "?",
              want && want->name ? want->name : "?");
}
