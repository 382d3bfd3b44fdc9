"""Exhaustive minimax of small m,n,k-games (tic-tac-toe, connect four on 4x4), the reference
for frost/mcts: the game-theoretic value of every child of a position."""
from __future__ import annotations

import functools
import random


class Game:
    """An m,n,k-game on a width x height board, cells r*width + c; gravity: moves are columns."""

    def __init__(self, width: int, height: int, k: int, gravity: bool):
        self.w, self.h, self.k, self.gravity = width, height, k, gravity
        self.value = functools.lru_cache(maxsize=None)(self._value)

    def moves(self, occ: int) -> list[tuple[int, int]]:
        """(move, cell) pairs legal on occupied cells occ."""
        if not self.gravity:
            return [(i, i) for i in range(self.w * self.h) if not occ >> i & 1]
        out = []
        for c in range(self.w):
            for r in range(self.h):
                if not occ >> (r * self.w + c) & 1:
                    out.append((c, r * self.w + c))
                    break
        return out

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

    def _value(self, mine: int, theirs: int) -> int:
        """+1 win, 0 draw, -1 loss for the player to move with perfect play."""
        best = -2
        for _, i in self.moves(mine | theirs):
            s = mine | 1 << i
            v = 1 if self.wins(s, i) else -self.value(theirs, s)
            best = max(best, v)
            if best == 1:
                break
        return 0 if best == -2 else best

    def child_values(self, mine: int, theirs: int) -> dict[int, int]:
        """Each legal move's value for the player to move."""
        out = {}
        for m, i in self.moves(mine | theirs):
            s = mine | 1 << i
            out[m] = 1 if self.wins(s, i) else -self.value(theirs, s)
        return out


def decisive_positions(g: Game, count: int, seed: int) -> list[tuple[list[int], dict[int, int]]]:
    """Random reachable, unfinished positions where some move is worse than the best one: (moves
    from the empty board, child values)."""
    rnd = random.Random(seed)
    out, seen = [], set()
    while len(out) < count:
        mine = theirs = 0
        moves: list[int] = []
        for _ in range(rnd.randrange(0, g.w * g.h - 2)):
            legal = g.moves(mine | theirs)
            m, i = rnd.choice(legal)
            s = mine | 1 << i
            if g.wins(s, i):
                break
            mine, theirs = theirs, s
            moves.append(m)
        if not g.moves(mine | theirs) or tuple(moves) in seen:
            continue
        vals = g.child_values(mine, theirs)
        if len(set(vals.values())) > 1:
            seen.add(tuple(moves))
            out.append((moves, vals))
    return out
