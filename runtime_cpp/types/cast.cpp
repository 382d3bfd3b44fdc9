// Objects and dynamic types (3.4 any, 13.2): the failed-cast error. Casts themselves are
// compiled inline: descriptors are unique per type, so `any` holds C is a pointer comparison.
#include "neve_rt.h"
#include "error/panic.h"

extern "C" void nv_panic_cast(const NvType* held, const NvType* want) {
    const char* x = !held ? "nil"
                    : held->kind == NV_FOREIGN ? "foreign pointer"
                    : held->name ? held->name : "?";
    const char* y = want && want->name ? want->name : "?";
    rt_panicf("failed cast: any holds %s, not %s", x, y);
}
