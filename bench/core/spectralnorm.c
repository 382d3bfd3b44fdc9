/* spectralnorm: the Benchmarks Game spectral norm of the infinite matrix A(i,j) = 1/((i+j)(i+j+1)/2+i+1),
 * by 10 power iterations of A^T A. Prints the norm. Usage: spectralnorm N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double eval_a(long i, long j) {
    long ij = i + j;
    return 1.0 / (double)(ij * (ij + 1) / 2 + i + 1);
}

static void mult_av(const double *v, double *av, long n) {
    for (long i = 0; i < n; i++) {
        double total = 0.0;
        for (long j = 0; j < n; j++)
            total += eval_a(i, j) * v[j];
        av[i] = total;
    }
}

static void mult_atv(const double *v, double *atv, long n) {
    for (long i = 0; i < n; i++) {
        double total = 0.0;
        for (long j = 0; j < n; j++)
            total += eval_a(j, i) * v[j];
        atv[i] = total;
    }
}

static void mult_atav(const double *v, double *out, double *tmp, long n) {
    mult_av(v, tmp, n);
    mult_atv(tmp, out, n);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100;
    double *u = malloc(n * sizeof(double));
    double *v = calloc(n, sizeof(double));
    double *tmp = calloc(n, sizeof(double));
    for (long i = 0; i < n; i++)
        u[i] = 1.0;
    for (int k = 0; k < 10; k++) {
        mult_atav(u, v, tmp, n);
        mult_atav(v, u, tmp, n);
    }
    double vbv = 0.0, vv = 0.0;
    for (long i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%.9f\n", sqrt(vbv / vv));
    free(u);
    free(v);
    free(tmp);
    return 0;
}
