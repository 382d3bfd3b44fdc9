"""Did-you-mean hints: the candidate name closest to a misspelt one by edit distance."""
from __future__ import annotations


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def similar(name: str, candidates) -> str | None:
    best, best_d = None, max(1, len(name) // 3) + 1
    for c in candidates:
        if c.startswith("."):
            continue
        d = edit_distance(name, c)
        if d < best_d:
            best, best_d = c, d
    return best
