/* nbody: the Benchmarks Game five-body simulation (symplectic Euler, dt 0.01), bodies stored as
 * parallel arrays like the Neve version. Prints the energy before and after. Usage: nbody STEPS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 5

static void advance(double *x, double *y, double *z, double *vx, double *vy, double *vz,
                    const double *m, double dt) {
    for (int i = 0; i < NB; i++) {
        for (int j = i + 1; j < NB; j++) {
            double dx = x[i] - x[j];
            double dy = y[i] - y[j];
            double dz = z[i] - z[j];
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            vx[i] -= dx * m[j] * mag;
            vy[i] -= dy * m[j] * mag;
            vz[i] -= dz * m[j] * mag;
            vx[j] += dx * m[i] * mag;
            vy[j] += dy * m[i] * mag;
            vz[j] += dz * m[i] * mag;
        }
    }
    for (int i = 0; i < NB; i++) {
        x[i] += dt * vx[i];
        y[i] += dt * vy[i];
        z[i] += dt * vz[i];
    }
}

static double energy(const double *x, const double *y, const double *z, const double *vx,
                     const double *vy, const double *vz, const double *m) {
    double e = 0.0;
    for (int i = 0; i < NB; i++) {
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        for (int j = i + 1; j < NB; j++) {
            double dx = x[i] - x[j];
            double dy = y[i] - y[j];
            double dz = z[i] - z[j];
            e -= m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 1000;
    double days = 365.24;
    double solar_mass = 4 * 3.141592653589793 * 3.141592653589793;
    /* sun, jupiter, saturn, uranus, neptune */
    double x[NB] = {0.0, 4.84143144246472090, 8.34336671824457987, 12.8943695621391310,
                    15.3796971148509165};
    double y[NB] = {0.0, -1.16032004402742839, 4.12479856412430479, -15.1111514016986312,
                    -25.9193146099879641};
    double z[NB] = {0.0, -0.103622044471123109, -0.403523417114321381, -0.223307578892655734,
                    0.179258772950371181};
    double vx[NB] = {0.0, 1.66007664274403694e-3 * days, -2.76742510726862411e-3 * days,
                     2.96460137564761618e-3 * days, 2.68067772490389322e-3 * days};
    double vy[NB] = {0.0, 7.69901118419740425e-3 * days, 4.99852801234917238e-3 * days,
                     2.37847173959480950e-3 * days, 1.62824170038242295e-3 * days};
    double vz[NB] = {0.0, -6.90460016972063023e-5 * days, 2.30417297573763929e-5 * days,
                     -2.96589568540237556e-5 * days, -9.51592254519715870e-5 * days};
    double m[NB] = {solar_mass, 9.54791938424326609e-4 * solar_mass,
                    2.85885980666130812e-4 * solar_mass, 4.36624404335156298e-5 * solar_mass,
                    5.15138902046611451e-5 * solar_mass};

    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < NB; i++) {
        px += vx[i] * m[i];
        py += vy[i] * m[i];
        pz += vz[i] * m[i];
    }
    vx[0] = -px / solar_mass;
    vy[0] = -py / solar_mass;
    vz[0] = -pz / solar_mass;

    printf("%.9f\n", energy(x, y, z, vx, vy, vz, m));
    for (long s = 0; s < steps; s++)
        advance(x, y, z, vx, vy, vz, m, 0.01);
    printf("%.9f\n", energy(x, y, z, vx, vy, vz, m));
    return 0;
}
