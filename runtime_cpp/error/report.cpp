// Writes a runtime error and its Neve trace (13.2) to stderr and ends the process.
// Used from the SIGSEGV handler too, so it avoids malloc, stdio and unbounded locking: text is
// assembled in a static buffer (only the one reporting thread ever touches it) and written
// with write(2).
#include <atomic>
#include <initializer_list>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/out.h"

namespace {

// Traces longer than this keep kKeep frames at each end (stack overflow makes 100k+ frames).
constexpr int64_t kMaxFrames = 40;
constexpr int64_t kKeep = 20;
// A corrupted frame chain must not hang the report.
constexpr int64_t kWalkLimit = int64_t(1) << 28;

struct ErrOut {
    char buf[4096];
    size_t n = 0;

    void flush() {
        rt_write_all(2, buf, n);
        n = 0;
    }
    void put(const char* s, size_t len) {
        while (len) {
            size_t k = sizeof buf - n < len ? sizeof buf - n : len;
            memcpy(buf + n, s, k);
            n += k;
            s += k;
            len -= k;
            if (n == sizeof buf) flush();
        }
    }
    void put(const char* s) { put(s, strlen(s)); }
    void num(int64_t v) {
        char t[24];
        int k = sizeof t;
        uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        do {
            t[--k] = char('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) t[--k] = '-';
        put(t + k, sizeof t - k);
    }
    // FILE:LINE:COL of a frame's current site
    void loc(const NvFrame* f) {
        put(f->fn && f->fn->file ? rt_shown_path(f->fn->file) : "?");
        if (f->site == 0) return;   // no site recorded yet in this frame: the file alone
        put(":");
        num(f->site >> 32);
        put(":");
        num(f->site & 0xffffffff);
    }
    void frame(const NvFrame* f) {
        if (f->fn == &rt_elided_frames) {
            put("  ... ");
            num(f->site);
            put(" more frames ...\n");
            return;
        }
        put("  at ");
        put(f->fn && f->fn->name ? f->fn->name : "?");
        put(" (");
        loc(f);
        put(")\n");
    }
};

ErrOut g_err;
std::atomic<int> g_dying{0};
char g_cwd[4096];
size_t g_cwd_len = 0;
__thread int t_dying __attribute__((tls_model("initial-exec")));

}  // namespace

const NvFuncInfo rt_elided_frames = {"...", nullptr};

void rt_paths_init() {
    if (getcwd(g_cwd, sizeof g_cwd - 1)) {
        g_cwd_len = strlen(g_cwd);
        if (g_cwd_len > 1) g_cwd[g_cwd_len++] = '/';   // "/" itself already ends in one
        g_cwd[g_cwd_len] = 0;
    }
}

const char* rt_shown_path(const char* path) {
    if (path && g_cwd_len && strncmp(path, g_cwd, g_cwd_len) == 0 && path[g_cwd_len]) {
        return path + g_cwd_len;
    }
    return path;
}

__thread const char* rt_thread_origin __attribute__((tls_model("initial-exec")));

extern "C" void nv_set_thread_origin(const char* line) { rt_thread_origin = line; }

void rt_die_text(const char* text, size_t len) {
    if (t_dying) _exit(1);
    t_dying = 1;
    if (g_dying.exchange(1)) {
        for (;;) pause();
    }
    rt_stdout_flush_for_error(false);
    fflush(nullptr);
    rt_write_all(2, text, len);
    _exit(1);
}

namespace {
[[noreturn]] void die_from(const NvFrame* top, const char* msg, size_t len, bool in_signal);
}  // namespace

void rt_die(const char* msg, size_t len, bool in_signal) {
    die_from(nv_top_frame, msg, len, in_signal);
}

void rt_die_foreign(const char* msg, const NvForeignSite* at, bool in_signal) {
    // the caller's own frame holds the call site; a caller without a frame gets one here
    NvFrame caller = {nv_top_frame, at->caller, at->site};
    const NvFrame* top = nv_top_frame && nv_top_frame->fn == at->caller ? nv_top_frame : &caller;
    char text[512];          // on this thread's (alternate) stack: die_from never returns
    size_t n = 0;
    for (const char* part : {msg, " in foreign function ", at->name ? at->name : "?"}) {
        size_t k = strlen(part);
        if (k > sizeof text - n) k = sizeof text - n;
        memcpy(text + n, part, k);
        n += k;
    }
    die_from(top, text, n, in_signal);
}

namespace {
void die_from(const NvFrame* top, const char* msg, size_t len, bool in_signal) {
    if (t_dying) _exit(1);   // a fault while reporting: stop rather than loop
    t_dying = 1;
    if (g_dying.exchange(1)) {
        // Another thread is already reporting; it ends the process.
        for (;;) pause();
    }
    rt_stdout_flush_for_error(in_signal);
    if (!in_signal) fflush(nullptr);   // output of foreign C code written through stdio

    ErrOut& o = g_err;
    if (top) {
        o.loc(top);
        o.put(": ");
    }
    o.put("runtime error: ");
    o.put(msg, len);
    o.put("\n");

    int64_t n = 0;
    for (const NvFrame* f = top; f && n < kWalkLimit; f = f->prev) n++;
    const NvFrame* f = top;
    int64_t i = 0;
    for (; f && i < n; f = f->prev, i++) {
        if (n > kMaxFrames && i == kKeep) {
            o.put("  ... ");
            o.num(n - 2 * kKeep);
            o.put(" more frames ...\n");
            for (; f && i < n - kKeep; i++) f = f->prev;
            if (!f) break;
        }
        o.frame(f);
    }
    if (rt_thread_origin) {
        o.put(rt_thread_origin);
        o.put("\n");
    }
    o.flush();
    _exit(1);
}
}  // namespace
