/* Four threads print long lines built from several pieces; no line may be torn or mixed. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include "t.h"

enum { THREADS = 4, LINES = 3000 };

static void* worker(void* arg) {
    int64_t id = (int64_t)(intptr_t)arg;
    nv_sigstack_attach();
    for (int64_t i = 0; i < LINES; i++) {
        NvBuf b;
        nv_buf_init(&b);
        nv_fmt_cstr(&b, "thread ");
        nv_fmt_i64(&b, id);
        nv_fmt_cstr(&b, " line ");
        nv_fmt_i64(&b, i);
        nv_fmt_char(&b, ' ');
        for (int k = 0; k < 20 + (int)(i % 13); k++) nv_fmt_char(&b, (int32_t)('a' + id));
        nv_fmt_cstr(&b, " end");
        nv_buf_write(&b, 1, 1);
    }
    nv_sigstack_detach();
    return NULL;
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    pthread_t t[THREADS];
    for (int64_t i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    return nv_finish();
}
