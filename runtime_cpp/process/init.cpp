// Program start and end (14.1): the generated C `main` calls nv_init first and returns
// nv_finish(); exit() ends at once through nv_exit.
#include <cstdio>
#include <unistd.h>
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/out.h"
#include "gc/alloc.h"
#include "process/process.h"
#include "thread/sync.h"

extern "C" void nv_init(int argc, char** argv) {
    static bool done = false;
    if (done) return;
    done = true;
    rt_time_init();
    rt_paths_init();
    rt_gc_init();
    rt_stdout_init();
    rt_argv_init(argc, argv);
    // After GC_INIT: the collector briefly installs its own SIGSEGV handler while probing
    // memory during initialization.
    rt_signals_init();
    // main is user thread 0 and runs inside an implicit finish (9.1)
    rt_threads_init();
}

extern "C" int nv_finish(void) {
    rt_threads_main_wait();   // threads started by main (not detached ones) end first
    nv_flush();
    rt_gc_report();
    fflush(nullptr);
    return 0;
}

extern "C" void nv_exit(int64_t code) {
    nv_flush();
    rt_gc_report();
    fflush(nullptr);
    // _exit, not exit: other threads keep running and must not see static destructors.
    _exit((int)code);
}
