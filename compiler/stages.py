"""Stage timing shared by the whole-program driver and the unit compiler."""
from __future__ import annotations

import time


def timed(res, stage: str, fn, *args, **kw):
    """`fn(*args, **kw)`, its wall time added to `res.timings[stage]` (kept on failure too)."""
    t0 = time.perf_counter()
    try:
        return fn(*args, **kw)
    finally:
        res.timings[stage] = res.timings.get(stage, 0.0) + time.perf_counter() - t0
