"""frost/mcts (issue 24, part 2): parallel UCT picks a move of perfect-play value on tic-tac-toe and
4x4 connect four, against exhaustive minimax (tests/workloads/minimax.py), at 1 and 2 threads;
bad input to the example is refused with a message."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.frost.helpers import NSM

from .minimax import Game, decisive_positions

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "packages" / "frost" / "examples" / "mcts_play.nv"

# UCT with random playouts finds shallow wins and losses quickly; a forced win 10 plies deep on an
# almost empty 4x4 board needs far more than these budgets, so the 4x4 positions have >= 6 stones.
CASES = [("3x3x3", Game(3, 3, 3, False), 24, 0, 4000),
         ("4x4x4g", Game(4, 4, 4, True), 12, 6, 8000)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("spec,game,count,min_stones,playouts", CASES, ids=[c[0] for c in CASES])
def test_best_move_has_the_minimax_value(tmp_path, spec, game, count, min_stones, playouts, threads):
    positions = [p for p in decisive_positions(game, 5 * count, seed=7) if len(p[0]) >= min_stones][:count]
    assert len(positions) == count
    (tmp_path / "pos.txt").write_text("".join(" ".join(map(str, m)) + "\n" for m, _ in positions))
    p = subprocess.run([NSM, "run", str(EXAMPLE), spec, str(playouts), str(threads),
                        "pos.txt"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = p.stdout.splitlines()
    assert len(out) == count + 1 and out[-1].startswith("playouts/s ")
    for (moves, values), line in zip(positions, out):
        best, value = line.split()
        assert values[int(best)] == max(values.values()), (moves, values, line)
        assert 0.0 <= float(value) <= 1.0


def test_bad_game_is_refused(tmp_path):
    p = subprocess.run([NSM, "run", str(EXAMPLE), "3x3", "10", "1"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2
    assert 'mcts_play: game "3x3" is not WxHxK (for example 3x3x3 or 4x4x4g)' in p.stderr
