"""nbody: the Benchmarks Game five-body simulation (symplectic Euler, dt 0.01), bodies stored as
parallel lists like the Neve version. Prints the energy before and after. Usage: nbody.py STEPS"""
import math
import sys


def advance(x, y, z, vx, vy, vz, m, dt):
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            d2 = dx * dx + dy * dy + dz * dz
            mag = dt / (d2 * math.sqrt(d2))
            vx[i] -= dx * m[j] * mag
            vy[i] -= dy * m[j] * mag
            vz[i] -= dz * m[j] * mag
            vx[j] += dx * m[i] * mag
            vy[j] += dy * m[i] * mag
            vz[j] += dz * m[i] * mag
    for i in range(n):
        x[i] += dt * vx[i]
        y[i] += dt * vy[i]
        z[i] += dt * vz[i]


def energy(x, y, z, vx, vy, vz, m):
    e = 0.0
    n = len(x)
    for i in range(n):
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i])
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            e -= m[i] * m[j] / math.sqrt(dx * dx + dy * dy + dz * dz)
    return e


def main(steps):
    days = 365.24
    solar_mass = 4 * 3.141592653589793 * 3.141592653589793
    # sun, jupiter, saturn, uranus, neptune
    x = [0.0, 4.84143144246472090, 8.34336671824457987, 12.8943695621391310, 15.3796971148509165]
    y = [0.0, -1.16032004402742839, 4.12479856412430479, -15.1111514016986312, -25.9193146099879641]
    z = [0.0, -0.103622044471123109, -0.403523417114321381, -0.223307578892655734, 0.179258772950371181]
    vx = [0.0, 1.66007664274403694e-3 * days, -2.76742510726862411e-3 * days,
          2.96460137564761618e-3 * days, 2.68067772490389322e-3 * days]
    vy = [0.0, 7.69901118419740425e-3 * days, 4.99852801234917238e-3 * days,
          2.37847173959480950e-3 * days, 1.62824170038242295e-3 * days]
    vz = [0.0, -6.90460016972063023e-5 * days, 2.30417297573763929e-5 * days,
          -2.96589568540237556e-5 * days, -9.51592254519715870e-5 * days]
    m = [solar_mass, 9.54791938424326609e-4 * solar_mass, 2.85885980666130812e-4 * solar_mass,
         4.36624404335156298e-5 * solar_mass, 5.15138902046611451e-5 * solar_mass]

    px = py = pz = 0.0
    for i in range(len(x)):
        px += vx[i] * m[i]
        py += vy[i] * m[i]
        pz += vz[i] * m[i]
    vx[0] = -px / solar_mass
    vy[0] = -py / solar_mass
    vz[0] = -pz / solar_mass

    print(f"{energy(x, y, z, vx, vy, vz, m):.9f}")
    for _ in range(steps):
        advance(x, y, z, vx, vy, vz, m, 0.01)
    print(f"{energy(x, y, z, vx, vy, vz, m):.9f}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
