"""Benchmark reports: per-system statistics over the measured steps (warm-up excluded), the
environment (versions, CPU, threads, commit, command line), the throughput goals with PASS/FAIL,
Frost's per-op profile, report.json, plot.png (matplotlib: loss per step and images/s per
system) and the rich table printed at the end."""
from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from ..files import write_atomic
from . import memory_goals

ROOT = Path(__file__).parents[2]

# Issue 23's throughput goals for ResNet-18 training (batch 32 and 128 on 2 threads): Frost's
# images/s, and Frost over PyTorch when --compare torch ran.
GOALS = {"resnet18": {"batches": (32, 128), "threads": 2, "images_per_s": 40.0, "ratio": 1.6}}
PROFILE_ROWS = 15


def gpu_info() -> dict:
    """Whether a CUDA GPU is visible, and what that means for Frost here."""
    name = ""
    if shutil.which("nvidia-smi"):
        try:
            p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20)
            name = p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else ""
        except (OSError, subprocess.SubprocessError):
            name = ""
    if not name:
        return {"cuda_gpu": None, "frost_device": "cpu",
                "note": "no CUDA GPU found: Frost and PyTorch run on the CPU"}
    return {"cuda_gpu": name, "frost_device": "cpu",
            "note": f"CUDA GPU {name} present, but Frost tensors have no CUDA device yet "
                    "(element-wise kernels run as plain loops when a GPU is present): Frost "
                    "ran on the CPU"}


def _git(*args: str) -> str:
    try:
        p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
        return p.stdout.strip() if p.returncode == 0 else ""
    except OSError:
        return ""


