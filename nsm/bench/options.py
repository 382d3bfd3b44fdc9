"""Checks of `nsm bench` options shared by the benchmarks: counts in range, a usable out folder."""
from __future__ import annotations

from pathlib import Path

from ..errors import NsmError


def at_least(low: int, **opts: int) -> None:
    """A located error for the first option below `low`: at_least(1, epochs=0) is
    `--epochs must be at least 1, got 0`."""
    for name, value in opts.items():
        if value < low:
            raise NsmError(f"--{name.replace('_', '-')} must be at least {low}, got {value}")


def out_folder(out: str) -> Path:
    """The benchmark's --out folder, made if missing; an error (not a traceback) when it cannot be."""
    path = Path(out).resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise NsmError(f"cannot create the output folder {path}: {e.strerror}",
                       "give --out a folder that can be written") from None
    if not path.is_dir():
        raise NsmError(f"the output folder {path} is not a folder", "give --out a folder")
    return path
