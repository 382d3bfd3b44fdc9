"""sieve: sieve of Eratosthenes up to N, one byte per number, with plain loops (the same algorithm as
the C and Neve versions, not slice assignment). Prints the prime count and sum. Usage: sieve.py N"""
import sys


def main(n):
    composite = bytearray(n + 1)
    count = total = 0
    for i in range(2, n + 1):
        if not composite[i]:
            count += 1
            total += i
            for j in range(i * i, n + 1, i):
                composite[j] = 1
    print(count, total)


if __name__ == "__main__":
    main(int(sys.argv[1]))
