"""spectralnorm: the Benchmarks Game spectral norm of the infinite matrix
A(i,j) = 1/((i+j)(i+j+1)/2+i+1), by 10 power iterations of A^T A. Prints the norm.
Usage: spectralnorm.py N"""
import math
import sys


def eval_a(i, j):
    ij = i + j
    return 1.0 / (ij * (ij + 1) // 2 + i + 1)


def mult_av(v, av, n):
    for i in range(n):
        total = 0.0
        for j in range(n):
            total += eval_a(i, j) * v[j]
        av[i] = total


def mult_atv(v, atv, n):
    for i in range(n):
        total = 0.0
        for j in range(n):
            total += eval_a(j, i) * v[j]
        atv[i] = total


def mult_atav(v, out, tmp, n):
    mult_av(v, tmp, n)
    mult_atv(tmp, out, n)


def main(n):
    u = [1.0] * n
    v = [0.0] * n
    tmp = [0.0] * n
    for _ in range(10):
        mult_atav(u, v, tmp, n)
        mult_atav(v, u, tmp, n)
    vbv = vv = 0.0
    for i in range(n):
        vbv += u[i] * v[i]
        vv += v[i] * v[i]
    print(f"{math.sqrt(vbv / vv):.9f}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
