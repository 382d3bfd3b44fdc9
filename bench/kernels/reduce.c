/* The 12.3 block reduction as plain C loops: per block of 256, load into s, halve `step`
 * while adding s[tx + step] for tx < step, add s[0] to the total (args: N REPS). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
    long n = atol(argv[1]), reps = atol(argv[2]);
    float* x = malloc(n * sizeof(float));
    for (long i = 0; i < n; i++) x[i] = 1.0f;
    float total = 0;
    for (long r = 0; r < reps; r++) {
        double t0 = now();
        long g = (n + 255) / 256;
        for (long b = 0; b < g; b++) {
            float s[256];
            for (long tx = 0; tx < 256; tx++) { long i = b * 256 + tx; s[tx] = i < n ? x[i] : 0.0f; }
            for (long step = 128; step > 0; step /= 2)
                for (long tx = 0; tx < 256; tx++)
                    if (tx < step) s[tx] += s[tx + step];
            total += s[0];
        }
        printf("ms %f\n", (now() - t0) * 1000.0);
    }
    printf("check %f\n", total);
    return 0;
}
