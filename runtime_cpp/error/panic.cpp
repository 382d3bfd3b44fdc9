// The ABI's panic functions (13.2): each builds its message and hands it to rt_die.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include "neve_rt.h"
#include "error/panic.h"

void rt_panic(const char* msg) { rt_die(msg, strlen(msg), false); }

void rt_panicf(const char* fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof small) {
        va_end(ap2);
        rt_die(small, (size_t)n, false);
    }
    std::string big((size_t)n + 1, '\0');
    vsnprintf(&big[0], big.size(), fmt, ap2);
    va_end(ap2);
    rt_die(big.data(), (size_t)n, false);
}

extern "C" {

void nv_panic(const char* msg) { rt_panic(msg ? msg : ""); }

void nv_panic_str(const NvStr* msg) {
    if (!msg) rt_die("", 0, false);
    rt_die(msg->data, (size_t)msg->len, false);
}

void nv_panic_index(int64_t idx, int64_t len, int32_t what) {
    static const char* const names[] = {"array", "str", "fixed array"};
    const char* w = what >= 0 && what < 3 ? names[what] : "array";
    rt_panicf("index %" PRId64 " out of range for %s of length %" PRId64, idx, w, len);
}

void nv_panic_divzero(int32_t modulo) {
    rt_panic(modulo ? "integer modulo by zero" : "integer division by zero");
}

void nv_panic_nil_call(const char* method, const char* type) {
    rt_panicf("called %s() on nil %s", method ? method : "?", type ? type : "?");
}

void nv_assert_fail(const NvStr* msg) {
    if (!msg || msg->len == 0) rt_panic("assertion failed");
    std::string m = "assertion failed: ";
    m.append(msg->data, (size_t)msg->len);
    rt_die(m.data(), m.size(), false);
}

}  // extern "C"

// A recursive function found its stack pointer below the thread's limit (its entry probe):
// report a stack overflow located in `fn`. A function with a frame has pushed it, with no site
// yet; one without has none, nor have the activations of its recursion below it, which are
// counted by unwinding (13.2: say how many frames a trace omits), `levels` in each machine frame
// of fn's code (its unrolled recursion; the probe is at the outermost level, so fn's own frame
// holds one).
void nv_panic_stack(const NvFuncInfo* fn, int64_t site, int32_t has_frame, const void* code,
                    int32_t levels) {
    if (has_frame && nv_top_frame && nv_top_frame->fn == fn) {
        nv_top_frame->site = site;
        rt_panic("stack overflow");
    }
    // the activations younger than the frame holding nv_top_frame, less this frame and fn's
    int64_t below = rt_frames_below(nv_top_frame, code, levels) - 1 - levels;
    NvFrame elided{nv_top_frame, &rt_elided_frames, below};
    NvFrame f{below > 0 ? &elided : nv_top_frame, fn, site};
    nv_top_frame = &f;
    rt_panic("stack overflow");
}
