/* saxpy over N floats as a plain C loop (args: N REPS), timed like saxpy.nv. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
    long n = atol(argv[1]), reps = atol(argv[2]);
    float* x = malloc(n * sizeof(float));
    float* y = calloc(n, sizeof(float));
    for (long i = 0; i < n; i++) x[i] = 1.0f;
    for (long r = 0; r < reps; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++) y[i] = 0.5f * x[i] + y[i];
        printf("ms %f\n", (now() - t0) * 1000.0);
    }
    printf("check %f\n", y[n - 1]);
    return 0;
}
