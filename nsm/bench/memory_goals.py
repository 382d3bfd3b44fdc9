"""Issue 23's training-memory goals as PASS/FAIL rows: ResNet peak RSS at most 1.1x PyTorch's;
the MNIST CNN's peak RSS within 10% across repeated Frost runs and at most PyTorch's."""
from __future__ import annotations

import statistics

RESNET_MAX_RATIO = 1.1
MNIST_MAX_SPREAD = 0.10


def _row(goal: str, measured: str, ok: bool | None) -> dict:
    return {"goal": goal, "measured": measured, "pass": ok}


def resnet(systems: dict) -> list[dict]:
    """From report.build's per-system summaries (peak_rss_mb)."""
    goal = f"peak RSS <= {RESNET_MAX_RATIO}x PyTorch's"
    if "frost" not in systems or "torch" not in systems:
        return [_row(goal, "not measured (needs --compare torch)", None)]
    f = systems["frost"]["summary"]["peak_rss_mb"]
    t = systems["torch"]["summary"]["peak_rss_mb"]
    return [_row(goal, f"{f:.0f} MB vs {t:.0f} MB ({f / t:.2f}x)", f <= RESNET_MAX_RATIO * t)]


def mnist(res: dict) -> list[dict]:
    """From bench mnist's results of one model: frost runs_peak_rss_bytes, torch peak_rss_bytes."""
    runs = [b / 2**20 for b in res["frost"]["runs_peak_rss_bytes"]]
    rows = []
    goal = f"peak RSS within {MNIST_MAX_SPREAD:.0%} across runs"
    if len(runs) < 2:
        rows.append(_row(goal, "not measured (needs --runs 2 or more)", None))
    else:
        spread = max(runs) / min(runs) - 1
        rows.append(_row(goal, f"{', '.join(f'{r:.0f}' for r in runs)} MB (spread {spread:.1%})",
                         spread <= MNIST_MAX_SPREAD))
    goal = "peak RSS <= PyTorch's"
    if "torch" not in res:
        rows.append(_row(goal, "not measured (needs --compare torch)", None))
    else:
        f, t = statistics.median(runs), res["torch"]["peak_rss_bytes"] / 2**20
        rows.append(_row(goal, f"{f:.0f} MB (median) vs {t:.0f} MB ({f / t:.2f}x)", f <= t))
    return rows


def text(row: dict, what: str) -> str:
    """One printed line: `memory goal (WHAT) GOAL: MEASURED  PASS|FAIL|-`."""
    verdict = "-" if row["pass"] is None else ("PASS" if row["pass"] else "FAIL")
    return f"memory goal ({what}) {row['goal']}: {row['measured']}  {verdict}"
