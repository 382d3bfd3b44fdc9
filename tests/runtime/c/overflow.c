/* Unbounded recursion that pushes a Neve frame per call, as compiled code does; the stack
 * overflows and the runtime must report `stack overflow`. "thread" mode does it in a thread
 * created through the collector with its own signal stack. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include "t.h"

static const NvFuncInfo f_main = {"main", "deep.nv"};
static const NvFuncInfo f_rec = {"recurse", "deep.nv"};
static const NvFuncInfo f_thr = {"worker", "deep.nv"};

__attribute__((noinline)) static int64_t recurse(int64_t n) {
    PUSH(f, f_rec, 3, 12);
    volatile char pad[64];
    pad[n % 64] = (char)n;
    int64_t r = recurse(n + 1) + pad[(n + 1) % 64];   /* not a tail call */
    POP(f);
    return r;
}

static void* worker(void* arg) {
    (void)arg;
    nv_sigstack_attach();
    nv_set_thread_origin("in thread tid=2 started at deep.nv:9:5");
    PUSH(f, f_thr, 6, 3);
    recurse(0);
    POP(f);
    return NULL;
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    say("start");
    PUSH(f, f_main, 10, 1);
    if (argc > 1 && !strcmp(argv[1], "thread")) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_join(t, NULL);
    } else {
        recurse(0);
    }
    POP(f);
    return nv_finish();
}
