"""strconcat: builds an N-character string by `s += c`. Prints its length and a checksum.
Usage: strconcat.py N"""
import sys


def main(n):
    s = ""
    for i in range(n):
        s += chr(97 + i % 26)
    print(len(s), sum(ord(s[i]) for i in range(0, n, 997)))


if __name__ == "__main__":
    main(int(sys.argv[1]))
