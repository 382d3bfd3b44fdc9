"""The CPython reference of frost/mcts: the same UCT with virtual loss over one tree in lists,
threads from `threading` (the GIL serialises them), one lock for expansion and the counts.
  python mcts.py WxHxK[g] PLAYOUTS THREADS POSITIONS  (prints "best value" per line, then playouts/s)"""
from __future__ import annotations

import math
import sys
import threading
import time

M64 = (1 << 64) - 1


class Game:
    def __init__(self, spec: str):
        self.gravity = spec.endswith("g")
        self.w, self.h, self.k = map(int, spec.rstrip("g").split("x"))
        self.actions = self.w if self.gravity else self.w * self.h
        self.all = (1 << (self.w * self.h)) - 1

    def cell(self, occ: int, m: int) -> int:
        if not self.gravity:
            return -1 if occ >> m & 1 else m
        for r in range(self.h):
            i = r * self.w + m
            if not occ >> i & 1:
                return i
        return -1

    def wins(self, s: int, i: int) -> bool:
        r, c = divmod(i, self.w)
        for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sg in (1, -1):
                rr, cc = r + sg * dr, c + sg * dc
                while 0 <= rr < self.h and 0 <= cc < self.w and s >> (rr * self.w + cc) & 1:
                    n, rr, cc = n + 1, rr + sg * dr, cc + sg * dc
            if n >= self.k:
                return True
        return False


class Rng:
    def __init__(self, seed: int):
        self.x = seed & M64 or 1

    def next(self) -> int:
        x = self.x
        x ^= x >> 12
        x = (x ^ (x << 25)) & M64
        x ^= x >> 27
        self.x = x
        return ((x * 2685821657736338717) & M64) >> 33 & 2147483647


def playout(g: Game, mine: int, theirs: int, rng: Rng) -> int:
    sign = 1
    while True:
        occ = mine | theirs
        if occ == g.all:
            return 1
        free = [i for i in (g.cell(occ, m) for m in range(g.actions)) if i >= 0]
        i = free[rng.next() % len(free)]
        s = mine | 1 << i
        if g.wins(s, i):
            return 2 if sign == 1 else 0
        mine, theirs, sign = theirs, s, -sign


class Tree:
    def __init__(self, g: Game, mine: int, theirs: int):
        self.g, self.lock, self.c, self.vl = g, threading.Lock(), 1.4, 1
        self.first, self.count, self.parent, self.cell = [-1], [0], [-1], [-1]
        self.mine, self.theirs, self.visits, self.wins = [mine], [theirs], [0], [0]

    def terminal(self, n: int) -> bool:
        return self.count[n] == -1 or (self.mine[n] | self.theirs[n]) == self.g.all

    def expand(self, n: int) -> None:
        with self.lock:
            if self.first[n] >= 0:
                return
            occ, start = self.mine[n] | self.theirs[n], len(self.first)
            for m in range(self.g.actions):
                i = self.g.cell(occ, m)
                if i < 0:
                    continue
                s = self.mine[n] | 1 << i
                self.first.append(-1)
                self.count.append(-1 if self.g.wins(s, i) else 0)
                self.parent.append(n)
                self.cell.append(i)
                self.mine.append(self.theirs[n])
                self.theirs.append(s)
                self.visits.append(0)
                self.wins.append(0)
            self.count[n] = len(self.first) - start
            self.first[n] = start

    def select(self, n: int) -> int:
        best, bs, ln = -1, -1.0, math.log(self.visits[n] + 1)
        f = self.first[n]
        for j in range(f, f + self.count[n]):
            v = self.visits[j]
            if v == 0:
                return j
            s = self.wins[j] / (2 * v) + self.c * math.sqrt(ln / v)
            if s > bs:
                best, bs = j, s
        return best

    def iterate(self, rng: Rng) -> None:
        n = 0
        self.visits[0] += self.vl
        while not self.terminal(n):
            if self.first[n] < 0:
                if self.visits[n] - self.vl < 1:
                    break
                self.expand(n)
            n = self.select(n)
            self.visits[n] += self.vl
        r = 1
        if self.count[n] == -1:
            r = 2
        elif (self.mine[n] | self.theirs[n]) != self.g.all:
            r = 2 - playout(self.g, self.mine[n], self.theirs[n], rng)
        while n >= 0:
            self.visits[n] += 1 - self.vl
            self.wins[n] += r
            r, n = 2 - r, self.parent[n]


def main() -> None:
    g = Game(sys.argv[1])
    playouts, threads = int(sys.argv[2]), int(sys.argv[3])
    spent, done = 0.0, 0
    for line in open(sys.argv[4]).read().splitlines():
        mine = theirs = 0
        for w in line.split():
            i = g.cell(mine | theirs, int(w))
            mine, theirs = theirs, mine | 1 << i
        t = Tree(g, mine, theirs)
        t0 = time.perf_counter()

        def work(k: int) -> None:
            rng = Rng(((done + 1) * 1000003 + k) * 2654435761 + 1442695040888963407)
            for _ in range(playouts // threads + (k < playouts % threads)):
                t.iterate(rng)
        ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        spent += time.perf_counter() - t0
        done += playouts
        f = t.first[0]
        b = max(range(f, f + t.count[0]), key=lambda j: t.visits[j]) if f >= 0 else -1
        cell = t.cell[b] if b >= 0 else -1
        move = cell % g.w if g.gravity and cell >= 0 else cell
        print(f"{move} {t.wins[b] / (2 * max(t.visits[b], 1)):.3f}")
    print(f"playouts/s {done / spent:.0f}")


if __name__ == "__main__":
    main()
