"""gcloop: N iterations that each build a string and a 16-element list, grow the list by one, read
them and drop them. Prints a checksum. Usage: gcloop.py N"""
import sys


def main(n):
    total = 0
    for i in range(n):
        s = "item " + str(i)
        a = [0] * 16
        a[i % 16] = i
        a.append(len(s))
        total += a[i % 16] + a[16] + len(a)
    print(total)


if __name__ == "__main__":
    main(int(sys.argv[1]))
