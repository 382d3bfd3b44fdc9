// Stack overflow detection (13.2, 13.4): SIGSEGV/SIGBUS run a handler on an alternate signal
// stack, since the faulting thread's own stack is exhausted. A fault near the thread's stack
// limit (or next to its stack pointer) is "stack overflow"; any other fault is still reported
// as a runtime error with the trace, never a bare signal death; inside a foreign call (debug
// builds record it: nv_foreign_site), at the Neve call site, naming the C function.
#include <csignal>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "neve_rt.h"
#include "error/panic.h"

extern "C" __thread uintptr_t nv_stack_limit __attribute__((tls_model("initial-exec")));

namespace {

// The report (static buffers, write(2)) needs little; leave room for the frame walk and libc.
constexpr size_t kAltStackSize = 256 * 1024;
// How far below the lowest stack address a fault still counts as overflow: Linux keeps a
// 1 MiB gap below a growing main stack, thread stacks have a guard area of their own.
constexpr uintptr_t kBelowSlack = (1u << 20) + 64 * 1024;
constexpr uintptr_t kNear = 64 * 1024;

// Room left below nv_stack_limit for the runtime functions a Neve frame may still call.
constexpr uintptr_t kLimitMargin = 256 * 1024;

__thread uintptr_t t_stack_lo __attribute__((tls_model("initial-exec")));
__thread void* t_altstack __attribute__((tls_model("initial-exec")));

void record_stack_bounds() {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* addr = nullptr;
    size_t size = 0;
    // addr is the lowest usable address; a thread's guard area lies just below it.
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        t_stack_lo = (uintptr_t)addr;
        if (size > 2 * kLimitMargin) nv_stack_limit = t_stack_lo + kLimitMargin;
    }
    pthread_attr_destroy(&attr);
}

uintptr_t fault_sp(void* uctx) {
    const ucontext_t* uc = (const ucontext_t*)uctx;
    if (!uc) return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    return 0;
#endif
}

bool is_stack_overflow(uintptr_t addr, uintptr_t sp) {
    uintptr_t lo = t_stack_lo;
    if (lo && addr < lo + kNear && addr + kBelowSlack >= lo) return true;
    // A push, call or stack probe faults at or just below the stack pointer.
    if (sp && addr + kNear >= sp && addr <= sp + kNear) return true;
    return false;
}

void on_fault(int sig, siginfo_t* si, void* uctx) {
    uintptr_t addr = (uintptr_t)si->si_addr;
    const char* msg;
    if (is_stack_overflow(addr, fault_sp(uctx)))
        msg = "stack overflow";
    else
        msg = sig == SIGBUS ? "bus error" : "segmentation fault";
    if (const NvForeignSite* at = nv_foreign_site) rt_die_foreign(msg, at, true);
    rt_die(msg, strlen(msg), true);
}

}  // namespace

__thread uintptr_t nv_stack_limit __attribute__((tls_model("initial-exec")));

extern "C" void nv_sigstack_attach(void) {
    if (t_altstack) return;
    void* p = mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) return;   // no alternate stack: overflow then kills by signal
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = p;
    ss.ss_size = kAltStackSize;
    if (sigaltstack(&ss, nullptr) != 0) {
        munmap(p, kAltStackSize);
        return;
    }
    t_altstack = p;
    record_stack_bounds();
}

extern "C" void nv_sigstack_detach(void) {
    if (!t_altstack) return;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    munmap(t_altstack, kAltStackSize);
    t_altstack = nullptr;
}

void rt_signals_init() {
    nv_sigstack_attach();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    // SA_NODEFER: a fault inside the report reaches the handler again, which then exits at
    // once instead of the kernel killing the process with the blocked signal.
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
}
