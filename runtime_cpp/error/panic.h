// Internal entry points of the error concern (13.2): everything that stops the program with a
// runtime error ends in rt_die, which prints the message and the Neve trace and exits 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include "neve_rt.h"

// Report `msg` at the innermost frame's site with the trace, flush stdout first, _exit(1).
// in_signal: called from the SIGSEGV handler (no stdio, no waiting on locks indefinitely).
[[noreturn]] void rt_die(const char* msg, size_t len, bool in_signal);
// The same for a fault inside the foreign call `at` (13.2's form at the Neve call site):
// "MSG in foreign function NAME", the caller first in the trace.
[[noreturn]] void rt_die_foreign(const char* msg, const NvForeignSite* at, bool in_signal);
[[noreturn]] void rt_panic(const char* msg);
// A frame with this info stands for `site` frames that kept no NvFrame (reported as
// `... N more frames ...`).
extern const NvFuncInfo rt_elided_frames;
// A complete report of its own (the deadlock report, 9.6): flush stdout, write `text` to stderr
// as it is, _exit(1); like rt_die, only the first reporting thread gets to write.
[[noreturn]] void rt_die_text(const char* text, size_t len);
[[noreturn]] void rt_panicf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Activations on this thread's stack from the caller down to (not including) the frame that
// holds `outer` (an NvFrame, a local of its function; the whole stack when NULL), by unwinding:
// one per machine frame, `levels` per frame of the function starting at `code`.
int64_t rt_frames_below(const void* outer, const void* code = nullptr, int64_t levels = 1);

// SIGSEGV/SIGBUS handlers on an alternate stack (stack overflow detection); called by nv_init.
void rt_signals_init();

// Source paths in the program (function infos, thread origins, launch sites) are absolute, so
// one object serves every build and working directory; reports name them relative to the
// working directory the program started in when they lie under it. rt_paths_init records it
// (nv_init); rt_shown_path returns a pointer into `path` (no allocation: signal-safe).
void rt_paths_init();
const char* rt_shown_path(const char* path);