def environment(threads: int) -> dict:
    """Versions, CPU, threads, commit and command line of this run."""
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {"python": platform.python_version()}
    for mod in ("torch", "numpy", "llvmlite", "matplotlib"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - absent or broken: recorded as missing
            versions[mod] = None
    from importlib.metadata import PackageNotFoundError, version
    for dist in ("neve", "onednn-cpu-gomp", "scipy-openblas32"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = None
    return {"cpu": cpu, "logical_cpus": os.cpu_count(), "threads": threads,
            "platform": platform.platform(), "versions": versions,
            "git_commit": _git("rev-parse", "HEAD"),
            "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
            "command_line": " ".join(["nsm", *sys.argv[1:]]) if sys.argv else "",
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summarize(r: dict, batch: int) -> dict:
    """Statistics of one system's run over the steps after warm-up."""
    w = r.get("warmup", 0)
    steps = r["step_s"][w:] or r["step_s"]
    waits = r["data_wait_s"][w:] or r["data_wait_s"]
    med = statistics.median(steps)
    total = sum(steps)
    s = {"measured_steps": len(steps), "median_step_s": med,
         "p10_step_s": _pct(steps, 0.1), "p90_step_s": _pct(steps, 0.9),
         "min_step_s": min(steps), "max_step_s": max(steps),
         "stdev_step_s": statistics.stdev(steps) if len(steps) > 1 else 0.0,
         "images_per_s": batch / med, "images_per_s_mean": batch * len(steps) / total,
         "median_data_wait_s": statistics.median(waits),
         "data_wait_fraction": sum(waits) / total if total else 0.0,
         "median_transform_s": statistics.median(r["transform_s"][w:] or r["transform_s"]),
         "median_cpu_step_s": (statistics.median(r["step_cpu_s"][w:] or r["step_cpu_s"])
                               if r.get("step_cpu_s") else None),
         "peak_rss_mb": r["peak_rss_bytes"] / 2**20, "final_loss": r["loss"][-1],
         "accuracy": r["accuracy"][-1] if r.get("accuracy") else None}
    return s


def build(o, cfg: dict, files, results: dict, gpu: dict, per_epoch: int) -> dict:
    """The report: options, data, environment, per-system raw series and statistics, ratio."""
    rep = {"benchmark": o.model, "options": asdict(o), "config": cfg,
           "data": {"synthetic": files.synthetic, "description": files.description,
                    "batches_per_epoch": per_epoch},
           "device": gpu, "environment": environment(o.threads), "systems": {}}
    for name, r in results.items():
        # global images per step: rank 0 times the steps of an N-rank run (scaling.py)
        rep["systems"][name] = {"summary": summarize(r, o.batch * r.get("ranks", 1)), "raw": r}
    rep["memory_goals"] = memory_goals.resnet(rep["systems"])
    if "frost" in results and "torch" in results:
        f, t = rep["systems"]["frost"]["summary"], rep["systems"]["torch"]["summary"]
        lf, lt = results["frost"]["loss"], results["torch"]["loss"]
        k = min(5, len(lf), len(lt))
        rep["headline"] = {
            "throughput_ratio_frost_over_torch": f["images_per_s"] / t["images_per_s"],
            "step_time_ratio_frost_over_torch": f["median_step_s"] / t["median_step_s"],
            # step 1 sees identical weights and data, so its losses agree to float rounding;
            # later steps drift apart as rounding differences are amplified by training
            "first_loss_rel_diff": abs(lf[0] - lt[0]) / max(abs(lt[0]), 1e-12),
            "loss_max_abs_diff_first_steps": max(abs(a - b) for a, b in zip(lf[:k], lt[:k])),
            "first_steps_compared": k}
    rep["goals"] = goals(rep)
    prof = results.get("frost", {}).get("profile")
    if prof:
        steps = rep["systems"]["frost"]["summary"]["measured_steps"]
        rep["profile"] = dict(prof, measured_steps=steps, ops=[
            dict(op, ms_per_step=op["total_ms"] / steps) for op in prof["ops"]])
    return rep


def goals(rep: dict) -> list[dict]:
    """The benchmark's throughput goals (GOALS) with the measured value and PASS/FAIL; `applies`
    is false when the run's batch or threads are not those the goal is stated for."""
    g = GOALS.get(rep["benchmark"])
    if not g or "frost" not in rep["systems"]:
        return []
    opts = rep["options"]
    applies = opts["batch"] in g["batches"] and opts["threads"] == g["threads"]
    where = (f"batch {' and '.join(map(str, g['batches']))}, {g['threads']} threads")
    ips = rep["systems"]["frost"]["summary"]["images_per_s"]
    out = [{"goal": f"Frost >= {g['images_per_s']:g} images/s ({where})", "value": ips,
            "target": g["images_per_s"], "passed": ips >= g["images_per_s"], "applies": applies}]
    h = rep.get("headline")
    if h:
        r = h["throughput_ratio_frost_over_torch"]
        out.append({"goal": f"Frost >= {g['ratio']:g}x PyTorch's images/s ({where})", "value": r,
                    "target": g["ratio"], "passed": r >= g["ratio"], "applies": applies})
    return out


def write(rep: dict, out: Path) -> None:
    """out/report.json and out/plot.png (atomic writes)."""
    write_atomic(out / "report.json", json.dumps(rep, indent=1, default=str))
    plot(rep, out / "plot.png")


def plot(rep: dict, path: Path) -> None:
    """Loss per step and images/s per step for each system (warm-up steps shaded)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    batch = rep["config"]["batch"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name, sysrep in rep["systems"].items():
        r = sysrep["raw"]
        xs = range(1, len(r["loss"]) + 1)
        ax1.plot(xs, r["loss"], label=name)
        ax2.plot(xs, [batch * r.get("ranks", 1) / s for s in r["step_s"]], label=name)
    warm = rep["config"]["warmup"]
    for ax in (ax1, ax2):
        if warm:
            ax.axvspan(0.5, warm + 0.5, color="0.9", label="warm-up")
        ax.set_xlabel("step")
        ax.legend()
    ax1.set_ylabel("training loss")
    ax2.set_ylabel("images/s")
    data = "synthetic data" if rep["data"]["synthetic"] else "CIFAR-10"
    fig.suptitle(f"{rep['benchmark']}, batch {batch}, {rep['environment']['threads']} threads, {data}")
    save_figure(fig, path)


def save_figure(fig, path: Path) -> None:
    """Write a matplotlib figure to path as PNG (atomically) and close it."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, path)


def print_table(rep: dict, out: Path) -> None:
    """The rich table of the statistics, the headline ratio and where the files are."""
    from rich.console import Console
    from rich.table import Table
    con = Console(width=None if sys.stdout.isatty() else 140)
    opts = rep["options"]
    t = Table(title=f"nsm bench {rep['benchmark']}: batch {opts['batch']}, "
                    f"{opts['threads']} threads, seed {opts['seed']}")
    cols = [("system", None), ("steps", "measured_steps"), ("median s/step", "median_step_s"),
            ("p10-p90 s", None), ("CPU s/step", "median_cpu_step_s"), ("images/s", "images_per_s"),
            ("data wait", "data_wait_fraction"),
            ("peak RSS MB", "peak_rss_mb"), ("final loss", "final_loss"), ("accuracy", "accuracy")]
    for c, _ in cols:
        t.add_column(c, justify="left" if c == "system" else "right")
    for name, s in rep["systems"].items():
        s = s["summary"]
        acc = "-" if s["accuracy"] is None else f"{100 * s['accuracy']:.2f}%"
        cpu = "-" if s.get("median_cpu_step_s") is None else f"{s['median_cpu_step_s']:.3f}"
        t.add_row(name, str(s["measured_steps"]), f"{s['median_step_s']:.3f}",
                  f"{s['p10_step_s']:.3f}-{s['p90_step_s']:.3f}", cpu, f"{s['images_per_s']:.1f}",
                  f"{100 * s['data_wait_fraction']:.1f}%", f"{s['peak_rss_mb']:.0f}",
                  f"{s['final_loss']:.4f}", acc)
    con.print(t)
    h = rep.get("headline")
    if h:
        con.print(f"[bold]Frost/PyTorch throughput: {h['throughput_ratio_frost_over_torch']:.2f}x[/bold]"
                  f"  (first-step loss relative difference {h['first_loss_rel_diff']:.1e}; "
                  f"largest over the first {h['first_steps_compared']} steps "
                  f"{h['loss_max_abs_diff_first_steps']:.2e})")
    for g in rep.get("goals", []):
        verdict = "[green]PASS[/green]" if g["passed"] else "[red]FAIL[/red]"
        note = "" if g["applies"] else "  (not the goal's batch/threads: indicative only)"
        con.print(f"goal: {g['goal']}: {g['value']:.2f} {verdict}{note}")
    from .scaling import line
    if line(rep):
        con.print(line(rep))
    for g in rep.get("memory_goals", []):
        con.print(memory_goals.text(g, rep["benchmark"]))
    print_profile(con, rep)
    con.print(f"data: {rep['data']['description']}")
    con.print(f"device: {rep['device']['note']}")
    con.print(f"report: {out / 'report.json'}  plot: {out / 'plot.png'}")


def profile_per_step(prof: dict) -> str:
    """The ops' time per step: the median over the steps the driver marked (profile.step()),
    the statistic of the step times above, with the mean beside it; the mean alone, so
    labelled, from a profile without step marks."""
    if prof.get("steps"):
        return (f"median {prof['median_step_ms']:.0f} ms of ops per step over {prof['steps']} "
                f"steps (mean {prof['mean_step_ms']:.0f})")
    return f"mean {prof['total_ms'] / prof['measured_steps']:.0f} ms of ops per step"


def print_profile(con, rep: dict) -> None:
    """The top of Frost's per-op profile (FROST_PROFILE) over the measured steps."""
    prof = rep.get("profile")
    if not prof or not prof["ops"]:
        return
    from rich.table import Table
    steps = prof["measured_steps"]
    t = Table(title=f"Frost per-op profile: {profile_per_step(prof)} (own time; top "
                    f"{min(PROFILE_ROWS, len(prof['ops']))} of {len(prof['ops'])}; op rows: mean "
                    f"per step)")
    for c in ("op", "calls/step", "ms/step", "%", "incl ms/step", "GFLOP/s"):
        t.add_column(c, justify="left" if c == "op" else "right")
    for op in prof["ops"][:PROFILE_ROWS]:
        gf = f"{op['gflop_per_s']:.1f}" if op["gflop"] > 0 else "-"
        t.add_row(op["op"], f"{op['calls'] / steps:g}", f"{op['ms_per_step']:.1f}",
                  f"{op['percent']:.1f}", f"{op['inclusive_ms'] / steps:.1f}", gf)
    con.print(t)
