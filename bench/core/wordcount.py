"""wordcount: counts N words from a fixed seeded generator in a dict. The generator is a 64-bit LCG
whose top 31 bits give two draws a, b per word; the word is "w" + str(a % (1 + b % 100000)), so small
numbers are frequent (a skewed vocabulary of about 10^5 words). Prints the number of distinct words,
the largest count and a digest that does not depend on iteration order. Usage: wordcount.py N"""
import sys

MASK = (1 << 64) - 1


def main(n):
    counts = {}
    x = 20240607
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & MASK
        a = x >> 33
        x = (x * 6364136223846793005 + 1442695040888963407) & MASK
        b = x >> 33
        w = "w" + str(a % (1 + b % 100000))
        counts[w] = counts.get(w, 0) + 1
    most = 0
    digest = 0
    for w, c in counts.items():
        most = max(most, c)
        h = 0
        for ch in w.encode():
            h = (h * 31 + ch) % 1000000007
        digest = (digest + c * h) % 1000000007
    print(f"{len(counts)} distinct, max count {most}, digest {digest}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
