/* Helpers shared by the runtime test programs: printing through the runtime's own stdout
 * path, string literals, and Neve frames pushed by hand as compiled code does. */
#include <stdint.h>
#include <string.h>
#include "neve_rt.h"

static inline void say(const char* s) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, s);
    nv_buf_write(&b, 1, 1);
}
static inline NvStr* S(const char* s) { return nv_str_new(s, (int64_t)strlen(s)); }
static inline void show(const void* p, const NvType* t) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_value(&b, p, t);
    nv_buf_write(&b, 1, 1);
}
static inline void show_i(int64_t v) { show(&v, &nv_type_int); }
static inline void show_s(NvStr* s) { show(&s, &nv_type_str); }

#define SITE(line, col) (((int64_t)(line) << 32) | (col))
#define PUSH(var, info, line, col) \
    NvFrame var = {nv_top_frame, &(info), SITE(line, col)}; \
    nv_top_frame = &var
#define POP(var) (nv_top_frame = (var).prev)
