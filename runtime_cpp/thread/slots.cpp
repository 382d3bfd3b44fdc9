// Per-thread integer slots (thread_slot_get / thread_slot_set, docs/language.md "Intrinsics"):
// a small fixed table in thread-local storage. Every thread, main included, starts with all
// slots 0; a child does not inherit its parent's values (libraries such as Frost keep per-thread
// modes here, as PyTorch's grad mode is per thread).
#include <cinttypes>
#include "neve_rt.h"
#include "error/panic.h"

namespace {

constexpr int64_t kSlots = 16;

__thread int64_t t_slots[kSlots] __attribute__((tls_model("initial-exec")));

void check_slot(const char* fn, int64_t k) {
    if (k < 0 || k >= kSlots)
        rt_panicf("%s: slot %" PRId64 " out of range [0, %" PRId64 ")", fn, k, kSlots);
}

}  // namespace

extern "C" {

int64_t nv_thread_slot_get(int64_t k) {
    check_slot("thread_slot_get", k);
    return t_slots[k];
}

void nv_thread_slot_set(int64_t k, int64_t v) {
    check_slot("thread_slot_set", k);
    t_slots[k] = v;
}

}  // extern "C"
