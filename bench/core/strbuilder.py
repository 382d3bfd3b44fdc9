"""strbuilder: builds the N-character string of strconcat with a list and join. Prints its length
and a checksum. Usage: strbuilder.py N"""
import sys


def main(n):
    parts = []
    for i in range(n):
        parts.append(chr(97 + i % 26))
    s = "".join(parts)
    print(len(s), sum(ord(s[i]) for i in range(0, n, 997)))


if __name__ == "__main__":
    main(int(sys.argv[1]))
