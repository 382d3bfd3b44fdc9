/* fake_log.h: the fake GPU libraries' call log, one line per call appended to $FAKE_CUDA_LOG
 * (nothing without it), shared by fake_cuda.c and fake_cublas.c so tests read one file. */
#pragma once
#include <stdio.h>
#include <stdlib.h>

/* fmt takes up to three longs. */
static void fake_log(const char* fmt, long a, long b, long c) {
    const char* p = getenv("FAKE_CUDA_LOG");
    if (!p) return;
    FILE* f = fopen(p, "a");
    fprintf(f, fmt, a, b, c);
    fputc('\n', f);
    fclose(f);
}
