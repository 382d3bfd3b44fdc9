// Counting machine frames by unwinding (the stack-overflow report of frameless recursion, 13.2):
// recursive functions pass no depth counter, so the report asks the unwinder how deep it is.
#include <cstdint>
#include <unwind.h>
#include "error/panic.h"

namespace {

struct Count {
    uintptr_t outer;
    uintptr_t code;     // a function whose machine frames each run `levels` activations
    int64_t levels;
    int64_t n;
};

_Unwind_Reason_Code count_one(_Unwind_Context* ctx, void* arg) {
    Count* c = (Count*)arg;
    // a frame's CFA lies above its own locals: frames younger than outer's have CFA <= outer
    if (c->outer && _Unwind_GetCFA(ctx) > c->outer) return _URC_END_OF_STACK;
    c->n += c->code && _Unwind_GetRegionStart(ctx) == c->code ? c->levels : 1;
    return _URC_NO_REASON;
}

}  // namespace

int64_t rt_frames_below(const void* outer, const void* code, int64_t levels) {
    Count c{(uintptr_t)outer, (uintptr_t)code, levels, 0};
    _Unwind_Backtrace(count_one, &c);
    return c.n - 1;   // this function's own frame
}
